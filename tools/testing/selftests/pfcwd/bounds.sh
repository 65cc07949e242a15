#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Timing bounds of the selftests, from physics only (sourced by lib.sh).
#
# A bound is what the storm and the poller's design allow - T0 or T1, the
# interval between the reads that can see a storm begin or end (the poll
# intervals of DESIGN section 4: poll_quiet_us, poll_fine_us, as the test
# configured them), the period R at which a port's counters are published
# and how late a publication may come after its grid point (pfcsim:
# stats_period_ms and stats_jitter_ms; its delayed work's own lateness is
# the load below) - plus one load margin for the guest's scheduling.  Never anything pfcwd computes about
# its own precision (granularity_us, restore_late_us, pub_width_us, the
# poller's late_ns): those are checked against these bounds instead.
# All results in us.

# The poll intervals as configured (module parameters; defaults 4 ms and
# 1 ms, pfcwd/params.c), never pfcwd's measured lateness.
poll_quiet_us() {
	local v=4000

	[ -r /sys/module/pfcwd/parameters/poll_quiet_us ] &&
		read -r v < /sys/module/pfcwd/parameters/poll_quiet_us
	echo "$v"
}

poll_fine_us() {
	local v=1000

	[ -r /sys/module/pfcwd/parameters/poll_fine_us ] &&
		read -r v < /sys/module/pfcwd/parameters/poll_fine_us
	echo "$v"
}

# How late the host lets this guest run, us: the premise of the margin,
# which judged checks with wakeup_probe.py.  The guest's timers are
# delivered by TCG vCPU threads, which the 2-core host shares with the
# other VMs of a CI run and make check's parallel lane: a runnable vCPU
# thread can wait a host scheduling period (about 12 ms at 3-5 runnable
# threads on 2 cores).  The probe, a SCHED_FIFO sleeper in the guest, saw
# up to 19.9 ms with two VMs on the host (6.1, 1 vCPU); 20 ms.  The debug
# kernel (KASAN, lockdep, kmemleak) runs every path in the guest about 3
# times slower (as lib.sh's timeouts assume): 60 ms.
host_late_us() {
	local r

	read -r r < /proc/sys/kernel/osrelease
	case $r in
	*-pfcwd-debug) echo 60000 ;;	# any vCPU count
	*) echo 20000 ;;		# 6.1 and 6.12, 1 or 2 vCPUs
	esac
}

# How late one wake-up of the poller (or of pfcsim's timers) may run,
# us: the host's delay plus the guest's own - the poller waits behind the
# case's processes (CFS) and for RTNL, which the case's dcb/tc/ethtool
# commands hold for several ms each under emulation.  Measured: pfcwd's
# poller 30.8 ms late (granularity_us 2189.6 ms on bnxt = resolution
# 2128 ms + 2 x 30.8) while the host-level probe saw at most 19.9 ms, on
# 6.1 with 1 vCPU: 11 ms inside the guest; 15 ms, the same with 2 vCPUs
# (the RTNL part does not shrink), 45 ms on the debug kernel (3 x).
wakeup_late_us() {
	local r

	read -r r < /proc/sys/kernel/osrelease
	case $r in
	*-pfcwd-debug) echo $(($(host_late_us) + 45000)) ;;
	*) echo $(($(host_late_us) + 15000)) ;;
	esac
}

# The load margin: every measured interval is bracketed by two wake-ups
# (the read that first sees a pause or its end, and the one that acts T0
# or T1 later), and each may come late by one wakeup_late_us.
load_margin_us() {
	echo $((2 * $(wakeup_late_us)))
}

# bound_detect_us T0_MS [R_MS [JITTER_MS]]: the latest detection after a
# storm began.  Live counters (R 0, also the exact software and push
# sources): the pause is seen at the next quiet read, T0 is then checked
# on the fine grid.  Counters published every R: the storm's first
# publication comes up to R + jitter after it began, and pfcwd's reads
# look for a publication within a window of R/8 + 2 fine (pfcwd/source.c)
# after it is due, then read fine; the publication phase is known (see
# bound_first_detect_us).
bound_detect_us() {
	local t0=$1 r=${2:-0} j=${3:-0} fine

	fine=$(poll_fine_us)
	if [ "$r" = 0 ]; then
		echo $((t0 * 1000 + $(poll_quiet_us) + fine + $(load_margin_us)))
	else
		echo $((t0 * 1000 + (r + j) * 1000 + r * 1000 / 8 + 3 * fine +
			$(load_margin_us)))
	fi
}

