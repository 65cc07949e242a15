#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family "pfcwd", driven by a raw client (genl.py) that
# can also send what no well-behaved tool would: port-get/port-set/
# stats-clear/prio-restore, ports held by netlink without a qdisc, netns
# isolation and moves, privileges, events, bad requests, dumps under churn.

. "$(dirname "$0")/lib.sh"

# genl.py run on its own: in another netns, with fewer privileges, and for
# batch and listen.
GENL_PY="python3 -S $SELFTEST_DIR/genl.py"
# Every other request goes to the script's one "genl.py serve" (a request
# server, reqserve.py and lib.sh: a Python start costs a quarter of a
# second under TCG, and this file makes some 120 requests): genl() prints
# its output and returns its status as a run of its own would.
GENL=genl
genl() { srv_ask genl "$@"; }

# One value of a port from "genl.py get": jq path $2 (e.g. .detect_ms).
nlget() {
	$GENL get "$1" | jq -r "$2"
}

knob() { readf "/sys/class/net/$1/pfcwd/$2"; }

# Waits up to $4 s for nlget $1 $2 to be $3.
wait_nl() {
	local i v

	for ((i = 0; i < $4 * 20; i++)); do
		v=$(nlget "$1" "$2")
		[ "$v" = "$3" ] && return 0
		sleep 0.05
	done
	fail "$1: $2 is '$v', wanted '$3' within $4 s"
}

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

now_ns() { "$PFCWD_PKT" now; }

# Configuration and state of every port (no counters, no times): what a
# rejected request must leave alone.
snapshot() {
	$GENL dump | jq -c '[.ports[] | {ifname, enabled, detect_ms, restore_ms,
		action, prios, storm_limit, held, qdiscs, pfc_en,
		states: [.prio[].state]}]'
}

test_get_dump() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root handle 1: pfcwd || fail "tc qdisc add"
	dcb_set pfc set dev sw1 prio-pfc 3:on 4:on || fail "dcb"
	local j idx
	j=$($GENL get sw1) || fail "port-get by name"
	idx=$(cat /sys/class/net/sw1/ifindex)
	expect_eq "$(echo "$j" | jq .ifindex)" "$idx" "ifindex"
	expect_eq "$($GENL get "$idx" | jq -r .ifname)" sw1 "port-get by ifindex"
	expect_eq "$(echo "$j" | jq .detect_ms)" "$(knob sw1 detection_time_ms)" "detect_ms vs sysfs"
	expect_eq "$(echo "$j" | jq .restore_ms)" "$(knob sw1 restoration_time_ms)" "restore_ms vs sysfs"
	expect_eq "$(echo "$j" | jq '[.enabled, .action, .storm_limit, .qdiscs, .held, .source, .stormed]')" \
		"$(jq -n '[1, 0, 0, 1, 0, 1, 0]')" "enabled action limit qdiscs held source(dcb) stormed"
	expect_eq "$(echo "$j" | jq '.prio | length')" 8 "one nest per priority"
	expect_eq "$(echo "$j" | jq -c '[.prio[] | .prio]')" "[0,1,2,3,4,5,6,7]" "priorities in order"
	expect_eq "$(echo "$j" | jq -c '[.prio[] | .state] | unique')" "[0]" "all operational"
	# pfcsim has mlx5-style per-priority counters: they are reported.
	"$PFCWD_PKT" send sw1 5 7 >/dev/null || fail "send"
	# As the poller read them: within a second and its load margin.
	wait_nl sw1 '.prio[5].tx_packets' 7 2
	j=$($GENL get sw1)
	expect_eq "$(echo "$j" | jq '.prio[5].tx_packets')" "$(ethtool_stat sw1 tx_prio5_packets)" "tx_packets vs ethtool"
	expect_eq "$(echo "$j" | jq '.prio[5].tx_packets')" 7 "tx_packets"
	expect_eq "$(echo "$j" | jq '.prio[3].rx_packets')" "$(ethtool_stat sw1 rx_prio3_packets)" "rx_packets vs ethtool"
	# dump: exactly the ports there are.
	pfcsim_new sw2
	expect_eq "$($GENL dump | jq -c '[.ports[].ifname]')" '["sw1"]' "dump before sw2 is a port"
	tc qdisc add dev sw2 root pfcwd || fail "tc qdisc add sw2"
	expect_eq "$($GENL dump | jq -c '[.ports[].ifname] | sort')" '["sw1","sw2"]' "dump"
	tc qdisc del dev sw1 root
	expect_eq "$($GENL dump | jq -c '[.ports[].ifname]')" '["sw2"]' "dump after qdisc delete"
}

