#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The qdisc's tc options and xstats: Debian's own tc with the plugin
# build/tools/q_pfcwd.so (TC_LIB_DIR), and without it; the kernel's checks
# of every option over raw rtnetlink (tc-nl.py); per-priority xstats
# during a storm on pfcsim.

. "$(dirname "$0")/lib.sh"

TC_NL=$SELFTEST_DIR/tc-nl.py
# tc-nl.py ARGS..., through the script's one tc-nl.py (a request server:
# lib.sh) rather than a Python start each.
tcnl() { srv_ask tcnl "$@"; }
PLUGIN_DIR=$PFCWD_TOP/build/tools
SYSFS_KNOBS="detection_time_ms restoration_time_ms action priorities"

# tc with the plugin, and tc that finds no plugin (an empty directory).
ptc() { TC_LIB_DIR=$PLUGIN_DIR tc "$@"; }
notc() {
	mkdir -p /tmp/tcopts-empty
	TC_LIB_DIR=/tmp/tcopts-empty tc "$@"
}

send() { "$PFCWD_PKT" send "$@" || fail "pfcwd-pkt send $*"; }

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

knob() { readf "/sys/class/net/$1/pfcwd/$2"; }

# The port as sysfs shows it and the options as the kernel dumps them.
sysfs_cfg() {
	local k out=

	for k in $SYSFS_KNOBS; do
		out="$out$k=$(knob "$1" "$k") "
	done
	echo "${out% }"
}

dump_cfg() { tcnl show "$1" all; }

state() { echo "$(sysfs_cfg "$1") | $(dump_cfg "$1")"; }

# Value after KEY on the "qdisc pfcwd" line of "tc qdisc show" (plugin).
qopt() {
	ptc qdisc show dev "$1" | awk -v k="$2" '
		$1 == "qdisc" && $2 == "pfcwd" {
			for (i = 3; i < NF; i++) if ($i == k) { print $(i + 1); exit }
		}'
}

# The xstats line of priority P as printed by "tc -s qdisc show" (plugin).
# These parse in bash: one tc a call, where a tc and two awks were (each
# process costs tens of milliseconds under TCG).
xline() {
	local l a b

	while IFS= read -r l; do
		read -r a b _ <<< "$l"
		[ "$a" = prio ] && [ "$b" = "$2" ] && { echo "$l"; return 0; }
	done < <(ptc -s qdisc show dev "$1")
	return 0
}

