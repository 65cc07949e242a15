#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pfcwd qdisc's control path: add, replace, change, delete on dummy,
# veth and pfcsim; its classes; bad invocations rejected.

. "$(dirname "$0")/lib.sh"

TC_NL=$SELFTEST_DIR/tc-nl.py
# tc-nl.py ARGS..., through the script's one tc-nl.py (a request server:
# lib.sh) rather than a Python start each.
tcnl() { srv_ask tcnl "$@"; }

setup() {
	load_mod pfcwd
	ip link del pq0 2>/dev/null
	ip link del pv0 2>/dev/null
	[ -e /sys/class/net/psim0 ] && pfcsim_del psim0
	true
}

# Runs add / show / replace / change / delete on device $1.
lifecycle() {
	local dev=$1

	tc qdisc add dev "$dev" root handle 1: pfcwd || fail "$dev: add"
	tc qdisc show dev "$dev" | grep -q "^qdisc pfcwd 1: root" ||
		fail "$dev: not shown after add: $(tc qdisc show dev "$dev")"
	tc qdisc add dev "$dev" root handle 1: pfcwd 2>/dev/null &&
		fail "$dev: second add without replace accepted"
	tc qdisc replace dev "$dev" root handle 1: pfcwd || fail "$dev: replace by itself"
	tc qdisc replace dev "$dev" root handle 2: pfifo_fast || fail "$dev: replace by pfifo_fast"
	tc qdisc show dev "$dev" | grep -q "^qdisc pfifo_fast 2: root" ||
		fail "$dev: pfifo_fast not in place"
	tc qdisc replace dev "$dev" root handle 3: pfcwd || fail "$dev: replace back"
	tcnl change "$dev" handle 3 limit 50 >/dev/null || fail "$dev: change limit"
	tc qdisc del dev "$dev" root || fail "$dev: delete"
	tc qdisc show dev "$dev" | grep -q pfcwd && fail "$dev: still present after delete"
	return 0
}

test_dummy() {
	setup
	ip link add pq0 type dummy && ip link set pq0 up || fail "dummy"
	lifecycle pq0
	ip link del pq0
}

test_veth() {
	setup
	ip link add pv0 type veth peer name pv1 || fail "veth"
	ip link set pv0 up && ip link set pv1 up
	lifecycle pv0
	lifecycle pv1
	ip link del pv0
}

test_pfcsim() {
	setup
	pfcsim_new psim0
	lifecycle psim0
	# Leave one attached: deleting the port must take the qdisc with it.
	tc qdisc add dev psim0 root pfcwd || fail "add before port delete"
	pfcsim_del psim0
	unload_mod pfcsim
}

test_classes() {
	setup
	ip link add pq0 type dummy && ip link set pq0 up || fail "dummy"
	tc qdisc add dev pq0 root handle 7: pfcwd || fail "add"
	ids=$(tc class show dev pq0 | awk '$1 == "class" { print $3 }' | tr '\n' ' ')
	expect_eq "$ids" "7:1 7:2 7:3 7:4 7:5 7:6 7:7 7:8 " "class ids"
	n=$(tc -s class show dev pq0 | grep -c '^ Sent ')
	expect_eq "$n" 8 "classes with statistics"
	limit=$(tc qdisc show dev pq0 | grep -c pfcwd)
	expect_eq "$limit" 1 "qdisc lines"
	ip link del pq0
}

test_default_limit() {
	setup
	ip link add pq0 type dummy && ip link set pq0 txqueuelen 37 up || fail "dummy"
	tc qdisc add dev pq0 root handle 1: pfcwd || fail "add"
	# Without the tc plugin, tc does not print the options; read them raw.
	expect_eq "$(tcnl show pq0)" "handle 1: limit 37" "default limit"
	tcnl change pq0 handle 1 limit 1000 || fail "change"
	expect_eq "$(tcnl show pq0)" "handle 1: limit 1000" "changed limit"
	ip link del pq0
	# A queueing device with tx_queue_len 0 still gets one packet per band.
	pfcsim_new psim0
	ip link set psim0 txqueuelen 0
	tc qdisc replace dev psim0 root handle 2: pfcwd || fail "replace"
	expect_eq "$(tcnl show psim0)" "handle 2: limit 1" "limit with txqueuelen 0"
	pfcsim_del psim0
}

