#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TX queues that stop sending as a pause signal (pfcwd/txq_stall.c): on a
# pfcsim port with TX rings, a priority paused by the link partner fills
# its ring, the driver stops the queue, and the queue's last transmission
# (trans_start) says since when it cannot send - at any moment, for free.
# With traffic on the priority, a storm is detected T0 after its queues
# stopped whatever the driver's counters do: published every 1 or 2 s,
# refreshed only by a forced read, or absent.  Bounds come from the queue
# checks (profile_storms.py): T0 + quiet + busy + drain + margin.  A
# queue that stops for another reason (pfcsim tx_hang: a hung transmit
# engine, no pause frame) is refuted by counters that show no XOFF, and is
# all a driver without counters has to go on.  Checking the queues reads
# nothing from the driver.

. "$(dirname "$0")/lib.sh"

STORMS=$SELFTEST_DIR/profile_storms.py
RES=$PFCWD_RESULTS/stall-$(uname -r)
RINGS=tx_ring=64,link_mbps=100

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

simget() { readf "$PFCSIM_DFS/$1/$2"; }

# pktgen sends priority 3 on each DEV "$@" (tagged, PCP 3), every 1000 ns.
pg_flow3() {
	local d e c

	modprobe pktgen || skip "no pktgen in this kernel"
	for d in "$@"; do
		e=$d@3
		pgset $PG/kpktgend_0 "add_device $e"
		for c in "count 0" "pkt_size 1000" "delay 1000" "clone_skb 0" \
			 "skb_priority 3" "vlan_id 0" "vlan_p 3" \
			 "dst 198.51.100.2" "dst_mac 02:00:00:00:00:02" \
			 "xmit_mode queue_xmit"; do
			pgset $PG/"$e" "$c"
		done
	done
	# Not on the case's output: a case that fails with pktgen running
	# must not keep its output open (the runner waits for it to close).
	(echo start > $PG/pgctrl) > /dev/null 2>&1 &
	PG_PID=$!
	trap pg_stop EXIT
	sleep 0.3
}

pg_stop() { echo stop > $PG/pgctrl 2>/dev/null; }

pg_done() {
	pg_stop
	wait "$PG_PID" 2>/dev/null
	pgset $PG/kpktgend_0 rem_device_all
}