# Value after KEY $2 in xstats line $1; "state" is the word after the
# priority.
xval() {
	local -a w
	local i

	read -r -a w <<< "$1"
	[ "$2" = state ] && { echo "${w[2]}"; return 0; }
	for ((i = 2; i < ${#w[@]} - 1; i++)); do
		[ "${w[i]}" = "$2" ] && { echo "${w[i + 1]}"; return 0; }
	done
	return 0
}

# Value after KEY in the xstats line of priority P; "state" is the word
# after the priority.
xstat() { xval "$(xline "$1" "$2")" "$3"; }

# Whether the xstats line of priority P carries the flag word W: 1 or 0.
xflag() {
	local -a w
	local x f=0

	read -r -a w <<< "$(xline "$1" "$2")"
	for x in "${w[@]:2}"; do
		[ "$x" = "$3" ] && f=1
	done
	echo $f
}

# Waits up to 5 s for xstat $3 of DEV $1 prio $2 to read $4.
wait_xstat() {
	local i

	for ((i = 0; i < 500; i++)); do
		[ "$(xstat "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.01
	done
	fail "$1 prio $2: xstat $3 is '$(xstat "$1" "$2" "$3")', wanted '$4'"
}

setup() {
	reset_all
	[ -f "$PLUGIN_DIR/q_pfcwd.so" ] || fail "no plugin: $PLUGIN_DIR/q_pfcwd.so (make tools)"
	pfcsim_new "$1"
}

test_add_options() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 150 restore 250 \
		action forward lossless 0-2,5 limit 77 || fail "add with options"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=150 restoration_time_ms=250 action=forward priorities=0,1,2,5" \
		"sysfs after add"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 77 detect 150 restore 250 action 1 lossless 0x27" "kernel dump"
	# The "ms" the plugin prints is accepted back.
	ptc qdisc replace dev to0 root handle 1: pfcwd detect 90ms restore 1 \
		action alert lossless 7 limit 1 || fail "replace with options"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=90 restoration_time_ms=1 action=alert priorities=7" \
		"sysfs after replace"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 1 detect 90 restore 1 action 2 lossless 0x80" "dump after replace"
	# Limits of the ranges.
	ptc qdisc replace dev to0 root handle 1: pfcwd detect 60000 restore 60000 \
		action drop lossless 0-7 limit 1048576 || fail "replace at the range limits"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 1048576 detect 60000 restore 60000 action 0 lossless 0xff" \
		"dump at the range limits"
	expect_eq "$(knob to0 priorities)" "0,1,2,3,4,5,6,7" "sysfs priorities 0-7"
	tc qdisc del dev to0 root || fail "delete"
	[ -e /sys/class/net/to0/pfcwd ] && fail "port left after delete"
	return 0
}

test_change() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 150 restore 250 \
		action forward lossless 3 limit 77 || fail "add"
	ptc qdisc change dev to0 root handle 1: pfcwd detect 300 || fail "change detect"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=300 restoration_time_ms=250 action=forward priorities=3" \
		"sysfs after changing detect only"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 77 detect 300 restore 250 action 1 lossless 0x08" "dump"
	ptc qdisc change dev to0 root handle 1: pfcwd limit 12 || fail "change limit"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 12 detect 300 restore 250 action 1 lossless 0x08" \
		"dump after changing the limit only"
	ptc qdisc change dev to0 root handle 1: pfcwd action alert lossless none restore 5 ||
		fail "change action, lossless, restore"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=300 restoration_time_ms=5 action=alert priorities=" \
		"sysfs after the change"
	# A change with no options changes nothing.
	ptc qdisc change dev to0 root handle 1: pfcwd || fail "empty change"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 12 detect 300 restore 5 action 2 lossless 0x00" "dump"
	# sysfs and tc show the same port: a sysfs write shows in the dump.
	echo 444 > /sys/class/net/to0/pfcwd/detection_time_ms || fail "sysfs write"
	echo 2,6 > /sys/class/net/to0/pfcwd/priorities || fail "sysfs write"
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit 12 detect 444 restore 5 action 2 lossless 0x44" \
		"dump after sysfs writes"
	# warn: the port's too; below detect (444 now), or refused whole.
	ptc qdisc change dev to0 root handle 1: pfcwd warn 100 || fail "change warn"
	expect_eq "$(knob to0 warning_time_ms)/$(qopt to0 warn)" 100/100ms "warn set and printed"
	expect_eq "$(ptc -j qdisc show dev to0 | jq '.[0].options.warn_ms')" 100 "warn_ms in JSON"
	ptc qdisc change dev to0 root handle 1: pfcwd warn 444 restore 9 2>/dev/null &&
		fail "warn = detect accepted"
	ptc qdisc change dev to0 root handle 1: pfcwd detect 100 2>/dev/null &&
		fail "detect = warn accepted"
	ptc qdisc change dev to0 root handle 1: pfcwd warn 60000 2>/dev/null &&
		fail "warn 60000 accepted"
	ptc qdisc change dev to0 root handle 1: pfcwd warn soon 2>/dev/null &&
		fail "warn soon accepted"
	expect_eq "$(knob to0 warning_time_ms)/$(knob to0 detection_time_ms)/$(knob to0 restoration_time_ms)" \
		100/444/5 "nothing changed by the refused changes"
	ptc qdisc change dev to0 root handle 1: pfcwd warn 0 || fail "warn 0"
	expect_eq "$(qopt to0 warn)" "" "warn off: not printed"
	# backoff: the port's restore backoff, on or off.
	expect_eq "$(qopt to0 backoff)/$(ptc -j qdisc show dev to0 | jq '.[0].options.backoff')" \
		/false "backoff off: not printed, false in JSON"
	ptc qdisc change dev to0 root handle 1: pfcwd backoff on || fail "change backoff"
	expect_eq "$(knob to0 restore_backoff)/$(qopt to0 backoff)/$(ptc -j qdisc show dev to0 | jq '.[0].options.backoff')" \
		1/on/true "backoff on: set, printed, true in JSON"
	for v in 1 yes ""; do
		ptc qdisc change dev to0 root handle 1: pfcwd backoff $v restore 9 2>/dev/null &&
			fail "backoff '$v' accepted"
	done
	expect_eq "$(knob to0 restore_backoff)/$(knob to0 restoration_time_ms)" 1/5 \
		"nothing changed by the refused backoff changes"
	ptc qdisc change dev to0 root handle 1: pfcwd backoff off || fail "backoff off"
	expect_eq "$(knob to0 restore_backoff)" 0 "backoff off"
	# rate-rx, rate-tx, rate-window: the port's pause-rate warning.
	expect_eq "$(qopt to0 rate-rx)/$(ptc -j qdisc show dev to0 | jq -c '.[0].options | [.rate_rx, .rate_tx, .rate_window_ms]')" \
		"/[0,0,1000]" "pause rate off: not printed, in JSON"
	ptc qdisc change dev to0 root handle 1: pfcwd rate-rx 1500 rate-window 250 || fail "change rate"
	expect_eq "$(knob to0 pause_rate_rx)/$(knob to0 pause_rate_window_ms)/$(qopt to0 rate-rx)/$(qopt to0 rate-tx)/$(qopt to0 rate-window)" \
		"1500/250/1500/0/250ms" "pause rate set and printed"
	for v in "rate-rx 100000001" "rate-tx x" "rate-tx -1" "rate-window 99" "rate-window 3600001" "rate-rx"; do
		# shellcheck disable=SC2086
		ptc qdisc change dev to0 root handle 1: pfcwd $v restore 9 2>/dev/null &&
			fail "'$v' accepted"
	done
	expect_eq "$(knob to0 pause_rate_rx)/$(knob to0 pause_rate_tx)/$(knob to0 pause_rate_window_ms)/$(knob to0 restoration_time_ms)" \
		1500/0/250/5 "nothing changed by the refused pause-rate changes"
	ptc qdisc change dev to0 root handle 1: pfcwd rate-rx 0 rate-window 1000 || fail "rate off"
	expect_eq "$(qopt to0 rate-rx)/$(knob to0 pause_rate_rx)" "/0" "pause rate off: not printed"
	# Options of a second qdisc on the same device apply to the same port.
	ptc qdisc replace dev to0 root handle 2: pfcwd detect 33 || fail "replace"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=33 restoration_time_ms=5 action=alert priorities=2,6" \
		"sysfs after a new qdisc with detect only"
}

# A change of the watched priorities mid-storm restores the ones dropped.
test_change_mid_storm() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 50 lossless 3,4 || fail "add"
	sim to0 rx_storm 3
	wait_stat to0 3 state stormed 3
	expect_eq "$(pfc_on to0)" "4" "pfc_en while prio 3 is stormed"
	ptc qdisc change dev to0 root handle 1: pfcwd lossless 4 || fail "change lossless"
	expect_eq "$(pfc_on to0)" "3 4" "pfc_en after prio 3 stopped being watched"
	expect_eq "$(pstat to0 3 state)" operational "prio 3 state"
	expect_eq "$(xstat to0 3 state)/$(xflag to0 3 lossless)" operational/0 "prio 3 xstats"
	sim to0 rx_storm ""
}

test_show_plain() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 150 restore 250 \
		action forward lossless 0-2,5 limit 77 || fail "add"
	log "$(ptc qdisc show dev to0)"
	expect_eq "$(qopt to0 limit)/$(qopt to0 detect)/$(qopt to0 restore)" \
		77/150ms/250ms "limit/detect/restore printed"
	expect_eq "$(qopt to0 action)/$(qopt to0 lossless)" forward/0,1,2,5 \
		"action/lossless printed"
	ptc qdisc change dev to0 root handle 1: pfcwd lossless none || fail "change"
	expect_eq "$(qopt to0 lossless)" none "no lossless priority printed"
	# The stats lines: one per priority, in order, all quiet.
	log "$(ptc -s qdisc show dev to0)"
	n=$(ptc -s qdisc show dev to0 | awk '$1 == "prio" { printf "%s ", $2 }')
	expect_eq "$n" "0 1 2 3 4 5 6 7 " "xstats priorities"
	for p in 0 1 2 3 4 5 6 7; do
		l=$(xline to0 $p)
		expect_eq "$(xval "$l" state)/$(xval "$l" detected)/$(xval "$l" restored)/$(xval "$l" tx_dropped)/$(xval "$l" rx_dropped)/$(xval "$l" tx_forwarded)" \
			"operational/0/0/0/0/0" "prio $p xstats"
	done
	echo 1,6 > /sys/class/net/to0/pfcwd/priorities
	expect_eq "$(for p in 0 1 2 3 4 5 6 7; do xflag to0 $p lossless; done | tr -d '\n')" \
		01000010 "lossless flags"
	# Without -s, no xstats.
	n=$(ptc qdisc show dev to0 | grep -c '^ *prio ')
	expect_eq "$n" 0 "xstats lines without -s"
}