# Each bad request must fail with the given errno and change nothing.
expect_nl_error() {
	local want=$1 msg=$2 out rc
	shift 2

	out=$(tcnl "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*': exit $rc (want $want): $out"
	[ -z "$msg" ] || echo "$out" | grep -q "$msg" ||
		fail "'$*': message '$msg' missing in: $out"
	log "rejected: $* -> $(echo "$out" | tr '\n' ' ')"
}

test_bad_netlink() {
	setup
	ip link add pq0 type dummy && ip link set pq0 up || fail "dummy"
	tc qdisc add dev pq0 root handle 1: pfcwd || fail "add"
	tcnl change pq0 handle 1 limit 9 || fail "change limit 9"
	before=$(tcnl show pq0)
	expect_eq "$before" "handle 1: limit 9" "limit before bad requests"
	expect_nl_error 34 "extack: " change pq0 handle 1 limit 0
	expect_nl_error 34 "extack: " change pq0 handle 1 limit 0x100001
	expect_nl_error 22 "extack: " change pq0 handle 1 attr 1:0102
	expect_nl_error 22 "extack: " change pq0 handle 1 attr 1:0102030405060708
	expect_nl_error 22 "NLA_F_NESTED" change pq0 handle 1 limit 5 noflag
	expect_nl_error 22 "extack: " change pq0 handle 1 attr 99:00000000
	expect_nl_error 34 "extack: " replace pq0 handle 1 limit 0
	after=$(tcnl show pq0)
	expect_eq "$after" "$before" "qdisc after rejected changes"
	tc qdisc del dev pq0 root
	# A rejected add leaves the device's default qdisc in place.
	expect_nl_error 34 "extack: " add pq0 handle 1 limit 0
	tc qdisc show dev pq0 | grep -q pfcwd && fail "pfcwd attached by a rejected add"
	ip link del pq0
}

test_bad_tc() {
	setup
	ip link add pq0 type dummy && ip link set pq0 up || fail "dummy"
	tc qdisc add dev pq0 root pfcwd bogus 2>/dev/null && fail "unknown option accepted"
	tc qdisc add dev nosuchdev0 root pfcwd 2>/dev/null && fail "missing device accepted"
	tc qdisc add dev pq0 parent 5:1 pfcwd 2>/dev/null && fail "missing parent accepted"
	tc qdisc add dev pq0 root handle 1: pfcwd || fail "add"
	tc qdisc add dev pq0 parent 1:3 pfifo 2>/dev/null &&
		fail "child qdisc grafted on a pfcwd band"
	tc class add dev pq0 parent 1: classid 1:9 htb rate 1mbit 2>/dev/null &&
		fail "class added to pfcwd"
	tc class change dev pq0 classid 1:3 2>/dev/null && fail "class change accepted"
	tc qdisc show dev pq0 | grep -q "^qdisc pfcwd 1: root" || fail "pfcwd lost"
	n=$(tc class show dev pq0 | grep -c '^class')
	expect_eq "$n" 8 "classes after bad requests"
	ip link del pq0
}

# Root in a user namespace creates ports up to max_userns_ports, one limit
# for every tenant together; the host's ports do not count against it and
# are never refused.  A tenant's ports go with its netns, and with them
# their count.
test_userns_limit() {
	local par=/sys/module/pfcwd/parameters/max_userns_ports old out
	load_mod pfcwd
	modprobe dummy 2>/dev/null
	old=$(cat $par) || fail "no parameter max_userns_ports"
	echo 3 > $par || fail "cannot set max_userns_ports"
	# A tenant: 4 ports asked for, 3 given; it holds them 3 s.
	unshare --user --map-root-user --net sh -c '
		for i in 0 1 2 3; do
			ip link add uq$i type dummy && ip link set uq$i up || exit 2
			tc qdisc add dev uq$i root pfcwd 2>&1 && echo "uq$i added"
		done
		sleep 3' > /tmp/userns.$$ 2>&1 &
	for ((i = 0; i < 100; i++)); do
		grep -q "uq3 added\|Error" /tmp/userns.$$ && break
		sleep 0.05
	done
	out=$(cat /tmp/userns.$$)
	log "$out"
	expect_eq "$(grep -c 'added' <<< "$out")" 3 "ports a tenant got with max_userns_ports 3"
	grep -q "Error: pfcwd: ports in user namespaces are at their limit (module parameter max_userns_ports)" <<< "$out" ||
		fail "the 4th port was not refused with the limit's message"
	# The host, meanwhile: not counted, not refused.
	ip link add uqh type dummy && ip link set uqh up || fail "host dummy"
	tc qdisc add dev uqh root pfcwd || fail "a host port refused while the tenants are at their limit"
	wait
	# The tenant's netns is gone (its devices go from a work item), and
	# its ports with it: room again.
	for ((i = 0; i < 100; i++)); do
		grep -q "^uq[0-9] enabled" "$PFCWD_DBG" || break
		sleep 0.05
	done
	grep -q "^uq[0-9] enabled" "$PFCWD_DBG" && fail "the tenant's ports outlived its netns"
	out=$(unshare --user --map-root-user --net sh -c '
		for i in 0 1 2; do
			ip link add uq$i type dummy && ip link set uq$i up || exit 2
			tc qdisc add dev uq$i root pfcwd 2>&1 && echo "uq$i added"
		done' 2>&1)
	expect_eq "$(grep -c 'added' <<< "$out")" 3 "ports after the first tenant went"
	echo "$old" > $par
	ip link del uqh
	rm -f /tmp/userns.$$
}

# Any user can load pfcwd through tc's autoload in a user namespace of its
# own; by default such a namespace gets no port at all, and the host still
# does.
test_userns_default() {
	local out

	[ -d /sys/module/pfcwd ] && { modprobe -r pfcsim 2>/dev/null; unload_mod pfcwd; }
	modprobe dummy 2>/dev/null
	out=$(unshare --user --map-root-user --net sh -c '
		ip link add ud0 type dummy && ip link set ud0 up || exit 2
		tc qdisc add dev ud0 root pfcwd 2>&1 && echo "ud0 added"' 2>&1)
	log "$out"
	mod_loaded pfcwd || fail "tc in a user namespace did not autoload pfcwd"
	expect_eq "$(cat /sys/module/pfcwd/parameters/max_userns_ports)" 0 "max_userns_ports by default"
	grep -q "ud0 added" <<< "$out" && fail "a user namespace got a port by default"
	grep -q "Error: pfcwd: ports in user namespaces are at their limit (module parameter max_userns_ports)" <<< "$out" ||
		fail "the tenant's port was not refused with the limit's message"
	ip link add udh type dummy && ip link set udh up || fail "host dummy"
	tc qdisc add dev udh root pfcwd || fail "a host port refused"
	ip link del udh
}

TESTS=(
	"test_dummy	qdisc: add/replace/change/delete on dummy"
	"test_veth	qdisc: add/replace/change/delete on both ends of veth"
	"test_pfcsim	qdisc: add/replace/change/delete on pfcsim; port deleted with qdisc"
	"test_classes	qdisc: eight classes MAJOR:1..MAJOR:8 with statistics"
	"test_default_limit	qdisc: limit defaults to tx_queue_len, dumped and changed"
	"test_bad_netlink	qdisc: bad options rejected by the kernel, nothing changed"
	"test_bad_tc	qdisc: bad tc invocations rejected"
	"test_userns_limit	qdisc: ports in user namespaces are limited, the host's are not"
	"test_userns_default	qdisc: a user namespace gets no port unless the admin allows it"
)

srv_start tcnl python3 -S "$TC_NL" serve || exit 1
tap_main "$@"
