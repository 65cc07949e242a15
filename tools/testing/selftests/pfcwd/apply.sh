#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "pfcwd apply" and the files that make configuration survive: the shipped
# example /etc/pfcwd.conf applied to pfcsim ports named as in it, exactly
# as it says, and a second apply changing nothing; drift put back, dry
# runs that change nothing; bad files refused as a whole with their line;
# "off" and "qdisc none" undoing; the udev rule applying the file to a
# port that appears later, with systemd-udevd running; the systemd unit
# checked by systemd-analyze.  The last two run in a mount namespace of
# their own, with overlays on /etc, /usr/sbin and /run so that the files
# are where they are installed without touching the host.

. "$(dirname "$0")/lib.sh"

[ -x "$PFCWD" ] || { echo "no $PFCWD: run make first"; exit 1; }

DIST=$PFCWD_TOP/tools/pfcwd/dist
export TC_LIB_DIR=$PFCWD_TOP/build/tools	# the plugin: tc shows the limit
CONF=/tmp/apply.conf

sysv() { readf "/sys/class/net/$1/pfcwd/$2" 2>/dev/null || echo "missing"; }

# "kind handle limit" of DEV $1's root qdisc.
root_qdisc() {
	tc -j qdisc show dev "$1" root |
		jq -r '.[0] | "\(.kind) \(.handle) \(.options.limit // "-")"'
}

# Everything apply may change on devices $@: sysfs, show, root qdiscs.
snapshot() {
	local d f

	for d in "$@"; do
		echo "$d: $(root_qdisc "$d")"
		for f in enabled detection_time_ms restoration_time_ms action \
			 priorities storm_limit; do
			echo "$d $f $(sysv "$d" $f)"
		done
	done
	"$PFCWD" -j show | jq -r '.[] | "\(.ifname) \(.device_action) \(.held) \(.qdiscs)"'
}

# Runs "pfcwd apply ARGS..." expecting exit $1; stdout to /tmp/apply.out,
# stderr to /tmp/apply.err.
apply_rc() {
	local want=$1 rc
	shift
	"$PFCWD" apply "$@" > /tmp/apply.out 2> /tmp/apply.err
	rc=$?
	log "pfcwd apply $* -> $rc"
	sed 's/^/  out: /' /tmp/apply.out
	sed 's/^/  err: /' /tmp/apply.err
	[ "$rc" = "$want" ] || fail "pfcwd apply $*: exit $rc, wanted $want"
}

# The shipped example, its rules uncommented, applied to ports named as in
# it; a third port no rule names stays as it was.
test_example() {
	local before after

	reset_all
	pfcsim_new enp65s0f0
	pfcsim_new enp65s0f1
	pfcsim_new other0
	sed -n 's/^#dev /dev /p' "$DIST/pfcwd.conf" > $CONF
	expect_eq "$(grep -c '^dev ' $CONF)" 2 "rules in the example"
	cat $CONF
	# Comments and the commented rules alone change nothing.
	apply_rc 0 -f "$DIST/pfcwd.conf"
	[ -s /tmp/apply.out ] && fail "the example as shipped changed something"
	[ -e /sys/class/net/enp65s0f0/pfcwd ] && fail "enp65s0f0 became a port"

	apply_rc 0 -f $CONF
	for d in enp65s0f0 enp65s0f1; do
		expect_eq "$(sysv $d enabled)" 1 "$d enabled"
		expect_eq "$(sysv $d detection_time_ms)" 200 "$d detect"
		expect_eq "$(sysv $d restoration_time_ms)" 400 "$d restore"
		expect_eq "$(sysv $d action)" drop "$d action"
		expect_eq "$(sysv $d storm_limit)" 3 "$d storm limit"
	done
	expect_eq "$(sysv enp65s0f0 priorities)" 3 "enp65s0f0 prio"
	expect_eq "$(sysv enp65s0f1 priorities)" 3,4 "enp65s0f1 prio"
	expect_eq "$(root_qdisc enp65s0f1 | cut -d' ' -f1,3)" "pfcwd 10000" \
		"enp65s0f1's root qdisc"
	[ "$(root_qdisc enp65s0f0 | cut -d' ' -f1)" = pfcwd ] &&
		fail "enp65s0f0 got a qdisc no rule asked for"
	[ -e /sys/class/net/other0/pfcwd ] && fail "other0 became a port"
	grep -q '^enp65s0f1: qdisc mq -> pfcwd limit 10000, ' /tmp/apply.out ||
		fail "no qdisc change reported"
	grep -qx 'enp65s0f0: detect 200, restore 400, action drop, storm-limit 3, prio 3, on (new port)' \
		/tmp/apply.out || fail "the new port's line"

	before=$(snapshot enp65s0f0 enp65s0f1 other0)
	apply_rc 0 -f $CONF
	[ -s /tmp/apply.out ] && fail "a second apply changed something"
	apply_rc 0 -f $CONF --dry-run
	[ -s /tmp/apply.out ] && fail "a dry run after apply has changes"
	expect_eq "$("$PFCWD" -j apply -f $CONF --dry-run)" "[]" "-j dry run without drift"
	after=$(snapshot enp65s0f0 enp65s0f1 other0)
	expect_eq "$after" "$before" "state after a second apply (handle included)"
}

