#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module load/unload, qdisc autoload, pfcsim port lifecycle.

. "$(dirname "$0")/lib.sh"

cleanup_all() {
	ip link del pfd0 2>/dev/null
	for i in 0 1 2 3; do ip link del "pfd$i" 2>/dev/null; done
	unload_mod pfcsim
	unload_mod pfcwd
}

test_load_unload() {
	cleanup_all
	load_mod pfcwd
	mod_loaded pfcwd || fail "pfcwd not in /proc/modules after modprobe"
	modprobe -r pfcwd || fail "modprobe -r pfcwd failed"
	mod_loaded pfcwd && fail "pfcwd still loaded after modprobe -r"
	for i in $(seq 20); do
		modprobe pfcwd && modprobe -r pfcwd || fail "load/unload cycle $i failed"
	done
	return 0
}

test_autoload() {
	cleanup_all
	ip link add pfd0 type dummy || fail "cannot create dummy"
	tc qdisc add dev pfd0 root handle 1: pfcwd || fail "tc qdisc add did not autoload pfcwd"
	mod_loaded pfcwd || fail "pfcwd not loaded after tc qdisc add"
	tc qdisc show dev pfd0 | grep -q "^qdisc pfcwd 1: root" ||
		fail "qdisc not shown: $(tc qdisc show dev pfd0)"
	# In use: the module must not go while a qdisc of its kind exists.
	modprobe -r pfcwd 2>/dev/null && fail "pfcwd unloaded with a qdisc attached"
	mod_loaded pfcwd || fail "pfcwd vanished"
	tc qdisc del dev pfd0 root || fail "tc qdisc del failed"
	modprobe -r pfcwd || fail "cannot unload after qdisc delete"
	ip link del pfd0
}

test_unload_after_device_delete() {
	cleanup_all
	for i in 0 1 2 3; do
		ip link add "pfd$i" type dummy && ip link set "pfd$i" up &&
			tc qdisc add dev "pfd$i" root pfcwd || fail "setup pfd$i"
	done
	check "$PFCWD_PKT" send pfd0 3 100 >/dev/null
	for i in 0 1 2 3; do ip link del "pfd$i"; done
	modprobe -r pfcwd || fail "cannot unload after devices deleted"
}

test_pfcsim_ports() {
	cleanup_all
	load_mod pfcsim
	[ -w $PFCSIM_DFS/new_port ] || fail "no $PFCSIM_DFS/new_port"
	pfcsim_new psim0
	pfcsim_new psim1
	n=$(ls -d /sys/class/net/psim0/queues/tx-* | wc -l)
	expect_eq "$n" 8 "TX queues of psim0"
	expect_eq "$(cat /sys/class/net/psim0/carrier)" 1 "carrier of psim0"
	pfcsim_del psim1
	[ -e /sys/class/net/psim1 ] && fail "psim1 still exists after del_port"
	# Unloading with a port present removes it.
	modprobe -r pfcsim || fail "cannot unload pfcsim with a port present"
	[ -e /sys/class/net/psim0 ] && fail "psim0 survived module unload"
	return 0
}

test_pfcsim_bad_input() {
	cleanup_all
	load_mod pfcsim
	pfcsim_new psim0
	echo psim0 > $PFCSIM_DFS/new_port 2>/dev/null && fail "duplicate name accepted"
	echo "bad/name" > $PFCSIM_DFS/new_port 2>/dev/null && fail "name with / accepted"
	echo "" > $PFCSIM_DFS/new_port 2>/dev/null && fail "empty name accepted"
	echo "0123456789abcdefXYZ" > $PFCSIM_DFS/new_port 2>/dev/null &&
		fail "over-long name accepted"
	echo nosuch > $PFCSIM_DFS/del_port 2>/dev/null && fail "unknown port deleted"
	n=$(ls /sys/class/net | grep -c '^psim')
	expect_eq "$n" 1 "pfcsim ports after bad writes"
	modprobe -r pfcsim || fail "cannot unload pfcsim"
}

TESTS=(
	"test_load_unload	module: load and unload, 20 cycles"
	"test_autoload	module: tc qdisc add autoloads pfcwd; in use while attached"
	"test_unload_after_device_delete	module: unload after devices with qdiscs are deleted"
	"test_pfcsim_ports	pfcsim: ports created, deleted, removed on unload"
	"test_pfcsim_bad_input	pfcsim: bad debugfs writes rejected"
)

tap_main "$@"
