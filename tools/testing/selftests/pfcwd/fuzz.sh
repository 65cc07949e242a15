#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pfcwd generic netlink family fuzzed (nlfuzz.py, generated from
# Documentation/netlink/specs/pfcwd.yaml): as root in the initial netns, as
# root in a netns of its own next to a foreign one, unprivileged, and
# setting while another process dumps 64 watched ports.  Each case prints
# its seed; PFCWD_FUZZ_SEED=N replays a case, PFCWD_FUZZ_COUNT=N sets the
# requests of the root case (the others send a share of it).  The kernel
# log is checked after each case, as after every case of lib.sh.

. "$(dirname "$0")/lib.sh"

GENL_PY="python3 -S $SELFTEST_DIR/genl.py"
# Not -S: PyYAML is a site package.
NLFUZZ="python3 $SELFTEST_DIR/nlfuzz.py"
# About 40 ms a request under TCG (a snapshot after each set-type one);
# the debug kernel is about five times slower: half as many there.
FUZZ_COUNT=${PFCWD_FUZZ_COUNT:-800}
[ -z "${PFCWD_FUZZ_COUNT:-}" ] && on_debug_kernel && FUZZ_COUNT=400

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

# The seed of this case: PFCWD_FUZZ_SEED, else a new one.
fuzz_seed() {
	FUZZ_SEED=${PFCWD_FUZZ_SEED:-$(((RANDOM << 17) ^ (RANDOM << 2) ^ RANDOM))}
	log "seed $FUZZ_SEED (replay: PFCWD_FUZZ_SEED=$FUZZ_SEED $(basename "$0") ${FUNCNAME[1]})"
}

# The ports most cases fuzz: sw1, a qdisc port with counters from one
# storm (for a wrong stats-clear to clear); sw2, held by netlink, latched
# on a storm that goes on (for prio-restore to restore); fzd0, a dummy that
# is no port (for port-set to make one).
fuzz_ports() {
	pfcsim_new sw1
	pfcsim_new sw2
	tc qdisc add dev sw1 root pfcwd || fail "tc qdisc add"
	dcb_set pfc set dev sw1 prio-pfc 3:on 4:on || fail "dcb sw1"
	dcb_set pfc set dev sw2 prio-pfc 3:on || fail "dcb sw2"
	printf '%s\n' "set sw1 detect_ms=50 restore_ms=50" \
		"set sw2 enabled=1 detect_ms=50 restore_ms=60000 storm_limit=1" |
		$GENL_PY batch || fail "configure sw1, sw2"
	sim sw1 rx_storm 3
	sim sw2 rx_storm 3
	wait_stat sw1 3 state stormed 5
	sim sw1 rx_storm ""
	wait_stat sw1 3 state operational 5
	wait_stat sw2 3 state latched 5
	ip link del fzd0 2>/dev/null
	ip link add fzd0 type dummy || fail "dummy"
	ip link set fzd0 up || fail "fzd0 up"
}