# Drift by hand is shown by a dry run, which changes nothing, and put back
# by apply; "dev DEV" applies one device only; stdin is a file.
test_drift() {
	local before

	reset_all
	pfcsim_new enp65s0f0
	pfcsim_new enp65s0f1
	sed -n 's/^#dev /dev /p' "$DIST/pfcwd.conf" > $CONF
	apply_rc 0 -f $CONF
	check "$PFCWD" set dev enp65s0f0 detect 900 action alert
	check "$PFCWD" set dev enp65s0f1 prio 5
	check tc qdisc change dev enp65s0f1 root pfcwd limit 77

	before=$(snapshot enp65s0f0 enp65s0f1)
	# Drift: a dry run exits 3, as text and as JSON.
	apply_rc 3 -f $CONF --dry-run
	grep -qx 'enp65s0f0: detect 900 -> 200, action alert -> drop (dry run)' /tmp/apply.out ||
		fail "dry run of enp65s0f0"
	grep -qx 'enp65s0f1: qdisc pfcwd limit 77 -> pfcwd limit 10000, prio 5 -> 3,4 (dry run)' /tmp/apply.out ||
		fail "dry run of enp65s0f1"
	expect_eq "$(snapshot enp65s0f0 enp65s0f1)" "$before" "state after a dry run"
	"$PFCWD" -j apply -f $CONF --dry-run > /tmp/apply.json
	expect_eq "$?" 3 "-j apply --dry-run with drift"
	expect_eq "$(jq -c '[.[] | select(.ifname == "enp65s0f0") | [.ifname, .changes, .dry_run]]' /tmp/apply.json)" \
		'[["enp65s0f0",["detect 900 -> 200","action alert -> drop"],true]]' \
		"-j dry run of enp65s0f0"
	expect_eq "$(jq -c '.[] | select(.ifname == "enp65s0f1") | .changes' /tmp/apply.json)" \
		'["qdisc pfcwd limit 77 -> pfcwd limit 10000","prio 5 -> 3,4"]' "-j dry run of enp65s0f1"
	expect_eq "$(snapshot enp65s0f0 enp65s0f1)" "$before" "state after a -j dry run"

	apply_rc 0 -f - dev enp65s0f1 < $CONF
	expect_eq "$(wc -l < /tmp/apply.out)" 1 "lines for dev enp65s0f1 alone"
	# That device is as the file says now: no drift there, drift elsewhere.
	apply_rc 0 -f $CONF --dry-run dev enp65s0f1
	[ -s /tmp/apply.out ] && fail "a dry run of the applied device has changes"
	apply_rc 3 -f $CONF --dry-run dev enp65s0f0
	expect_eq "$(sysv enp65s0f0 detection_time_ms)" 900 "enp65s0f0 left alone"
	expect_eq "$(sysv enp65s0f1 priorities)" 3,4 "enp65s0f1 prio put back"
	expect_eq "$(root_qdisc enp65s0f1 | cut -d' ' -f3)" 10000 "limit put back"
	apply_rc 0 -f $CONF
	expect_eq "$(sysv enp65s0f0 detection_time_ms)" 200 "enp65s0f0 put back"
	expect_eq "$(sysv enp65s0f0 action)" drop "enp65s0f0 action put back"
}

