#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Races: configuration, qdisc replacement, port deletion, netns deletion
# and module unload, each while storms come and go.  Every case ends by
# checking that pfc_en is back to what it was and that nothing is left; the
# library fails any case after which the kernel log shows a warning.

. "$(dirname "$0")/lib.sh"

DBG=$PFCWD_DBG
RACE_SECONDS=${RACE_SECONDS:-6}

# Runs "$@" in a loop in the background until $RACE_SECONDS have passed,
# or, where the case sets RACE_LIMIT, until $RACE_STOP exists (at most
# $RACE_LIMIT seconds).
RACE_STOP=/tmp/pfcwd-race-stop.$$
loop_bg() {
	(
		end=$((SECONDS + ${RACE_LIMIT:-$RACE_SECONDS}))
		while [ $SECONDS -lt $end ] && [ ! -e $RACE_STOP ]; do
			"$@" >/dev/null 2>&1
		done
	) &
}

# Priorities of DEV in a storm now (stormed, or latched: mitigated until
# restored by hand), as pfcwd's debugfs shows them.
stormed_now() {
	awk -v d="$1" '$1 == d && $2 == "prio" && $0 ~ / state (stormed|latched) / { n++ } END { print n + 0 }' $DBG
}

# A race proves something only if it raced: the teardowns that came while
# a priority was stormed are counted (one line each) in this file.
RACE_HITS=/tmp/pfcwd-race-hits.$$
mid_storm_hit() {
	[ "$(stormed_now "$1")" -gt 0 ] && echo "$1" >> $RACE_HITS
	return 0
}

# Fails unless at least one teardown came mid-storm; logs how many did.
expect_raced() {
	local n

	n=$(cat $RACE_HITS 2>/dev/null | wc -l)
	rm -f $RACE_HITS
	log "$1 while a priority was stormed: $n"
	[ "$n" -gt 0 ] || fail "no $1 came while a priority was stormed: the race did not race"
}

# Storms on and off on DEV's priorities 3 and 4.
storm_flip() {
	local d=$PFCSIM_DFS/$1 lists=("3" "4" "3,4" "")

	echo "${lists[RANDOM % 4]}" > "$d/rx_storm"
	sleep 0.0$((RANDOM % 9 + 1))
}

random_knob() {
	local s=/sys/class/net/$1/pfcwd

	case $((RANDOM % 7)) in
	0) echo $((RANDOM % 50 + 1)) > $s/detection_time_ms ;;
	1) echo $((RANDOM % 50 + 1)) > $s/restoration_time_ms ;;
	2) echo "$(shuf -n1 -e drop forward alert)" > $s/action ;;
	3) echo "$(shuf -n1 -e 3 4 3,4 "" 0-7)" > $s/priorities ;;
	4) echo $((RANDOM % 2)) > $s/enabled ;;
	5) echo $((RANDOM % 4)) > $s/storm_limit ;;
	6) echo 3,4 > $s/restore ;;
	esac
}

