#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ingress hook on pfcsim: while a received storm on a priority is
# mitigated with action drop, received packets of that priority (VLAN PCP,
# or DSCP through the DCB APP table) are dropped and counted as rx dropped;
# others are delivered.  The hook exists only while some priority drops,
# and every way out of a storm - restoration, reconfiguration, qdisc
# replaced or deleted, device removed, module unloaded, netns deleted, even
# with packets arriving meanwhile - leaves no hook, pfc_en as it was and a
# module that unloads.

. "$(dirname "$0")/lib.sh"

RECV=$SELFTEST_DIR/ingress_recv.py
GENL="python3 -S $SELFTEST_DIR/genl.py"
INGRESS_DBG=/sys/kernel/debug/pfcwd/ingress
ROUNDS=${INGRESS_ROUNDS:-3}

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

inject() {
	echo "$2" > "$PFCSIM_DFS/$1/inject_rx" || fail "inject_rx on $1: $2"
}

set_knob() {
	echo "$3" > "/sys/class/net/$1/pfcwd/$2" || fail "cannot set $2=$3 on $1"
}

# Ingress hooks pfcwd has registered now, all ports together.
hooks() {
	awk '$1 == "hooks" { print $2 }' $INGRESS_DBG
}

# Hooks ever registered and removed: "ADDED/REMOVED".
hook_history() {
	awk '$1 == "hooks" { print $4 "/" $6 }' $INGRESS_DBG
}

# Waits up to $3 seconds for DEV $1's ingress_hook to be $2.
wait_hook() {
	local i

	for ((i = 0; i < $3 * 100; i++)); do
		[ "$(portstat "$1" ingress_hook)" = "$2" ] && return 0
		sleep 0.01
	done
	fail "$1: ingress_hook is '$(portstat "$1" ingress_hook)', wanted '$2' within $3 s"
}

# Whether nft can list netdev hooks: it needs nfnetlink_hook, which
# Debian's 6.12 has and its 6.1 has not (there nft prints nothing at all).
nft_lists_hooks() {
	command -v nft > /dev/null && modprobe -q nfnetlink_hook
}

# Prints pfcwd's hook functions that nft lists on DEV $1's ingress.
nft_pfcwd_hooks() {
	nft list hooks netdev device "$1" | grep -o 'pfcwd_[a-z_]*'
}

# A receiver of KIND $2 frames on DEV $1 (see ingress_recv.py), in netns
# $RX_NS if set; rx_stop ends it and leaves "PRIO COUNT..." of what got
# through in RX_OUT.
rx_start() {
	local i

	RX_DIR=$(mktemp -d)
	${RX_NS:+ip netns exec "$RX_NS"} python3 -S "$RECV" "$1" "$2" \
		"$RX_DIR/ready" "$RX_DIR/stop" > "$RX_DIR/out" &
	RX_PID=$!
	for ((i = 0; i < 3000; i++)); do
		[ -e "$RX_DIR/ready" ] && return 0
		kill -0 $RX_PID 2>/dev/null || break
		sleep 0.01
	done
	fail "the receiver did not start"
}

rx_stop() {
	touch "$RX_DIR/stop"
	wait $RX_PID || fail "the receiver failed"
	grep -qx "sock_drops 0" "$RX_DIR/out" ||
		fail "the receiver's socket lost frames: $(tail -n1 "$RX_DIR/out")"
	RX_OUT=$(grep -v '^sock_drops' "$RX_DIR/out" | xargs)
	rm -rf "$RX_DIR"
	RX_PID=
}

# A pfcsim port with a pfcwd qdisc, T0 and T1 short, action $2 (drop).
setup_port() {
	pfcsim_new "$1"
	tc qdisc add dev "$1" root handle 1: pfcwd || fail "tc qdisc add on $1"
	set_knob "$1" detection_time_ms 50
	set_knob "$1" restoration_time_ms 50
	set_knob "$1" action "${2:-drop}"
}

