#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP library for pfcwd's shell selftests (kselftest style).
#
# A test script defines one function per test case, lists them, and hands
# over to tap_main:
#
#	. "$(dirname "$0")/lib.sh"
#	test_load() { modprobe pfcwd || fail "modprobe failed"; ... }
#	TESTS=(
#		"test_load	module loads and unloads"
#	)
#	tap_main "$@"
#
# tap_main prints the plan, runs each case in its own process with a
# timeout (PFCWD_TEST_TIMEOUT seconds, default 120; a case may set its own
# with a third tab-separated field), prints "ok N desc", "not ok N desc" or
# "ok N desc # SKIP reason", and then reads the kernel log written during
# the case: a WARNING, BUG, Oops, "cut here", KASAN/UBSAN or leak report
# fails the case.  Each case's output is shown as "# " comment lines.
# The last line is "# passed: N failed: N skipped: N".
#
# "script.sh CASE" runs just that case (function name), for debugging.
#
# A case whose point is timing precision (a detection within T0 plus a
# bound, a rate) says so with the word "stock" among the fields after its
# description: the debug kernel runs it several times slower than any bound
# allows, so there it is skipped with that reason; make check runs it on
# the stock kernels.
#
# Inside a case: fail MSG (stop, case fails), skip MSG (stop, case skipped),
# check CMD... (run CMD, fail with its text if it fails), log MSG.

PFCWD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
SELFTEST_DIR=$PFCWD_TOP/tools/testing/selftests/pfcwd
PFCWD_PKT=$PFCWD_TOP/build/tools/pfcwd-pkt
KSFT_SKIP=4

# The cases' JSON filters run in gojq, Debian's Go implementation of the
# jq language: under TCG a jq 1.6 process costs about 170 ms (it compiles
# its library of builtins at every start), a gojq one about 25 ms - as
# /bin/true - and the suite starts about a thousand of them.  The filters
# mean the same in both; gojq prints an object's keys sorted, which no
# case compares as text, and integers exactly (jq 1.6 rounds above 2^53).
# Without gojq, jq itself.
if command -v gojq > /dev/null; then
	jq() { gojq "$@"; }
fi

# Kernel log patterns that fail any case.
DMESG_BAD='WARNING:|BUG:|kernel BUG|Oops|cut here|KASAN|UBSAN|general protection|memory leak|unreferenced object|refcount_t:|list_add corruption|list_del corruption|soft lockup|hung_task|rcu.*stall|Call Trace'

log() { echo "$*"; }

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*" > "${TAP_SKIP_FILE:-/dev/null}"
	exit $KSFT_SKIP
}

check() {
	"$@" || fail "command failed: $*"
}