read_all() {
	cat /sys/class/net/"$1"/pfcwd/* $DBG /sys/kernel/debug/pfcwd/poll
}

# Brings DEV back to a quiet, watched, restored state.
settle() {
	local s=/sys/class/net/$1/pfcwd

	echo > "$PFCSIM_DFS/$1/rx_storm"
	echo 1 > $s/enabled
	echo 3,4 > $s/priorities
	echo 20 > $s/restoration_time_ms
	echo 3,4 > $s/restore
	sleep 0.5
	echo 3,4 > $s/restore
}

# Storms DEV's priorities have been detected in, as debugfs counts them.
detected_total() {
	awk -v d="$1" '$1 == d && $2 == "prio" { for (i = 4; i < NF; i += 2) if ($i == "detected") s += $(i + 1) } END { print s + 0 }' $DBG
}

# The knobs disable, unwatch and retime the priorities at random, so how
# soon a storm outlasts T0 varies.  race_until_detected DEV FROM UNTIL:
# race until second FROM, then on until DEV's first detection, not past UNTIL.
race_until_detected() {
	while [ $SECONDS -lt "$2" ]; do
		sleep 0.5
	done
	while [ $SECONDS -lt "$3" ] && [ "$(detected_total "$1")" -eq 0 ]; do
		sleep 0.5
	done
}

test_concurrent_config() {
	reset_all pfrace
	rm -f $RACE_HITS
	pfcsim_new rc0
	tc qdisc add dev rc0 root pfcwd || fail "qdisc"
	rm -f $RACE_STOP
	RACE_LIMIT=$((4 * RACE_SECONDS))
	local start=$SECONDS
	loop_bg storm_flip rc0
	loop_bg random_knob rc0
	loop_bg random_knob rc0
	loop_bg read_all rc0
	race_until_detected rc0 $((start + RACE_SECONDS)) $((start + RACE_LIMIT))
	local raced=$((SECONDS - start))
	touch $RACE_STOP
	wait
	rm -f $RACE_STOP
	unset RACE_LIMIT
	n=$(detected_total rc0)
	log "storms detected during the race: $n; stopped after $raced s"
	[ "$n" -gt 0 ] || fail "no storm was detected: the race did not race"
	settle rc0
	expect_eq "$(cat /sys/class/net/rc0/pfcwd/stormed)" "" "stormed after settling"
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en after the race"
	tc qdisc del dev rc0 root
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en after qdisc delete"
}

qdisc_flip() {
	mid_storm_hit "$1"
	case $((RANDOM % 3)) in
	0) tc qdisc replace dev "$1" root handle 1: pfcwd ;;
	1) tc qdisc replace dev "$1" root handle 2: pfifo_fast ;;
	2) tc qdisc del dev "$1" root ;;
	esac
}

test_qdisc_replace() {
	reset_all pfrace
	rm -f $RACE_HITS
	pfcsim_new rc0
	echo 10 > /sys/module/pfcwd/parameters/detection_time_ms
	loop_bg storm_flip rc0
	loop_bg qdisc_flip rc0
	loop_bg read_all rc0
	wait
	# On a slow (debug) kernel a pfcwd qdisc may not outlive the flips
	# long enough to see a storm: if no change came mid-storm, storm
	# priority 3 steadily and flip on alone, up to twice as long again,
	# giving each new pfcwd qdisc up to half a second to detect it.
	local end=$((SECONDS + 2 * RACE_SECONDS))
	[ -s $RACE_HITS ] || echo 3 > $PFCSIM_DFS/rc0/rx_storm
	while [ ! -s $RACE_HITS ] && [ $SECONDS -lt $end ]; do
		tc qdisc replace dev rc0 root handle 1: pfcwd
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ "$(stormed_now rc0)" -gt 0 ] && break
			sleep 0.05
		done
		qdisc_flip rc0 >/dev/null 2>&1
	done
	expect_raced "qdisc changes"
	echo 200 > /sys/module/pfcwd/parameters/detection_time_ms
	echo > $PFCSIM_DFS/rc0/rx_storm
	tc qdisc del dev rc0 root 2>/dev/null
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en with no pfcwd qdisc left"
	grep -q "^rc0 " $DBG && fail "port left without a qdisc"
	return 0
}

port_flip() {
	if [ -e /sys/class/net/rc1 ]; then
		mid_storm_hit rc1
		echo rc1 > $PFCSIM_DFS/del_port
	else
		echo rc1 > $PFCSIM_DFS/new_port && ip link set rc1 up &&
			tc qdisc add dev rc1 root pfcwd &&
			echo 10 > /sys/class/net/rc1/pfcwd/detection_time_ms &&
			echo 3 > $PFCSIM_DFS/rc1/rx_storm || return
		# Up to half a second for the storm, so that the delete comes
		# mid-storm on a slow (debug) kernel too, not always before.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ "$(stormed_now rc1)" -gt 0 ] && break
			sleep 0.05
		done
	fi
}

test_port_delete() {
	reset_all pfrace
	rm -f $RACE_HITS
	pfcsim_new rc0
	tc qdisc add dev rc0 root pfcwd || fail "qdisc"
	echo 10 > /sys/class/net/rc0/pfcwd/detection_time_ms
	loop_bg storm_flip rc0
	loop_bg port_flip
	loop_bg read_all rc1
	loop_bg random_knob rc1
	wait
	# The knob loop can keep rc1 out of a storm (priorities without 3,
	# enabled 0) for all of a slow run's few flips: if no deletion came
	# mid-storm, flip on alone, up to twice as long again, until one has.
	local end=$((SECONDS + 2 * RACE_SECONDS))
	while [ ! -s $RACE_HITS ] && [ $SECONDS -lt $end ]; do
		port_flip >/dev/null 2>&1
	done
	expect_raced "port deletions"
	settle rc0
	expect_eq "$(pfc_on rc0)" "3 4" "the other port's pfc_en"
	[ -e /sys/class/net/rc1 ] && echo rc1 > $PFCSIM_DFS/del_port
	grep -q "^rc1 " $DBG && fail "deleted port still watched"
	return 0
}

test_netns_delete() {
	reset_all pfrace
	rm -f $RACE_HITS
	for i in 1 2 3 4 5; do
		pfcsim_new rc0
		ip netns add pfrace || fail "netns"
		ip link set rc0 netns pfrace || fail "move"
		ip netns exec pfrace ip link set rc0 up
		ip netns exec pfrace tc qdisc add dev rc0 root pfcwd || fail "qdisc in netns"
		ip netns exec pfrace sh -c "echo 50 > /sys/class/net/rc0/pfcwd/detection_time_ms" ||
			fail "T0 in netns"
		echo 5 > $PFCSIM_DFS/rc0/rx_storm
		echo 3 > $PFCSIM_DFS/rc0/rx_storm
		wait_stat rc0 3 state stormed 10
		mid_storm_hit rc0
		ip netns del pfrace
		# The device comes back to init_net without its qdisc.
		wait_dev rc0 5
		expect_eq "$(pfc_on rc0)" "3 4" "pfc_en after netns delete $i"
		grep -q "^rc0 " $DBG && fail "port survived netns delete"
		echo rc0 > $PFCSIM_DFS/del_port
	done
	expect_raced "netns deletions"
}

test_module_unload() {
	local rounds=5

	# A round (a load, 8 ports, an unload) costs the debug kernel one to
	# three minutes under TCG: one round there, 8 teardowns mid-storm.
	on_debug_kernel && rounds=1
	reset_all pfrace
	rm -f $RACE_HITS
	for i in $(seq 0 7); do pfcsim_new "rc$i"; done
	for round in $(seq 1 $rounds); do
		load_mod pfcwd
		for i in $(seq 0 7); do
			echo 10 > /sys/module/pfcwd/parameters/detection_time_ms
			tc qdisc add dev "rc$i" root pfcwd || fail "qdisc rc$i"
			echo 3,4 > "$PFCSIM_DFS/rc$i/rx_storm"
		done
		sleep 0.$((RANDOM % 3 + 1))
		for i in $(seq 0 7); do mid_storm_hit "rc$i"; done
		for i in $(seq 0 7); do tc qdisc del dev "rc$i" root; done
		modprobe -r pfcwd || fail "unload, round $round"
		for i in $(seq 0 7); do
			expect_eq "$(pfc_on "rc$i")" "3 4" "rc$i pfc_en after round $round"
			echo > "$PFCSIM_DFS/rc$i/rx_storm"
		done
	done
	expect_raced "port teardowns before an unload"
}

# A poll asked for (an enable, a link-up) while the poller is busy with the
# port is not lost.  debugfs poll_delay_us holds the poller where it found
# the port disabled (or its link down) and is about to leave it unscheduled;
# the enable (the link-up) comes in that window; then a storm must be seen.
poll_delays() { awk '{ for (i = 1; i < NF; i += 2) if ($i == "delays") print $(i + 1) }' \
	/sys/kernel/debug/pfcwd/poll; }
poll_passes() { awk '{ print $2 }' /sys/kernel/debug/pfcwd/poll; }

test_poll_request() {
	local s=/sys/class/net/rc0/pfcwd delay=/sys/kernel/debug/pfcwd/poll_delay_us
	local how d0 p0 i hold=2

	# The window must outlast the three reads and the request below: on
	# the debug kernel's 1-vCPU half they took over 2 s (2026-11-27).
	on_debug_kernel && hold=5
	reset_all pfrace
	rm -f $RACE_HITS
	pfcsim_new rc0
	tc qdisc add dev rc0 root pfcwd || fail "qdisc"
	echo 50 > $s/detection_time_ms
	for how in enable link; do
		d0=$(poll_delays)
		echo $((hold * 1000000)) > $delay
		if [ $how = enable ]; then
			echo 0 > $s/enabled
		else
			ip link set rc0 down
		fi
		# The poller takes the port at once (kicked): wait until it sits
		# in the delay, then ask for a poll.
		for ((i = 0; i < 300; i++)); do
			[ "$(poll_delays)" != "$d0" ] && break
			sleep 0.01
		done
		[ "$(poll_delays)" != "$d0" ] || fail "$how: the poller never reached the delay"
		p0=$(poll_passes)
		if [ $how = enable ]; then
			echo 1 > $s/enabled
		else
			ip link set rc0 up
		fi
		# The pass that holds the port had not ended: the request raced it.
		[ "$(poll_passes)" = "$p0" ] || fail "$how: the poller's pass ended first (no race)"
		log "$how: asked for while the poller held the port"
		echo 0 > $delay
		sleep $hold.2
		echo 3 > "$PFCSIM_DFS/rc0/rx_storm"
		wait_stat rc0 3 state stormed 3
		echo > "$PFCSIM_DFS/rc0/rx_storm"
		wait_stat rc0 3 state operational 3
	done
	tc qdisc del dev rc0 root
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en after the race"
}

# Stale events.  debugfs apply_delay_us holds the poller between deciding
# that a pass starts a mitigation and carrying it out (poll.c); an
# operator's change comes in that window, and afterwards nothing may be
# left mitigated without a storm.
APPLY_DELAY=/sys/kernel/debug/pfcwd/apply_delay_us

# Sets $1 and $2 to the apply_delay_us windows begun and ended.
apply_windows_v() {
	local _l _f _i

	mapfile -t _l < /sys/kernel/debug/pfcwd/poll
	read -r -a _f <<< "${_l[0]}"
	for ((_i = 0; _i < ${#_f[@]} - 1; _i += 2)); do
		case ${_f[_i]} in
		apply_delays) printf -v "$1" %s "${_f[_i + 1]}" ;;
		apply_delays_done) printf -v "$2" %s "${_f[_i + 1]}" ;;
		esac
	done
}

now_us() { printf -v "$1" %s "${EPOCHREALTIME//[!0-9]/}"; }

# Nothing of priority 3 of rc0 is mitigated, its storm over ($1 says
# after what): its machine is operational, pfc_en has 3 and 4 back,
# stormed is empty, no ingress hook is left and the qdisc passes the
# priority's frames without a drop.
expect_not_mitigated() {
	local what=$1 s=/sys/class/net/rc0/pfcwd t end v d0 d1

	wait_stat rc0 3 state operational 3
	# A put-back waits at most one write gap (100 ms, action.c) after the
	# pass that restores; 2 s leaves room for emulation.
	now_us t
	end=$((t + 2000000))
	while [ "$(pfc_on rc0)" != "3 4" ] && [ "$t" -lt $end ]; do
		sleep 0.1
		now_us t
	done
	expect_eq "$(pfc_on rc0)" "3 4" "$what: pfc_en"
	expect_eq "$(readf $s/stormed)" "" "$what: stormed"
	portstat_v v rc0 ingress_hook
	expect_eq "$v" 0 "$what: ingress hook registered"
	read -r _ d0 _ <<< "$(class_stats rc0 1:4)"
	expect_eq "$("$PFCWD_PKT" send rc0 3 10)" 10 "$what: prio 3 frames accepted"
	read -r _ d1 _ <<< "$(class_stats rc0 1:4)"
	expect_eq "$d1" "$d0" "$what: prio 3 frames dropped by the qdisc"
}

# One round: priority 3 storms; once the poller is in its window (held
# $2 us between deciding the detection and carrying it out), operator
# change $1 comes; then the storm ends and the operator puts the
# configuration back.  STALE_HITS counts the changes begun inside the
# window, STALE_INSIDE those that also completed inside it.
stale_round() {
	local op=$1 hold=$2 s=/sys/class/net/rc0/pfcwd
	local b0 b e t tprev tw i begun=no inside=no

	apply_windows_v b0 e
	[ "$b0" = "$e" ] || fail "$op: a window is still open"
	echo "$hold" > $APPLY_DELAY
	now_us tprev
	echo 3 > $PFCSIM_DFS/rc0/rx_storm
	for ((i = 0; i < 500; i++)); do
		now_us t
		apply_windows_v b e
		[ "$b" != "$b0" ] && break
		tprev=$t
		sleep 0.01
	done
	[ "$b" != "$b0" ] || fail "$op: no detection within 5 s"
	sleep 0.0$((RANDOM % 9))
	now_us tw
	# It opened after tprev and lasts at least $hold us.
	[ "$e" = "$b0" ] && [ $((tw - tprev)) -lt $((hold / 2)) ] && begun=yes
	case $op in
	disable) echo 0 > $s/enabled ;;
	unwatch) echo 4 > $s/priorities ;;
	restore) echo 3 > $s/restore ;;
	esac
	apply_windows_v b e
	[ "$e" = "$b0" ] && inside=yes
	[ $begun = yes ] && STALE_HITS=$((STALE_HITS + 1))
	[ $inside = yes ] && STALE_INSIDE=$((STALE_INSIDE + 1))
	log "$op, round $3: begun in the poller's window: $begun, completed in it: $inside"
	echo > $PFCSIM_DFS/rc0/rx_storm
	echo 0 > $APPLY_DELAY
	for ((i = 0; i < 500; i++)); do
		apply_windows_v b e
		[ "$e" = "$b" ] && break
		sleep 0.01
	done
	[ "$e" = "$b" ] || fail "$op: the poller's window did not close"
	echo 1 > $s/enabled
	echo 3,4 > $s/priorities
	expect_not_mitigated "$op, round $3"
}

# Operator change $1 in the poller's decision-to-action window, 3 rounds.
stale_events() {
	local op=$1 s=/sys/class/net/rc0/pfcwd hold=1000000 r

	# A change may wait the window out (poll.c acts under RTNL and
	# port->lock); on the debug kernel it and the checks run slower.
	on_debug_kernel && hold=3000000
	reset_all pfrace
	pfcsim_new rc0
	tc qdisc add dev rc0 root handle 1: pfcwd || fail "qdisc"
	echo 50 > $s/detection_time_ms
	echo 20 > $s/restoration_time_ms
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en before"
	STALE_HITS=0 STALE_INSIDE=0
	for r in 1 2 3; do
		stale_round "$op" $hold $r
	done
	log "$op: $STALE_HITS of 3 begun in the poller's window, $STALE_INSIDE completed in it"
	[ "$STALE_HITS" -gt 0 ] || fail "$op: no change came in the poller's window: the race did not race"
	# The actions' guard (action.c) saw no stale event: none was made.
	klog | grep "not acted on" && fail "$op: a stale event reached the actions"
	tc qdisc del dev rc0 root
	expect_eq "$(pfc_on rc0)" "3 4" "pfc_en after qdisc delete"
}

test_stale_disable() { stale_events disable; }
test_stale_unwatch() { stale_events unwatch; }
test_stale_restore() { stale_events restore; }

TESTS=(
	"test_concurrent_config	race: concurrent sysfs writes and reads during storms"
	"test_qdisc_replace	race: qdisc replaced and deleted during storms"
	"test_port_delete	race: ports created and deleted during storms and sysfs access"
	"test_netns_delete	race: netns deleted with a stormed port inside"
	"test_module_unload	race: module unloaded right after storms on 8 ports"
	"test_poll_request	race: an enable or a link-up while the poller holds the port is not lost"
	"test_stale_disable	race: enabled 0 between a detection and its action leaves nothing mitigated"
	"test_stale_unwatch	race: unwatching between a detection and its action leaves nothing mitigated"
	"test_stale_restore	race: a restore by hand between a detection and its action leaves nothing mitigated"
)

tap_main "$@"