# Starts a received storm on DEV $1's priorities $2 and waits for it to be
# mitigated with a hook.
drop_storm() {
	local p

	sim "$1" rx_storm "$2"
	for p in ${2//,/ }; do
		wait_stat "$1" "$p" state stormed 10
	done
	wait_hook "$1" 1 10
}

test_rx_drop() {
	reset_all
	setup_port ig0
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)" 0/0 "hooks before any storm"
	drop_storm ig0 3
	expect_eq "$(hooks)" 1 "hooks during the storm"
	expect_eq "$(pfc_on ig0)" 4 "pfc_en during the storm"
	rx_start ig0 tagged
	inject ig0 "3 500"
	inject ig0 "0 300"
	inject ig0 "4 200"
	inject ig0 "7 100"
	rx_stop
	expect_eq "$RX_OUT" "0 300 4 200 7 100" "frames delivered per priority"
	expect_eq "$(ethtool_stat ig0 rx_prio3_packets)" 500 "prio 3 frames the NIC received"
	expect_eq "$(pstat ig0 3 rx_dropped)" 500 "prio 3 rx dropped"
	for p in 0 4 7; do
		expect_eq "$(pstat ig0 $p rx_dropped)" 0 "prio $p rx dropped"
	done
	# The drops are per storm in the log line; the counter keeps counting.
	rx_start ig0 tagged
	inject ig0 "3 250"
	rx_stop
	expect_eq "$RX_OUT" "" "frames delivered of the stormed priority"
	expect_eq "$(pstat ig0 3 rx_dropped)" 750 "prio 3 rx dropped"

	sim ig0 rx_storm ""
	wait_stat ig0 3 state operational 10
	wait_hook ig0 0 10
	expect_eq "$(hooks)/$(hook_history)" 0/1/1 "hooks now/added/removed after restoration"
	expect_eq "$(pfc_on ig0)" "3 4" "pfc_en after restoration"
	klog | grep -q "pfcwd: ig0 prio 3: PFC storm restored after [0-9]* ms (tx dropped 0, rx dropped 750)" ||
		fail "no restoration log line with rx dropped 750"
	rx_start ig0 tagged
	inject ig0 "3 400"
	rx_stop
	expect_eq "$RX_OUT" "3 400" "prio 3 frames delivered after restoration"
	expect_eq "$(pstat ig0 3 rx_dropped)" 750 "prio 3 rx dropped after restoration"

	# A second storm: the log line counts only its own drops.
	drop_storm ig0 3
	inject ig0 "3 40"
	sim ig0 rx_storm ""
	wait_stat ig0 3 restored 2 10
	wait_hook ig0 0 10
	klog | grep -q "pfcwd: ig0 prio 3: PFC storm restored after [0-9]* ms (tx dropped 0, rx dropped 40)" ||
		fail "no restoration log line with rx dropped 40"
	expect_eq "$(pstat ig0 3 rx_dropped)" 790 "prio 3 rx dropped after two storms"
	expect_eq "$(hooks)/$(hook_history)" 0/2/2 "hooks now/added/removed after two storms"
}

test_nft_sees_hook() {
	nft_lists_hooks || skip "nft cannot list hooks on $(uname -r) (no nfnetlink_hook)"
	reset_all
	setup_port ig0
	setup_port ig1
	expect_eq "$(nft_pfcwd_hooks ig0)" "" "nft: ig0 hooks before the storm"
	drop_storm ig0 3
	nft list hooks netdev device ig0 | sed 's/^/nft: /'
	expect_eq "$(nft_pfcwd_hooks ig0)" pfcwd_ingress_hook "nft: ig0 hooks during the storm"
	expect_eq "$(nft_pfcwd_hooks ig1)" "" "nft: ig1 (no storm) hooks"
	sim ig0 rx_storm ""
	wait_hook ig0 0 10
	expect_eq "$(nft_pfcwd_hooks ig0)" "" "nft: ig0 hooks after restoration"
}