test_set() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	$GENL set sw1 detect_ms=150 restore_ms=250 action=1 prios=0x81 storm_limit=3 ||
		fail "port-set"
	expect_eq "$(knob sw1 detection_time_ms) $(knob sw1 restoration_time_ms) $(knob sw1 action)" \
		"150 250 forward" "sysfs after port-set"
	expect_eq "$(knob sw1 priorities) $(knob sw1 storm_limit)" "0,7 3" "sysfs prios, limit"
	expect_eq "$($GENL get sw1 | jq -c '[.detect_ms, .restore_ms, .action, .prios, .storm_limit]')" \
		"[150,250,1,129,3]" "port-get after port-set"
	echo 77 > /sys/class/net/sw1/pfcwd/detection_time_ms || fail "sysfs write"
	expect_eq "$(nlget sw1 .detect_ms)" 77 "sysfs change seen over netlink"
	$GENL set sw1 enabled=0 || fail "disable"
	expect_eq "$(knob sw1 enabled)/$(nlget sw1 .enabled)" "0/0" "disabled, still a port (qdisc)"
	$GENL set sw1 enabled=1 || fail "enable"
	expect_eq "$(nlget sw1 .held)" 1 "enabled over netlink: held"
	tc qdisc del dev sw1 root || fail "qdisc del"
	expect_eq "$(nlget sw1 .qdiscs)" 0 "held port outlives its qdisc"
	$GENL set sw1 enabled=0 || fail "release"
	[ -d /sys/class/net/sw1/pfcwd ] && fail "port not removed by enabled 0"
	$GENL get sw1 2>/dev/null && fail "port-get of a removed port"
	return 0
}

# A port held by netlink, no qdisc: device-side mitigation only.
test_port_without_qdisc() {
	reset_all
	pfcsim_new sw1
	dcb_set pfc set dev sw1 prio-pfc 3:on 4:on || fail "dcb"
	$GENL set sw1 enabled=1 detect_ms=50 restore_ms=50 || fail "create the port"
	[ -d /sys/class/net/sw1/pfcwd ] || fail "no sysfs directory"
	expect_eq "$($GENL get sw1 | jq -c '[.held, .qdiscs, .prios, .pfc_en]')" "[1,0,24,24]" \
		"held, no qdisc, watching pfc_en"
	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	expect_eq "$(pfc_on sw1)" "4" "prio 3 left pfc_en"
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	expect_eq "$(pfc_on sw1)" "3 4" "pfc_en restored"
	expect_eq "$($GENL get sw1 | jq -c '.prio[3] | [.detected, .restored]')" "[1,1]" "counted"
	# Released mid-storm: pfc_en put back, port gone.
	sim sw1 rx_storm 4
	wait_stat sw1 4 state stormed 5
	$GENL set sw1 enabled=0 || fail "release"
	expect_eq "$(pfc_on sw1)" "3 4" "pfc_en restored by the release"
	[ -d /sys/class/net/sw1/pfcwd ] && fail "port still there"
	sim sw1 rx_storm ""
	# A device without DCB can be a port too.
	ip link add va type veth peer name vb || fail "veth"
	$GENL set va enabled=1 || fail "veth port"
	expect_eq "$($GENL get va | jq -c '[.prios, .source, .pfc_en, .global_pause, .pause_malformed]')" "[24,3,null,0,0]" \
		"veth: default 3,4, software PFC, no pfc_en"
	ip link del va
	expect_eq "$($GENL dump | jq '.ports | length')" 0 "device removal removes the held port"
}