test_show_json() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 150 restore 250 \
		action forward lossless 0-2,5 limit 77 || fail "add"
	out=$(ptc -j qdisc show dev to0) || fail "tc -j"
	log "$out"
	got=$(echo "$out" | jq -r '.[] | select(.kind == "pfcwd") | .options |
		"\(.limit) \(.detect_ms) \(.restore_ms) \(.action) \(.lossless | map(tostring) | join(","))"') ||
		fail "tc -j output is not the JSON expected: $out"
	expect_eq "$got" "77 150 250 forward 0,1,2,5" "JSON options"
	echo "$out" | jq -e '.[0].prios == null' >/dev/null || fail "xstats without -s"

	ptc qdisc change dev to0 root handle 1: pfcwd lossless none action drop || fail "change"
	out=$(ptc -j -s qdisc show dev to0) || fail "tc -j -s"
	log "$out"
	got=$(echo "$out" | jq -r '.[0].options | "\(.action) \(.lossless | length)"')
	expect_eq "$got" "drop 0" "JSON action and empty lossless"
	got=$(echo "$out" | jq -r '.[0].prios | map("\(.prio):\(.state):\(.lossless):\(.paused):\(.detected):\(.restored):\(.tx_dropped):\(.rx_dropped):\(.tx_forwarded)") | join(" ")')
	want=
	for p in 0 1 2 3 4 5 6 7; do want="$want$p:operational:false:false:0:0:0:0:0 "; done
	expect_eq "$got" "${want% }" "JSON xstats"
	echo 3 > /sys/class/net/to0/pfcwd/priorities
	got=$(ptc -j -s qdisc show dev to0 | jq -r '.[0].prios | map(select(.lossless)) | map(.prio) | join(",")')
	expect_eq "$got" 3 "JSON lossless flag"
}

