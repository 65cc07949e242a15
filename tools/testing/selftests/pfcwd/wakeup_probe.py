#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""wakeup_probe.py - how late this guest wakes a sleeper, independent of pfcwd.

  wakeup_probe.py OUT

Sleeps 5 ms at a time (run under SCHED_FIFO by bounds.sh, so that only
what delays every task - the host descheduling the vCPU, interrupts,
TCG - is measured, not the guest's own CFS queue) until SIGTERM (OUT.ready
exists once it listens for it), then writes "max_us N p99_us N samples N" to OUT: how much later than asked
each sleep returned.
"""
import signal
import sys
import time

STEP_NS = 5000000


def main():
    late = []
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    open(sys.argv[1] + ".ready", "w").close()
    while not stop:
        t = time.monotonic_ns()
        time.sleep(STEP_NS / 1e9)
        late.append(max(0, time.monotonic_ns() - t - STEP_NS))
    late.sort()
    n = len(late)
    with open(sys.argv[1], "w") as f:
        f.write("max_us %d p99_us %d samples %d\n" %
                (late[-1] // 1000 if n else 0,
                 late[min(n - 1, n * 99 // 100)] // 1000 if n else 0, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
