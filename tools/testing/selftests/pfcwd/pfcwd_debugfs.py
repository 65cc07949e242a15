# SPDX-License-Identifier: GPL-2.0
"""pfcwd_debugfs.py - what the selftests' Python helpers read from pfcwd.

/sys/kernel/debug/pfcwd/ports has one line per port and one per priority,
"DEV prio P key value key value ...", plus, for ports with software PFC,
"DEV swpfc key value ..." and "DEV swprio P key value ...".  Values that
are integers are returned as int, the rest (state, latch) as str.
"""
import time

PORTS = "/sys/kernel/debug/pfcwd/ports"


def on_debug_kernel():
    """The debug kernel of make check-debug (KASAN, lockdep, kmemleak):
    release *-pfcwd-debug, as lib.sh's on_debug_kernel."""
    with open("/proc/sys/kernel/osrelease") as f:
        return f.read().strip().endswith("-pfcwd-debug")


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def _value(v):
    return int(v) if v.lstrip("-").isdigit() else v


def _pairs(words):
    return {k: _value(v) for k, v in zip(words[::2], words[1::2])}


def _lines():
    with open(PORTS) as f:
        return [line.split() for line in f]


def prio_stats(dev, prio):
    """PRIO's line of DEV as a dict; RuntimeError if there is none."""
    for w in _lines():
        if len(w) > 3 and w[0] == dev and w[1] == "prio" and w[2] == str(prio):
            return _pairs(w[3:])
    raise RuntimeError("no pfcwd port %s prio %d" % (dev, prio))


def port_stats(dev):
    """DEV's port line as a dict; RuntimeError if there is none."""
    for w in _lines():
        if len(w) > 2 and w[0] == dev and w[1] == "enabled":
            return _pairs(w[1:])
    raise RuntimeError("no pfcwd port %s" % dev)


def swpfc_stats(dev, prio):
    """DEV's software PFC line and PRIO's swprio line, as two dicts;
    RuntimeError if DEV has no software PFC."""
    port = sw = None
    for w in _lines():
        if len(w) > 2 and w[0] == dev and w[1] == "swpfc":
            port = _pairs(w[2:])
        if len(w) > 3 and w[0] == dev and w[1] == "swprio" and w[2] == str(prio):
            sw = _pairs(w[3:])
    if port is None or sw is None:
        raise RuntimeError("%s has no software PFC" % dev)
    return port, sw


def wait_stat(dev, prio, key, old, timeout_s):
    """PRIO's stats once KEY exceeds OLD, or None after TIMEOUT_S s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = prio_stats(dev, prio)
        if st[key] > old:
            return st
        time.sleep(0.003)
    return None


def pct(values, p):
    """The P-th percentile of VALUES, nearest rank."""
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]