# A file with one bad line among good ones changes nothing, and says
# which line and why; so does a missing file.  (Every message of the
# parser is checked in the unit test conf_test.c; a few are enough here.)
test_bad_file() {
	local before i bad

	reset_all
	pfcsim_new sa0
	pfcsim_new sa1
	check "$PFCWD" set dev sa1 on detect 700
	before=$(snapshot sa0 sa1)
	bad=(
		"dev sa1 detect 61000|4|bad detect \"61000\": expected 1 to 60000 ms"
		"dev sa1 prio 9|4|bad priority list \"9\""
		"dev sa1 limit 3|4|\"limit\" goes after \"qdisc pfcwd\"; the storm limit is \"storm-limit N\""
		"dev sa1 qdisc pfcwd detect 5|4|\"detect\" after \"qdisc pfcwd\""
		"dev sa1 \\|4|the file ends inside a continued line"
	)
	for i in "${bad[@]}"; do
		IFS='|' read -r line n msg <<< "$i"
		printf '# good lines first\ndev sa* detect 300 qdisc pfcwd\ndev sa0 off\n%s\n' \
			"$line" > $CONF
		apply_rc 1 -f $CONF
		grep -qF "pfcwd: $CONF:$n: $msg" /tmp/apply.err ||
			fail "no \"$CONF:$n: $msg\" in the error"
		grep -qx 'pfcwd: nothing was changed' /tmp/apply.err ||
			fail "the error does not say nothing was changed"
		[ -s /tmp/apply.out ] && fail "changes printed for a bad file"
		expect_eq "$(snapshot sa0 sa1)" "$before" "state after a bad file ($line)"
	done
	apply_rc 1 -f /tmp/no-such.conf
	grep -q 'cannot read /tmp/no-such.conf: No such file' /tmp/apply.err ||
		fail "missing file message"
	# A device the file names that is not there is said, not an error.
	printf 'dev sa0 detect 250\ndev nosuch9 on\n' > $CONF
	apply_rc 0 -f $CONF
	grep -qx "pfcwd: $CONF:2: no device nosuch9 (yet); skipped" /tmp/apply.err ||
		fail "missing device not reported"
	expect_eq "$(sysv sa0 detection_time_ms)" 250 "sa0 applied next to a missing device"
	# Without the module: an error, nothing else.
	unload_mod pfcwd
	apply_rc 1 -f $CONF
	grep -q 'is pfcwd.ko loaded' /tmp/apply.err || fail "no module message"
}

# "dev *" is the host's NICs: loopback, a veth and a dummy are skipped
# unless a rule says "virtual" or names the device in full.
test_virtual() {
	local d

	reset_all
	pfcsim_new sa0
	ip link del vx0 2>/dev/null
	ip link del vd0 2>/dev/null
	check ip link add vx0 type veth peer name vx1
	check ip link add vd0 type dummy
	printf 'dev * detect 333\n' > $CONF
	apply_rc 0 -f $CONF
	expect_eq "$(sysv sa0 detection_time_ms)" 333 "a NIC matched by dev *"
	for d in lo vx0 vx1 vd0; do
		expect_eq "$(sysv $d enabled)" missing "$d skipped by dev *"
	done
	printf 'dev * detect 333\ndev vx* virtual detect 444\ndev vd0 detect 555\n' > $CONF
	apply_rc 0 -f $CONF
	expect_eq "$(sysv vx0 detection_time_ms) $(sysv vx1 detection_time_ms)" \
		"444 444" "veths matched by a virtual glob"
	expect_eq "$(sysv vd0 detection_time_ms)" 555 "a dummy named in full"
	expect_eq "$(sysv lo enabled)" missing "loopback still skipped"
	expect_eq "$(sysv sa0 detection_time_ms)" 333 "the NIC as before"
	ip link del vx0
	ip link del vd0
}

# "off" lets a port go, "qdisc none" takes pfcwd's qdisc away; a rule
# turning a port back on, with a qdisc, in one apply.
test_off_and_none() {
	reset_all
	pfcsim_new sa0
	printf 'dev sa0 detect 300 qdisc pfcwd limit 64\n' > $CONF
	apply_rc 0 -f $CONF
	expect_eq "$(root_qdisc sa0 | cut -d' ' -f1,3)" "pfcwd 64" "qdisc added"
	printf 'dev sa0 off qdisc none\n' > $CONF
	apply_rc 0 -f $CONF
	# The qdisc made the port (not held): it goes with the qdisc.
	grep -qx 'sa0: qdisc pfcwd limit 64 -> default' /tmp/apply.out ||
		fail "qdisc none not reported"
	[ "$(root_qdisc sa0 | cut -d' ' -f1)" = pfcwd ] && fail "qdisc still pfcwd"
	[ -e /sys/class/net/sa0/pfcwd ] && fail "sa0 still a port after off"
	apply_rc 0 -f $CONF
	[ -s /tmp/apply.out ] && fail "off applied twice changed something"
	printf 'dev sa0 on restore 900\n' > $CONF
	apply_rc 0 -f $CONF
	grep -qx 'sa0: restore 900, on (new port)' /tmp/apply.out || fail "new port line"
	expect_eq "$(sysv sa0 restoration_time_ms)" 900 "restore on the new port"
	# The port is held over netlink: a qdisc added and removed keeps it.
	check tc qdisc add dev sa0 root handle 1: pfcwd
	check tc qdisc del dev sa0 root
	expect_eq "$(sysv sa0 enabled)" 1 "held port after a qdisc came and went"
	printf 'dev sa0 off\n' > $CONF
	apply_rc 0 -f $CONF
	grep -qx 'sa0: on -> off' /tmp/apply.out || fail "off not reported"
	if [ -e /sys/class/net/sa0/pfcwd ]; then
		fail "sa0 still a port after off"
	fi
}