# device-action over netlink and sysfs, read back both ways; a change
# during a storm leaves that storm's pfc_en as it is; the device side of
# port-get (profile, counter freshness) on a plain pfcsim port.
test_device_action() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	dcb_set pfc set dev sw1 prio-pfc 3:on 4:on || fail "dcb"
	local j r1 r2 before
	j=$($GENL get sw1)
	expect_eq "$(echo "$j" | jq -c '[.device_action, .device_pfc, .setpfc_hurts, .setpfc_errors]')" \
		"[0,1,0,0]" "default: auto, using pfc_en, no setpfc trouble"
	expect_eq "$(knob sw1 device_action)" auto "sysfs default"
	expect_eq "$(echo "$j" | jq -c '[.profile, .refresh_ms, .refresh_learnt, .read_errors]')" \
		'["generic",0,0,0]' "pfcsim: generic profile, live counters"
	expect_eq "$(knob sw1 profile)/$(knob sw1 refresh_ms)" generic/0 "sysfs profile, refresh_ms"
	r1=$(echo "$j" | jq .reads)
	sleep 1.2
	j=$($GENL get sw1)
	r2=$(echo "$j" | jq .reads)
	[ "$r1" -gt 0 ] && [ "$r2" -gt "$r1" ] || fail "reads not growing: $r1 then $r2"
	[ "$(echo "$j" | jq .read_rate)" -gt 0 ] || fail "read_rate: $(echo "$j" | jq .read_rate)"
	[ "$(echo "$j" | jq .granularity_us)" -gt 0 ] || fail "no granularity"

	$GENL set sw1 device_action=2 || fail "port-set device_action off"
	expect_eq "$(knob sw1 device_action)" off "sysfs after port-set off"
	expect_eq "$($GENL get sw1 | jq -c '[.device_action, .device_pfc]')" "[2,0]" "off: datapath only"
	echo on > /sys/class/net/sw1/pfcwd/device_action || fail "sysfs write on"
	expect_eq "$($GENL get sw1 | jq -c '[.device_action, .device_pfc]')" "[1,1]" "sysfs on seen over netlink"
	printf auto > /sys/class/net/sw1/pfcwd/device_action || fail "sysfs write auto (no newline)"
	expect_eq "$(nlget sw1 .device_action)" 0 "auto again"

	# Refused: nothing changes, through either interface.
	$GENL set sw1 device_action=1 || fail "port-set on"
	before=$(snapshot)
	expect_reject ERANGE "out of range" \
		raw port_set ifname:str:sw1 device_action:u32:3
	expect_reject ERANGE "out of range" \
		raw port_set ifname:str:sw1 detect_ms:u32:100 device_action:u32:4294967295
	expect_reject EINVAL "" raw port_set ifname:str:sw1 device_action:u8:0
	expect_reject EINVAL "" raw port_set ifname:str:sw1 device_pfc:u8:0
	expect_reject EINVAL "" raw port_set ifname:str:sw1 profile:str:mlx5
	expect_reject EINVAL "" raw port_set ifname:str:sw1 refresh_ms:u32:10
	# Each bad value in one write(2) (the shell may split a write at
	# newlines), which must fail with EINVAL.
	local bad out
	for bad in bogus AUTO "on off" 1 '\n' 'auto\n\n' ' on'; do
		out=$(python3 -S -c '
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode().decode("unicode_escape").encode())
    print("accepted")
except OSError as e:
    print(errno.errorcode[e.errno])
' /sys/class/net/sw1/pfcwd/device_action "$bad")
		expect_eq "$out" EINVAL "sysfs device_action '$bad'"
	done
	echo mlx5 > /sys/class/net/sw1/pfcwd/profile 2>/dev/null && fail "profile is writable"
	echo 5 > /sys/class/net/sw1/pfcwd/refresh_ms 2>/dev/null && fail "refresh_ms is writable"
	expect_eq "$(knob sw1 device_action)/$(knob sw1 profile)/$(knob sw1 refresh_ms)" \
		on/generic/0 "sysfs unchanged"
	expect_eq "$(nlget sw1 .device_action)" 1 "netlink unchanged"
	expect_eq "$(snapshot)" "$before" "nothing changed"
	expect_eq "$(knob sw1 detection_time_ms)" 200 "T0 untouched by the half-bad request"

	# A storm takes prio 3 out of pfc_en (on); switching to off meanwhile
	# leaves it out until restoration, which puts it back.
	$GENL set sw1 detect_ms=50 restore_ms=100 || fail "set times"
	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	expect_eq "$(pfc_on sw1)" 4 "on: prio 3 left pfc_en"
	$GENL set sw1 device_action=2 || fail "off mid-storm"
	sleep 0.3
	expect_eq "$(pstat sw1 3 state)/$(pfc_on sw1)" "stormed/4" "the storm keeps its pfc_en"
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	expect_eq "$(pfc_on sw1)" "3 4" "restoration put prio 3 back"
	# off: the next storm leaves pfc_en alone; on mid-storm changes nothing.
	sim sw1 rx_storm 4
	wait_stat sw1 4 state stormed 5
	expect_eq "$(pfc_on sw1)" "3 4" "off: pfc_en untouched by the storm"
	echo on > /sys/class/net/sw1/pfcwd/device_action || fail "on mid-storm"
	sleep 0.3
	expect_eq "$(pstat sw1 4 state)/$(pfc_on sw1)" "stormed/3 4" "the storm still keeps pfc_en"
	sim sw1 rx_storm ""
	wait_stat sw1 4 state operational 5
	expect_eq "$(pfc_on sw1)" "3 4" "pfc_en after the storm"
	expect_eq "$(nlget sw1 .setpfc_errors)" 0 "no setpfc errors"
}

