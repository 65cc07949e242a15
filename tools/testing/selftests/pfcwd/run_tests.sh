#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs pfcwd's selftests (inside the VM, as root) and prints one TAP stream
# per script, indented as subtests, with a top-level result per script.
#
#   run_tests.sh [--lane ID] [SCRIPT...]   default: every *.sh but lib.sh, bounds.sh
#
# Each script's output is also saved to $PFCWD_RESULTS/<kernel>/<script>.tap
# when PFCWD_RESULTS is set, and the kmemleak scan's to kmemleak-ID.tap
# there (ID: make check's lane, default "all"); make check counts the cases
# from those files (scripts/lane-cases).

dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir" || exit 1
lane=all
if [ "${1:-}" = --lane ]; then
	lane=$2
	shift 2
fi

if [ $# -gt 0 ]; then
	scripts=("$@")
else
	mapfile -t scripts < <(ls ./*.sh | grep -v -e '/lib\.sh$' -e '/bounds\.sh$' -e '/run_tests\.sh$' | sort)
fi

out=
if [ -n "${PFCWD_RESULTS:-}" ]; then
	out=$PFCWD_RESULTS/$(uname -r)
	mkdir -p "$out"
fi

# Keep the kernel's netdev ingress static key on for the whole run (an nft
# chain on a dummy device).  Otherwise the first ingress hook pfcwd
# registers, and the removal of the last, patch the jump label in
# __netif_receive_skb_core() while another vCPU is receiving: under qemu's
# multi-threaded TCG that vCPU can spin on the patched site for ever (seen:
# RIP on the 5-byte NOP, soft lockup, RCU stall).  Real CPUs patch live
# code safely; the tests' hooks still come and go exactly as in production,
# only the static key stays on - as on any host with an nft netdev chain.
ip link add pfcwdkey0 type dummy 2>/dev/null &&
	nft add table netdev pfcwd_selftest_key &&
	nft add chain netdev pfcwd_selftest_key keep \
		'{ type filter hook ingress device pfcwdkey0 priority 0; policy accept; }' ||
	echo "# warning: cannot hold the ingress static key (nft); see run_tests.sh"

# The same for the receive timestamp key (netstamp_needed_key, tested in
# netif_rx_internal()): tests whose sockets ask for timestamps turn it on
# and off, and under TCG a vCPU transmitting on veth met the patch site's
# int3 ("Oops: int3" in netif_rx_internal, seen on 6.12).  One socket with
# SO_TIMESTAMP held for the whole run keeps the key on.
python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)  # SO_TIMESTAMP
time.sleep(86400)' &
tskey=$!
sleep 0.5

# On a kernel with kmemleak (the debug kernel of make check-debug): forget
# what boot left behind, and scan once the suite is done, as one more result.
kml=/sys/kernel/debug/kmemleak
leakscan=0
if [ -w $kml ] && echo clear > $kml 2>/dev/null; then
	leakscan=1
fi

# Unloads both modules for the scan, after removing what a script may have
# left holding pfcwd (a run of a few cases, PFCWD_CASES, can end with a
# pfcwd qdisc on a veth or in a netns): the test netns, then the pfcwd
# qdiscs of the init netns.  Prints why a module stayed and fails then: the
# scan would see what that module holds as referenced, and say nothing.
release_modules() {
	local m dev

	ip -all netns delete 2>/dev/null
	tc qdisc show 2>/dev/null | while read -r _ kind _ _ dev _; do
		[ "$kind" = pfcwd ] && tc qdisc del dev "$dev" root 2>/dev/null
	done
	for m in pfcsim pfcwd; do
		[ -d /sys/module/$m ] || continue
		modprobe -r $m 2>/dev/null
		if [ -d /sys/module/$m ]; then
			echo "  # $m still loaded (refcount $(cat /sys/module/$m/refcnt)): cannot scan for its leaks"
			return 1
		fi
	done
	return 0
}

# The kmemleak result, in the form of one more script's: both modules
# unloaded (what they leaked is then nobody's), objects older than
# kmemleak's minimum age (5 s), two scans.
kmemleak_result() {
	local n=$1 leaks

	echo "# selftest: kmemleak"
	if ! release_modules; then
		kmemleak_line "not ok 1 kmemleak: nothing leaked by the suite"
		echo "not ok $n selftests: kmemleak"
		return 1
	fi
	sleep 6
	echo scan > $kml
	echo scan > $kml
	leaks=$(grep -c '^unreferenced object' $kml)
	if [ "$leaks" = 0 ]; then
		kmemleak_line "ok 1 kmemleak: nothing leaked by the suite"
		echo "ok $n selftests: kmemleak"
		return 0
	fi
	echo "  # $leaks unreferenced objects:"
	head -n 120 $kml | sed 's/^/  #   /'
	kmemleak_line "not ok 1 kmemleak: nothing leaked by the suite"
	echo "not ok $n selftests: kmemleak"
	return 1
}

# The scan's result line, shown and kept as a one-case TAP file.
kmemleak_line() {
	echo "  $1"
	[ -n "$out" ] && printf '1..1\n%s\n' "$1" > "$out/kmemleak-$lane.tap"
}

echo "TAP version 13"
echo "1..$((${#scripts[@]} + leakscan))"
n=0 rc=0
for s in "${scripts[@]}"; do
	n=$((n + 1))
	name=$(basename "$s" .sh)
	echo "# selftest: $name"
	if [ -n "$out" ]; then
		"./$(basename "$s")" 2>&1 | tee "$out/$name.tap" | sed 's/^/  /'
		r=${PIPESTATUS[0]}
	else
		"./$(basename "$s")" 2>&1 | sed 's/^/  /'
		r=${PIPESTATUS[0]}
	fi
	if [ "$r" = 0 ]; then
		echo "ok $n selftests: $name"
	else
		echo "not ok $n selftests: $name"
		rc=1
	fi
done
kill "$tskey" 2>/dev/null
nft delete table netdev pfcwd_selftest_key 2>/dev/null
ip link del pfcwdkey0 2>/dev/null
if [ $leakscan = 1 ]; then
	kmemleak_result $((n + 1)) || rc=1
fi
exit $rc
