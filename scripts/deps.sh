#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what pfcwd needs to build, lint and test, from Debian packages only.
# Idempotent and quiet when everything is present.
#
# Kernel versions are resolved from the archive at install time:
#   6.1  -> the ABI that Debian's linux-headers-amd64 meta package points at
#   6.12 -> the ABI that linux-headers-6.12-amd64 points at
# The unsigned images of those ABIs are unpacked (apt-get download + dpkg -x)
# into build/kernels/<release>/ with depmod run, for scripts/vm-run.
#
# Writes build/kernels/<series>.release (e.g. 6.1.release) naming the release.
#
# What is unpacked is kept in a machine-wide cache, $PFCWD_CACHE (default
# /var/cache/pfcwd), so that a fresh clone does not download and unpack it
# again (that was about 30 s of every CI run): kernels/<release>_<version>/
# (the image whose version is that of the installed headers),
# source/<version>/ (checkpatch and ynl from linux-source-6.12 of that
# version) and tdc/<version>/ (its tc-testing).  A clone gets a copy of
# hard links: make's install-vm adds files and depmod replaces its indexes
# by rename, so the cache is never written through a clone.  An entry is
# complete once it has .done; a new version is a new entry.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir="$top/build/kernels"
export DEBIAN_FRONTEND=noninteractive

log() { printf 'deps: %s\n' "$*" >&2; }

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	log "apt-get update"
	apt-get update -qq >/dev/null
	apt_updated=1
}

# The meta packages are resolved against a fresh package list the first time
# we need one; after that the cached .release files make this script a no-op.
resolve_abi() {
	local meta=$1 dep
	dep=$(apt-cache depends "$meta" 2>/dev/null |
	      sed -n 's/^ *Depends: linux-headers-\(.*\)$/\1/p' | head -n1)
	if [ -z "$dep" ]; then
		apt_update
		dep=$(apt-cache depends "$meta" 2>/dev/null |
		      sed -n 's/^ *Depends: linux-headers-\(.*\)$/\1/p' | head -n1)
	fi
	[ -n "$dep" ] || { log "cannot resolve $meta"; return 1; }
	printf '%s\n' "$dep"
}

pkgs=(build-essential gcc make bc kmod cpio busybox-static qemu-system-x86
      sparse libmnl-dev pkg-config iproute2 ethtool procps iputils-ping
      python3 python3-yaml python3-jsonschema python3-scapy python3-pyroute2
      xz-utils
      linux-source-6.12 util-linux jq gojq nftables prometheus
      dkms dh-dkms debhelper dpkg-dev fakeroot lintian)

mkdir -p "$kdir"

series_list=(6.1 6.12)
declare -A meta=([6.1]=linux-headers-amd64 [6.12]=linux-headers-6.12-amd64)
declare -A rel

for s in "${series_list[@]}"; do
	f="$kdir/$s.release"
	if [ -s "$f" ] && [ -z "${PFCWD_DEPS_REFRESH:-}" ]; then
		rel[$s]=$(cat "$f")
	else
		rel[$s]=$(resolve_abi "${meta[$s]}")
	fi
	pkgs+=("linux-headers-${rel[$s]}")
done

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	log "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cache=${PFCWD_CACHE:-/var/cache/pfcwd}

# Copies cache entry $1 to $2 as hard links (a plain copy where the two are
# on different file systems).
copy_entry() {
	rm -rf "$2"
	cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2"; cp -a "$1" "$2"; }
}