test_netns() {
	reset_all pfns
	ip netns add pfns || fail "netns add"
	pfcsim_new sw1
	pfcsim_new sw2
	$GENL set sw1 enabled=1 detect_ms=123 || fail "hold sw1"
	tc qdisc add dev sw2 root pfcwd || fail "qdisc sw2"
	local idx
	idx=$(cat /sys/class/net/sw1/ifindex)
	# A held port moves with its device; the qdisc-only one ends.
	ip link set sw1 netns pfns || fail "move sw1"
	ip link set sw2 netns pfns || fail "move sw2"
	expect_eq "$($GENL dump | jq '.ports | length')" 0 "init netns sees no port"
	$GENL get "$idx" 2>/dev/null && fail "init netns got a port of pfns by ifindex"
	$GENL set "$idx" detect_ms=5 2>/dev/null && fail "init netns changed a port of pfns"
	$GENL clear "$idx" 2>/dev/null && fail "init netns cleared a port of pfns"
	local j
	j=$(ip netns exec pfns $GENL_PY dump) || fail "dump in pfns"
	expect_eq "$(echo "$j" | jq -c '[.ports[] | [.ifname, .detect_ms, .held]]')" \
		'[["sw1",123,1]]' "pfns sees its held port, config kept"
	ip netns exec pfns test -d /sys/class/net/sw1/pfcwd || fail "sysfs moved along"
	ip netns exec pfns $GENL_PY set sw1 detect_ms=321 || fail "set in pfns"
	expect_eq "$(ip netns exec pfns cat /sys/class/net/sw1/pfcwd/detection_time_ms)" 321 \
		"changed in its netns"
	# Back: the port follows again.
	ip netns exec pfns ip link set sw1 netns 1 || fail "move back"
	expect_eq "$(nlget sw1 .detect_ms)" 321 "back in init netns"
	ip netns del pfns
}

# A held port moved to another netns in the middle of a drop storm: what
# was applied in the old netns (pfc_en bit, ingress hook) is undone before
# the move, and the watchdog goes on in the new one.
test_netns_move_mid_storm() {
	reset_all pfns
	ip netns add pfns || fail "netns add"
	pfcsim_new sw1
	dcb_set pfc set dev sw1 prio-pfc 3:on || fail "dcb"
	local base
	base=$(pfc_on sw1)
	$GENL set sw1 enabled=1 detect_ms=50 restore_ms=50 || fail "hold sw1"
	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	grep -q "^sw1 .*ingress_hook 1" $PFCWD_DBG || fail "no ingress hook while dropping"
	ip link set sw1 netns pfns || fail "move sw1"
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	grep -q "^sw1 .*ingress_hook 0" $PFCWD_DBG || fail "ingress hook left behind"
	expect_eq "$(ip netns exec pfns dcb pfc show dev sw1 prio-pfc | grep -o '[0-7]:on' |
		cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')" "$base" "pfc_en restored"
	expect_eq "$(ip netns exec pfns $GENL_PY get sw1 | jq -c '[.held, .prio[3].state]')" "[1,0]" \
		"held, operational in pfns"
	# Watched there (once up again: a move takes the device down): a new
	# storm is detected and restored in pfns.
	ip netns exec pfns ip link set sw1 up || fail "sw1 up in pfns"
	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	ip netns del pfns
}

# A physical NIC (pfcsim: no rtnl_link_ops, so netns deletion hands it
# back to init_net) lent to a container whose root holds it mid-storm: the
# container's end takes the port along, pfc_en put back, no policy left.
test_netns_tenant_gone() {
	reset_all
	pfcsim_new sw1
	dcb_set pfc set dev sw1 prio-pfc 3:on || fail "dcb"
	local base pid upid i tenant out f=/tmp/tenant.$$
	local par=/sys/module/pfcwd/parameters/max_userns_ports old
	# Containers get ports only where the admin allows them (default 0).
	old=$(cat $par) && echo 1 > $par || fail "cannot set max_userns_ports"
	base=$(pfc_on sw1)
	rm -f $f
	unshare --user --map-root-user --net sh -c "echo \$\$ > $f; exec sleep 120" &
	upid=$!
	for ((i = 0; i < 100; i++)); do
		[ -s $f ] && break
		sleep 0.05
	done
	pid=$(cat $f) && rm -f $f || fail "no tenant"
	ip link set sw1 netns "$pid" || fail "lend sw1 to the tenant"
	[ -e /sys/class/net/sw1 ] && fail "sw1 still in init_net"
	# The move took sw1 down: the tenant brings it up, as after any move.
	nsenter -t "$pid" -U -n ip link set sw1 up || fail "the tenant cannot bring sw1 up"
	tenant="nsenter -t $pid -U -n $GENL_PY"
	$tenant set sw1 enabled=1 detect_ms=50 restore_ms=60000 ||
		fail "the tenant cannot enable sw1"
	sim sw1 rx_storm 3
	for ((i = 0; i < 30; i++)); do
		out=$($tenant get sw1 | jq -c '[.held, .stormed, .detect_ms]')
		[ "$out" = "[1,8,50]" ] && break
		sleep 0.1
	done
	expect_eq "$out" "[1,8,50]" "the tenant's port: held, prio 3 stormed, its T0"
	kill "$pid"
	wait $upid
	for ((i = 0; i < 100; i++)); do
		[ -e /sys/class/net/sw1 ] && break
		sleep 0.1
	done
	[ -e /sys/class/net/sw1 ] || fail "sw1 not back in init_net after the tenant's netns went"
	sim sw1 rx_storm ""
	out=$($GENL get sw1 2>/dev/null) &&
		fail "the tenant's port outlived its netns: $(jq -c '[.held, .detect_ms]' <<< "$out")"
	[ -d /sys/class/net/sw1/pfcwd ] && fail "sysfs directory left"
	expect_eq "$(pfc_on sw1)" "$base" "pfc_en as before the tenant's storm"
	echo "$old" > $par
	return 0
}