# DSCP through the DCB APP table, IPv4 and IPv6: mapped to the stormed
# priority -> dropped; mapped elsewhere or not at all -> delivered; a DSCP
# mapped to several priorities has the highest.  APP changes apply during a
# storm.
test_rx_dscp() {
	reset_all
	setup_port ig0
	expect_eq "$(dcb app show dev ig0)" "" "APP table of a new port"
	check dcb_set app add dev ig0 dscp-prio 24:3 46:5 26:3 26:6
	drop_storm ig0 3
	for ip in ipv4 ipv6; do
		before=$(pstat ig0 3 rx_dropped)
		rx_start ig0 $ip
		inject ig0 "$ip 24 300"
		inject ig0 "$ip 46 70"
		inject ig0 "$ip 26 50"
		inject ig0 "$ip 0 30"
		inject ig0 "$ip 10 20"
		rx_stop
		# The payload carries the priority pfcsim gave the DSCP, the same rule.
		expect_eq "$RX_OUT" "0 50 5 70 6 50" "$ip packets delivered per priority"
		expect_eq "$(pstat ig0 3 rx_dropped)" $((before + 300)) "$ip: prio 3 rx dropped"
	done
	expect_eq "$(pstat ig0 0 rx_dropped)$(pstat ig0 5 rx_dropped)$(pstat ig0 6 rx_dropped)" 000 \
		"rx dropped of other priorities"

	# A new APP entry reaches the running hook (through the DCB notifier).
	check dcb_set app add dev ig0 dscp-prio 10:3
	for ((i = 0; i < 500; i++)); do
		n=$(pstat ig0 3 rx_dropped)
		inject ig0 "ipv6 10 1"
		[ "$(pstat ig0 3 rx_dropped)" != "$n" ] && break
		sleep 0.02
	done
	[ $i -lt 500 ] || fail "DSCP 10 -> 3 never applied during the storm"
	log "DSCP 10 -> 3 applied after $i packets"
	n=$(pstat ig0 3 rx_dropped)
	rx_start ig0 ipv4
	inject ig0 "ipv4 10 100"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "/$((n + 100))" "DSCP 10 once mapped to 3"

	# And removing it too.
	check dcb_set app del dev ig0 dscp-prio 10:3
	for ((i = 0; i < 500; i++)); do
		n=$(pstat ig0 3 rx_dropped)
		inject ig0 "ipv6 10 1"
		[ "$(pstat ig0 3 rx_dropped)" = "$n" ] && break
		sleep 0.02
	done
	[ $i -lt 500 ] || fail "removing DSCP 10 -> 3 never applied during the storm"
	rx_start ig0 ipv4
	inject ig0 "ipv4 10 100"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "0 100/$n" "DSCP 10 once unmapped"

	# Tagged frames go by their PCP, whatever DSCP table there is.
	rx_start ig0 tagged
	inject ig0 "5 10"
	inject ig0 "3 10"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "5 10/$((n + 10))" "tagged frames"

	sim ig0 rx_storm ""
	wait_hook ig0 0 10
	n=$(pstat ig0 3 rx_dropped)
	rx_start ig0 ipv4
	inject ig0 "ipv4 24 60"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "3 60/$n" "DSCP 24 after restoration"
	check dcb_set app del dev ig0 dscp-prio 24:3 46:5 26:3 26:6
}

# Without an APP table no untagged packet has a priority: none is dropped
# (pfcsim counts them as priority 0).
test_rx_no_app_table() {
	reset_all
	setup_port ig0
	drop_storm ig0 3
	for ip in ipv4 ipv6; do
		rx_start ig0 $ip
		inject ig0 "$ip 24 50"
		inject ig0 "$ip 0 50"
		rx_stop
		expect_eq "$RX_OUT" "0 100" "$ip packets delivered with no APP table"
	done
	expect_eq "$(pstat ig0 0 rx_dropped)/$(pstat ig0 3 rx_dropped)" 0/0 "rx dropped"
}