test_no_plugin() {
	setup to0
	notc qdisc add dev to0 root handle 1: pfcwd || fail "add without the plugin"
	expect_eq "$(sysfs_cfg to0)" \
		"detection_time_ms=200 restoration_time_ms=200 action=drop priorities=3,4" \
		"defaults without the plugin"
	lim=$(cat /sys/class/net/to0/tx_queue_len)
	expect_eq "$(dump_cfg to0)" \
		"handle 1: limit $lim detect 200 restore 200 action 0 lossless 0x18" \
		"kernel dump of the defaults"
	log "without the plugin: $(notc qdisc show dev to0)"
	notc qdisc show dev to0 | grep -q "^qdisc pfcwd 1: root" ||
		fail "tc without the plugin does not show the qdisc: $(notc qdisc show dev to0)"
	notc -s qdisc show dev to0 | grep -q "^ Sent " || fail "tc -s without the plugin"
	# (tc -j is not checked: without a plugin, tc 6.1 prints the options
	# of an unknown qdisc as "[Unknown qdisc, optlen=N]" even in JSON.)
	out=$(notc qdisc change dev to0 root handle 1: pfcwd detect 100 2>&1) &&
		fail "option accepted without the plugin"
	log "without the plugin: $out"
	expect_eq "$(knob to0 detection_time_ms)" 200 "detect after the refused change"
	notc qdisc del dev to0 root || fail "delete without the plugin"
}