# $1: expected errno name, $2: expected message fragment ("-": the kernel
# sends no message for this one), rest: genl.py args.  Any other refusal
# must come with a message.
expect_reject() {
	local want=$1 msg=$2 out
	shift 2
	out=$($GENL "$@" 2>&1) && fail "accepted: $*"
	case $msg in
	-) [ "$out" = "error: $want: " ] || fail "$*: wanted $want, got: $out" ;;
	*)
		case $out in
		"error: $want: "?*"$msg"*) ;;
		*) fail "$*: wanted $want '${msg:-any message}', got: $out" ;;
		esac ;;
	esac
	log "$* -> $out"
}

test_bad_requests() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	dcb_set pfc set dev sw1 prio-pfc 3:on || fail "dcb"
	local before idx
	before=$(snapshot)
	idx=$(cat /sys/class/net/sw1/ifindex)
	expect_reject EINVAL "name the device" raw port_get
	expect_reject ENODEV "no device with this ifindex" raw port_get ifindex:u32:99999
	expect_reject ENODEV "no device with this ifname" raw port_get ifname:str:nosuchdev
	expect_reject ENODEV "not a pfcwd port" raw port_get ifname:str:lo
	expect_reject EINVAL "different devices" raw port_get ifindex:u32:1 ifname:str:sw1
	expect_reject ERANGE "" raw port_get ifindex:u32:0
	expect_reject EINVAL "policy validation" raw port_get ifname:str:abcdefghijklmnopq
	expect_reject EINVAL "" raw port_get ifname:strnz:sw1
	expect_reject ERANGE "" raw port_set ifname:str:sw1 detect_ms:u32:0
	expect_reject ERANGE "" raw port_set ifname:str:sw1 detect_ms:u32:60001
	expect_reject ERANGE "" raw port_set ifname:str:sw1 restore_ms:u32:0
	expect_reject ERANGE "" raw port_set ifname:str:sw1 action:u32:3
	expect_reject ERANGE "" raw port_set ifname:str:sw1 storm_limit:u32:17
	expect_reject ERANGE "" raw port_set ifname:str:sw1 enabled:u8:2
	expect_reject EINVAL "length" raw port_set ifname:str:sw1 detect_ms:u8:5
	expect_reject EINVAL "nothing to change" raw port_set ifname:str:sw1
	expect_reject EINVAL "" raw port_set ifname:str:sw1 stormed:u8:1
	expect_reject EINVAL "" raw port_set ifname:str:sw1 99:u32:1
	# A prio nest without NLA_F_NESTED; with it (17 | 0x8000), naming
	# priority 3 and nothing to set or drop; with a get-only attribute
	# (state) in it.
	expect_reject EINVAL "" raw port_set ifname:str:sw1 prio:hex:0500010003000000
	expect_reject EINVAL "nothing to set or drop" raw port_set ifname:str:sw1 32785:hex:0500010003000000
	expect_reject EINVAL "" raw port_set ifname:str:sw1 32785:hex:05000100030000000800030001000000
	expect_reject ERANGE "" raw port_set ifname:str:sw1 detect_ms:u32:100 action:u32:9
	expect_reject EINVAL "name the device" raw port_set detect_ms:u32:100
	expect_reject ENODEV "not a pfcwd port" raw port_set ifname:str:lo detect_ms:u32:100
	expect_reject ENODEV "not a pfcwd port" raw port_set ifindex:u32:1 enabled:u8:0
	expect_reject EINVAL "priorities to restore" raw prio_restore ifname:str:sw1
	expect_reject ERANGE "" raw prio_restore ifname:str:sw1 prios:u8:0
	expect_reject EINVAL "none of these priorities" raw prio_restore ifname:str:sw1 prios:u8:8
	expect_reject ENODEV "not a pfcwd port" raw stats_clear ifname:str:lo
	expect_reject EOPNOTSUPP - raw 99
	expect_reject EOPNOTSUPP - raw storm_detected ifname:str:sw1
	expect_reject EINVAL "reserved field" raw port_get --reserved 1 ifname:str:sw1
	expect_reject EINVAL "reserved bits" raw port_get --flags 0x104 ifname:str:sw1
	expect_eq "$(snapshot)" "$before" "nothing changed"
	expect_eq "$(knob sw1 detection_time_ms)" 200 "T0 untouched by the half-bad request"
	[ "$idx" -gt 0 ] || fail "ifindex"
}