test_forward_alert() {
	for action in forward alert; do
		reset_all
		setup_port ig0 $action
		sim ig0 rx_storm 3
		wait_stat ig0 3 state stormed 10
		sleep 0.2
		expect_eq "$(portstat ig0 ingress_hook)/$(hooks)" 0/0 "$action: hooks during the storm"
		rx_start ig0 tagged
		inject ig0 "3 200"
		rx_stop
		expect_eq "$RX_OUT" "3 200" "$action: prio 3 frames delivered"
		expect_eq "$(pstat ig0 3 rx_dropped)" 0 "$action: prio 3 rx dropped"
		sim ig0 rx_storm ""
		wait_stat ig0 3 state operational 10
	done
}

# A storm this NIC generates (tx_storm) is mitigated on pfc_en only.
test_tx_storm_no_hook() {
	reset_all
	setup_port ig0
	sim ig0 tx_storm 3
	wait_stat ig0 3 state latched 10
	sleep 0.2
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)" 0/0 "hooks during a generated storm"
	sim ig0 tx_storm ""
	set_knob ig0 restore 3
	expect_eq "$(pfc_on ig0)" "3 4" "pfc_en after restore"
}

# One hook per port, for as long as any of its priorities drops.
test_two_prios_two_ports() {
	reset_all
	setup_port ig0
	setup_port ig1
	drop_storm ig0 3,4
	drop_storm ig1 4
	expect_eq "$(hooks)" 2 "hooks: one per port"
	sim ig0 rx_storm 4
	wait_stat ig0 3 state operational 10
	expect_eq "$(portstat ig0 ingress_hook)" 1 "ig0 hook while prio 4 still drops"
	rx_start ig0 tagged
	inject ig0 "3 30"
	inject ig0 "4 20"
	rx_stop
	expect_eq "$RX_OUT" "3 30" "ig0 delivered"
	expect_eq "$(pstat ig0 3 rx_dropped)/$(pstat ig0 4 rx_dropped)" 0/20 "ig0 rx dropped"
	rx_start ig1 tagged
	inject ig1 "3 30"
	inject ig1 "4 20"
	rx_stop
	expect_eq "$RX_OUT" "3 30" "ig1 delivered"
	expect_eq "$(pstat ig1 4 rx_dropped)" 20 "ig1 rx dropped"
	sim ig0 rx_storm ""
	wait_hook ig0 0 10
	expect_eq "$(portstat ig1 ingress_hook)/$(hooks)" 1/1 "ig1 keeps its hook"
	sim ig1 rx_storm ""
	wait_hook ig1 0 10
	expect_eq "$(hooks)" 0 "hooks at the end"
	expect_eq "$(pfc_on ig0)/$(pfc_on ig1)" "3 4/3 4" "pfc_en at the end"
}

# Reconfiguration and restoring by hand end the drop at once.
test_reconfigure() {
	reset_all
	setup_port ig0
	drop_storm ig0 3
	set_knob ig0 priorities 4
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)/$(pfc_on ig0)" "0/0/3 4" \
		"hook/hooks/pfc_en once prio 3 is no longer watched"
	rx_start ig0 tagged
	inject ig0 "3 15"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "3 15/0" "prio 3 once no longer watched"
	set_knob ig0 priorities 3,4
	drop_storm ig0 3
	set_knob ig0 enabled 0
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)/$(pfc_on ig0)" "0/0/3 4" \
		"hook/hooks/pfc_en once disabled"
	sim ig0 rx_storm ""
	set_knob ig0 enabled 1
	expect_eq "$(hook_history)" 2/2 "hooks added/removed"
	# Latched at once by a storm limit of 1, then restored by hand.
	set_knob ig0 storm_limit 1
	sim ig0 rx_storm 3
	wait_stat ig0 3 state latched 10
	wait_hook ig0 1 10
	sim ig0 rx_storm ""
	sleep 0.3
	expect_eq "$(portstat ig0 ingress_hook)" 1 "hook while latched"
	set_knob ig0 restore 3
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)/$(pfc_on ig0)" "0/0/3 4" \
		"hook/hooks/pfc_en after restoring by hand"
	rx_start ig0 tagged
	inject ig0 "3 25"
	rx_stop
	expect_eq "$RX_OUT" "3 25" "prio 3 frames delivered"
}

