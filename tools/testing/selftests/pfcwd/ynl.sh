#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family through the kernel's own client: ynl's cli.py
# (from Debian's linux-source-6.12, via scripts/ynl) driven by
# Documentation/netlink/specs/pfcwd.yaml against the live module.  Every
# operation and the events group, values checked against sysfs, dcb and
# the kernel's own counters, and bad requests refused with the kernel's
# extended ack.  The events group is read through the same ynl library by
# ynl_listen.py, which stops once the events came (cli.py sleeps a fixed
# time first).
#
# cli.py is slow to start under TCG (~1.5 s a run, ten more with the
# schema validation, which make unit does on the host:
# tools/testing/unit/ynl_spec_test.py): test_ynl_get runs it for
# --list-ops; every other request of a case goes through that case's one
# ynl_batch.py, which does what cli.py does with the same library.

. "$(dirname "$0")/lib.sh"

YNL=$PFCWD_TOP/scripts/ynl
YNL_SPEC=$PFCWD_TOP/Documentation/netlink/specs/pfcwd.yaml
export PFCWD_YNL_SCHEMA=0

knob() { readf "/sys/class/net/$1/pfcwd/$2"; }

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

# Each case's requests go through one ynl_batch.py (a request server, see
# there and lib.sh): cli.py's requests in cli.py's words, its output and
# exit status, without a second and a half of Python start per request.
# It starts once the case has loaded the modules (the family's id is
# looked up once) and ends with the case, when its input closes.
ynl_reset() {
	reset_all
	srv_start ynl python3 "$SELFTEST_DIR/ynl_batch.py" "$PFCWD_TOP/build/ynl" \
		"$YNL_SPEC" || fail "ynl_batch.py"
}

# ynl_call ARGS...: cli.py ARGS... --output-json, through the case's
# ynl_batch.py: prints the output, returns cli.py's exit status.
ynl_call() { srv_ask ynl "$@"; }

# ynl ARGS...: runs ynl with JSON output; prints it; fails the case if
# ynl fails.
ynl() {
	local out

	out=$(ynl_call "$@" 2>&1) || fail "ynl $* failed: $out"
	printf '%s\n' "$out"
}

# ynl_get DEV: port-get (do) by interface name.
ynl_get() {
	ynl --do port-get --json "{\"ifname\": \"$1\"}"
}

# ynl_set JSON: port-set; ynl prints null for a request with no reply.
ynl_set() {
	local out

	out=$(ynl --do port-set --json "$1") || fail "$out"
	expect_eq "$out" null "port-set $1 output"
}

# ynl_refused ERRNO MSG BAD ARGS...: ynl ARGS... must fail with errno
# ERRNO and the extack message MSG; BAD is the attribute the extack points
# at, "miss:NAME" for a missing attribute the extack names, or "" if none.
# ynl prints the extack as a Python dict.
ynl_refused() {
	local errno=$1 msg=$2 bad=$3 out rc

	shift 3
	out=$(ynl_call "$@" 2>&1)
	rc=$?
	log "ynl $*: $(printf '%s' "$out" | grep -E 'error:|extack:' | tr -d '\t' | tr '\n' ' ')"
	[ $rc = 1 ] || fail "ynl $*: exit $rc, expected 1: $out"
	printf '%s\n' "$out" | grep -qx $'\t'"error: -$errno" ||
		fail "ynl $*: not errno -$errno: $out"
	printf '%s\n' "$out" | grep -qF "'msg': '$msg'" ||
		fail "ynl $*: no extack message '$msg': $out"
	case $bad in
	"") ;;
	miss:*)
		printf '%s\n' "$out" | grep -qF "'miss-type': '${bad#miss:}'" ||
			fail "ynl $*: extack does not name the missing ${bad#miss:}: $out" ;;
	*)
		printf '%s\n' "$out" | grep -qF "'bad-attr': '.$bad'" ||
			fail "ynl $*: extack does not point at $bad: $out" ;;
	esac
}