# "enabled 1" with a change the new port's defaults refuse (a warning time
# not below the default T0 of 200 ms) is refused whole: no port is left
# behind, and a port a qdisc holds is not held by the failed request.
test_enable_refused() {
	reset_all
	pfcsim_new sw1
	expect_reject EINVAL "warning time must be below the detection time" \
		set sw1 enabled=1 warn_ms=500
	$GENL get sw1 > /dev/null 2>&1 && fail "the refused request left a port"
	[ -d /sys/class/net/sw1/pfcwd ] && fail "the refused request left a sysfs directory"
	expect_eq "$($GENL dump | jq '.ports | length')" 0 "ports after the refused request"
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	expect_reject EINVAL "warning time must be below the detection time" \
		set sw1 enabled=1 warn_ms=200
	expect_eq "$($GENL get sw1 | jq -c '[.held, .qdiscs]')" "[0,1]" "qdisc port not held"
	tc qdisc del dev sw1 root || fail "tc qdisc del"
	[ -d /sys/class/net/sw1/pfcwd ] && fail "the port outlived its qdisc"
	$GENL set sw1 enabled=1 warn_ms=150 || fail "a good enable"
	expect_eq "$($GENL get sw1 | jq -c '[.held, .warn_ms]')" "[1,150]" "held after a good enable"
}

test_unprivileged() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	local before nopriv="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
	before=$(snapshot)
	$nopriv $GENL_PY get sw1 >/dev/null || fail "unprivileged port-get refused"
	$nopriv $GENL_PY dump >/dev/null || fail "unprivileged dump refused"
	local out
	for req in "set sw1 detect_ms=10" "set sw1 enabled=0" "clear sw1" "clear" "restore sw1 8"; do
		# shellcheck disable=SC2086
		out=$($nopriv $GENL_PY $req 2>&1) && fail "unprivileged '$req' accepted"
		case $out in
		*"error: EPERM"*) log "unprivileged $req: $out" ;;
		*) fail "unprivileged '$req': wanted EPERM, got: $out" ;;
		esac
	done
	# Root without CAP_NET_ADMIN is refused too.
	out=$(setpriv --inh-caps=-net_admin --bounding-set=-net_admin $GENL_PY set sw1 detect_ms=10 2>&1) &&
		fail "set without CAP_NET_ADMIN accepted"
	case $out in *EPERM*) ;; *) fail "no EPERM without CAP_NET_ADMIN: $out" ;; esac
	expect_eq "$(snapshot)" "$before" "nothing changed"
}

# port-get needs no privilege, so it must cost the driver nothing: 100
# dumps by an unprivileged user make no ethtool call on a pfcsim port
# whose poller is idle (the port disabled: the poller leaves it alone),
# as a quiet window as long before shows.  Before, each dump read the
# port's statistics: get_sset_count, get_strings, get_ethtool_stats and
# get_tunable, 400 calls for the 100.
test_unprivileged_dump_cost() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	local nopriv="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
	local c0 c1 c2 t0 td quiet dumps out

	expect_eq "$($nopriv id -u)" 65534 "setpriv runs as nobody"
	sleep 1
	[ "$(pfcsim_eop sw1 ops)" -gt 0 ] || fail "no ethtool call from the poller in 1 s"
	echo 0 > /sys/class/net/sw1/pfcwd/enabled || fail "disable sw1"
	sleep 0.5
	c0=$(pfcsim_eop sw1 ops)
	t0=$(date +%s%N)
	out=$($nopriv $GENL_PY dumps 100) || fail "unprivileged dumps: $out"
	td=$((($(date +%s%N) - t0) / 1000000))
	c1=$(pfcsim_eop sw1 ops)
	sleep "$((td / 1000)).$(printf %03d $((td % 1000)))"
	c2=$(pfcsim_eop sw1 ops)
	expect_eq "$(echo "$out" | jq -c '[.dumps, .min, .max, .duplicates]')" "[100,1,1,0]" \
		"100 dumps of the one port"
	dumps=$((c1 - c0))
	quiet=$((c2 - c1))
	log "# ethtool calls: $dumps in $td ms of 100 unprivileged dumps, $quiet in as long after"
	[ "$dumps" -le "$quiet" ] ||
		fail "100 unprivileged dumps made $dumps ethtool calls, a quiet window as long $quiet"
	expect_eq "$(pfcsim_eop sw1 unbracketed)/$(pfcsim_eop sw1 absent)" 0/0 \
		"every call inside begin/complete, none on a detached device"
}