# --- removals in the middle of a drop storm, packets arriving ---------------

# Frames arrive while hooks come and go: under qemu's TCG that needs the
# ingress static key held, which run_tests.sh does for the whole run (see
# there); run these cases through it.

# Injects prio 3 frames into DEV $1 until told to stop or the port goes.
injector_start() {
	local f=$PFCSIM_DFS/$1/inject_rx

	( while echo "3 64" > "$f"; do :; done ) 2>/dev/null &
	INJ_PID=$!
	sleep 0.2
}

injector_stop() {
	[ -n "${INJ_PID:-}" ] || return 0
	kill $INJ_PID 2>/dev/null
	wait $INJ_PID 2>/dev/null
	INJ_PID=
	return 0
}

# On the way out of a case, whatever happened (each case is a process of
# its own): no receiver is left holding the case's output open, and frames
# stop.
case_cleanup() {
	[ -n "${RX_PID:-}" ] && kill "$RX_PID" 2>/dev/null
	injector_stop
	return 0
}

trap case_cleanup EXIT

# Everything is back: no hook anywhere, DEV $1 (if it still exists) has its
# pfc_en and delivers prio 3 frames, pfcwd holds no reference and unloads.
expect_clean() {
	expect_eq "$(hooks)" 0 "hooks left"
	grep -q "^$1 " $PFCWD_DBG && fail "$1 is still a port"
	if [ -e "/sys/class/net/$1" ]; then
		expect_eq "$(pfc_on "$1")" "3 4" "$1 pfc_en"
		if nft_lists_hooks; then
			expect_eq "$(nft_pfcwd_hooks "$1")" "" "nft: $1 hooks"
		fi
		rx_start "$1" tagged
		inject "$1" "3 20"
		rx_stop
		expect_eq "$RX_OUT" "3 20" "$1 prio 3 frames delivered"
	fi
	expect_eq "$(cat /sys/module/pfcwd/refcnt)" 0 "pfcwd module references"
	modprobe -r pfcwd || fail "pfcwd does not unload"
	load_mod pfcwd
}

# A drop storm on ig0 with a hook, packets of the stormed priority coming
# in; nft (where it can) agrees that the hook is there.
mid_storm() {
	[ -e /sys/class/net/ig0 ] || pfcsim_new ig0
	tc qdisc add dev ig0 root handle 1: pfcwd || fail "tc qdisc add"
	set_knob ig0 detection_time_ms 50
	drop_storm ig0 3
	if nft_lists_hooks; then
		expect_eq "$(nft_pfcwd_hooks ig0)" pfcwd_ingress_hook "nft: hook during the storm"
	fi
	injector_start ig0
	n=$(pstat ig0 3 rx_dropped)
	[ "$n" -gt 0 ] || { sleep 0.5; n=$(pstat ig0 3 rx_dropped); }
	[ "$n" -gt 0 ] || fail "nothing dropped before the removal"
}

test_race_qdisc_replace() {
	reset_all
	for ((r = 1; r <= ROUNDS; r++)); do
		mid_storm
		tc qdisc replace dev ig0 root handle 2: pfifo_fast || fail "qdisc replace"
		expect_eq "$(hooks)" 0 "hooks right after the replace"
		injector_stop
		sim ig0 rx_storm ""
		tc qdisc del dev ig0 root 2>/dev/null
		expect_clean ig0
	done
}