# The bit mask of a sysfs priority list ("3,5" -> 40).
prio_mask() {
	local p m=0

	for p in ${1//,/ }; do
		m=$((m | 1 << p))
	done
	echo $m
}

# Everything sysfs shows of DEV's configuration, on one line.
sysfs_cfg() {
	local k

	for k in enabled detection_time_ms restoration_time_ms action priorities storm_limit stormed \
		 device_action; do
		printf '%s=%s ' $k "$(knob "$1" $k)"
	done
	echo
}

# jq over JSON $1 with filter $2, compact.
jqc() { printf '%s\n' "$1" | jq -c "$2"; }

# A port as port-get shows it, checked against sysfs and dcb.
check_port_vs_sysfs() {
	local dev=$1 j=$2 mask t1

	mask=$(prio_mask "$(knob "$dev" priorities)")
	expect_eq "$(jqc "$j" '[.ifindex, .ifname]')" \
		"[$(cat "/sys/class/net/$dev/ifindex"),\"$dev\"]" "$dev: ifindex, ifname"
	expect_eq "$(jqc "$j" '[.enabled, ."detect-ms", ."restore-ms", .action, .prios, ."storm-limit"]')" \
		"[$(knob "$dev" enabled),$(knob "$dev" detection_time_ms),$(knob "$dev" restoration_time_ms),\"$(knob "$dev" action)\",$mask,$(knob "$dev" storm_limit)]" \
		"$dev: enabled, detect, restore, action, prios, limit vs sysfs"
	expect_eq "$(jqc "$j" '.stormed')" "$(prio_mask "$(knob "$dev" stormed)")" "$dev: stormed vs sysfs"
	expect_eq "$(jqc "$j" '."warn-ms"')" "$(knob "$dev" warning_time_ms)" "$dev: warn-ms vs sysfs"
	expect_eq "$(jqc "$j" '[."rate-rx", ."rate-tx", ."rate-window-ms"]')" \
		"[$(knob "$dev" pause_rate_rx),$(knob "$dev" pause_rate_tx),$(knob "$dev" pause_rate_window_ms)]" \
		"$dev: rate-rx, rate-tx, rate-window-ms vs sysfs"
	expect_eq "$(jqc "$j" '.backoff')" "$(knob "$dev" restore_backoff)" "$dev: backoff vs sysfs"
	# Per priority: the restoration time in force, T1 unless backed off.
	t1=$(knob "$dev" restoration_time_ms)
	if [ "$(knob "$dev" restore_backoff)" = 0 ]; then
		expect_eq "$(jqc "$j" '[.prio[] | [."backoff-level", ."effective-restore-ms"]] | unique')" \
			"[[0,$t1]]" "$dev: backoff off: every priority at level 0, T1"
	else
		[ "$(jqc "$j" "[.prio[] | .\"effective-restore-ms\" >= $t1] | all")" = true ] ||
			fail "$dev: effective-restore-ms below T1: $j"
	fi
	expect_eq "$(jqc "$j" '."pfc-en"')" "$(prio_mask "$(pfc_on "$dev" | tr ' ' ,)")" "$dev: pfc-en vs dcb"
	expect_eq "$(jqc "$j" '[.prio[].prio]')" "[0,1,2,3,4,5,6,7]" "$dev: one prio nest per priority"
	local p bits=
	for p in 0 1 2 3 4 5 6 7; do
		bits="$bits,$((mask >> p & 1))"
	done
	expect_eq "$(jqc "$j" '[.prio[].watched]')" "[${bits#,}]" "$dev: watched = prios"
	[ "$(jqc "$j" '."granularity-us"')" -gt 0 ] || fail "$dev: no granularity"
	# The restoration bound: the granularity or more (published counters).
	[ "$(jqc "$j" '."restore-late-us" >= ."granularity-us"')" = true ] ||
		fail "$dev: restore-late-us below granularity-us: $j"
	expect_eq "$(jqc "$j" '[."device-action", .profile, ."refresh-ms"]')" \
		"[\"$(knob "$dev" device_action)\",\"$(knob "$dev" profile)\",$(knob "$dev" refresh_ms)]" \
		"$dev: device-action, profile, refresh-ms vs sysfs"
	[ "$(jqc "$j" '.reads')" -gt 0 ] || fail "$dev: no counter reads"
}

test_ynl_get() {
	ynl_reset
	pfcsim_new sw1
	pfcsim_new sw2
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	echo 150 > /sys/class/net/sw1/pfcwd/detection_time_ms || fail "sysfs"
	echo 3,4,6 > /sys/class/net/sw1/pfcwd/priorities || fail "sysfs"
	"$PFCWD_PKT" send sw1 6 5 >/dev/null || fail "send"
	# port-get shows the packet counters the poller last read (within a
	# second, plus its load margin).
	cli_wait sw1 6 tx_packets 5 2

	local ops dump j
	# "NAME  [ MODE, MODE ]" per operation, modes in no particular order.
	ops=$("$YNL" --list-ops) || fail "ynl --list-ops: $ops"
	expect_eq "$(echo "$ops" | tr -d '[],' | while read -r name modes; do
			echo "$name $(printf '%s\n' $modes | sort | paste -sd,)"
		done | sort | paste -sd';')" \
		"history-get dump;port-get do,dump;port-set do;prio-restore do;stats-clear do" \
		"operations ynl finds in the spec"

	dump=$(ynl --dump port-get)
	expect_eq "$(jqc "$dump" '[.[].ifname]')" '["sw1"]' "dump: the one port there is"
	j=$(jqc "$dump" '.[0]')
	check_port_vs_sysfs sw1 "$j"
	expect_eq "$(jqc "$j" '[."detect-ms", .qdiscs, .held, .source, .enabled]')" \
		'[150,1,0,"dcb",1]' "sw1: detect, one qdisc, not held, dcb source"
	# pfcsim's ideal device: auto takes a stormed priority out of pfc_en.
	expect_eq "$(jqc "$j" '[.lever, ."rdma-covered", .prio[3].lever, .prio[3]."rdma-covered"]')" \
		'["pfc-en",1,"pfc-en",1]' "sw1: drop under auto reaches RDMA through pfc_en"
	expect_eq "$(jqc "$j" '[.prio[].state] | unique')" '["operational"]' "all operational"
	expect_eq "$(jqc "$j" '.prio[6]."tx-packets"')" "$(ethtool_stat sw1 tx_prio6_packets)" \
		"tx-packets of prio 6 vs ethtool"
	[ "$(jqc "$j" '.prio[6]."tx-packets"')" -ge 5 ] || fail "the 5 packets sent on prio 6 not counted"

	# do, by name and by index: the same port.
	j=$(ynl_get sw1)
	check_port_vs_sysfs sw1 "$j"
	j=$(ynl --do port-get --json "{\"ifindex\": $(cat /sys/class/net/sw1/ifindex)}")
	check_port_vs_sysfs sw1 "$j"

	# Not a port, no such device.
	ynl_refused 19 "pfcwd: the device is not a pfcwd port" "" \
		--do port-get --json '{"ifname": "sw2"}'
	ynl_refused 19 "pfcwd: no device with this ifindex" ifindex \
		--do port-get --json '{"ifindex": 99999}'
}

test_ynl_set() {
	ynl_reset
	pfcsim_new sw1
	pfcsim_new sw2
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	local sw1_before j idx2
	sw1_before=$(sysfs_cfg sw1)
	idx2=$(cat /sys/class/net/sw2/ifindex)

	# enabled 1 makes sw2 a port, held by netlink, without a qdisc.
	[ -d /sys/class/net/sw2/pfcwd ] && fail "sw2 is a port already"
	ynl_set '{"ifname": "sw2", "enabled": 1}'
	[ -d /sys/class/net/sw2/pfcwd ] || fail "port-set enabled 1 made no port"

	# Every knob at once, device by index, action by name.
	ynl_set "{\"ifindex\": $idx2, \"detect-ms\": 150, \"restore-ms\": 250, \"action\": \"forward\", \"prios\": 40, \"storm-limit\": 2, \"device-action\": \"off\", \"warn-ms\": 149, \"backoff\": 1, \"rate-rx\": 7, \"rate-tx\": 8, \"rate-window-ms\": 900}"
	expect_eq "$(sysfs_cfg sw2)" \
		"enabled=1 detection_time_ms=150 restoration_time_ms=250 action=forward priorities=3,5 storm_limit=2 stormed= device_action=off " \
		"sysfs after port-set"
	expect_eq "$(knob sw2 warning_time_ms)/$(knob sw2 restore_backoff)" 149/1 \
		"sysfs warning time and backoff after port-set"
	j=$(ynl_get sw2)
	check_port_vs_sysfs sw2 "$j"
	expect_eq "$(jqc "$j" '[.backoff, .prio[3]."backoff-level", .prio[3]."effective-restore-ms"]')" \
		"[1,0,250]" "sw2 backoff on; prio 3 at level 0, T1"
	expect_eq "$(jqc "$j" '[.held, .qdiscs]')" "[1,0]" "sw2 held, no qdisc"
	expect_eq "$(jqc "$j" '[."device-action", ."device-pfc"]')" '["off",0]' "sw2 device-action off"
	expect_eq "$(jqc "$j" '[.lever, ."rdma-covered", .prio[3].lever, .prio[3]."rdma-covered"]')" \
		'["datapath",0,"datapath",0]' "sw2: device-action off leaves RDMA paused"
	ynl_set '{"ifname": "sw2", "device-action": 1}'
	expect_eq "$(knob sw2 device_action)" on "device-action 1 (on) by number"
	expect_eq "$(sysfs_cfg sw1)" "$sw1_before" "sw1 untouched"

	# Two knobs, action by number; sysfs changes show through ynl.
	ynl_set '{"ifname": "sw2", "action": 2, "backoff": 0}'
	expect_eq "$(knob sw2 action)/$(knob sw2 detection_time_ms)/$(knob sw2 restore_backoff)" \
		alert/150/0 "action 2 and backoff 0 alone"
	expect_eq "$(jqc "$(ynl_get sw2)" '[.lever, ."rdma-covered", .prio[5].lever]')" \
		'["none",0,"none"]' "sw2: action alert acts through nothing"
	echo 77 > /sys/class/net/sw2/pfcwd/restoration_time_ms || fail "sysfs"
	expect_eq "$(jqc "$(ynl_get sw2)" '[."restore-ms", .action, .backoff, .prio[3]."effective-restore-ms"]')" \
		'[77,"alert",0,77]' "sysfs change seen by port-get"

	# enabled 0: sw2 (held only) goes; sw1 (its qdisc holds it) stays,
	# not watching.
	ynl_set '{"ifname": "sw2", "enabled": 0}'
	[ -d /sys/class/net/sw2/pfcwd ] && fail "port-set enabled 0 left sw2 a port"
	ynl_set '{"ifname": "sw1", "enabled": 0}'
	expect_eq "$(knob sw1 enabled)" 0 "sw1 disabled"
	j=$(ynl --dump port-get)
	expect_eq "$(jqc "$j" '[.[] | [.ifname, .enabled, .qdiscs]]')" '[["sw1",0,1]]' \
		"dump: sw2 gone, sw1 kept by its qdisc, disabled"
	ynl_set '{"ifname": "sw1", "enabled": 1}'
	expect_eq "$(knob sw1 enabled)" 1 "sw1 enabled again"
}

test_ynl_bad() {
	ynl_reset
	pfcsim_new sw1
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	local before
	before=$(sysfs_cfg sw1)

	ynl_refused 34 "integer out of range" detect-ms \
		--do port-set --json '{"ifname": "sw1", "detect-ms": 0}'
	ynl_refused 34 "integer out of range" restore-ms \
		--do port-set --json '{"ifname": "sw1", "detect-ms": 100, "restore-ms": 60001}'
	ynl_refused 34 "integer out of range" action \
		--do port-set --json '{"ifname": "sw1", "action": 3}'
	ynl_refused 34 "integer out of range" storm-limit \
		--do port-set --json '{"ifname": "sw1", "storm-limit": 17}'
	ynl_refused 34 "integer out of range" device-action \
		--do port-set --json '{"ifname": "sw1", "device-action": 3}'
	ynl_refused 34 "integer out of range" device-action \
		--do port-set --json '{"ifname": "sw1", "detect-ms": 100, "device-action": 7}'
	ynl_refused 34 "integer out of range" warn-ms \
		--do port-set --json '{"ifname": "sw1", "warn-ms": 60000}'
	ynl_refused 34 "integer out of range" rate-window-ms \
		--do port-set --json '{"ifname": "sw1", "rate-window-ms": 99}'
	ynl_refused 34 "integer out of range" rate-rx \
		--do port-set --json '{"ifname": "sw1", "rate-rx": 100000001}'
	ynl_refused 34 "integer out of range" rate-tx \
		--do port-set --json '{"ifname": "sw1", "rate-rx": 5, "rate-tx": 100000001}'
	ynl_refused 22 "pfcwd: warning time must be below the detection time (T0), or 0 (off)" "" \
		--do port-set --json '{"ifname": "sw1", "warn-ms": 200}'
	ynl_refused 34 "integer out of range" backoff \
		--do port-set --json '{"ifname": "sw1", "backoff": 2}'
	ynl_refused 22 "pfcwd: nothing to change" "" \
		--do port-set --json '{"ifname": "sw1"}'
	ynl_refused 19 "pfcwd: no device with this ifname" ifname \
		--do port-set --json '{"ifname": "nosuchdev", "detect-ms": 100}'
	ynl_refused 22 "pfcwd: ifindex and ifname name different devices" ifname \
		--do port-set --json '{"ifindex": 1, "ifname": "sw1", "detect-ms": 100}'
	ynl_refused 22 "pfcwd: none of these priorities is stormed or latched" prios \
		--do prio-restore --json '{"ifname": "sw1", "prios": 8}'
	ynl_refused 22 "pfcwd: name the priorities to restore (prios)" miss:prios \
		--do prio-restore --json '{"ifname": "sw1"}'
	expect_eq "$(sysfs_cfg sw1)" "$before" "nothing changed by the refused requests"
	expect_eq "$(knob sw1 restore_backoff)" 0 "backoff unchanged by the refused requests"
}

# Per-priority policy over the family: "prio" nests in port-set set and
# drop overrides (defaults), port-get gives each override set, the mask
# and the values in force; bad nests refused, nothing changed.
test_ynl_prio_policy() {
	ynl_reset
	pfcsim_new sw1
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	local j before

	ynl_set '{"ifname": "sw1", "detect-ms": 300, "prio": [{"prio": 3, "detect-ms": 150, "restore-ms": 90, "policy-action": "forward"}, {"prio": 4, "warn-ms": 50}]}'
	j=$(ynl_get sw1)
	expect_eq "$(jqc "$j" '.prio[3] | [.overrides, ."detect-ms", ."restore-ms", ."warn-ms", ."policy-action"]')" \
		'[11,150,90,null,"forward"]' "prio 3 overrides"
	expect_eq "$(jqc "$j" '.prio[3] | [."effective-detect-ms", ."effective-restore-ms", ."effective-warn-ms", ."effective-action"]')" \
		'[150,90,0,"forward"]' "prio 3 in force"
	expect_eq "$(jqc "$j" '.prio[4] | [.overrides, ."warn-ms", ."effective-detect-ms", ."effective-warn-ms", ."effective-action"]')" \
		'[4,50,300,50,"drop"]' "prio 4: its warn, the port's T0 and action"
	expect_eq "$(jqc "$j" '.prio[5] | [.overrides, ."detect-ms", ."effective-detect-ms"]')" \
		'[0,null,300]' "prio 5 follows the port"
	expect_eq "$(jqc "$j" '[."detect-ms", .action]')" '[300,"drop"]' "the port's own"

	ynl_set '{"ifname": "sw1", "prio": [{"prio": 3, "defaults": 3}]}'
	expect_eq "$(jqc "$(ynl_get sw1)" '.prio[3] | [.overrides, ."detect-ms", ."effective-detect-ms", ."effective-restore-ms", ."effective-action"]')" \
		'[8,null,300,200,"forward"]' "defaults 3 dropped T0 and T1, kept the action"

	before=$(jqc "$(ynl_get sw1)" '[.prio[] | [.overrides, ."effective-detect-ms", ."effective-warn-ms", ."effective-action"]]')
	ynl_refused 34 "integer out of range" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 3, "detect-ms": 0}]}'
	ynl_refused 34 "integer out of range" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 8, "detect-ms": 100}]}'
	ynl_refused 34 "integer out of range" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 2, "policy-action": 3}]}'
	ynl_refused 22 "pfcwd: a priority is given twice" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 2, "detect-ms": 100}, {"prio": 2, "restore-ms": 100}]}'
	ynl_refused 22 "pfcwd: a prio nest must name its priority" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"detect-ms": 100}]}'
	ynl_refused 22 "pfcwd: a prio nest with nothing to set or drop" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 2}]}'
	ynl_refused 22 "pfcwd: a per-priority override both set and dropped" "" \
		--do port-set --json '{"ifname": "sw1", "prio": [{"prio": 2, "detect-ms": 100, "defaults": 1}]}'
	ynl_refused 22 "pfcwd: detection time (T0) must be above the warning time of every priority that follows it (lower warn first, or 0)" "" \
		--do port-set --json '{"ifname": "sw1", "detect-ms": 50}'
	expect_eq "$(jqc "$(ynl_get sw1)" '[.prio[] | [.overrides, ."effective-detect-ms", ."effective-warn-ms", ."effective-action"]]')" \
		"$before" "nothing changed by the refused requests"
	expect_eq "$(knob sw1 detection_time_ms)" 300 "the port's T0 unchanged"
}