test_events() {
	reset_all
	pfcsim_new sw1
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	dcb_set pfc set dev sw1 prio-pfc 3:on || fail "dcb"
	echo 100 > /sys/class/net/sw1/pfcwd/detection_time_ms
	echo 100 > /sys/class/net/sw1/pfcwd/restoration_time_ms
	local ev=/tmp/pfcwd-events.$$ t0 t1 t2 idx
	idx=$(cat /sys/class/net/sw1/ifindex)
	$GENL_PY listen 30 --count 2 > "$ev" &
	local pid=$!
	for _ in $(seq 100); do grep -q listening "$ev" && break; sleep 0.05; done
	t0=$(now_ns)
	sim sw1 rx_storm 3
	wait_stat sw1 3 state stormed 5
	t1=$(now_ns)
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	t2=$(now_ns)
	wait $pid || fail "listener failed"
	cat "$ev"
	local d r
	d=$(grep storm_detected "$ev") || fail "no storm-detected event"
	r=$(grep storm_restored "$ev") || fail "no storm-restored event"
	expect_eq "$(echo "$d" | jq -c '[.ifindex, .ifname, .prio[0].prio, .prio[0].state, .prio[0].action, .prio[0].detected]')" \
		"[$idx,\"sw1\",3,1,0,1]" "detected: dev, prio, state stormed, action drop, count"
	expect_eq "$(echo "$r" | jq -c '[.ifname, .prio[0].prio, .prio[0].state, .prio[0].restored]')" \
		'["sw1",3,0,1]' "restored: dev, prio, state operational, count"
	expect_eq "$(($(echo "$r" | jq .event_seq) - $(echo "$d" | jq .event_seq)))" 1 \
		"restored numbered next after detected"
	local de re paused storm
	de=$(echo "$d" | jq .prio[0].event_ns)
	re=$(echo "$r" | jq .prio[0].event_ns)
	[ "$de" -gt "$t0" ] && [ "$de" -le "$t1" ] || fail "detected at $de, not in ($t0, $t1]"
	[ "$re" -gt "$t1" ] && [ "$re" -le "$t2" ] || fail "restored at $re, not in ($t1, $t2]"
	expect_eq "$(echo "$d" | jq .prio[0].last_detected_ns)" "$de" "event time = detection time"
	paused=$(echo "$d" | jq .prio[0].last_paused_us)
	[ "$paused" -ge 100000 ] || fail "paused $paused us < T0"
	storm=$(echo "$r" | jq .prio[0].last_storm_us)
	[ "$storm" -ge 100000 ] && [ $((storm * 1000)) -le $((re - de + 1000)) ] ||
		fail "storm lasted $storm us, events $((re - de)) ns apart"
	rm -f "$ev"
}

test_stats_clear_restore() {
	reset_all
	pfcsim_new sw1
	pfcsim_new sw2
	for d in sw1 sw2; do
		tc qdisc add dev "$d" root pfcwd || fail "tc qdisc add $d"
		dcb_set pfc set dev "$d" prio-pfc 3:on || fail "dcb $d"
		$GENL set "$d" detect_ms=50 restore_ms=50 storm_limit=1 || fail "set $d"
	done
	local base
	base=$(pfc_on sw1)
	sim sw1 rx_storm 3
	sim sw2 rx_storm 3
	wait_stat sw1 3 state latched 5
	wait_stat sw2 3 state latched 5
	expect_eq "$($GENL get sw1 | jq -c '.prio[3] | [.state, .latch, .detected]')" "[2,1,1]" \
		"latched by the storm limit"
	sim sw1 rx_storm ""
	sim sw2 rx_storm ""
	$GENL restore sw1 8 || fail "prio-restore"
	expect_eq "$($GENL get sw1 | jq -c '.prio[3] | [.state, .restored]')" "[0,1]" "restored by hand"
	expect_eq "$(pfc_on sw1)" "$base" "pfc_en back"
	expect_eq "$(pfc_on sw2)" "$(echo " $base " | sed 's/ 3 / /; s/^ //; s/ $//')" \
		"sw2 still latched, prio 3 out of pfc_en"
	$GENL clear sw1 || fail "stats-clear sw1"
	expect_eq "$($GENL get sw1 | jq -c '.prio[3] | [.detected, .restored, .rx_pause, .last_paused_us]')" \
		"[0,0,0,0]" "sw1 cleared"
	expect_eq "$($GENL get sw2 | jq '.prio[3].detected')" 1 "sw2 untouched"
	$GENL clear || fail "stats-clear all"
	expect_eq "$($GENL get sw2 | jq -c '.prio[3] | [.detected, .state]')" "[0,2]" \
		"sw2 cleared, still latched"
}