test_race_qdisc_delete() {
	reset_all
	for ((r = 1; r <= ROUNDS; r++)); do
		mid_storm
		tc qdisc del dev ig0 root || fail "qdisc delete"
		expect_eq "$(hooks)" 0 "hooks right after the delete"
		injector_stop
		sim ig0 rx_storm ""
		expect_clean ig0
	done
}

test_race_device_removed() {
	reset_all
	for ((r = 1; r <= ROUNDS; r++)); do
		mid_storm
		pfcsim_del ig0
		injector_stop
		expect_clean ig0
	done
}

test_race_module_unload() {
	reset_all
	for ((r = 1; r <= ROUNDS; r++)); do
		# pfcwd: its qdisc goes, then the module, packets still coming.
		mid_storm
		tc qdisc del dev ig0 root && modprobe -r pfcwd || fail "qdisc delete + unload"
		injector_stop
		sim ig0 rx_storm ""
		load_mod pfcwd
		expect_clean ig0
		# pfcsim: every device goes with the module, mid-storm.
		mid_storm
		injector_stop
		modprobe -r pfcsim || fail "pfcsim does not unload mid-storm"
		expect_clean ig0
		load_mod pfcsim
	done
}

# A port held by netlink (pfcwd set ... on), no qdisc: nothing pins the
# module, so it can be unloaded in the middle of a drop storm, with the
# device's pfc_en cleared and the ingress hook dropping.  Unload must put
# pfc_en back and take the hook away; each round asserts it was mid-storm
# (frames dropped) when the unload came.
test_race_unload_held() {
	reset_all
	for ((r = 1; r <= ROUNDS; r++)); do
		[ -e /sys/class/net/ig0 ] || pfcsim_new ig0
		"$PFCWD" set dev ig0 on detect 50 action drop || fail "pfcwd set on"
		expect_eq "$("$PFCWD" -j show dev ig0 | jq .[0].held)" true "ig0 held by netlink"
		expect_eq "$(tc qdisc show dev ig0 root | grep -c pfcwd)" 0 "no pfcwd qdisc"
		drop_storm ig0 3
		expect_eq "$(pfc_on ig0)" 4 "pfc_en during the storm"
		injector_start ig0
		n=$(pstat ig0 3 rx_dropped)
		[ "$n" -gt 0 ] || { sleep 0.5; n=$(pstat ig0 3 rx_dropped); }
		[ "$n" -gt 0 ] || fail "round $r: nothing dropped before the unload"
		expect_eq "$(pstat ig0 3 state)" stormed "round $r: stormed at the unload"
		modprobe -r pfcwd || fail "round $r: pfcwd does not unload with a held port mid-storm"
		injector_stop
		sim ig0 rx_storm ""
		load_mod pfcwd
		expect_clean ig0
		log "round $r: unloaded with $n frames dropped, mid-storm"
	done
}

test_race_netns_delete() {
	reset_all pfing
	for ((r = 1; r <= ROUNDS; r++)); do
		pfcsim_new ig0
		ip netns add pfing || fail "netns add"
		ip link set ig0 netns pfing || fail "move to netns"
		ip netns exec pfing ip link set ig0 up || fail "up in netns"
		ip netns exec pfing tc qdisc add dev ig0 root pfcwd || fail "qdisc in netns"
		ip netns exec pfing sh -c "echo 50 > /sys/class/net/ig0/pfcwd/detection_time_ms" ||
			fail "T0 in netns"
		sim ig0 rx_storm 3
		wait_stat ig0 3 state stormed 10
		wait_hook ig0 1 10
		injector_start ig0
		ip netns del pfing
		# The device comes back to init_net, without its qdisc.
		wait_dev ig0 10
		injector_stop
		sim ig0 rx_storm ""
		ip link set ig0 up || fail "ig0 up"
		expect_clean ig0
		pfcsim_del ig0
	done
}