# Runs tc with the plugin; it must fail, print $1, and change nothing.
expect_tc_error() {
	local want=$1 out
	shift

	out=$(ptc "$@" 2>&1) && fail "accepted: tc $*"
	echo "$out" | grep -qF -- "$want" || fail "tc $*: '$want' missing in: $out"
	log "rejected: tc $* -> $(echo "$out" | head -n 1)"
}

test_plugin_errors() {
	setup to0
	ptc qdisc add dev to0 root handle 1: pfcwd detect 150 restore 250 \
		action forward lossless 3,4 limit 77 || fail "add"
	before=$(state to0)
	local c="qdisc change dev to0 root handle 1: pfcwd"
	# shellcheck disable=SC2086
	{
	expect_tc_error 'bad detect "0" (out of range): want milliseconds, 1-60000' $c detect 0
	expect_tc_error 'bad detect "60001" (out of range)' $c detect 60001
	expect_tc_error 'bad detect "1.5": want milliseconds' $c detect 1.5
	expect_tc_error 'bad detect "5s": want milliseconds' $c detect 5s
	expect_tc_error 'bad detect "-1": want milliseconds' $c detect -1
	expect_tc_error 'bad detect "+5": want milliseconds' $c detect +5
	expect_tc_error 'bad detect "99999999999999999999": want' $c detect 99999999999999999999
	expect_tc_error 'bad restore "0" (out of range)' $c restore 0
	expect_tc_error 'bad restore "60001" (out of range)' $c restore 60001
	expect_tc_error 'bad restore "x": want milliseconds' $c restore x
	expect_tc_error 'bad action "kill": want drop, forward or alert' $c action kill
	expect_tc_error 'bad action "DROP": want drop, forward or alert' $c action DROP
	expect_tc_error 'bad lossless "8": want priorities 0-7' $c lossless 8
	expect_tc_error 'bad lossless "3,3": want priorities 0-7' $c lossless 3,3
	expect_tc_error 'bad lossless "4-2": want priorities 0-7' $c lossless 4-2
	expect_tc_error 'bad lossless "3,": want priorities 0-7' $c lossless 3,
	expect_tc_error 'bad lossless "": want priorities 0-7' $c lossless ""
	expect_tc_error 'bad limit "0" (out of range): want packets per band, 1-1048576' $c limit 0
	expect_tc_error 'bad limit "1048577" (out of range)' $c limit 1048577
	expect_tc_error 'bad limit "10k": want packets per band' $c limit 10k
	expect_tc_error 'unknown option "bogus"' $c bogus 1
	expect_tc_error 'option "detect" given twice' $c detect 100 detect 200
	expect_tc_error 'option "limit" needs a value' $c limit
	expect_tc_error 'Usage: ... pfcwd [ detect MS ]' $c help
	# A good option with a bad one: nothing is sent, nothing changes.
	expect_tc_error 'bad restore "0"' $c detect 100 restore 0
	}
	expect_eq "$(state to0)" "$before" "port and qdisc after rejected changes"
	# A refused add attaches nothing.
	tc qdisc del dev to0 root || fail "delete"
	expect_tc_error 'bad action "none"' qdisc add dev to0 root handle 1: pfcwd action none
	[ -e /sys/class/net/to0/pfcwd ] && fail "a refused add made a port"
	tc qdisc show dev to0 | grep -q pfcwd && fail "a refused add attached the qdisc"
	return 0
}