# A pfcsim port $1 with profile $2 and the knobs "$3" (k=v,...), a pfcwd
# qdisc with T0 = T1 = 200 ms.
port() {
	local kv

	pfcsim_new "$1"
	sim "$1" profile "$2"
	for kv in ${3//,/ }; do
		sim "$1" "${kv%%=*}" "${kv#*=}"
	done
	tc qdisc add dev "$1" root pfcwd || fail "tc qdisc add on $1"
}

test_no_counters_traffic() {
	reset_all
	mkdir -p "$RES"
	python3 -S "$STORMS" --storms 3 --storm-ms 2000 --gap-ms 1500 \
		--bursts 4 --burst-ms 80 --burst-gap-ms 400 \
		--json "$RES/no_counters.json" \
		"sq=qede,$RINGS,traffic" || fail "storms seen by the queues alone out of bounds"
	expect_eq "$(portstat sq counters)/$(portstat sq stall_prios)" 0/3,4 \
		"no counters; the queues of 3 and 4 watched"
	expect_eq "$(portstat sq device_pfc)" 0 "auto keeps pfc_en (the queues would drain)"
}

test_counters_traffic() {
	reset_all
	mkdir -p "$RES"
	# Published every 1 s (bnxt, in the table) and 2 s (learnt: at 10
	# Gb/s, where a 2 s gap is many hold times), and refreshed only by a
	# forced read (mlx5): detection from the queues, restoration from the
	# counters.
	python3 -S "$STORMS" --storms 3 --storm-ms 3000 --gap-ms 3000 \
		--json "$RES/counters.json" \
		"pb=bnxt,$RINGS,traffic" "pl=ideal,stats_period_ms=2000,tx_ring=64,link_mbps=10000,traffic" \
		"pm=mlx5,$RINGS,traffic" || fail "storms with traffic out of bounds"
}

# A queue stopped for another reason (a hung transmit engine): counters
# that show no XOFF refute it; without counters it is all there is.
test_hang() {
	reset_all
	# 10 Gb/s: the hold time (one XOFF's quanta) is 3.4 ms, so live
	# counters can refute a stall well within T0.
	port hi ideal tx_ring=64,link_mbps=10000
	port hq qede tx_ring=64,link_mbps=10000
	# hi's T0 is 1 s: a burst well short of it even when pktgen's
	# threads make the shell slow, and a stall not refuted is seen by
	# the check at 1.5 s.
	echo 1000 > /sys/class/net/hi/pfcwd/detection_time_ms ||
		fail "detection_time_ms on hi"
	pg_flow3 hi hq
	# A burst shorter than T0 shows pfcwd that hi's counters are live.
	sim hi rx_storm 3
	sleep 0.1
	sim hi rx_storm ""
	sleep 0.3
	expect_eq "$(pstat hi 3 detected)" 0 "the burst is no storm"
	sim hi tx_hang 3
	sim hq tx_hang 3
	sleep 1.5
	expect_eq "$(pstat hi 3 detected)/$(pstat hi 3 state)" 0/operational \
		"live counters without XOFF refute the stall"
	expect_eq "$(pstat hi 3 stalls_refuted)" 1 "the stall seen, and refuted once"
	expect_eq "$(pstat hq 3 detected)/$(pstat hq 3 state)" 1/stormed \
		"without counters the stall is the storm"
	sim hi tx_hang ""
	sim hq tx_hang ""
	wait_stat hq 3 state operational 3
	pg_done
}

# Checking the queues reads nothing from the driver: a quiet bnxt port is
# read once per publication (1 s) with its queues watched every 4 ms.
test_check_cost() {
	reset_all
	port cb bnxt "$RINGS"
	sleep 1.2
	expect_eq "$(portstat cb stall_prios)" 3,4 "the queues of 3 and 4 watched"
	b0=$(simget cb getpfc_calls)
	p0=$(awk '{ print $4 }' /sys/kernel/debug/pfcwd/poll)
	sleep 3
	b=$(($(simget cb getpfc_calls) - b0))
	p=$(($(awk '{ print $4 }' /sys/kernel/debug/pfcwd/poll) - p0))
	log "in 3 s: $b driver reads, $p polls of the port"
	[ "$b" -ge 2 ] && [ "$b" -le 5 ] || fail "bnxt port read $b times in 3 s (1 s period)"
	[ "$p" -ge 300 ] || fail "only $p polls in 3 s: the queues are not checked every 4 ms"
}

# A saturated link stops and wakes its queues all the time: not a stall,
# and not a reason to read faster.
test_saturated() {
	reset_all
	port si ideal "$RINGS"
	pg_flow3 si
	r0=$(simget si getpfc_calls)
	sleep 3
	r=$(($(simget si getpfc_calls) - r0))
	depth=$(simget si tx_ring_depth | awk '{ print $4 }')
	pg_done
	log "saturated for 3 s: ring of class 3 at $depth, $r reads"
	expect_eq "$(pstat si 3 detected)" 0 "no storm"
	# Quiet: every 4 ms (750 in 3 s); busy would be every 1 ms.
	[ "$r" -le 1200 ] || fail "$r reads in 3 s: the port went busy"
}

TESTS=(
	"test_no_counters_traffic	stall: no counters (qede): storms seen by the queues alone, in bounds, bursts not	120"
	"test_counters_traffic	stall: published (1 s, 2 s learnt) and forced counters: detection from the queues in bounds	150"
	"test_hang	stall: a hung queue is refuted by live counters, a storm without counters"
	"test_check_cost	stall: checking the queues reads nothing from the driver"
	"test_saturated	stall: a saturated link is not a stall and reads stay quiet"
)

tap_main "$@"
