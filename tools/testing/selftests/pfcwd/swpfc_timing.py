#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""swpfc_timing.py - time pfcwd's software PFC against storms of real frames.

  swpfc_timing.py DEV PEER PRIO COUNT [--hold MS] [--gap MS]
                  [--interval-us N] [--patience S] [--json FILE] [--tap]
                  --det-max-us N --res-max-us N

DEV is a port with software PFC (a pfcwd qdisc on one end of a veth pair)
and PEER the other end.  For each of COUNT storms, a child process sends
XOFF frames for PRIO (65535 quanta, built by Scapy: swpfc_frames.py) out
of PEER every --interval-us (default 500), noting when each send began and
ended (CLOCK_MONOTONIC); once pfcwd has detected the storm it goes on for
--hold ms (default 50) and stops; then the script waits for the
restoration, and --gap ms (default 50).  With --tap, DEV is a tap
device (PEER is not used) and the frames are written to its file, as if
received from the wire.  With --strict-start, the pause detected must be
the one the first frame began (for links slow enough that a frame's
pause outlasts any hold-up of the sender).

Each XOFF pauses the priority for Q = 65535 quanta at the link speed
(3.36 ms at veth's 10 Gb/s).  On a loaded machine the sender is sometimes
held up for longer than that: the pause then really lapses, and pfcwd
rightly starts a new one at the next frame.  So the pause pfcwd detected
is checked against the frames that were sent, not against the first one:
a frame i reached DEV at some a(i) in [before(i), after(i)].  With
S = detected_at - last_paused (pfcwd's start of the pause it detected),
D = detected_at, L = pfcwd's stamp of the last XOFF, R = restored_at,
Bd and Br the physical bounds beyond T0 and T1 that the caller computes
(bounds.sh: poll intervals, load margin) and G = granularity_us (read
after each storm; pfcwd's claim, checked: G <= Bd, never the pass mark):

  detection      T0 <= D - S <= T0 + Bd
  the pause      S is a frame's arrival: before(k) <= S <= after(k) for
                 some k, with S >= before(0) (never before the storm);
                 a lapse was possible before frame k (k = 0, or
                 after(k) - before(k-1) > Q); none was certain from frame
                 k to D (before(i+1) - after(i) <= Q); and the pause was
                 still possible at D (D < after(j) + Q, j the last frame
                 sent before D)
  restoration    L is the last frame's arrival (before(n) <= L <= after(n))
                 and T1 <= R - L <= T1 + Br; one restoration per storm
                 (unless the sender was held up for T1 after detection:
                 then an early restoration is right, and is reported)

Prints one line per storm and the p50/max of the errors D - S - T0 and
R - L - T1; exits 1 if any storm is out of bounds or is not detected
within --patience s (default 120) of its start.
"""
import argparse
import json
import os
import signal
import sys
import time

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swpfc_frames as sf  # noqa: E402  (imports Scapy once, before forking)
from pfcwd_debugfs import (pct, prio_stats, swpfc_stats,  # noqa: E402
                           wait_stat)

SLACK = 1000        # ns: last_paused is given in us


def start_sender(sock, prio, interval_us):
    """Forks a child sending XOFF frames with @sock until SIGTERM; returns
    (pid, fd)."""
    frame = bytes(sf.pfc([prio], 65535))
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
        out = sf.send_loop(sock, [frame], interval_us, stamps=True,
                           should_stop=lambda: bool(stopping))
        with os.fdopen(wfd, "w") as f:
            json.dump(out, f)
        os._exit(0)
    os.close(wfd)
    return pid, rfd


def stop_sender(pid, rfd):
    os.kill(pid, signal.SIGTERM)
    with os.fdopen(rfd) as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def check_pause(out, s, d, q, strict):
    """The pause [S, D] against the frames' send windows; returns errors."""
    b, e = out.get("before", []), out.get("after", [])
    errs = []
    if not b:
        return ["no frame sent"]
    if s < b[0] - SLACK:
        errs.append("pause began %.3f ms before the first frame" % ((b[0] - s) / 1e6))
    ks = [i for i in range(len(b)) if b[i] - SLACK <= s <= e[i] + SLACK]
    if not ks:
        errs.append("pause start is no frame's arrival")
        return errs
    k = ks[0]
    if strict and k > 0:
        errs.append("pause began at frame %d, not at the first" % k)
    if k > 0 and e[k] - b[k - 1] <= q:
        errs.append("pause restarted at frame %d without a possible lapse "
                    "(%.3f ms after frame %d)" % (k, (e[k] - b[k - 1]) / 1e6, k - 1))
    j = k
    while j + 1 < len(b) and b[j + 1] < d:
        if b[j + 1] - e[j] > q:
            errs.append("certain lapse of %.3f ms after frame %d missed" %
                        ((b[j + 1] - e[j]) / 1e6, j))
            break
        j += 1
    if d >= e[j] + q + SLACK:
        errs.append("detected %.3f ms after the pause certainly ended" %
                    ((d - e[j] - q) / 1e6))
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dev")
    ap.add_argument("peer")
    ap.add_argument("prio", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--hold", type=float, default=50)
    ap.add_argument("--gap", type=float, default=50)
    ap.add_argument("--interval-us", type=int, default=500)
    ap.add_argument("--patience", type=float, default=120)
    ap.add_argument("--json")
    ap.add_argument("--det-max-us", type=int, required=True,
                    help="latest detection beyond T0 (physics)")
    ap.add_argument("--res-max-us", type=int, required=True,
                    help="latest restoration beyond T1 (physics)")
    ap.add_argument("--strict-start", action="store_true",
                    help="the pause must begin at the first frame (no lapse)")
    ap.add_argument("--tap", action="store_true",
                    help="DEV is a tap device: frames are written to its file")
    a = ap.parse_args()
    # Opened once: a tap's carrier is on while its file is open.
    sock = sf.sender(a.dev if a.tap else a.peer, a.tap)
    if a.tap:
        time.sleep(0.5)

    sysfs = "/sys/class/net/%s/pfcwd/" % a.dev
    t0 = int(open(sysfs + "detection_time_ms").read()) * 1000000
    t1 = int(open(sysfs + "restoration_time_ms").read()) * 1000000
    port, _ = swpfc_stats(a.dev, a.prio)
    q = -(-65535 * int(port["quantum_ps"]) // 1000)
    det, res, starts, lapses = [], [], [], []
    bad = early = 0
    gran_max = 0

    for n in range(1, a.count + 1):
        st = prio_stats(a.dev, a.prio)
        _, sw0 = swpfc_stats(a.dev, a.prio)
        pid, rfd = start_sender(sock, a.prio, a.interval_us)
        dst = wait_stat(a.dev, a.prio, "detected", st["detected"], a.patience)
        if dst is None:
            out = stop_sender(pid, rfd)
            print("storm %d: not detected within %g s (%d frames, largest "
                  "gap %.3f ms, %d pauses begun)  <-- BAD" %
                  (n, a.patience, out["sent"], out["max_gap_ns"] / 1e6,
                   swpfc_stats(a.dev, a.prio)[1]["pauses"] - sw0["pauses"]))
            bad += 1
            continue
        time.sleep(a.hold / 1000.0)
        mid = prio_stats(a.dev, a.prio)
        out = stop_sender(pid, rfd)
        rst = wait_stat(a.dev, a.prio, "restored", st["restored"], t1 / 1e9 + 30)
        time.sleep(0.05)
        end = prio_stats(a.dev, a.prio)
        _, sw1 = swpfc_stats(a.dev, a.prio)
        g = int(open(sysfs + "granularity_us").read()) * 1000
        gran_max = max(gran_max, g)

        d = dst["detected_at_ns"]
        s = d - dst["last_paused_us"] * 1000
        errs = []
        if "error" in out:
            errs.append("sender: " + out["error"])
        paused = d - s
        bd, br = a.det_max_us * 1000, a.res_max_us * 1000
        if g > bd:
            errs.append("granularity %.3f ms above the physical bound %.3f ms"
                        % (g / 1e6, bd / 1e6))
        if not t0 - SLACK <= paused <= t0 + bd + SLACK:
            errs.append("paused %.3f ms at detection" % (paused / 1e6))
        errs += check_pause(out, s, d, q, a.strict_start)

        b, e = out["before"], out["after"]
        after_d = [i for i in range(len(b)) if b[i] >= d]
        held_up = any(e[i + 1] - b[i] >= t1 for i in after_d[:-1])
        note = ""
        if rst is None:
            errs.append("not restored")
        elif mid["restored"] > st["restored"] or end["restored"] != st["restored"] + 1 \
                or end["detected"] != st["detected"] + 1:
            early += 1
            note = " (sender held up for T1: restored %d, detected %d times)" % (
                end["restored"] - st["restored"], end["detected"] - st["detected"])
            if not held_up:
                errs.append("restored early without a gap of T1 in the storm")
        else:
            last = sw1["last_xoff_ns"]
            r = rst["restored_at_ns"]
            if not b[-1] - SLACK <= last <= e[-1] + SLACK:
                errs.append("last XOFF stamp is not the last frame's arrival")
            if not t1 <= r - last <= t1 + br:
                errs.append("restored %.3f ms after the last XOFF" % ((r - last) / 1e6))
            res.append(r - last - t1)
        det.append(paused - t0)
        starts.append(s - b[0])
        lapses.append(sw1["pauses"] - sw0["pauses"] - 1)
        print("storm %d: %d frames, pause began %.3f ms after the first "
              "(%d lapses before and during), detection %+.3f ms, restoration "
              "%s, granularity %.3f ms%s%s" %
              (n, out["sent"], (s - b[0]) / 1e6, lapses[-1], (paused - t0) / 1e6,
               "%+.3f ms" % (res[-1] / 1e6) if not note and rst else "-",
               g / 1e6, note, "" if not errs else "  <-- BAD: " + "; ".join(errs)))
        if errs:
            bad += 1
        time.sleep(a.gap / 1000.0)

    summary = {"t0_ms": t0 / 1e6, "t1_ms": t1 / 1e6, "pause_ms": q / 1e6,
               "granularity_ms": gran_max / 1e6, "storms": a.count, "bad": bad,
               "early_restorations": early}
    if det:
        summary["detect_err_ms"] = {"p50": pct(det, 50) / 1e6, "max": max(det) / 1e6}
        summary["start_after_first_ms"] = {"p50": pct(starts, 50) / 1e6,
                                           "max": max(starts) / 1e6}
        print("detection error p50 %.3f max %.3f ms; pause began after the first "
              "frame p50 %.3f max %.3f ms" %
              (pct(det, 50) / 1e6, max(det) / 1e6, pct(starts, 50) / 1e6,
               max(starts) / 1e6))
    if res:
        summary["restore_err_ms"] = {"p50": pct(res, 50) / 1e6, "max": max(res) / 1e6}
        print("restoration error p50 %.3f max %.3f ms" %
              (pct(res, 50) / 1e6, max(res) / 1e6))
    print("T0 %g ms, T1 %g ms, one XOFF pauses %.3f ms, granularity up to %g ms; "
          "%d of %d storms out of bounds" %
          (t0 / 1e6, t1 / 1e6, q / 1e6, gran_max / 1e6, bad, a.count))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f)
    return 1 if bad or not res else 0


if __name__ == "__main__":
    sys.exit(main())
