#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of the installation paths, in TAP: make install and make
# uninstall into a DESTDIR (every file and its mode, the module's vermagic,
# depmod's index, the tc plugin loaded by Debian's tc, the configuration
# file kept like a conffile, nothing left behind), dkms add/build/install
# for Debian's 6.1 and 6.12 in a sandbox DKMS tree (the system's
# /var/lib/dkms and /usr/src are left alone), and make deb (both packages,
# their contents, lintian without errors).
#
# Needs the artifacts of `make KVER=6.1` and `make KVER=6.12`, root (dkms), and the
# Debian packages of scripts/deps.sh; a missing tool or artifact is a
# failure, never a skip.  No VM.  About 2 minutes on a 2-core machine.
#
# Usage: tools/testing/packaging/test.sh     (from anywhere; exit 1 on failure)

set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1

version=$(cat VERSION)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
tcdir=/usr/lib/$multiarch/tc
kernels=(6.1 6.12)
declare -A rel
for k in "${kernels[@]}"; do
	rel[$k]=$(cat "build/kernels/$k.release" 2>/dev/null)
done

tmp=$(mktemp -d /tmp/pfcwd-pkgtest.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
logf=$tmp/log

num=0
failed=0
plan=49

echo "TAP version 13"
echo "1..$plan"

# ok NAME CMD...: runs CMD, one TAP line for its status; on failure the
# tail of the log (the output of the commands run by run) as diagnostics.
ok() {
	local name=$1

	shift
	num=$((num + 1))
	if "$@"; then
		echo "ok $num $name"
	else
		echo "not ok $num $name"
		failed=$((failed + 1))
		[ -s "$logf" ] && tail -n 15 "$logf" | sed 's/^/# /'
	fi
	: > "$logf"
}

# run CMD...: CMD with its output in the log.
run() {
	"$@" >> "$logf" 2>&1
}

diag() {
	echo "$*" >> "$logf"
}

# --- tools and artifacts ----------------------------------------------------

tools_present() {
	local t missing=()

	for t in make install gzip depmod modinfo tc strings dkms \
		 dpkg-buildpackage dh dh_dkms dpkg-deb lintian fakeroot cmp; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ ${#missing[@]} = 0 ] && return 0
	diag "missing: ${missing[*]} (scripts/deps.sh installs them)"
	return 1
}
ok "the tools are installed" tools_present

artifacts_present() {
	local f rc=0

	for f in build/6.1/pfcwd.ko build/6.12/pfcwd.ko build/tools/pfcwd \
		 build/tools/q_pfcwd.so build/kernels/6.1.release \
		 build/kernels/6.12.release tools/pfcwd/pfcwd.8 \
		 tools/pfcwd/dist/pfcwd.conf tools/pfcwd/dist/pfcwd.service \
		 tools/pfcwd/dist/90-pfcwd.rules; do
		[ -e "$f" ] || { diag "missing: $f"; rc=1; }
	done
	return $rc
}
ok "the artifacts of make and make KVER=6.12 exist" artifacts_present

# --- make install / make uninstall ------------------------------------------

dest=$tmp/dest

# The regular files below $dest with their modes, depmod's indexes left out.
listing() {
	(cd "$dest" 2>/dev/null && find . -type f ! -path './lib/modules/*/modules.*' -printf '%m %P\n' | sort)
}

expected() {
	printf '%s\n' \
		"644 lib/modules/$1/updates/pfcwd.ko" \
		"755 usr/sbin/pfcwd" \
		"644 ${tcdir#/}/q_pfcwd.so" \
		"644 usr/share/man/man8/pfcwd.8.gz" \
		"644 etc/pfcwd.conf" \
		"644 lib/systemd/system/pfcwd.service" \
		"644 lib/udev/rules.d/90-pfcwd.rules" \
		"644 usr/share/pfcwd/pfcwd-alerts.yml" | sort
}

files_as_expected() {
	local want

	want=$(expected "$1")
	[ "$(listing)" = "$want" ] && return 0
	diag "installed files differ from the expected (-expected +installed):"
	diff <(echo "$want") <(listing) | grep '^[<>]' | sed 's/^</-/;s/^>/+/' >> "$logf"
	return 1
}

vermagic_is() {
	local v

	v=$(modinfo -F vermagic "$dest/lib/modules/$1/updates/pfcwd.ko" 2>>"$logf")
	diag "vermagic: $v"
	[ "${v%% *}" = "$1" ]
}

depmod_lists() {
	grep -q '^updates/pfcwd.ko:' "$dest/lib/modules/$1/modules.dep" 2>>"$logf"
}

empty_dest() {
	local left

	left=$(cd "$dest" 2>/dev/null && find . -mindepth 1)
	[ -z "$left" ] && return 0
	diag "left behind: $left"
	return 1
}

for k in "${kernels[@]}"; do
	r=${rel[$k]}
	rm -rf "$dest"
	ok "make install DESTDIR KVER=$k" run make -s install DESTDIR="$dest" KVER="$k"
	ok "KVER=$k: every file installed, with its mode, nothing else" files_as_expected "$r"
	ok "KVER=$k: the installed module's vermagic is $r" vermagic_is "$r"
	ok "KVER=$k: depmod -b indexed updates/pfcwd.ko" depmod_lists "$r"
	ok "make uninstall DESTDIR" run make -s uninstall DESTDIR="$dest"
	ok "KVER=$k: uninstall leaves no file behind" empty_dest
done

# Debian's tc dlopen()s q_<kind>.so from TC_LIB_DIR, by default from the
# multiarch directory compiled into it, where install puts the plugin.
rm -rf "$dest"
ok "make install DESTDIR KVER=6.1, for the plugin and config cases" \
	run make -s install DESTDIR="$dest" KVER=6.1
tc_default_dir() {
	local s

	s=$(strings "$(command -v tc)")
	grep -qxF "$tcdir/" <<< "$s"
}
ok "tc's default plugin directory is $tcdir" tc_default_dir
tc_loads_plugin() {
	local o

	o=$(TC_LIB_DIR=$dest$tcdir tc qdisc add dev lo root pfcwd help 2>&1)
	diag "$o"
	grep -q 'detect' <<< "$o" && ! grep -q 'Unknown qdisc' <<< "$o"
}
ok "tc loads the installed q_pfcwd.so (parse-only help)" tc_loads_plugin
tc_states_iproute2() {
	local o

	o=$(TC_LIB_DIR=$dest$tcdir tc qdisc add dev lo root pfcwd help 2>&1)
	diag "$o"
	grep -qF "This plugin was built for iproute2 6.1.0" <<< "$o" &&
		! grep -q "lays out its qdisc descriptors otherwise" <<< "$o"
}
ok "the plugin states the iproute2 it was built for; Debian's tc passes its check" \
	tc_states_iproute2

# The check at load, against a stand-in tc whose exported prio descriptor
# has the iproute2 6.1 layout, or another: then the plugin offers only its
# kind (tc treats it as a plugin without options) and says why.
tc_layout=$tmp/tc_layout
layout_same() {
	run gcc -O2 -Wall -Wextra -Werror -rdynamic -o "$tc_layout" \
		tools/testing/packaging/tc_layout.c -ldl || return 1
	[ "$("$tc_layout" same "$dest$tcdir/q_pfcwd.so" 2>>"$logf")" = "parse print xstats" ]
}
ok "a tc with iproute2 6.1's descriptor layout gets every slot" layout_same
layout_other() {
	local out err

	out=$("$tc_layout" other "$dest$tcdir/q_pfcwd.so" 2>"$tmp/layout.err")
	err=$(cat "$tmp/layout.err")
	diag "stdout: $out; stderr: $err"
	[ "$out" = none ] &&
		grep -qF "pfcwd: q_pfcwd.so was built for iproute2 6.1.0" <<< "$err" &&
		grep -qF "pfcwd options are not parsed or printed" <<< "$err"
}
ok "a tc laid out otherwise gets no slot, and is told why" layout_other

conf=$dest/etc/pfcwd.conf
echo "# changed by the admin" >> "$conf"
ok "install again" run make -s install DESTDIR="$dest" KVER=6.1
ok "install keeps an existing /etc/pfcwd.conf" grep -q 'changed by the admin' "$conf"
ok "uninstall" run make -s uninstall DESTDIR="$dest"
only_conf_left() {
	local left

	left=$(cd "$dest" && find . -type f)
	diag "left: $left"
	[ "$left" = ./etc/pfcwd.conf ]
}
ok "uninstall keeps a modified /etc/pfcwd.conf, and only that" only_conf_left

# install never builds: without an artifact it fails, says what to run,
# and installs nothing.  A copy of the script in a tree without build/.
missing_artifact() {
	local t=$tmp/nobuild o rc

	mkdir -p "$t/scripts" "$t/tools/pfcwd" &&
		cp scripts/install "$t/scripts/" && cp VERSION "$t/" &&
		cp -a tools/pfcwd/pfcwd.8 tools/pfcwd/dist "$t/tools/pfcwd/" || return 1
	o=$(DESTDIR=$t/dest KVER=6.1 "$t/scripts/install" install 2>&1)
	rc=$?
	diag "$o"
	[ $rc != 0 ] && grep -q "run 'make" <<< "$o" && [ ! -e "$t/dest" ]
}
ok "install without the artifacts fails, naming the make command" missing_artifact

# A kernel configured without CONFIG_64BIT (i386, armhf) stops the build
# with the reason, before anything is compiled: the 6.1 headers with that
# option overridden, in a copy of the sources.
refuses_32bit() {
	local t=$tmp/k32 o rc

	mkdir -p "$t" && cp -a Kbuild VERSION include pfcwd net_sched "$t/" || return 1
	o=$(make -s -C "/lib/modules/${rel[6.1]}/build" M="$t" PFCWD_ONLY=1 \
		CONFIG_64BIT= modules 2>&1)
	rc=$?
	diag "$o"
	[ $rc != 0 ] && grep -q 'pfcwd needs a 64-bit kernel' <<< "$o" &&
		! ls "$t"/pfcwd/*.o > /dev/null 2>&1
}
ok "a kernel without CONFIG_64BIT is refused, with the reason" refuses_32bit

# --- a production host: make for the running kernel's headers ---------------

# On a host with its running kernel's headers, plain make builds pfcwd.ko
# for that kernel and the user's tools, and nothing of the test harness.
# A copy of the tree without scripts/deps.sh (make would fail if it ran
# the harness's installer), with the 6.12 headers as the running kernel's.
prod=$tmp/prod
prod_release=${rel[6.12]}
prod_build() {
	mkdir -p "$prod/tools/testing" "$prod/scripts" &&
		cp -a Makefile Kbuild VERSION include pfcwd net_sched "$prod/" &&
		cp -a tools/pfcwd "$prod/tools/" &&
		cp -a tools/testing/pfcsim "$prod/tools/testing/" &&
		cp -a scripts/install "$prod/scripts/" || return 1
	run make -s -j2 -C "$prod" KRELEASE="$prod_release" || return 1
	ls -R "$prod/build" >> "$logf"
	[ "$(modinfo -F vermagic "$prod/build/$prod_release/pfcwd.ko" | cut -d' ' -f1)" = "$prod_release" ] &&
		[ -x "$prod/build/tools/pfcwd" ] && [ -e "$prod/build/tools/q_pfcwd.so" ] &&
		[ ! -e "$prod/build/$prod_release/pfcsim.ko" ] &&
		[ ! -e "$prod/build/kernels" ] && [ ! -e "$prod/build/tools/pfcwd-pkt" ]
}
ok "make without KVER builds for the running kernel's headers, no test harness" prod_build

prod_install() {
	local r=$prod_release

	rm -rf "$dest"
	run make -s -C "$prod" KRELEASE="$r" install DESTDIR="$dest" || return 1
	files_as_expected "$r" && vermagic_is "$r" && depmod_lists "$r"
}
ok "make install without KVER installs that kernel's module and the tools" prod_install

prod_uninstall() {
	run make -s -C "$prod" KRELEASE="$prod_release" uninstall DESTDIR="$dest" &&
		empty_dest
}
ok "make uninstall without KVER leaves nothing behind" prod_uninstall

unknown_kver() {
	local o rc

	o=$(make -s -C "$prod" KVER=0.0.0-none 2>&1)
	rc=$?
	diag "$o"
	[ $rc != 0 ] && grep -q "KVER must be 6.1, 6.12, debug or an installed kernel's release" <<< "$o"
}
ok "a KVER without headers is refused, with the reason" unknown_kver

# --- DKMS, in a sandbox -----------------------------------------------------

sb=$tmp/dkms
state_before=$(ls -laR /var/lib/dkms 2>&1; ls -ld /usr/src/pfcwd-* 2>&1)
# dkms signs what it builds; its key goes into the sandbox too.
export mok_signing_key=$sb/mok.key mok_certificate=$sb/mok.pub
dk=(dkms --dkmstree "$sb/var/lib/dkms" --sourcetree "$sb/usr/src"
    --installtree "$sb/lib/modules")

dkms_src_ok() {
	run make -s dkms-src DESTDIR="$sb" || return 1
	grep -qx "PACKAGE_VERSION=\"$version\"" "$sb/usr/src/pfcwd-$version/dkms.conf" &&
		[ ! -e "$sb/usr/src/pfcwd-$version/tools" ]
}
ok "make dkms-src: sources and dkms.conf (version $version), no pfcsim" dkms_src_ok
mkdir -p "$sb/var/lib/dkms" "$sb/lib/modules"
ok "dkms add pfcwd/$version" run "${dk[@]}" add "pfcwd/$version"

dkms_built() {
	local r=$1 s e

	s=$(date +%s)
	run "${dk[@]}" build "pfcwd/$version" -k "$r" || {
		cat "$sb/var/lib/dkms/pfcwd/$version/build/make.log" >> "$logf" 2>/dev/null
		return 1
	}
	e=$(date +%s)
	echo "# dkms build for $r: $((e - s)) s"
	ls "$sb/var/lib/dkms/pfcwd/$version/$r/"*/module/pfcwd.ko* >/dev/null 2>&1
}
dkms_installed() {
	local r=$1 dir ko v others

	mkdir -p "$sb/lib/modules/$r"
	run "${dk[@]}" install --no-depmod "pfcwd/$version" -k "$r" || return 1
	dir=$sb/lib/modules/$r/updates/dkms
	ko=$(find "$dir" -name 'pfcwd.ko*' 2>/dev/null | head -n1)
	[ -n "$ko" ] || { diag "no updates/dkms/pfcwd.ko"; return 1; }
	v=$(modinfo -F vermagic "$ko")
	diag "vermagic: $v"
	others=$(find "$dir" -mindepth 1 ! -name 'pfcwd.ko*')
	diag "others: $others"
	[ "${v%% *}" = "$r" ] && [ -z "$others" ]
}
for k in "${kernels[@]}"; do
	r=${rel[$k]}
	ok "dkms build for $r" dkms_built "$r"
	ok "dkms install for $r: updates/dkms/pfcwd.ko only, vermagic $r" dkms_installed "$r"
done
ok "dkms remove --all" run "${dk[@]}" remove --no-depmod "pfcwd/$version" --all
state_same() {
	local now

	now=$(ls -laR /var/lib/dkms 2>&1; ls -ld /usr/src/pfcwd-* 2>&1)
	[ "$now" = "$state_before" ] && return 0
	diff <(echo "$state_before") <(echo "$now") >> "$logf"
	return 1
}
ok "the system's /var/lib/dkms and /usr/src are untouched" state_same

# --- make deb ---------------------------------------------------------------

deb=build/deb
dkms_deb=$deb/pfcwd-dkms_${version}_all.deb
tools_deb=$deb/pfcwd-tools_${version}_$(dpkg --print-architecture).deb
s=$(date +%s)
ok "make deb" run make -s deb
echo "# make deb (with lintian): $(($(date +%s) - s)) s"
ok "both packages built" test -f "$dkms_deb" -a -f "$tools_deb"

# contains DEB PATH...: every PATH is in DEB's data.
contains() {
	local d=$1 p list rc=0

	shift
	list=$(dpkg-deb -c "$d" 2>>"$logf" | awk '{ print $6 }')
	for p in "$@"; do
		grep -qxF "./$p" <<< "$list" || { diag "$d lacks $p"; rc=1; }
	done
	return $rc
}
field_is() {
	local v

	v=$(dpkg-deb -f "$1" "$2" 2>>"$logf")
	diag "$2: $v"
	grep -qE "$3" <<< "$v"
}

src=usr/src/pfcwd-$version
ok "pfcwd-dkms: the sources and dkms.conf in /$src" contains "$dkms_deb" \
	"$src/dkms.conf" "$src/VERSION" "$src/Kbuild" "$src/pfcwd/main.c" \
	"$src/pfcwd/prio_list.c" "$src/net_sched/sch_pfcwd.c" \
	"$src/include/net/pfcwd.h" "$src/include/uapi/linux/pfcwd.h" \
	usr/share/doc/pfcwd-dkms/copyright
no_test_code() {
	local list

	list=$(dpkg-deb -c "$dkms_deb" 2>>"$logf") || return 1
	! grep -E 'pfcsim|/tools/|\.ko$|\.o$' <<< "$list" >> "$logf"
}
ok "pfcwd-dkms: no test device, no objects" no_test_code
ok "pfcwd-dkms: Architecture all" field_is "$dkms_deb" Architecture '^all$'
ok "pfcwd-dkms: depends on dkms" field_is "$dkms_deb" Depends '(^|, )dkms'
registers() {
	local t=$tmp/ctl

	dpkg-deb -e "$dkms_deb" "$t" 2>>"$logf" || return 1
	grep -q 'DKMS_NAME=pfcwd' "$t/postinst" && grep -q 'dkms remove' "$t/prerm"
}
ok "pfcwd-dkms: registered with dkms by its maintainer scripts" registers
ok "pfcwd-tools: command, plugin, man page, unit, udev rule, config, alert rules" contains "$tools_deb" \
	usr/sbin/pfcwd "${tcdir#/}/q_pfcwd.so" usr/share/man/man8/pfcwd.8.gz \
	lib/systemd/system/pfcwd.service lib/udev/rules.d/90-pfcwd.rules \
	usr/share/pfcwd/pfcwd-alerts.yml \
	etc/pfcwd.conf usr/share/doc/pfcwd-tools/copyright
conffile() {
	local t=$tmp/ctl2

	dpkg-deb -e "$tools_deb" "$t" 2>>"$logf" || return 1
	[ "$(cat "$t/conffiles")" = /etc/pfcwd.conf ]
}
ok "pfcwd-tools: /etc/pfcwd.conf is its only conffile" conffile
ok "pfcwd-tools: depends on libmnl0 (shlibs)" field_is "$tools_deb" Depends 'libmnl0'
lintian_clean() {
	[ -f "$deb/lintian.txt" ] || { diag "no lintian output"; return 1; }
	grep -E '^[EWI]: ' "$deb/lintian.txt" | sed 's/^/lintian: /' >> "$logf"
	! grep -q '^E: ' "$deb/lintian.txt"
}
ok "lintian: no errors" lintian_clean
grep -E '^[EWI]: ' "$deb/lintian.txt" 2>/dev/null | sed 's/^/# lintian: /'

if [ "$num" != "$plan" ]; then
	echo "not ok $((num + 1)) the plan: $plan tests planned, $num run"
	failed=$((failed + 1))
fi
echo "# passed: $((num - failed)) failed: $failed"
[ "$failed" = 0 ]