# The installed files at their places, in a mount namespace of our own:
# overlays on /etc, /usr/sbin and /run (the VM's root is the host's, read
# only).  Prints what it did; the caller checks.
in_install_ns() {
	unshare -m --propagation private bash -euc '
		top=$1 pfcwd=$2 dist=$3 conf=$4
		ov=/tmp/apply-ov
		rm -rf $ov
		for d in etc sbin; do
			mkdir -p $ov/$d.up $ov/$d.work
		done
		mount -t overlay overlay -o lowerdir=/etc,upperdir=$ov/etc.up,workdir=$ov/etc.work /etc
		mount -t overlay overlay -o lowerdir=/usr/sbin,upperdir=$ov/sbin.up,workdir=$ov/sbin.work /usr/sbin
		mount -t tmpfs run /run
		cp "$pfcwd" /usr/sbin/pfcwd
		cp "$conf" /etc/pfcwd.conf
		mkdir -p /etc/udev/rules.d /etc/systemd/system
		cp "$dist/90-pfcwd.rules" /etc/udev/rules.d/
		cp "$dist/pfcwd.service" /etc/systemd/system/
		shift 4
		"$@"
	' in_install_ns "$PFCWD_TOP" "$PFCWD" "$DIST" "$CONF" "$@"
}

# Port hp0 appears; what udev's rule made of it, as "hp0 $1: ...".
hp0_appears() {
	local i

	echo hp0 > $PFCSIM_DFS/new_port
	udevadm settle -t 20
	for ((i = 0; i < 100; i++)); do
		[ "$(sysv hp0 detection_time_ms)" = 350 ] && break
		sleep 0.1
	done
	echo "hp0 $1: $(sysv hp0 detection_time_ms) $(sysv hp0 action) $(sysv hp0 priorities) $(root_qdisc hp0 | cut -d' ' -f1)"
}

# What the udev test runs inside the namespace: udevd, then a port that
# appears (hot-plug) and one that comes back (driver reload).
udev_hotplug() {
	/lib/systemd/systemd-udevd --daemon --resolve-names=never 2>/tmp/udevd.err ||
		{ echo "udevd did not start: $(cat /tmp/udevd.err)"; return 1; }
	udevadm control --log-level=debug 2>/dev/null
	hp0_appears first
	echo hp0 > $PFCSIM_DFS/del_port
	hp0_appears again
	echo xx0 > $PFCSIM_DFS/new_port
	udevadm settle -t 20
	echo "xx0: $(sysv xx0 enabled)"
	udevadm control --exit
}

# The udev rule: a NIC that appears after boot, and again after a driver
# reload, gets the file's rules; one no rule names is left alone.
test_udev_hotplug() {
	local out

	[ -x /lib/systemd/systemd-udevd ] || fail "no systemd-udevd in the VM"
	reset_all
	printf 'dev hp* detect 350 action forward prio 2 qdisc pfcwd\n' > $CONF
	export -f udev_hotplug hp0_appears sysv readf root_qdisc
	export PFCSIM_DFS
	out=$(in_install_ns udev_hotplug 2>&1)
	log "$out"
	echo "$out" | grep -qx 'hp0 first: 350 forward 2 pfcwd' ||
		fail "the hot-plugged port was not configured by the udev rule"
	echo "$out" | grep -qx 'hp0 again: 350 forward 2 pfcwd' ||
		fail "the port was not configured again when it came back"
	echo "$out" | grep -qx 'xx0: missing' || fail "xx0 was touched"
	# Without the rule nothing happens: the rule is what did it.
	echo xx1 > $PFCSIM_DFS/new_port
	sleep 0.3
	expect_eq "$(sysv xx1 enabled)" missing "a port without udevd"
}

# The unit: systemd-analyze verify with the command where the unit says.
unit_verify() {
	systemd-analyze verify /etc/systemd/system/pfcwd.service 2>&1 |
		grep -v "man pfcwd(8)" || true
	echo "exec: $(sed -n 's/^ExecStart=//p' /etc/systemd/system/pfcwd.service)"
}