# tc-nl.py must fail with errno $1 and an extack containing $2.
expect_nl_error() {
	local want=$1 msg=$2 out rc
	shift 2

	out=$(tcnl "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*': exit $rc (want $want): $out"
	echo "$out" | grep -qF -- "extack: $msg" ||
		fail "'$*': extack '$msg' missing in: $out"
	log "rejected: $* -> $(echo "$out" | tr '\n' ' ')"
}

test_kernel_errors() {
	local c="change to0 handle 1" r=34 e=22
	local det="pfcwd: bad detect: a u32 of 1-60000 (ms)"
	local res="pfcwd: bad restore: a u32 of 1-60000 (ms)"
	local act="pfcwd: bad action: a u32, 0 (drop), 1 (forward) or 2 (alert)"
	local lim="pfcwd: bad limit: a u32 of 1-1048576 (packets per band)"
	local los="pfcwd: bad lossless: a u8 bitmask of priorities"
	local unk="pfcwd: unknown option (attribute type not in TCA_PFCWD_*)"
	local wrn="pfcwd: bad warn: a u32 of 0-59999 (ms; 0 = off)"
	local wt0="pfcwd: warning time must be below the detection time (T0), or 0 (off)"
	local bko="pfcwd: bad backoff: a u8, 0 (off) or 1 (on)"
	local rat="pfcwd: bad pause rate: a u32 of 0-100000000 (frames/s; 0 = off)"
	local rwn="pfcwd: bad pause-rate window: a u32 of 100-3600000 (ms)"

	setup to0
	tcnl add to0 handle 1 detect 150 restore 250 action 1 lossless 0x18 limit 77 ||
		fail "raw add"
	before=$(state to0)
	expect_eq "$before" "detection_time_ms=150 restoration_time_ms=250 action=forward priorities=3,4 | handle 1: limit 77 detect 150 restore 250 action 1 lossless 0x18" \
		"state before"
	# shellcheck disable=SC2086
	{
	expect_nl_error $r "$det" $c detect 0
	expect_nl_error $r "$det" $c detect 60001
	expect_nl_error $r "$det" $c detect 0xffffffff
	expect_nl_error $r "$res" $c restore 0
	expect_nl_error $r "$res" $c restore 60001
	expect_nl_error $r "$act" $c action 3
	expect_nl_error $r "$act" $c action 0x80000000
	expect_nl_error $r "$lim" $c limit 0
	expect_nl_error $r "$lim" $c limit 0x100001
	expect_nl_error $e "$unk" $c attr 11:00000000
	expect_nl_error $r "$rat" $c attr 8:01e1f505
	expect_nl_error $r "$rat" $c attr 9:01e1f505
	expect_nl_error $e "$rat" $c attr 9:6400
	expect_nl_error $r "$rwn" $c attr 10:63000000
	expect_nl_error $r "$rwn" $c attr 10:81ee3600
	expect_nl_error $e "$rwn" $c attr 10:
	expect_nl_error $r "$bko" $c attr 7:02
	expect_nl_error $e "$bko" $c attr 7:01000000
	expect_nl_error $r "$wrn" $c attr 6:60ea0000
	expect_nl_error $e "$wrn" $c attr 6:6400
	expect_nl_error $e "$wt0" $c attr 6:96000000
	expect_nl_error $e "$wt0" $c detect 100 attr 6:64000000
	expect_nl_error $e "$unk" $c attr 99:01
	expect_nl_error $e "$unk" $c attr 0:00000000
	expect_nl_error $e "$det" $c attr 2:6400
	expect_nl_error $e "$det" $c attr 2:6400000000000000
	expect_nl_error $e "$res" $c attr 3:
	expect_nl_error $e "$act" $c attr 4:01
	expect_nl_error $e "$los" $c attr 5:18000000
	expect_nl_error $e "$los" $c attr 5:
	expect_nl_error $e "$lim" $c attr 1:0a00
	expect_nl_error $e "NLA_F_NESTED" $c detect 100 noflag
	# Good options with a bad one: none applied.
	expect_nl_error $r "$res" $c detect 100 lossless 0x01 limit 5 restore 0
	expect_nl_error $r "$det" $c restore 100 action 2 detect 60001
	expect_nl_error $e "$unk" $c detect 100 limit 5 attr 77:00000000
	expect_nl_error $r "$act" replace to0 handle 1 detect 100 action 9
	}
	expect_eq "$(state to0)" "$before" "port and qdisc after rejected requests"
	grep -q "^to0 .* action forward prios 3,4 " $PFCWD_DBG || fail "debugfs: $(grep '^to0 ' $PFCWD_DBG | head -n 1)"
	# A refused add: no qdisc, no port.
	tc qdisc del dev to0 root || fail "delete"
	expect_nl_error $r "$res" add to0 handle 1 restore 60001
	expect_nl_error $e "$los" add to0 handle 1 attr 5:0300
	[ -e /sys/class/net/to0/pfcwd ] && fail "a refused add made a port"
	tc qdisc show dev to0 | grep -q pfcwd && fail "a refused add attached the qdisc"
	return 0
}

test_xstats_storm() {
	setup to0
	# T0 long enough for frames to queue behind the pause first, then
	# shortened through tc: detection follows, the pause being long enough.
	ptc qdisc add dev to0 root handle 1: pfcwd detect 60000 restore 100 \
		action drop lossless 3,4 || fail "add"
	expect_eq "$(xstat to0 3 state)/$(xflag to0 3 lossless)/$(xflag to0 0 lossless)" \
		operational/1/0 "prio 3 and 0 before the storm"
	sim to0 rx_storm 3
	expect_eq "$(send to0 3 20)" 20 "prio 3 frames queued while paused"
	expect_eq "$(xstat to0 3 state)/$(xstat to0 3 tx_dropped)" operational/0 "prio 3 paused"
	ptc qdisc change dev to0 root handle 1: pfcwd detect 100 || fail "change detect"
	wait_stat to0 3 state stormed 3
	wait_xstat to0 3 state stormed
	wait_xstat to0 3 tx_dropped 20
	log "$(ptc -s qdisc show dev to0)"
	expect_eq "$(xstat to0 3 detected)/$(xstat to0 3 restored)" 1/0 "prio 3 storm counts"
	expect_eq "$(send to0 3 15)" 0 "prio 3 frames accepted while stormed"
	expect_eq "$(xstat to0 3 tx_dropped)" 35 "prio 3 drops moved"
	expect_eq "$(xstat to0 3 tx_dropped)" "$(pstat to0 3 tx_dropped)" "xstats = debugfs"
	expect_eq "$(xstat to0 4 state)/$(xstat to0 4 tx_dropped)/$(xstat to0 4 detected)" \
		operational/0/0 "prio 4 meanwhile"
	got=$(ptc -j -s qdisc show dev to0 |
	      jq -r '.[0].prios[3] | "\(.state) \(.lossless) \(.detected) \(.tx_dropped)"')
	expect_eq "$got" "stormed true 1 35" "JSON xstats of prio 3 while stormed"
	sim to0 rx_storm ""
	wait_stat to0 3 state operational 3
	log "$(ptc -s qdisc show dev to0)"
	expect_eq "$(xstat to0 3 state)/$(xstat to0 3 detected)/$(xstat to0 3 restored)/$(xstat to0 3 tx_dropped)" \
		operational/1/1/35 "prio 3 after restoration"
	expect_eq "$(send to0 3 10)" 10 "prio 3 after restoration"
	expect_eq "$(xstat to0 3 tx_dropped)" 35 "no drop after restoration"

	# The action changed through tc applies to the next storm.
	ptc qdisc change dev to0 root handle 1: pfcwd action forward || fail "change action"
	sim to0 rx_storm 3
	wait_stat to0 3 state stormed 3
	expect_eq "$(send to0 3 12)" 12 "prio 3 frames accepted under forward"
	wait_xstat to0 3 tx_forwarded 12
	expect_eq "$(xstat to0 3 state)/$(xstat to0 3 detected)/$(xstat to0 3 tx_dropped)" \
		stormed/2/35 "prio 3 under forward"
	sim to0 rx_storm ""
	wait_stat to0 3 state operational 3
	expect_eq "$(xstat to0 3 state)/$(xstat to0 3 restored)" operational/2 "after the second storm"
}

TESTS=(
	"test_add_options	tcopts: add/replace with every option through tc + plugin; sysfs agrees"
	"test_change	tcopts: tc qdisc change applies only what it names; sysfs and dump agree"
	"test_change_mid_storm	tcopts: unwatching a stormed priority through tc restores it"
	"test_show_plain	tcopts: options and per-priority xstats printed by the plugin"
	"test_show_json	tcopts: tc -j prints options and xstats as JSON"
	"test_no_plugin	tcopts: without the plugin, add works with defaults; options refused"
	"test_plugin_errors	tcopts: bad options refused by the plugin, nothing changed"
	"test_kernel_errors	tcopts: bad options refused by the kernel with extack, nothing changed"
	"test_xstats_storm	tcopts: xstats follow a storm, drop then forward, and restoration"
)

srv_start tcnl python3 -S "$TC_NL" serve || exit 1
tap_main "$@"
