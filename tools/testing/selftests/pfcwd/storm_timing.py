#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""storm_timing.py - time pfcwd's detection and restoration on pfcsim.

  storm_timing.py DEV PRIO COUNT [--hold MS] [--gap MS] [--json FILE]

Runs COUNT storms on pfcsim port DEV, priority PRIO: starts a storm
(debugfs rx_storm), waits for pfcwd to detect it, keeps it going for
--hold ms (default 30), ends it, waits for the restoration, then --gap ms
(default 20).  The storm start and end are bracketed by CLOCK_MONOTONIC
readings taken just before and just after the debugfs write, the clock
pfcwd stamps its transitions with (detected_at_ns, restored_at_ns in
/sys/kernel/debug/pfcwd/ports).  For each storm:

  detection error   = detected_at - start - T0
  restoration error = restored_at - end - T1

both bounded rigorously: the low bound uses the reading after the write
(the storm cannot have started later), the high bound the reading before.
Every storm must satisfy  low >= 0  and  high <= granularity
(/sys/class/net/DEV/pfcwd/granularity_us), except that restoration counts
T1 from the last pause frame, which pfcsim emits up to one frame interval
(1 / pause_rate) before the end of the storm: low >= -1/pause_rate.  Also checked after every
restoration: pfc_en is back bit for bit.  Prints one line per storm and
p50/p99/max of the errors; exits 1 if any sample is out of bounds.
"""
import argparse
import json
import re
import subprocess
import sys
import time

PORTS = "/sys/kernel/debug/pfcwd/ports"


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def prio_line(dev, prio):
    with open(PORTS) as f:
        for line in f:
            w = line.split()
            if len(w) > 3 and w[0] == dev and w[1] == "prio" and w[2] == str(prio):
                return dict(zip(w[3::2], w[4::2]))
    raise RuntimeError("no pfcwd port %s prio %d" % (dev, prio))


def pfc_en(dev):
    out = subprocess.run(["dcb", "pfc", "show", "dev", dev, "prio-pfc"],
                         capture_output=True, text=True, check=True).stdout
    return sorted(int(p) for p, v in re.findall(r"(\d):(on|off)", out) if v == "on")


def write_storm(dev, prios):
    before = mono_ns()
    with open("/sys/kernel/debug/pfcsim/%s/rx_storm" % dev, "w") as f:
        f.write(prios + "\n")
    after = mono_ns()
    return before, after


def wait_for(dev, prio, key, old, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = prio_line(dev, prio)
        if int(st[key]) > old:
            return st
        time.sleep(0.003)
    raise RuntimeError("%s did not change within %.1fs" % (key, timeout_s))


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dev")
    ap.add_argument("prio", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--hold", type=float, default=30)
    ap.add_argument("--gap", type=float, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()

    sysfs = "/sys/class/net/%s/pfcwd/" % a.dev
    t0 = int(open(sysfs + "detection_time_ms").read()) * 1000000
    t1 = int(open(sysfs + "restoration_time_ms").read()) * 1000000
    gran = int(open(sysfs + "granularity_us").read()) * 1000
    rate = int(open("/sys/kernel/debug/pfcsim/%s/pause_rate" % a.dev).read())
    frame_ns = -(-1000000000 // rate)
    base_pfc = pfc_en(a.dev)
    det, res, bad = [], [], 0

    for i in range(a.count):
        st = prio_line(a.dev, a.prio)
        b0, a0 = write_storm(a.dev, str(a.prio))
        st = wait_for(a.dev, a.prio, "detected", int(st["detected"]), t0 / 1e9 + 5)
        d_at = int(st["detected_at_ns"])
        time.sleep(a.hold / 1000.0)
        b1, a1 = write_storm(a.dev, "")
        st = wait_for(a.dev, a.prio, "restored", int(st["restored"]), t1 / 1e9 + 5)
        r_at = int(st["restored_at_ns"])
        after_pfc = pfc_en(a.dev)

        dlo, dhi = d_at - a0 - t0, d_at - b0 - t0
        rlo, rhi = r_at - a1 - t1, r_at - b1 - t1
        ok = dlo >= 0 and dhi <= gran and rlo >= -frame_ns and rhi <= gran
        ok_pfc = after_pfc == base_pfc
        det.append(dhi)
        res.append(rhi)
        print("storm %d: detection +%.3f..%.3f ms, restoration +%.3f..%.3f ms, "
              "pfc_en %s%s" % (i + 1, dlo / 1e6, dhi / 1e6, rlo / 1e6, rhi / 1e6,
                               after_pfc, "" if ok and ok_pfc else "  <-- BAD"))
        if not ok or not ok_pfc:
            bad += 1
        time.sleep(a.gap / 1000.0)

    summary = {
        "t0_ms": t0 / 1e6, "t1_ms": t1 / 1e6, "granularity_ms": gran / 1e6,
        "storms": a.count, "bad": bad,
        "detect_err_ms": {"p50": pct(det, 50) / 1e6, "p99": pct(det, 99) / 1e6,
                          "max": max(det) / 1e6},
        "restore_err_ms": {"p50": pct(res, 50) / 1e6, "p99": pct(res, 99) / 1e6,
                           "max": max(res) / 1e6},
    }
    print("T0 %(t0_ms)g ms, T1 %(t1_ms)g ms, granularity %(granularity_ms)g ms" % summary)
    print("detection error (upper bound) p50 %.3f p99 %.3f max %.3f ms" %
          tuple(summary["detect_err_ms"][k] for k in ("p50", "p99", "max")))
    print("restoration error (upper bound) p50 %.3f p99 %.3f max %.3f ms" %
          tuple(summary["restore_err_ms"][k] for k in ("p50", "p99", "max")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f)
    print("%d of %d storms out of bounds" % (bad, a.count))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