test_systemd_unit() {
	local out cmd

	command -v systemd-analyze >/dev/null || fail "no systemd-analyze"
	printf 'dev sa0 detect 222\n' > $CONF
	export -f unit_verify
	out=$(in_install_ns unit_verify 2>&1)
	log "$out"
	echo "$out" | grep -v '^exec: ' | grep -q . && fail "systemd-analyze: $out"
	# The unit's ExecStart is what an operator runs: it applies the file.
	cmd=$(echo "$out" | sed -n 's/^exec: //p')
	expect_eq "$cmd" "/usr/sbin/pfcwd apply" "ExecStart"
	grep -qx 'ExecStartPre=/sbin/modprobe pfcwd' "$DIST/pfcwd.service" ||
		fail "the unit does not load the module"
	grep -qx 'ConditionPathExists=/etc/pfcwd.conf' "$DIST/pfcwd.service" ||
		fail "the unit runs without a file"
}

# What an operator does on a host: make install (here into a staging
# root, the VM's own root being the host's, read only), modprobe of the
# installed module, the installed tc plugin and command, and the installed
# example configuration, its rules uncommented, applied.
test_make_install() {
	local k inst=/tmp/apply-inst tcdir out

	case $(uname -r) in
	"$(cat "$PFCWD_TOP/build/kernels/6.1.release" 2>/dev/null)") k=6.1 ;;
	"$(cat "$PFCWD_TOP/build/kernels/6.12.release" 2>/dev/null)") k=6.12 ;;
	"$(cat "$PFCWD_TOP/build/kernels/debug.release" 2>/dev/null)") k=debug ;;
	*) fail "kernel $(uname -r) is none of build's 6.1, 6.12 and debug" ;;
	esac
	rm -rf $inst
	out=$(make -s -C "$PFCWD_TOP" install DESTDIR=$inst KVER=$k 2>&1) ||
		fail "make install: $out"
	log "make install DESTDIR=$inst KVER=$k: ${out:-(quiet)}"
	unload_mod pfcsim
	unload_mod pfcwd
	modprobe -d $inst pfcwd || fail "modprobe -d $inst pfcwd"
	expect_eq "$(modinfo -b $inst -k "$(uname -r)" -n pfcwd)" \
		"$inst/lib/modules/$(uname -r)/updates/pfcwd.ko" "the module modprobe found"
	grep -q "^pfcwd " /proc/modules || fail "pfcwd not loaded"
	load_mod pfcsim
	pfcsim_new enp65s0f0
	pfcsim_new enp65s0f1
	sed -n 's/^#dev /dev /p' $inst/etc/pfcwd.conf > $CONF
	expect_eq "$(grep -c '^dev ' $CONF)" 2 "rules in the installed example"
	"$inst/usr/sbin/pfcwd" apply -f $CONF > /tmp/apply.out 2>&1 ||
		fail "installed pfcwd apply: $(cat /tmp/apply.out)"
	cat /tmp/apply.out
	expect_eq "$(sysv enp65s0f0 detection_time_ms)/$(sysv enp65s0f1 priorities)" \
		"200/3,4" "the example applied"
	tcdir=$(dirname "$(find $inst/usr/lib -name q_pfcwd.so)")
	out=$(TC_LIB_DIR=$tcdir tc qdisc show dev enp65s0f1 root)
	log "$out"
	echo "$out" | grep -q "^qdisc pfcwd .* limit 10000 " ||
		fail "the installed plugin does not show the qdisc's options"
	"$inst/usr/sbin/pfcwd" apply -f $CONF > /tmp/apply.out 2>&1
	[ -s /tmp/apply.out ] && fail "a second apply: $(cat /tmp/apply.out)"
	rm -rf $inst
}

TESTS=(
	"test_example	apply: the shipped example as it says; a second apply and a dry run change nothing"
	"test_drift	apply: drift shown by --dry-run, exit 3, -j (nothing changed), put back; dev DEV; stdin"
	"test_bad_file	apply: a bad line refused with FILE:LINE and nothing changed; missing file, device, module"
	"test_virtual	apply: dev * skips loopback and virtual devices unless virtual or named"
	"test_off_and_none	apply: off releases the port, qdisc none removes pfcwd's qdisc, on makes a held port"
	"test_udev_hotplug	udev rule: a port that appears, and reappears, gets the file's rules (systemd-udevd)"
	"test_systemd_unit	systemd unit: systemd-analyze verify, ExecStart applies the file"
	"test_make_install	make install, modprobe of the installed module, the installed example applied"
)

tap_main "$@"
