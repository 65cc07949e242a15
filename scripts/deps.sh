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
      python3 python3-yaml python3-jsonschema python3-scapy xz-utils
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

# Kernel images for the VM, unpacked into the build cache.
for s in "${series_list[@]}"; do
	r=${rel[$s]}
	root="$kdir/$r"
	if [ ! -f "$root/.done" ]; then
		apt_update
		log "unpacking linux-image-$r-unsigned"
		rm -rf "$root" "$kdir/dl-$r"
		mkdir -p "$kdir/dl-$r"
		(cd "$kdir/dl-$r" && apt-get download -qq -o APT::Sandbox::User=root "linux-image-$r-unsigned" >/dev/null)
		dpkg -x "$kdir"/dl-"$r"/*.deb "$root"
		rm -rf "$kdir/dl-$r"
		# usrmerge: Debian 12 images ship /lib/modules; newer ones /usr/lib.
		[ -d "$root/lib/modules" ] || { mkdir -p "$root/lib"; ln -s ../usr/lib/modules "$root/lib/modules"; }
		depmod -b "$root" "$r"
		touch "$root/.done"
	fi
	printf '%s\n' "$r" > "$kdir/$s.release"
done

# Extracts paths $3... of linux-source-6.12 into a fresh directory $2
# (named $1 in the log), keeping their paths below the source tree's top.
extract_source() {
	local what=$1 dir=$2 tarball base p
	local paths=()

	shift 2
	tarball=$(ls /usr/src/linux-source-6.12*.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || { log "linux-source-6.12 tarball missing"; exit 1; }
	log "extracting $what from $tarball"
	rm -rf "$dir"
	mkdir -p "$dir"
	base=$(basename "$tarball")
	base=${base%.tar.*}
	for p in "$@"; do
		paths+=("$base/$p")
	done
	tar -xf "$tarball" -C "$dir" --strip-components=1 "${paths[@]}"
}

# checkpatch.pl and its data files from linux-source-6.12.
cp_dir="$top/build/checkpatch"
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	extract_source checkpatch "$cp_dir" scripts/checkpatch.pl \
		scripts/spelling.txt scripts/const_structs.checkpatch
fi

# The kernel's ynl (tools/net/ynl: cli.py and its Python library) with the
# netlink schemas and specs (Documentation/netlink), from linux-source-6.12,
# for scripts/ynl and the spec check.  Its Python dependencies (PyYAML,
# jsonschema) are the Debian packages above.
ynl_dir="$top/build/ynl"
if [ ! -f "$ynl_dir/.done" ]; then
	extract_source ynl "$ynl_dir" tools/net/ynl Documentation/netlink
	# Byte-compiled here: the VM sees this tree read-only.
	/usr/bin/python3 -m compileall -q "$ynl_dir/tools/net/ynl" >/dev/null
	touch "$ynl_dir/.done"
fi
exit 0