# A port held by netlink (no qdisc) keeps its device across netns moves.
# Moved in the middle of a drop storm, it undoes what it applied in the old
# netns, hook included; the storm, seen again in the new netns, registers a
# hook there that drops; and deleting that netns mid-storm, frames
# arriving, brings the device back with nothing left.
test_netns_held_port() {
	reset_all pfing
	ip netns add pfing || fail "netns add"
	pfcsim_new ig0
	$GENL set ig0 enabled=1 detect_ms=50 restore_ms=50 > /dev/null || fail "hold ig0"
	drop_storm ig0 3
	inject ig0 "3 10"
	expect_eq "$(pstat ig0 3 rx_dropped)" 10 "rx dropped before the move"
	ip link set ig0 netns pfing || fail "move to pfing"
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)/$(hook_history)" 0/0/1/1 \
		"hook/hooks/added/removed after the move"
	expect_eq "$(ip netns exec pfing dcb pfc show dev ig0 prio-pfc | grep -o '[0-7]:on' |
		cut -d: -f1 | xargs)" "3 4" "pfc_en after the move"
	# The storm goes on: watched again once the device is up in pfing.
	ip netns exec pfing ip link set ig0 up || fail "up in pfing"
	wait_stat ig0 3 state stormed 10
	wait_hook ig0 1 10
	if nft_lists_hooks; then
		expect_eq "$(ip netns exec pfing nft list hooks netdev device ig0 |
			grep -o 'pfcwd_[a-z_]*')" pfcwd_ingress_hook "nft in pfing: the hook"
	fi
	RX_NS=pfing rx_start ig0 tagged
	inject ig0 "3 40"
	inject ig0 "0 25"
	rx_stop
	expect_eq "$RX_OUT/$(pstat ig0 3 rx_dropped)" "0 25/50" "delivered/rx dropped in pfing"
	injector_start ig0
	ip netns del pfing
	wait_dev ig0 10
	injector_stop
	expect_eq "$(portstat ig0 ingress_hook)/$(hooks)/$(hook_history)" 0/0/2/2 \
		"hook/hooks/added/removed once back"
	expect_eq "$(pfc_on ig0)" "3 4" "pfc_en once back"
	sim ig0 rx_storm ""
	ip link set ig0 up || fail "ig0 up"
	$GENL set ig0 enabled=0 > /dev/null || fail "release ig0"
	expect_clean ig0
}

TESTS=(
	"test_rx_drop	ingress: drop storm drops exactly the stormed priority's received frames"
	"test_nft_sees_hook	ingress: nft lists the hook exactly while mitigating"
	"test_rx_dscp	ingress: IPv4/IPv6 DSCP classified through the DCB APP table"
	"test_rx_no_app_table	ingress: untagged packets without an APP entry are never dropped"
	"test_forward_alert	ingress: forward and alert register no hook, drop nothing"
	"test_tx_storm_no_hook	ingress: a generated storm registers no hook"
	"test_two_prios_two_ports	ingress: one hook per port while any priority drops"
	"test_reconfigure	ingress: reconfiguring or restoring by hand removes the hook"
	"test_race_qdisc_replace	ingress: qdisc replaced mid drop storm, packets arriving	300"
	"test_race_qdisc_delete	ingress: qdisc deleted mid drop storm, packets arriving	300"
	"test_race_device_removed	ingress: device removed mid drop storm, packets arriving	300"
	"test_race_module_unload	ingress: modules unloaded mid drop storm	300"
	"test_race_unload_held	ingress: pfcwd unloaded mid drop storm with a netlink-held port (no qdisc): pfc_en back, no hook	300"
	"test_race_netns_delete	ingress: netns deleted mid drop storm, packets arriving	300"
	"test_netns_held_port	ingress: a held port moved to and back from a netns mid drop storm	300"
)

tap_main "$@"