# sleep without a process.  Under TCG every process started in the guest
# costs about 25 ms (dynamic linking, code translated afresh), so each
# "sleep 0.01" of a wait loop took 35 ms and the suite spent minutes
# starting sleep(1).  Here a sleep of N seconds is a read with a timeout of
# N on a pipe that nobody writes to (this shell holds its only write end):
# the same wait, inside bash, and interrupted by the same signals.  Anything
# but one plain number of seconds ("1m", "infinity", several arguments) goes
# to sleep(1).
exec {TAP_NAP_FD}<> <(:)
sleep() {
	if [[ $# = 1 && $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		read -r -t "$1" -u "$TAP_NAP_FD" _
		return 0
	fi
	command sleep "$@"
}

# Reads the kernel log as lines; the number of lines marks a position.
# The runner empties the log as it checks each case (dmesg -c), so a
# case's log starts at line 1 and reading it stays cheap however long the
# run (the whole ring read twice a case grew with every storm logged); it
# keeps each case's log in $PFCWD_RESULTS/<kernel>/<script>.klog.
dmesg_lines() { dmesg 2>/dev/null | wc -l; }

# The kernel log since the running case began: the runner empties it
# before each (all of it outside a case).
klog() { dmesg 2>/dev/null; }

# One splat is the emulator's, not the kernel's: qemu's TCG sometimes
# delivers a single-step #DB to kernel code that never set TF (the x86
# handler's own comment names qemu as the known cause), and exc_debug_kernel()
# warns once per boot.  Nothing in a module can raise it, so that splat - from
# its "cut here" to its "end trace", and only a splat whose WARNING line is in
# exc_debug_kernel - is reported as an artifact and not counted; anything
# else in the same log still fails the case.
dmesg_drop_emulator_splats() {
	awk '
	function flush() {
		if (n && !art) for (i = 1; i <= n; i++) print buf[i]
		else if (n) print "emulator artifact, not counted: " warn > "/dev/stderr"
		n = 0; art = 0; insplat = 0
	}
	/cut here/ { flush(); insplat = 1 }
	insplat {
		buf[++n] = $0
		if ($0 ~ /WARNING:.*exc_debug_kernel/) { art = 1; warn = $0 }
		if ($0 ~ /end trace/) flush()
		next
	}
	{ print }
	END { flush() }'
}

# Fails with the offending lines (and what follows them, to show the trace)
# when kernel log text $1 matches.
dmesg_check() {
	local log bad

	# Most logs match nothing: then no process is started.  (Across lines,
	# as here, the pattern matches at least what it matches line by line.)
	[[ $1 =~ $DMESG_BAD ]] || return 0
	log=$(printf '%s\n' "$1" | dmesg_drop_emulator_splats)
	bad=$(printf '%s\n' "$log" | grep -n -E "$DMESG_BAD" | head -n 1 | cut -d: -f1)
	[ -z "$bad" ] && return 0
	printf '%s\n' "$log" | tail -n "+$bad" | head -n 60
	return 1
}

# Runs case function $1 in a forked subshell with a timeout of $2 seconds,
# its output in file $3; returns its status, 124 when it timed out.  A fork
# of this shell rather than a new one: each case used to start the script
# again (bash, lib.sh, the script) for up to half a second under TCG.  The
# case runs in its own process group, so the watchdog's TERM (then KILL, 5 s
# later) reaches whatever it started, as timeout(1)'s did; the script's own
# traps (EXIT, TERM...), which a subshell loses, are set again in it, so
# they are the case's as when each case was a process of its own.  The
# watchdog waits with the shell's sleep (below), and "timed out" is a
# non-empty $3.timeout: no process is started here besides the two forks.
_tap_fork_case() {
	local fn=$1 tmo=$2 out=$3 pid wd rc

	: > "$out.timeout"
	set -m
	(
		set +m -o pipefail
		eval "$TAP_TRAPS"
		# A script's per-case setup, if it has one (e.g. a helper
		# process the case's requests go to).
		if declare -F tap_case_begin > /dev/null; then
			tap_case_begin || { echo "# FAIL: tap_case_begin"; exit 1; }
		fi
		"$fn"
	) > "$out" 2>&1 < /dev/null &
	pid=$!
	(
		sleep "$tmo"
		echo timeout > "$out.timeout"
		kill -TERM -- "-$pid"
		sleep 5
		kill -KILL -- "-$pid"
	) > /dev/null 2>&1 &
	wd=$!
	set +m
	wait "$pid" 2>/dev/null
	rc=$?
	kill -KILL -- "-$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	if [ -s "$out.timeout" ]; then
		# What the case started may live on in its group: end it.
		kill -KILL -- "-$pid" 2>/dev/null
		return 124
	fi
	return $rc
}

# Prints file $1 with "# " (or $2) before each line (nothing for an empty
# file).
_tap_comment_file() {
	local lines

	mapfile -t lines < "$1"
	[ ${#lines[@]} -gt 0 ] && printf '%s\n' "${lines[@]/#/${2:-# }}"
	return 0
}

# Sets variable $1 to the forks on this machine since it booted (/proc/stat
# "processes": processes and threads), without forking one: beside the
# time, where a case's cost goes (under TCG a process costs about 25 ms).
_forks() {
	local l lines

	printf -v "$1" 0
	mapfile -t lines < /proc/stat
	for l in "${lines[@]}"; do
		[[ $l == processes\ * ]] && printf -v "$1" %s "${l#processes }"
	done
	return 0
}

# Runs case $2 (number $1, description $3, timeout $4 s) and prints its
# result.  Its bookkeeping starts one process, dmesg: under TCG each
# process costs about 25 ms in the guest, and the mktemp, date, cat, sed,
# awk, grep and rm it used to start came to about 0.35 s a case.
_tap_run_case() {
	local n=$1 fn=$2 desc=$3 tmo=$4 f=$TAP_DIR/case rc reason t0 p0 p1 klogtext

	TAP_SKIP_FILE=$f.skip
	export TAP_SKIP_FILE
	: > "$TAP_SKIP_FILE"
	t0=${EPOCHREALTIME//[!0-9]/}
	_forks p0
	_tap_fork_case "$fn" "$tmo" "$f.out"
	rc=$?
	_forks p1
	_tap_comment_file "$f.out"
	echo "# time: $(((${EPOCHREALTIME//[!0-9]/} - t0) / 1000)) ms, $((p1 - p0 - 2)) forks"
	if [ $rc = 124 ]; then
		echo "# timed out after ${tmo}s"
		# What is still blocked once the case is killed tells a hang
		# from a slow case: the kernel's list of D-state tasks.
		echo w > /proc/sysrq-trigger 2>/dev/null
		rc=1
	fi
	klogtext=$(dmesg -c 2>/dev/null)
	[ $rc = 1 ] && [[ $klogtext == *"Show Blocked State"* ]] &&
		printf '%s\n' "${klogtext#*Show Blocked State}" | head -n 80 |
		sed 's/^/# blocked: /'
	# Emptied from the ring, kept with the results: SCRIPT.klog.
	[ -n "$TAP_KLOG" ] && printf '=== %s\n%s\n' "$fn" "$klogtext" >> "$TAP_KLOG"
	if ! dmesg_check "$klogtext" > "$f.dmesg" 2> "$f.art"; then
		echo "# kernel log reports a problem:"
		_tap_comment_file "$f.dmesg" '#   '
		rc=1
	fi
	_tap_comment_file "$f.art"
	case $rc in
	0)
		echo "ok $n $desc"
		TAP_PASS=$((TAP_PASS + 1)) ;;
	"$KSFT_SKIP")
		IFS= read -r reason < "$TAP_SKIP_FILE"
		echo "ok $n $desc # SKIP ${reason:-no reason given}"
		TAP_SKIP=$((TAP_SKIP + 1)) ;;
	*)
		_tap_klog_tail "$klogtext"
		echo "not ok $n $desc"
		TAP_FAIL=$((TAP_FAIL + 1)) ;;
	esac
}

# After a failed case: its last pfcwd and pfcsim kernel log lines, as
# comments.  CI keeps only what the run prints, and a failure seen once
# is read from these.
_tap_klog_tail() {
	local l lines=() max=${PFCWD_FAIL_KLOG_LINES:-25}

	while IFS= read -r l; do
		[[ $l == *pfcwd* || $l == *pfcsim* ]] && lines+=("$l")
	done <<< "$1"
	[ ${#lines[@]} -gt 0 ] || return 0
	[ ${#lines[@]} -gt "$max" ] && lines=("${lines[@]: -$max}")
	echo "# the case's last ${#lines[@]} pfcwd/pfcsim kernel log lines:"
	printf '#   %s\n' "${lines[@]}"
}

# True on the debug kernel of make check-debug (KASAN, lockdep, kmemleak:
# scripts/debug-kernel names its release *-pfcwd-debug), where the same
# cases run several times slower.
on_debug_kernel() {
	local r

	read -r r < /proc/sys/kernel/osrelease
	[[ $r == *-pfcwd-debug ]]
}

# The fields after a case's description: a timeout in seconds and/or the
# word "stock"; sets tmo and stock, and exits on anything else.
case_fields() {
	local f

	tmo= stock=
	for f in $1; do
		case $f in
		stock) stock=1 ;;
		*[!0-9]* | '') echo "bad case field: $f" >&2; exit 2 ;;
		*) tmo=$f ;;
		esac
	done
}

tap_main() {
	local entry fn desc extra tmo stock n=0

	# Keep the stack's own packets (IPv6 ND, MLD) out of the counters.
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

	if [ $# -gt 0 ]; then
		declare -F "$1" >/dev/null || { echo "no such case: $1" >&2; exit 2; }
		set -o pipefail
		"$1"
		exit $?
	fi

	TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0
	TAP_TRAPS=$(trap -p)
	TAP_KLOG=
	if [ -n "${PFCWD_RESULTS:-}" ] && mkdir -p "$PFCWD_RESULTS/$(uname -r)" 2>/dev/null; then
		TAP_KLOG=$PFCWD_RESULTS/$(uname -r)/$(basename "$0" .sh).klog
		: > "$TAP_KLOG"
	fi
	# What came before this script is not its cases' (see dmesg_lines).
	dmesg -C 2>/dev/null
	TAP_DIR=$(mktemp -d) || exit 1
	echo "TAP version 13"
	echo "1..${#TESTS[@]}"
	for entry in "${TESTS[@]}"; do
		IFS=$'\t' read -r fn desc extra <<< "$entry"
		n=$((n + 1))
		case_fields "$extra"
		tmo=${tmo:-${PFCWD_TEST_TIMEOUT:-120}}
		# The debug kernel (KASAN, lockdep, kmemleak) runs the same
		# cases several times slower: each gets three times as long.
		on_debug_kernel && tmo=$((tmo * 3))
		# PFCWD_CASES="2 5": run only those cases (by hand, to retry
		# a few; make check never sets it).
		if [ -n "${PFCWD_CASES:-}" ] && [[ " $PFCWD_CASES " != *" $n "* ]]; then
			echo "ok $n $desc # SKIP not in PFCWD_CASES"
			TAP_SKIP=$((TAP_SKIP + 1))
			continue
		fi
		if [ -n "$stock" ] && on_debug_kernel; then
			echo "ok $n $desc # SKIP timing precision: make check runs it on the stock kernels"
			TAP_SKIP=$((TAP_SKIP + 1))
			continue
		fi
		_tap_run_case "$n" "$fn" "$desc" "$tmo"
	done
	rm -rf "$TAP_DIR"
	echo "# passed: $TAP_PASS failed: $TAP_FAIL skipped: $TAP_SKIP"
	[ "$TAP_FAIL" = 0 ]
}

# --- helpers shared by the cases ------------------------------------------

# Loads a module of this project (installed in the VM's module tree).
load_mod() {
	modprobe "$1" || fail "modprobe $1 failed"
}

# Unloads a module if loaded; fails if it will not go.
unload_mod() {
	if mod_loaded "$1"; then
		modprobe -r "$1" || fail "cannot unload $1"
	fi
}

mod_loaded() {
	local l lines

	mapfile -t lines < /proc/modules
	for l in "${lines[@]}"; do
		[ "${l%% *}" = "$1" ] && return 0
	done
	return 1
}

# pfcsim port management.
PFCSIM_DFS=/sys/kernel/debug/pfcsim

pfcsim_new() {
	mod_loaded pfcsim || load_mod pfcsim
	echo "$1" > $PFCSIM_DFS/new_port || fail "cannot create pfcsim port $1"
	ip link set dev "$1" up || fail "cannot bring $1 up"
}

pfcsim_del() {
	echo "$1" > $PFCSIM_DFS/del_port || fail "cannot delete pfcsim port $1"
}

# When pfcsim port $1 last changed list $2 (rx_storm...), ns.
changed_at() {
	awk -v k="$2" '$1 == k { print $2 }' "$PFCSIM_DFS/$1/changed_ns"
}

# pfcsim_eop DEV FIELD: one field of DEV's pfcsim ethtool_calls (an op,
# unbracketed or absent), or with FIELD "ops" the calls of all ops summed.
pfcsim_eop() {
	local f n=0 i

	read -r -a f < "$PFCSIM_DFS/$1/ethtool_calls" || fail "no ethtool_calls on $1"
	for ((i = 0; i < ${#f[@]} - 1; i += 2)); do
		if [ "$2" = ops ]; then
			[[ ${f[i]} = unbracketed || ${f[i]} = absent ]] || n=$((n + f[i + 1]))
		elif [ "${f[i]}" = "$2" ]; then
			echo "${f[i + 1]}"
			return 0
		fi
	done
	[ "$2" = ops ] && echo "$n" || echo missing
}

# Value of one ethtool -S counter.
ethtool_stat() {
	local k v rest found=

	while read -r k v rest; do
		[ "$k" = "$2:" ] && { echo "$v"; found=1; }
	done < <(ethtool -S "$1")
	[ -n "$found" ] || echo missing
}

# "tc -s class show" packet/drop counters of class MAJOR:MINOR, as
# "sent_pkts dropped backlog_pkts".
class_stats() {
	tc -s class show dev "$1" | awk -v c="$2" '
		$1 == "class" && $3 == c { on = 1; next }
		$1 == "class" { on = 0 }
		on && $1 == "Sent" { sent = $4; drop = $7; sub(",", "", drop) }
		on && $1 == "backlog" { bl = $3; sub("p", "", bl) }
		END { if (sent == "") print "missing"; else print sent, drop, bl + 0 }'
}

# Prints file $1 as cat would (a sysfs or debugfs file), without a process:
# the cases read such files thousands of times, and under TCG a cat costs
# ten to forty milliseconds.  Fails, with the shell's message, if the file
# cannot be opened.
readf() {
	local l

	mapfile -t l < "$1" || return 1
	[ ${#l[@]} -gt 0 ] && printf '%s\n' "${l[@]}"
	return 0
}

# Expects "$1" == "$2", else fails with message $3.
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# "dcb ARGS..." for a set.  iproute2 6.1's dcb reads the reply to its GET
# but not the kernel's ACK after it, and numbers its requests with the time
# in seconds: when a second boundary falls between its GET and its SET, the
# SET reads that stale ACK and dcb fails with "Protocol error" (EPROTO),
# although the kernel got the SET.  The sets here are idempotent: retry.
dcb_set() {
	local i err

	for i in 1 2 3; do
		err=$(dcb "$@" 2>&1) && return 0
		case $err in
		*"Protocol error"*) log "dcb $*: $err (stale ACK), retrying" ;;
		*) break ;;
		esac
	done
	echo "$err"
	return 1
}

# --- pfcwd state, for the storm tests ---------------------------------------

PFCWD_DBG=/sys/kernel/debug/pfcwd/ports

# Request servers (reqserve.py): a Python helper that answers a script's
# requests from one process, one at a time, instead of a Python start per
# request (a quarter of a second to two seconds under TCG).  Its FIFOs'
# descriptors are inherited by the cases and their subshells; the replies
# come in files, $dir/out and $dir/err (bash reads a pipe a byte at a
# time).  SRV_BG is the pid a "%% pid N" reply gives.
declare -A SRV_REQ SRV_REP SRV_DIR SRV_PID
SRV_BG=

# srv_start NAME CMD...: starts CMD DIR as the request server NAME.
srv_start() {
	local name=$1 dir fd

	shift
	dir=$(mktemp -d) || return 1
	mkfifo "$dir/req" "$dir/rep" || return 1
	"$@" "$dir" < "$dir/req" > "$dir/rep" 2>&1 &
	SRV_PID[$name]=$!
	SRV_DIR[$name]=$dir
	exec {fd}> "$dir/req"
	SRV_REQ[$name]=$fd
	exec {fd}< "$dir/rep"
	SRV_REP[$name]=$fd
}

# srv_ask NAME ARGS...: one request; prints its output and error output,
# returns its exit status.  (Never a write to the FIFO of a server that
# is gone: SIGPIPE would end the shell.)
srv_ask() {
	local name=$1 line lines

	shift
	if ! kill -0 "${SRV_PID[$name]:-0}" 2>/dev/null; then
		echo "request server $name is gone" >&2
		return 1
	fi
	printf -v line '%q ' "$@"
	printf '%s\n' "$line" >&"${SRV_REQ[$name]}"
	IFS= read -r -u "${SRV_REP[$name]}" line
	case $line in
	'%% pid '*) SRV_BG=${line#%% pid }; return 0 ;;
	'%% rc '*) ;;
	*) echo "request server $name: $line" >&2; return 1 ;;
	esac
	mapfile -t lines < "${SRV_DIR[$name]}/out"
	[ ${#lines[@]} -gt 0 ] && printf '%s\n' "${lines[@]}"
	mapfile -t lines < "${SRV_DIR[$name]}/err"
	[ ${#lines[@]} -gt 0 ] && printf '%s\n' "${lines[@]}" >&2
	return "${line#%% rc }"
}

# srv_stop NAME: closes the server's input (it ends at EOF) and waits.
srv_stop() {
	local fd=${SRV_REQ[$1]:-}

	[ -n "$fd" ] || return 0
	exec {fd}>&-
	wait "${SRV_PID[$1]}" 2>/dev/null
	rm -rf "${SRV_DIR[$1]}"
	unset "SRV_REQ[$1]"
	return 0
}

# Removes every pfcsim port (whatever its name or netns, by unloading
# pfcsim) and both modules, and the netns named $1 if given: a clean start.
# One modprobe unloads both and one loads both: it was four (a process
# costs about 40 ms under TCG, and most cases begin here).
reset_all() {
	local m loaded=()

	for m in pfcsim pfcwd; do
		mod_loaded $m && loaded+=($m)
	done
	if [ ${#loaded[@]} -gt 0 ]; then
		modprobe -r "${loaded[@]}" || fail "cannot unload ${loaded[*]}"
	fi
	[ -n "${1:-}" ] && ip netns del "$1" 2>/dev/null
	modprobe -a pfcsim pfcwd || fail "modprobe pfcsim pfcwd failed"
}

# The wait loops call these a hundred times a second: they parse in bash,
# without a process (see sleep above).  A seq_file is read whole, in one
# go (mapfile): bash's "while read" reads ahead and seeks back after each
# line, and a seek in a seq_file whose lines change length between reads
# (the next poll time does) lands in the middle of a line.

# Sets variable $1 to the value after name $4 in the debugfs lines that
# begin with $2, whose name/value pairs begin at word $3 (counted from 0);
# one line per match.  Into a variable: a "$(...)" forks the shell, which
# in a loop at 100 Hz cost more than the reads.
_dbg_field_v() {
	local _l _f _i _lines _v=

	mapfile -t _lines < $PFCWD_DBG
	for _l in "${_lines[@]}"; do
		[[ $_l == "$2"* ]] || continue
		read -r -a _f <<< "$_l"
		for ((_i = $3; _i < ${#_f[@]} - 1; _i += 2)); do
			[ "${_f[_i]}" = "$4" ] && _v+=${_v:+$'\n'}${_f[_i + 1]}
		done
	done
	printf -v "$1" %s "$_v"
}

# pstat_v VAR DEV PRIO FIELD: one value of pfcwd's debugfs line for DEV
# prio PRIO into VAR; pstat prints it.
pstat_v() { _dbg_field_v "$1" "$2 prio $3 " 3 "$4"; }
pstat() { local v; pstat_v v "$@"; echo "$v"; }

# portstat_v VAR DEV FIELD: one field of DEV's port line in pfcwd's
# debugfs into VAR (empty: not a port); portstat prints it.
portstat_v() { _dbg_field_v "$1" "$2 enabled " 1 "$3"; }
portstat() { local v; portstat_v v "$@"; echo "$v"; }

# Waits up to $5 seconds for pstat $3 of DEV $1 prio $2 to equal $4.
wait_stat() {
	local i n=$(($5 * 100)) v

	for ((i = 0; i < n; i++)); do
		pstat_v v "$1" "$2" "$3"
		[ "$v" = "$4" ] && return 0
		sleep 0.01
	done
	pstat_v v "$1" "$2" "$3"
	fail "$1 prio $2: $3 is '$v', wanted '$4' within $5 s"
}

# Waits up to $2 seconds for device $1 to appear here (a device whose netns
# was deleted comes back to init_net once its cleanup ran).
wait_dev() {
	local i n=$(($2 * 10))

	for ((i = 0; i < n; i++)); do
		[ -e "/sys/class/net/$1" ] && return 0
		sleep 0.1
	done
	fail "$1 did not come back"
}

# The priorities in DEV's pfc_en, as dcb reports them: "3 4".
pfc_on() {
	local w on=()

	for w in $(dcb pfc show dev "$1" prio-pfc); do
		[[ $w == [0-7]:on ]] && on+=("${w%:on}")
	done
	echo "${on[*]}"
}

# --- pktgen ----------------------------------------------------------------

PG=/proc/net/pktgen

# Writes command $2 to pktgen file $1; fails the case unless pktgen took it.
pgset() {
	echo "$2" > "$1" || fail "pktgen: cannot write '$2' to $1"
	if [ "$1" != $PG/pgctrl ] && ! grep -q '^Result: OK' "$1"; then
		fail "pktgen: '$2': $(grep '^Result' "$1")"
	fi
}

# --- the pfcwd command ----------------------------------------------------

PFCWD=$PFCWD_TOP/build/tools/pfcwd

# Field $3 of priority $2 of DEV $1 from "pfcwd -j stats dev DEV" (the CLI's view).
prio_val() {
	"$PFCWD" -j stats dev "$1" | jq -r ".[0].prio[] | select(.prio == $2) | .$3"
}

# Waits up to $5 seconds for prio_val $1 $2 $3 to be $4.
cli_wait() {
	local i n=$(($5 * 20)) v

	for ((i = 0; i < n; i++)); do
		v=$(prio_val "$1" "$2" "$3")
		[ "$v" = "$4" ] && return 0
		sleep 0.05
	done
	fail "$1 prio $2: $3 is '$v' through pfcwd stats, wanted '$4' within $5 s"
}
. "$SELFTEST_DIR/bounds.sh"
