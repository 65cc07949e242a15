#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The qdisc's side of a storm on pfcsim: a paused priority does not hold
# up the others, "drop" empties and drops the stormed band and counts it,
# "forward" lets it through and counts it, restoration makes it lossless.

. "$(dirname "$0")/lib.sh"

# Waits until "$@" prints the value $1 (at most 3 s).
wait_eq() {
	local want=$1 i
	shift

	for ((i = 0; i < 300; i++)); do
		[ "$("$@")" = "$want" ] && return 0
		sleep 0.01
	done
	fail "$* is '$("$@")', wanted '$want'"
}

send() { "$PFCWD_PKT" send "$@" || fail "pfcwd-pkt send $*"; }

setup() {
	reset_all
	pfcsim_new dp0
	tc qdisc add dev dp0 root handle 1: pfcwd || fail "qdisc"
}

test_no_head_of_line() {
	setup
	echo 60000 > /sys/class/net/dp0/pfcwd/detection_time_ms
	echo 3 > $PFCSIM_DFS/dp0/rx_storm
	expect_eq "$(send dp0 3 40)" 40 "prio 3 frames queued"
	expect_eq "$(send dp0 0 100)" 100 "prio 0 frames accepted"
	wait_eq 100 ethtool_stat dp0 tx_prio0_packets
	expect_eq "$(ethtool_stat dp0 tx_prio3_packets)" 0 "prio 3 sent while paused"
	read -r _ _ bl <<< "$(class_stats dp0 1:4)"
	expect_eq "$bl" 40 "band 3 backlog while paused"
	echo > $PFCSIM_DFS/dp0/rx_storm
	wait_eq 40 ethtool_stat dp0 tx_prio3_packets
	expect_eq "$(class_stats dp0 1:4)" "40 0 0" "band 3 after the pause"
}

test_drop() {
	setup
	# Queue while the storm cannot be detected yet, however slow the VM.
	echo 60000 > /sys/class/net/dp0/pfcwd/detection_time_ms
	echo 3 > $PFCSIM_DFS/dp0/rx_storm
	expect_eq "$(send dp0 3 40)" 40 "prio 3 frames queued before detection"
	echo 100 > /sys/class/net/dp0/pfcwd/detection_time_ms
	wait_stat dp0 3 state stormed 3
	# Mitigation wakes the queue; the band is emptied into the drop count.
	wait_eq 40 pstat dp0 3 tx_dropped
	expect_eq "$(send dp0 3 25)" 0 "prio 3 frames accepted while stormed"
	expect_eq "$(send dp0 0 50)" 50 "prio 0 frames accepted while stormed"
	wait_eq 50 ethtool_stat dp0 tx_prio0_packets
	expect_eq "$(pstat dp0 3 tx_dropped)" 65 "watchdog drops"
	expect_eq "$(ethtool_stat dp0 tx_prio3_packets)" 0 "prio 3 delivered"
	read -r sent drop bl <<< "$(class_stats dp0 1:4)"
	expect_eq "$sent/$drop/$bl" "0/65/0" "band 3: sent 65 = delivered 0 + dropped 65"
	echo > $PFCSIM_DFS/dp0/rx_storm
	wait_stat dp0 3 state operational 3
	dmesg | grep -q "pfcwd: dp0 prio 3: PFC storm restored after [0-9]* ms (tx dropped 65, rx dropped 0)" ||
		fail "restoration log with the drop count"
	expect_eq "$(send dp0 3 10)" 10 "prio 3 after restoration"
	wait_eq 10 ethtool_stat dp0 tx_prio3_packets
	expect_eq "$(pstat dp0 3 tx_dropped)" 65 "no drop after restoration"
}

test_forward() {
	setup
	echo forward > /sys/class/net/dp0/pfcwd/action
	echo 60000 > /sys/class/net/dp0/pfcwd/detection_time_ms
	echo 3 > $PFCSIM_DFS/dp0/rx_storm
	expect_eq "$(send dp0 3 30)" 30 "prio 3 frames queued before detection"
	echo 100 > /sys/class/net/dp0/pfcwd/detection_time_ms
	wait_stat dp0 3 state stormed 3
	# PFC is off for priority 3: the queue runs, the band drains.
	wait_eq 30 ethtool_stat dp0 tx_prio3_packets
	expect_eq "$(send dp0 3 20)" 20 "prio 3 frames accepted while stormed"
	wait_eq 50 ethtool_stat dp0 tx_prio3_packets
	expect_eq "$(pstat dp0 3 tx_forwarded)/$(pstat dp0 3 tx_dropped)" 50/0 "forwarded/dropped"
	echo > $PFCSIM_DFS/dp0/rx_storm
	wait_stat dp0 3 state operational 3
	expect_eq "$(send dp0 3 5)" 5 "prio 3 after restoration"
	wait_eq 55 ethtool_stat dp0 tx_prio3_packets
	expect_eq "$(pstat dp0 3 tx_forwarded)" 50 "no forward count after restoration"
}

test_alert() {
	setup
	echo alert > /sys/class/net/dp0/pfcwd/action
	echo 100 > /sys/class/net/dp0/pfcwd/detection_time_ms
	echo 3 > $PFCSIM_DFS/dp0/rx_storm
	expect_eq "$(send dp0 3 10)" 10 "prio 3 frames queued"
	wait_stat dp0 3 state stormed 3
	sleep 0.2
	# Still paused (PFC still honoured): queued, neither dropped nor sent.
	expect_eq "$(class_stats dp0 1:4)" "0 0 10" "band 3 under alert"
	expect_eq "$(pstat dp0 3 tx_dropped)" 0 "alert drops nothing"
	echo > $PFCSIM_DFS/dp0/rx_storm
	wait_eq 10 ethtool_stat dp0 tx_prio3_packets
}

TESTS=(
	"test_no_head_of_line	datapath: a paused priority does not hold up the others"
	"test_drop	datapath: drop empties the band, drops new packets, counts them exactly"
	"test_forward	datapath: forward drains the band and counts what goes out"
	"test_alert	datapath: alert leaves the band paused and lossless"
)

tap_main "$@"
