#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""wakeup_probe.py - how late this guest wakes a sleeper, independent of pfcwd.

  wakeup_probe.py OUT THRESHOLD_US

Sleeps 20 ms at a time (run under SCHED_FIFO by bounds.sh, so that only
what delays every task - the host descheduling the vCPU, interrupts,
TCG - is measured, not the guest's own CFS queue) and appends a line
"BOOTTIME_S LATE_US" to OUT for every sleep that returned more than
THRESHOLD_US later than asked.  OUT.ready appears once it runs.  It
exits when its parent (the selftest script) is gone.
"""
import os
import sys
import time

STEP_S = 0.02


def main():
    out, thresh = sys.argv[1], int(sys.argv[2]) * 1000
    parent = os.getppid()
    open(out + ".ready", "w").close()
    with open(out, "a") as f:
        while os.getppid() == parent:
            t = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
            time.sleep(STEP_S)
            now = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
            late = now - t - int(STEP_S * 1e9)
            if late > thresh:
                f.write("%.3f %d\n" % (now / 1e9, late // 1000))
                f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