# Runs the fuzzer with ARGS; its summary (JSON) goes to $FUZZ_STATS.
fuzz() {
	local out rc

	out=$($NLFUZZ fuzz --seed "$FUZZ_SEED" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^nlfuzz: {'
	FUZZ_STATS=$(printf '%s\n' "$out" | sed -n 's/^nlfuzz: {/{/p')
	[ -n "$FUZZ_STATS" ] && log "stats: $FUZZ_STATS"
	[ $rc = 0 ] || fail "nlfuzz failed (status $rc), seed $FUZZ_SEED"
	[ -n "$FUZZ_STATS" ] || fail "no summary from nlfuzz"
}

# Fails unless jq filter $1 holds for the fuzzer's summary ($2: what).
stat_ok() {
	[ "$(jq -r "$1" <<< "$FUZZ_STATS")" = true ] || fail "$2: $1 is false"
}

test_fuzz_root() {
	reset_all
	fuzz_seed
	fuzz_ports
	fuzz --count "$FUZZ_COUNT" --target sw1 sw2 fzd0 --quiet sw1 fzd0
	stat_ok '.sets_ok > 0 and .accepted > 0' "no request succeeded"
	stat_ok '.bad_refused > 0' "no malformed request"
	stat_ok '.core_no_extack | keys | length >= 2' "core refusals without extack"
	stat_ok '.errno.ERANGE > 0 and .errno.ENODEV > 0 and .errno.EINVAL > 0' "refusals"
	ip link del fzd0
}

# In netns fzA, with its own port fa1 and a dummy; sw1 and sw2 stay in
# the initial netns: named by name or ifindex they must not be found, and
# nothing done in fzA may change them (their counters included).
test_fuzz_netns() {
	reset_all fzA
	fuzz_seed
	fuzz_ports
	ip netns add fzA || fail "netns add"
	pfcsim_new fa1
	ip link set fa1 netns fzA || fail "move fa1"
	ip -n fzA link set fa1 up || fail "fa1 up"
	ip -n fzA link add fzd1 type dummy || fail "dummy in fzA"
	ip netns exec fzA $GENL_PY set fa1 enabled=1 detect_ms=100 || fail "hold fa1"
	fuzz --count $((FUZZ_COUNT * 2 / 3)) --netns fzA --target fa1 fzd1 \
		--quiet fa1 fzd1 sw1 --foreign sw1 sw2
	stat_ok '.sets_ok > 0 and .errno.ENODEV > 0' "no success or no ENODEV"
	expect_eq "$(ip netns exec fzA $GENL_PY dump | jq -c '[.ports[].ifname] - ["fa1", "fzd1"]')" \
		"[]" "fzA's ports"
	ip netns del fzA
	ip link del fzd0
}

# Unprivileged (uid 65534, no capability): every request of a set-type
# operation is refused by the core with EPERM before any policy; port-get
# and history-get work as for root.
test_fuzz_unpriv() {
	reset_all
	fuzz_seed
	fuzz_ports
	fuzz --count $((FUZZ_COUNT / 2)) --unpriv --target sw1 sw2 fzd0 --quiet sw1 fzd0
	stat_ok '.sets_ok == 0' "an unprivileged set succeeded"
	stat_ok '.core_no_extack["EPERM no CAP_NET_ADMIN"] > 0' "no EPERM counted"
	stat_ok '.accepted > 0 and .dumps > 0' "no get or dump served"
	ip link del fzd0
}

# 64 watched ports dumped (port-get, history-get: many parts each) by a
# second process in a loop while the fuzzer sets; every dump holds every
# one of the 64 once.  The fuzzer counts its successful sets made while a
# dump was under way: at least one, or nothing raced.
test_fuzz_dump_race() {
	reset_all
	fuzz_seed
	fuzz_ports
	local i mass=() d res
	for ((i = 0; i < 64; i++)); do
		echo "m$i" > $PFCSIM_DFS/new_port || fail "new_port m$i"
		mass+=("m$i")
	done
	printf 'set %s enabled=1\n' "${mass[@]}" | $GENL_PY batch || fail "enable 64 ports"
	d=$(mktemp -d)
	$NLFUZZ dumper --stop "$d/stop" --spans "$d/spans" --expect-ports "${mass[@]}" \
		> "$d/dumper" 2>&1 &
	local dpid=$! t0=$SECONDS
	# Its start (Python, PyYAML, the spec) is not bounded by anything
	# pfcwd does: wait while it lives, within the case's own timeout.
	while [ ! -s "$d/spans" ] && kill -0 $dpid 2>/dev/null &&
		((SECONDS - t0 < 150)); do
		sleep 0.2
	done
	[ -s "$d/spans" ] || { kill $dpid 2>/dev/null
		fail "the dumper made no dump in $((SECONDS - t0)) s: $(cat "$d/dumper")"; }
	log "first dump after $((SECONDS - t0)) s"
	fuzz --count $((FUZZ_COUNT / 2)) --target sw1 sw2 fzd0 --quiet sw1 fzd0 \
		--expect-ports "${mass[@]}" --race-file "$d/spans"
	touch "$d/stop"
	wait $dpid || fail "dumper failed: $(cat "$d/dumper")"
	res=$(tail -n 1 "$d/dumper")
	log "dumper: $res"
	rm -rf "$d"
	expect_eq "$(jq -c '[.duplicates, .missing, .errors]' <<< "$res")" "[0,0,0]" \
		"dumps: duplicates, missing ports, errors"
	[ "$(jq '.max_msgs' <<< "$res")" -ge 512 ] ||
		fail "no history-get dump of 64 ports x 8 priorities: $res"
	stat_ok '.sets_during_dump > 0' "no set made during a dump: nothing raced"
	ip link del fzd0
}

TESTS=(
	"test_fuzz_root	fuzz: root, initial netns: spec-generated good, boundary and malformed requests	300"
	"test_fuzz_netns	fuzz: root in its own netns: foreign ports never reached nor changed	300"
	"test_fuzz_unpriv	fuzz: unprivileged: every set-type request EPERM, gets and dumps served	300"
	"test_fuzz_dump_race	fuzz: 64 watched ports dumped by another process while the fuzzer sets	300"
)

tap_main "$@"