# 1024 ports dumped again and again while ports come and go.
# Logs how long the phase that ends now took (since $t, which it resets).
phase() {
	local now=${EPOCHREALTIME/./}

	log "$1: $(((now - t) / 1000)) ms"
	t=$now
}

test_dump_churn() {
	reset_all
	local i n=1024 t=${EPOCHREALTIME/./}
	for i in $(seq $n); do echo "p$i"; done > /tmp/pfcwd-ports.$$
	while read -r p; do echo "$p" > $PFCSIM_DFS/new_port || fail "new_port $p"; done < /tmp/pfcwd-ports.$$
	phase "$n pfcsim ports created"
	sed 's/^/set /; s/$/ enabled=1/' /tmp/pfcwd-ports.$$ | $GENL_PY batch || fail "enable $n ports"
	phase "$n ports enabled"
	# One dump (4 s under TCG): every port, 8 priorities each.
	expect_eq "$($GENL dump | jq -c '[(.ports | length), ([.ports[].prio | length] | unique)]')" \
		"[$n,[8]]" "all ports dumped, 8 priorities each"
	phase "a dump"
	# The churn: one genl.py for all its requests (a Python start each
	# cost more than the churn itself); its rounds are counted in a file,
	# to show that they overlapped the dumps.
	local prog=/tmp/pfcwd-churn.$$ churn r p0 p1
	: > $prog
	(
		for i in $(seq 40); do
			pfcsim_new "c$i" >/dev/null
			echo "set c$i enabled=1"
			[ "$i" -gt 2 ] && echo "set c$((i - 2)) enabled=0"
			echo "p$((i * 7))" > $PFCSIM_DFS/del_port
			echo "$i" >> $prog
		done | $GENL_PY batch
	) &
	churn=$!
	p0=$(wc -l < $prog)
	r=$($GENL dumps 20) || fail "dumps failed"
	p1=$(wc -l < $prog)
	phase "20 dumps"
	wait $churn
	log "dumps under churn: $r; churn rounds done when the dumps began: $p0, ended: $p1"
	[ "$p0" -lt 40 ] && [ "$p1" -gt 0 ] ||
		fail "the churn did not overlap the dumps (rounds $p0 -> $p1): no race"
	rm -f $prog
	expect_eq "$(echo "$r" | jq .duplicates)" 0 "no port twice in a dump"
	[ "$(echo "$r" | jq .min)" -ge $((n - 40)) ] || fail "a dump missed ports: $r"
	rm -f /tmp/pfcwd-ports.$$
	phase "the rest of the churn"
	unload_mod pfcsim
	phase "pfcsim unloaded"
	expect_eq "$($GENL dump | jq '.ports | length')" 0 "no port left"
}

TESTS=(
	"test_get_dump	netlink: port-get by name/ifindex, dump, values agree with sysfs and ethtool"
	"test_set	netlink: port-set changes what sysfs shows; enabled holds and releases"
	"test_port_without_qdisc	netlink: a port without qdisc mitigates on the device, released mid-storm"
	"test_device_action	netlink: device-action via port-set and sysfs, bad values refused, mid-storm change; profile and counter reads"
	"test_netns	netlink: netns isolation; held ports move with their device"
	"test_netns_move_mid_storm	netlink: a held port moved to another netns mid-storm: undone, watched there"
	"test_netns_tenant_gone	netlink: a tenant's held port on a NIC ends with the tenant's netns"
	"test_bad_requests	netlink: 32 bad requests refused with errno and message, nothing changed"
	"test_enable_refused	netlink: a refused enabled 1 leaves no port and no hold behind"
	"test_unprivileged	netlink: without CAP_NET_ADMIN: read yes, change no"
	"test_unprivileged_dump_cost	netlink: 100 unprivileged dumps make no driver call"
	"test_events	netlink: storm-detected/restored events with fields and times"
	"test_stats_clear_restore	netlink: prio-restore of a latched priority; stats-clear one and all"
	"test_dump_churn	netlink: 1024-port dumps while ports come and go: no duplicates	600"
)

srv_start genl $GENL_PY serve || exit 1
tap_main "$@"