# bound_first_detect_us T0_MS R_MS [JITTER_MS]: the same before pfcwd knows
# the phase of the publications: it reads once a period, so one period more.
bound_first_detect_us() {
	echo $(($(bound_detect_us "$1" "$2" "${3:-0}") + $2 * 1000))
}

# bound_restore_us T1_MS [R_MS [JITTER_MS [SHORT]]]: the latest restoration
# after a storm's last pause frame: the end is seen as the detection's
# start is, T1 counted on the fine grid.  SHORT 1: a storm shorter than
# two periods on published counters without published pause time may be
# seen over only in a later publication, one period more.
bound_restore_us() {
	local t1=$1 r=${2:-0} j=${3:-0} short=${4:-0} b

	b=$(bound_detect_us "$t1" "$r" "$j")
	[ "$short" = 1 ] && b=$((b + r * 1000))
	echo "$b"
}

# check_granularity DEV T0_MS [R_MS [JITTER_MS]]: pfcwd's own claim
# (granularity_us: how late it says a detection may come beyond T0) must
# not exceed what physics gives.
check_granularity() {
	local g b

	read -r g < "/sys/class/net/$1/pfcwd/granularity_us" ||
		fail "$1: no granularity_us"
	b=$(($(bound_detect_us "$2" "${3:-0}" "${4:-0}") - $2 * 1000))
	log "# $1: granularity_us $g, physical bound $b us"
	[ "$g" -le "$b" ] ||
		fail "$1: granularity_us $g above the physical bound $b us (T0 $2 ms, R ${3:-0} ms)"
}

# wakeup_probe_start: at the top of a script that uses judged (not in a
# case: it must outlive them).  wakeup_probe.py notes, independent of
# pfcwd, every wake-up of a SCHED_FIFO sleeper later than a quarter of
# host_late_us, with its time (CLOCK_BOOTTIME, as /proc/uptime).
WAKEUP_PROBE_OUT=/tmp/wakeup-probe.$$
wakeup_probe_start() {
	local i

	rm -f "$WAKEUP_PROBE_OUT" "$WAKEUP_PROBE_OUT.ready"
	chrt -f 1 python3 -S "$SELFTEST_DIR/wakeup_probe.py" "$WAKEUP_PROBE_OUT" \
		$(($(host_late_us) / 4)) &
	for ((i = 0; i < 200; i++)); do
		[ -e "$WAKEUP_PROBE_OUT.ready" ] && return 0
		sleep 0.05
	done
	echo "# wakeup_probe.py did not start"
}

# The latest wake-up the probe saw since uptime $1 (s), us.
wakeup_probe_max() {
	awk -v t="$1" '$1 >= t && $2 > m { m = $2 } END { print m + 0 }' \
		"$WAKEUP_PROBE_OUT" 2>/dev/null || echo 0
}

# judged CMD...: runs CMD (a timing check that may fail) in a subshell.
# CMD's pass is a pass.  If CMD fails while the probe saw a wake-up later
# than host_late_us - during CMD or in the 30 s before it, the window
# of the poller lateness that pfcwd's granularity_us holds - the load
# margin's premise did not hold (a starved host): the case is skipped
# with the measured delay, never passed; otherwise the failure stands.
judged() {
	local up rc max

	read -r up _ < /proc/uptime
	[ -e "$WAKEUP_PROBE_OUT.ready" ] || fail "no wake-up probe (wakeup_probe_start)"
	("$@")
	rc=$?
	max=$(wakeup_probe_max "$(awk -v u="$up" 'BEGIN { print u - 30 }')")
	log "# latest guest wake-up from 30 s before the check to its end: $max us (margin assumes <= $(host_late_us) us)"
	[ "$rc" = 0 ] && return 0
	[ "$max" -gt "$(host_late_us)" ] &&
		skip "timing not judged: the guest woke a sleeper $max us late, beyond the $(host_late_us) us the load margin assumes"
	fail "timing out of its physical bounds"
}