# The subscriber: "ynl --subscribe events --sleep S" subscribes, sleeps S
# seconds, then prints what arrived.  Waits until it sleeps (subscribed:
# clock_nanosleep, or nanosleep, in /proc/PID/syscall).
wait_subscribed() {
	local pid=$1 i s

	for ((i = 0; i < 1200; i++)); do
		s=$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)
		[ "$s" = 230 ] || [ "$s" = 35 ] && return 0
		kill -0 "$pid" 2>/dev/null || fail "the subscriber exited early"
		sleep 0.05
	done
	fail "the subscriber did not subscribe within 60 s"
}

test_ynl_events() {
	ynl_reset
	pfcsim_new sw1
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	# T0 1 s, warn 100 ms: a 300 ms pause has 700 ms of margin.
	ynl_set '{"ifname": "sw1", "detect-ms": 1000, "restore-ms": 100, "warn-ms": 100}'
	local ev=/tmp/pfcwd-ynl-events.$$ pid j d r w idx
	idx=$(cat /sys/class/net/sw1/ifindex)

	# Four events; then 3 s more for a fifth that must not come.  (cli.py
	# --subscribe reads only after a fixed sleep: 45 s a kernel for this.)
	python3 "$SELFTEST_DIR/ynl_listen.py" "$PFCWD_TOP/build/ynl" \
		"$PFCWD_TOP/Documentation/netlink/specs/pfcwd.yaml" 4 120 3 > "$ev" 2>&1 &
	pid=$!
	wait_subscribed $pid

	# Shorter than T0: a warning (once), nothing else.
	sim sw1 rx_storm 3
	sleep 0.3
	sim sw1 rx_storm ""
	wait_stat sw1 3 warnings 1 5
	sleep 1
	expect_eq "$(pstat sw1 3 warnings)/$(pstat sw1 3 detected)/$(pstat sw1 3 state)" \
		1/0/operational "a pause shorter than T0: warned, no storm"
	klog | grep -qE 'pfcwd: sw1 prio 3: PFC storm warning, no action \(paused 1[0-9]{2} ms, T0 1000 ms\)' ||
		fail "no warning log line"

	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	# During the storm: port-get shows it, action drop took prio 3 out of
	# pfc_en.
	j=$(ynl_get sw1)
	expect_eq "$(jqc "$j" '[.stormed, ."pfc-en", .prio[3].state, .prio[3].action, .prio[4].state]')" \
		'[8,16,"stormed","drop","operational"]' "port-get mid-storm"
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	wait $pid || fail "the subscriber failed or missed events: $(cat "$ev")"
	cat "$ev"

	expect_eq "$(jq -c '[.[].name]' "$ev")" \
		'["storm-warning","storm-warning","storm-detected","storm-restored"]' "the events"
	w=$(jq -c '.[0].msg' "$ev")
	expect_eq "$(jqc "$w" '[.ifindex, .ifname, (.prio | length), .prio[0].prio, .prio[0].state, .prio[0].warnings, .prio[0].detected]')" \
		"[$idx,\"sw1\",1,3,\"operational\",1,0]" \
		"storm-warning: device, one prio nest, prio 3 operational, one warning"
	[ "$(jqc "$w" '.prio[0]."last-warn-paused-us"')" -ge 100000 ] || fail "warned before 100 ms"
	expect_eq "$(jq -c '.[1].msg.prio[0] | [.warnings, .state]' "$ev")" '[2,"operational"]' \
		"the storm's warning"
	d=$(jq -c '.[2].msg' "$ev")
	r=$(jq -c '.[3].msg' "$ev")
	expect_eq "$(jqc "$d" '[.ifindex, .ifname, .action, (.prio | length), .prio[0].prio, .prio[0].state, .prio[0].action, .prio[0].detected]')" \
		"[$idx,\"sw1\",\"drop\",1,3,\"stormed\",\"drop\",1]" \
		"storm-detected: device, action, one prio nest, prio 3 stormed"
	expect_eq "$(jqc "$d" '[.prio[0].lever, .prio[0]."rdma-covered"]')" '["pfc-en",1]' \
		"storm-detected: the lever that acted reaches RDMA"
	expect_eq "$(jqc "$r" '[.ifindex, .ifname, (.prio | length), .prio[0].prio, .prio[0].state, .prio[0].restored]')" \
		"[$idx,\"sw1\",1,3,\"operational\",1]" \
		"storm-restored: device, one prio nest, prio 3 operational"
	# Times: each event's time is the one the priority keeps, detection
	# after T0 of pause, the storm's length their difference.
	local de re paused storm
	de=$(jqc "$d" '.prio[0]."event-ns"')
	re=$(jqc "$r" '.prio[0]."event-ns"')
	j=$(ynl_get sw1)
	expect_eq "$(jqc "$d" '.prio[0]."last-detected-ns"')/$(jqc "$j" '.prio[3]."last-detected-ns"')" \
		"$de/$de" "detection time in the event and in port-get"
	expect_eq "$(jqc "$r" '.prio[0]."last-restored-ns"')/$(jqc "$j" '.prio[3]."last-restored-ns"')" \
		"$re/$re" "restoration time in the event and in port-get"
	[ "$de" -gt 0 ] && [ "$re" -gt "$de" ] || fail "event times $de, $re"
	paused=$(jqc "$d" '.prio[0]."last-paused-us"')
	[ "$paused" -ge 1000000 ] || fail "paused $paused us at detection, T0 is 1000 ms"
	storm=$(jqc "$r" '.prio[0]."last-storm-us"')
	[ $((storm - (re - de) / 1000)) -ge -1 ] && [ $((storm - (re - de) / 1000)) -le 1 ] ||
		fail "storm of $storm us, events $((re - de)) ns apart"
	expect_eq "$(jqc "$j" '[.prio[3].detected, .prio[3].restored, .prio[3].warnings, .stormed, ."pfc-en"]')" \
		"[1,1,2,0,24]" "port-get after the storm"
	rm -f "$ev"
}