# Kernel images for the VM, unpacked once into the cache.
for s in "${series_list[@]}"; do
	r=${rel[$s]}
	root="$kdir/$r"
	if [ ! -f "$root/.done" ]; then
		v=$(dpkg-query -W -f='${Version}' "linux-headers-$r")
		entry=$cache/kernels/${r}_$v
		if [ ! -f "$entry/.done" ]; then
			apt_update
			log "unpacking linux-image-$r-unsigned $v into $entry"
			tmp=$entry.tmp.$$
			rm -rf "$tmp"
			mkdir -p "$tmp/dl"
			(cd "$tmp/dl" && apt-get download -qq -o APT::Sandbox::User=root "linux-image-$r-unsigned=$v" >/dev/null)
			dpkg -x "$tmp"/dl/*.deb "$tmp/root"
			rm -rf "$tmp/dl"
			# usrmerge: Debian 12 images ship /lib/modules; newer ones /usr/lib.
			[ -d "$tmp/root/lib/modules" ] || { mkdir -p "$tmp/root/lib"; ln -s ../usr/lib/modules "$tmp/root/lib/modules"; }
			depmod -b "$tmp/root" "$r"
			touch "$tmp/root/.done"
			rm -rf "$entry"
			mv "$tmp/root" "$entry"
			rm -rf "$tmp"
		fi
		copy_entry "$entry" "$root"
	fi
	printf '%s\n' "$r" > "$kdir/$s.release"
done

# Makes sure cache entry $1/<version of linux-source-6.12> is complete and
# names it in src_entry.  A missing one is built in a temporary directory
# renamed into place at the end: the members $5... of the tarball (paths
# below its top directory) are extracted with $4 leading components stripped,
# then $3 lays out the directory it is given.  $2 says what, for the log.
src_entry=
src_extract() {
	local name=$1 what=$2 layout=$3 strip=$4 v tarball base tmp
	shift 4
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	src_entry=$cache/$name/$v
	[ ! -f "$src_entry/.done" ] || return 0
	tarball=$(ls /usr/src/linux-source-6.12*.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || { log "linux-source-6.12 tarball missing"; exit 1; }
	log "extracting $what from $tarball into $src_entry"
	tmp=$src_entry.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	base=$(basename "$tarball")
	base=${base%.tar.*}
	# "${@/#/$base/}": each member with the tarball's top directory before it.
	tar -xf "$tarball" -C "$tmp" --strip-components="$strip" "${@/#/$base/}"
	"$layout" "$tmp"
	touch "$tmp/.done"
	rm -rf "$src_entry"
	mkdir -p "$(dirname "$src_entry")"
	mv "$tmp" "$src_entry"
}

# checkpatch.pl and its data files, and the kernel's ynl (tools/net/ynl:
# cli.py and its Python library) with the netlink schemas and specs
# (Documentation/netlink), from linux-source-6.12, in one pass over its
# tarball (xz is read whole for any path in it) into the cache.  ynl is for
# scripts/ynl and the spec check; its Python dependencies (PyYAML,
# jsonschema) are the Debian packages above.
# shellcheck disable=SC2317 # called as src_extract's $3
src_layout_checkpatch_ynl() {
	mkdir -p "$1/checkpatch/scripts" "$1/ynl/tools/net"
	mv "$1"/scripts/* "$1/checkpatch/scripts/"
	mv "$1/tools/net/ynl" "$1/ynl/tools/net/"
	mv "$1/Documentation" "$1/ynl/"
	rmdir "$1/scripts" "$1/tools/net" "$1/tools"
	# Byte-compiled here: the VM sees this tree read-only.
	/usr/bin/python3 -m compileall -q "$1/ynl/tools/net/ynl" >/dev/null
	touch "$1/checkpatch/.done" "$1/ynl/.done"
}
cp_dir="$top/build/checkpatch"
ynl_dir="$top/build/ynl"
if [ ! -f "$cp_dir/.done" ] || [ ! -f "$ynl_dir/.done" ]; then
	src_extract source "checkpatch and ynl" src_layout_checkpatch_ynl 1 \
		scripts/checkpatch.pl scripts/spelling.txt \
		scripts/const_structs.checkpatch \
		tools/net/ynl Documentation/netlink
	copy_entry "$src_entry/checkpatch" "$cp_dir"
	copy_entry "$src_entry/ynl" "$ynl_dir"
fi

# The kernel's tc-testing runner (tools/testing/selftests/tc-testing: tdc.py,
# its plugins and its own cases) from the same tarball, for the pfcwd tdc
# cases (tools/testing/selftests/pfcwd/tdc.sh).  Its nsPlugin uses
# pyroute2 (the Debian package above).  An entry of its own, so that a
# cache made before it is not unpacked again.
# shellcheck disable=SC2317 # called as src_extract's $3
src_layout_tdc() {
	/usr/bin/python3 -m compileall -q "$1" >/dev/null
}
tdc_dir="$top/build/tdc"
if [ ! -f "$tdc_dir/.done" ]; then
	src_extract tdc tc-testing src_layout_tdc 5 \
		tools/testing/selftests/tc-testing
	copy_entry "$src_entry" "$tdc_dir"
fi
exit 0
