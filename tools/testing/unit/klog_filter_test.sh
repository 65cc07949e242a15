#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The selftests' kernel-log check (selftests/pfcwd/lib.sh): the one splat
# it forgives (qemu's leaked single-step #DB, WARNING in exc_debug_kernel)
# is forgiven whole and reported, and every other problem still fails,
# before, after or around it.

. "$(dirname "$0")/../selftests/pfcwd/lib.sh" || exit 1

n=0 failed=0
check() {
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n klog filter: $3"
	else
		echo "not ok $n klog filter: $3"
		echo "#   want '$2'"
		echo "#   got  '$1'"
		failed=$((failed + 1))
	fi
}

# The lines that would fail a case after the filter, joined by '|'.
bad_after_filter() {
	dmesg_drop_emulator_splats 2>/dev/null | grep -E "$DMESG_BAD" | paste -sd'|'
}

artifact='[ 609.90] ------------[ cut here ]------------
[ 609.90] WARNING: CPU: 1 PID: 11866 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160
[ 609.90] Modules linked in: pfcwd pfcsim
[ 609.90] Call Trace:
[ 609.90]  <#DB>
[ 609.90] ---[ end trace 0000000000000000 ]---'
other='[ 700.00] ------------[ cut here ]------------
[ 700.00] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 netdev_foo+0x1/0x2
[ 700.00] Call Trace:
[ 700.00] ---[ end trace 0000000000000000 ]---'

echo "TAP version 13"
echo "1..6"
check "$(printf 'a\n%s\nb\n' "$artifact" | bad_after_filter)" "" \
	"the emulator's #DB splat alone is forgiven"
check "$(printf '%s\n' "$artifact" | dmesg_drop_emulator_splats 2>&1 >/dev/null)" \
	"emulator artifact, not counted: [ 609.90] WARNING: CPU: 1 PID: 11866 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160" \
	"and reported"
check "$(printf '%s\n%s\n' "$artifact" "$other" | bad_after_filter)" \
	"[ 700.00] ------------[ cut here ]------------|[ 700.00] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 netdev_foo+0x1/0x2|[ 700.00] Call Trace:" \
	"a real WARNING after it still fails"
check "$(printf '%s\n%s\n' "$other" "$artifact" | bad_after_filter | cut -d'|' -f2)" \
	"[ 700.00] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 netdev_foo+0x1/0x2" \
	"a real WARNING before it still fails"
check "$(printf '%s\n[ 800.00] BUG: KASAN: use-after-free in foo\n' "$artifact" | bad_after_filter)" \
	"[ 800.00] BUG: KASAN: use-after-free in foo" "a KASAN report after it still fails"
check "$(printf '%s\n' "$other" | sed 's/netdev_foo/exc_debug_user/' | bad_after_filter | cut -d'|' -f2)" \
	"[ 700.00] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 exc_debug_user+0x1/0x2" \
	"only exc_debug_kernel is forgiven"
echo "# passed: $((n - failed)) failed: $failed"
[ "$failed" = 0 ]