test_ynl_restore_clear() {
	ynl_reset
	pfcsim_new sw1
	pfcsim_new sw2
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add sw1"
	tc qdisc add dev sw2 root handle 1: pfcwd || fail "tc qdisc add sw2"
	echo 100 > /sys/class/net/sw2/pfcwd/detection_time_ms || fail "sysfs"
	echo 100 > /sys/class/net/sw2/pfcwd/restoration_time_ms || fail "sysfs"
	local j

	# A NIC-side storm latches prio 3 of sw1; one ordinary storm on sw2.
	sim sw1 tx_storm 3
	sim sw2 rx_storm 4
	wait_stat sw1 3 state latched 5
	wait_stat sw2 4 state stormed 5
	sim sw1 tx_storm ""
	sim sw2 rx_storm ""
	wait_stat sw2 4 state operational 5
	j=$(ynl_get sw1)
	expect_eq "$(jqc "$j" '[.stormed, ."pfc-en", .prio[3].state, .prio[3].latch, .prio[3]."tx-storms"]')" \
		'[8,16,"latched","tx-storm",1]' "sw1 latched by its own storm"

	j=$(ynl --do prio-restore --json '{"ifname": "sw1", "prios": 8}')
	expect_eq "$j" null "prio-restore output"
	expect_eq "$(knob sw1 stormed)/$(pfc_on sw1)" "/3 4" "sysfs and dcb after prio-restore"
	j=$(ynl_get sw1)
	expect_eq "$(jqc "$j" '[.stormed, ."pfc-en", .prio[3].state, .prio[3].latch, .prio[3]."tx-storms"]')" \
		'[0,24,"operational","none",1]' "port-get after prio-restore"

	# stats-clear of one port, then of every port.
	j=$(ynl --do stats-clear --json '{"ifname": "sw1"}')
	expect_eq "$j" null "stats-clear output"
	j=$(ynl --dump port-get)
	expect_eq "$(jqc "$j" '[.[] | [.ifname, .prio[3]."tx-storms", .prio[3]."tx-pause", .prio[4].detected, .prio[4].restored]] | sort')" \
		'[["sw1",0,0,0,0],["sw2",0,0,1,1]]' "stats-clear sw1: sw1 zeroed, sw2 untouched"
	[ "$(jqc "$j" '.[] | select(.ifname == "sw2") | .prio[4]."rx-pause"')" -gt 0 ] ||
		fail "sw2 counted no pause"
	j=$(ynl --do stats-clear)
	expect_eq "$j" null "stats-clear (all) output"
	j=$(ynl --dump port-get)
	expect_eq "$(jqc "$j" '[.[] | .prio[] | (.detected + .restored + ."tx-storms" + ."rx-pause" + ."last-paused-us")] | add')" \
		0 "stats-clear without a device: every counter of every port zero"
	expect_eq "$(jqc "$j" '[.[] | ."detect-ms"] | sort')" "[100,200]" "configuration kept"
}

