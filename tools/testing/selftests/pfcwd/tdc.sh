#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The qdisc's tc-testing cases (tdc/*.json, the upstream format) run by
# the kernel's own tdc.py from Debian's linux-source-6.12, extracted into
# build/tdc by scripts/deps.sh; tdc/tdc_config_local.py gives it tc, ip
# and the plugin (TC_LIB_DIR).  The first case runs tdc.py over every
# file once; each tdc case is then a TAP case of its own, passed only when
# tdc reported it ok (a tdc skip fails: no pfcwd case skips by design, so
# one is a case lost to an earlier setup or teardown failure).
#
# "tdc.sh tdc_ID" runs tdc.py on that one case.

. "$(dirname "$0")/lib.sh"

TDC_DIR=$PFCWD_TOP/build/tdc
TDC_CASES=$SELFTEST_DIR/tdc
TDC_RES=/tmp/pfcwd-tdc
# tdc.py's bound for the whole run; the run case gets 60 s more.  Under
# TCG pyroute2 takes 15-30 s to import, and a case about 4 s on one CPU
# (a netns, a veth and a dummy made and removed, three or four tc
# processes); tdc runs the cases on every CPU (-J, as upstream's tdc.sh).
TDC_TIMEOUT=${PFCWD_TDC_TIMEOUT:-600}

# Runs tdc.py with ARGS... on the case files; its log in $TDC_RES/log,
# its TAP in $TDC_RES/tap.  Returns tdc.py's exit status (124: timeout).
tdc_run() {
	local f files=()

	[ -f "$TDC_DIR/tdc.py" ] || fail "no $TDC_DIR/tdc.py (scripts/deps.sh)"
	[ -f "$PFCWD_TOP/build/tools/q_pfcwd.so" ] || fail "no build/tools/q_pfcwd.so (make tools)"
	python3 -c 'import pyroute2' 2>/dev/null || fail "no pyroute2 for tdc's nsPlugin (scripts/deps.sh)"
	load_mod pfcwd
	# tdc -J uses multiprocessing, whose locks are POSIX semaphores in
	# /dev/shm: the VM's /dev has none.
	if ! mountpoint -q /dev/shm; then
		mkdir -p /dev/shm || fail "cannot make /dev/shm"
		mount -t tmpfs -o mode=1777 shm /dev/shm || fail "cannot mount /dev/shm"
	fi
	for f in "$TDC_CASES"/*.json; do files+=("$f"); done
	rm -rf "$TDC_RES"
	mkdir -p "$TDC_RES" || fail "mkdir $TDC_RES"
	# tdc.py finds its plugins relative to its own directory.
	(cd "$TDC_DIR" &&
	 PYTHONPATH=$TDC_CASES PYTHONDONTWRITEBYTECODE=1 \
		timeout -k 10 "$TDC_TIMEOUT" python3 ./tdc.py -f "${files[@]}" \
		-J "$(nproc)" --outfile "$TDC_RES/tap" "$@") > "$TDC_RES/log" 2>&1
}

test_tdc_run() {
	local rc n plan

	tdc_run
	rc=$?
	log "tdc.py exit status $rc"
	if [ $rc -gt 1 ] || [ ! -s "$TDC_RES/tap" ]; then
		log "the end of tdc.py's output:"
		tail -n 40 "$TDC_RES/log"
		fail "tdc.py did not finish (exit status $rc)"
	fi
	n=${#TDC_IDS[@]}
	IFS= read -r plan < "$TDC_RES/tap"
	expect_eq "$plan" "1..$n" "tdc's plan"
	ip netns list | grep -q '^tcut' && fail "tdc left a netns: $(ip netns list)"
	return 0
}

# The result of tdc case $1 from tdc.py's TAP; the failure text tdc gave.
tdc_result() {
	local id=$1 l lines i found=

	# Run by name (tap_main not running the whole list): this case alone.
	if [ -z "${TAP_DIR:-}" ]; then
		tdc_run -e "$id"
		[ $? -le 1 ] || { tail -n 40 "$TDC_RES/log"; fail "tdc.py did not finish"; }
	fi
	[ -f "$TDC_RES/tap" ] || fail "tdc reported nothing for $id: tdc.py wrote no results"
	mapfile -t lines < "$TDC_RES/tap"
	for ((i = 0; i < ${#lines[@]}; i++)); do
		l=${lines[i]}
		[[ $l =~ ^(not\ )?ok\ [0-9]+\ $id\ -\  ]] || continue
		found=$l
		break
	done
	[ -n "$found" ] || fail "tdc reported nothing for $id"
	if [[ $found == not\ * ]]; then
		for ((i++; i < ${#lines[@]}; i++)); do
			[[ ${lines[i]} =~ ^(not\ )?ok\  ]] && break
			echo "${lines[i]}"
		done
		fail "tdc: $found"
	fi
	[[ $found == *' # skipped'* ]] && fail "tdc skipped it: $found"
	log "$found"
	return 0
}

mapfile -t TDC_IDS < <(jq -r '.[].id' "$TDC_CASES"/*.json)
mapfile -t TDC_NAMES < <(jq -r '.[].name' "$TDC_CASES"/*.json)
TESTS=("test_tdc_run	tdc: tdc.py runs the ${#TDC_IDS[@]} pfcwd cases	$((TDC_TIMEOUT + 60))")
for ((i = 0; i < ${#TDC_IDS[@]}; i++)); do
	id=${TDC_IDS[i]}
	[[ $id =~ ^[0-9a-f]{4}$ ]] || { echo "bad tdc id '$id'" >&2; exit 1; }
	eval "tdc_$id() { tdc_result $id; }"
	TESTS+=("tdc_$id	tdc $id: ${TDC_NAMES[i]}")
done

rm -rf "$TDC_RES"
tap_main "$@"