# history-get (dump): a NIC-side storm latched on sw1 prio 3 and restored
# by hand, an ordinary storm on sw2 prio 4 restored: every priority of
# every port, one priority of one port, and bad requests (a missing
# device, a device that is not a port, a priority out of range).
test_ynl_history() {
	ynl_reset
	pfcsim_new sw1
	pfcsim_new sw2
	pfcsim_new sw3
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add sw1"
	tc qdisc add dev sw2 root handle 1: pfcwd || fail "tc qdisc add sw2"
	echo 100 > /sys/class/net/sw2/pfcwd/detection_time_ms || fail "sysfs"
	echo 100 > /sys/class/net/sw2/pfcwd/restoration_time_ms || fail "sysfs"
	local j

	sim sw1 tx_storm 3
	sim sw2 rx_storm 4
	wait_stat sw1 3 state latched 5
	wait_stat sw2 4 state stormed 5
	sim sw1 tx_storm ""
	sim sw2 rx_storm ""
	wait_stat sw2 4 state operational 5
	j=$(ynl --do prio-restore --json '{"ifname": "sw1", "prios": 8}')
	expect_eq "$j" null "prio-restore output"

	j=$(ynl --dump history-get)
	expect_eq "$(jqc "$j" '[length, ([.[] | .ifname] | unique), ([.[].history.prio] | unique)]')" \
		'[16,["sw1","sw2"],[0,1,2,3,4,5,6,7]]' "every priority of both ports"
	expect_eq "$(jqc "$j" '[.[] | select(.history.storm) | [.ifname, .history.prio, (.history.storm | length)]] | sort')" \
		'[["sw1",3,1],["sw2",4,1]]' "one storm each"
	expect_eq "$(jqc "$j" '.[] | select(.ifname == "sw1" and .history.prio == 3) | .history.storm[0] | [.tx, .latch, .end]')" \
		'[1,"tx-storm","by-hand"]' "sw1: generated, latched, by hand"
	expect_eq "$(jqc "$j" '.[] | select(.ifname == "sw2" and .history.prio == 4) | .history | [.storms, .exact, .storm[0].tx, .storm[0].latch, .storm[0].end, .storm[0].action, ."interval-ms"]')" \
		'[1,0,0,"none","restored","drop",10000]' "sw2: restored"
	[ "$(jqc "$j" '.[] | select(.ifname == "sw2" and .history.prio == 4) | .history | .storm[0]."detect-us" >= 100000 and ."paused-ns" >= .storm[0]."detect-us" * 1000 and .episodes >= 1')" = true ] ||
		fail "sw2: detection time or pause time: $j"

	j=$(ynl --dump history-get --json '{"ifname": "sw2", "history-prio": 4}')
	expect_eq "$(jqc "$j" '[length, .[0].ifname, .[0].history.prio, .[0].history.storms]')" \
		'[1,"sw2",4,1]' "one priority of one port"
	j=$(ynl --dump history-get --json '{"history-prio": 0}')
	expect_eq "$(jqc "$j" '[.[] | [.ifname, .history.prio]] | sort')" \
		'[["sw1",0],["sw2",0]]' "one priority of every port"

	# A dump's error comes in its NLMSG_DONE, whose extack has the
	# message on 6.1 but the attribute only on later kernels.
	ynl_refused 19 "pfcwd: no device with this ifname" "" \
		--dump history-get --json '{"ifname": "nosuch"}'
	ynl_refused 19 "pfcwd: the device is not a pfcwd port" "" \
		--dump history-get --json '{"ifname": "sw3"}'
	ynl_refused 34 "integer out of range" history-prio \
		--dump history-get --json '{"history-prio": 8}'
}

TESTS=(
	"test_ynl_get	ynl: --dump/--do port-get, by name and index, values vs sysfs, dcb, ethtool	400"
	"test_ynl_set	ynl: --do port-set creates, changes (seen in sysfs) and removes ports	400"
	"test_ynl_bad	ynl: bad requests refused with the kernel's extack, nothing changed	400"
	"test_ynl_prio_policy	ynl: per-priority policy: prio nests in port-set set and drop overrides, port-get gives them and the values in force; bad nests refused	400"
	"test_ynl_events	ynl: --subscribe events receives storm-warning (alone for a short pause), storm-detected/restored with their values	300"
	"test_ynl_history	ynl: --dump history-get of every port, one port and priority, one priority; bad requests	400"
	"test_ynl_restore_clear	ynl: --do prio-restore of a latched priority; --do stats-clear one and all	400"
)

tap_main "$@"
