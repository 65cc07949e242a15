#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""profile_storms.py - storms on pfcsim ports that behave like real drivers.

  profile_storms.py [--t0 MS] [--t1 MS] [--storms N] [--storm-ms MS]
                    [--gap-ms MS] [--margin-ms MS] [--bursts N --burst-ms MS]
                    [--json FILE] PORT=PROFILE[,knob=value...] ...

Each PORT is a new pfcsim port given PROFILE (debugfs "profile"), then the
extra knobs, then a pfcwd qdisc with T0/T1; all ports run at once, one
thread each.  Per port: N storms of --storm-ms on priority 3, --gap-ms
apart, then --bursts bursts of --burst-ms.  pfcsim stamps when each storm
starts and ends (changed_ns), pfcwd each detection and restoration
(detected_at_ns, restored_at_ns), both CLOCK_MONOTONIC.  A burst is judged
by its stamped length: one shorter than T0 (T0 - 2R - W on published
counters that cannot be forced) must not be detected; one that a loaded
guest stretched past that is reported and not judged, and at least one
burst must have been short.

Bounds come from the device's behaviour, not from what pfcwd reports:

  detection   in [T0, T0 + S + B + W + margin]
  restoration in [T1 - frame, T1 + S + B + W + margin]

where S is how stale a read can be - the refresh period R the port's
counters are published with (stats_period_ms) plus how late a publication
may come after its grid point (stats_jitter_ms), or the interval at which
pfcwd forces a refresh where the driver allows it (FORCED_MS below, the
profile table's documented read bound), or pfcwd's quiet poll interval for
live counters; B the busy read interval (poll_fine_us, or the forced busy
interval, or 10 ms where pfcwd reads live pause durations: mlxsw); W the
window pfcwd allows a publication to be late (R/8 + 2 fine reads, DESIGN);
margin the load margin for this kernel and vCPU count, defined and
justified in one place, bounds.sh (load_margin_us), unless --margin-ms
names a larger one for a stated reason.  A published (not
forceable) port adds R to the first storm's detection bound (the
publication phase is not known before the counters first move: DESIGN
"published counters") and to restoration bounds of storms shorter than 2R
(their rate is not known from a whole interval), unless pfcwd reads
pause durations published with the counters (bnxt: PROFILES' last field,
off with pause_duration=0) and the port is marked "frames": the pause
time places a storm's end in a grid the frame totals keep narrow.  A learnt period (a driver not in the profile table)
also adds R to the first storm.

A port marked "frames" has pktgen sending a light flow on priority 0
(500 frames/s, never paused), so that the frame totals a driver publishes
with its pause counters (bnxt's rx_total_frames/tx_total_frames, pfcsim's
frame_counters) move at every publication (a port marked "traffic" moves
them too, between storms).  On a profile pfcwd reads them
on (bnxt: PROFILES' last field) the publication phase is then known
before the first storm: the port must first show it (pfcwd's debugfs
phase 1 and a publication interval of at most PHASE_WIDTH_MS, within
PHASE_WAIT_S), and the first storm then has the bound of the later ones,
without the R above.  The time and the reads that took are reported.
"lead_ms=N" puts the first storm N ms after that (the phase shown just
after a publication: 0 starts the storm just after one, its worst case).

A port marked "traffic" has pktgen sending priority 3 at it, saturating
(give it TX rings: tx_ring=64,link_mbps=100): its queues stop when a storm
stops its ring, and pfcwd sees the stall at its next check of the queues
(txq_stall.c).  Detection is then bounded by the queues, whatever the
counters: [T0, T0 + Q + B + F + margin], Q the quiet interval at which
queues are checked (a frame is dated by the check that first sees its
stamp), B the busy read interval, F the time the link takes to drain a
full ring of MTU frames to half (pfcwd counts a stall from that long
after the queue's last frame: the ring may have drained that long before
the pause).  A port with no counters at all
(qede, cxgb4, octeontx2) sees nothing else: its restoration is the
queues' too, within [T1, T1 + D + Q + B + margin], D the time its ring
of our frames takes to drain half (the queue wakes then): restoration is
T1 after the first sample that found the queues running again, which is
after the pause ended.  On a driver pfcwd does
not know, the queues are used once the counters' freshness is known
(a period learnt, or seen live): the first storm there has the counters'
bound.

Checked per storm: detected once, restored once, in bounds; pfc_en back to
what it was; the carrier untouched by pfcwd (carrier_changes) unless the
port is marked "bounce_ok", in which case only the first storm may touch
it.  Bursts: never detected.  Prints a line per storm and p50/p99/max per
port; exits 1 on any violation.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pfcwd_debugfs import pct, port_stats, prio_stats  # noqa: E402


def load_margin_ms():
    """The load margin of bounds.sh, the one place it is defined."""
    bounds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bounds.sh")
    out = subprocess.run(["bash", "-c", '. "$0" && load_margin_us', bounds],
                         capture_output=True, text=True, check=True).stdout
    return int(out) / 1000.0

DFS = "/sys/kernel/debug/pfcsim/"
PRIO = 3
POLL_QUIET_MS = 4.0     # pfcwd's poll_quiet_us default
POLL_FINE_MS = 1.0      # pfcwd's poll_fine_us default
PG = "/proc/net/pktgen/"
PKT = 1000              # pktgen frame size, bytes
# pfcwd's read bounds where get_ethtool_stats refreshes (profile table)
FORCED_MS = (100.0, 10.0)
# pfcwd's busy read interval where it reads live pause durations with
# every busy read (profile table: mlxsw), ms
DURATIONS_BUSY_MS = {"mlxsw": 10.0}
# What each pfcsim profile is: published period (ms), forceable by an
# ethtool stats read, known to pfcwd's table (else learnt), has counters,
# publishes frame totals with them that pfcwd reads (phase counters), and
# pause durations with them that pfcwd reads (its pause_duration knob).
PROFILES = {
    "ideal": (0, False, False, True, False, False),
    "mlx5": (0, True, True, True, False, False),
    "ixgbe": (2000, True, True, True, False, False),
    "i40e": (1000, True, True, True, False, False),
    "ice": (1000, True, True, True, False, False),
    "bnxt": (1000, False, True, True, True, True),
    "hns3": (0, False, True, True, False, False),
    "mlxsw": (0, False, True, True, False, False),
    "qede": (0, False, True, False, False, False),
    "cxgb4": (0, False, True, False, False, False),
    "octeontx2": (0, False, True, False, False, False),
}
# The publication interval narrow enough to call the phase known (ms; two
# fine reads and a loaded guest's publication lateness), and how long the
# narrowing may take (a few periods of 1 s: storm.h).
PHASE_WIDTH_MS = 20.0
PHASE_WAIT_S = 20.0
FRAMES_DELAY_NS = 2000000


def sim_read(dev, knob):
    with open(DFS + dev + "/" + knob) as f:
        return f.read().strip()


def sim_write(dev, knob, value):
    with open(DFS + dev + "/" + knob, "w") as f:
        f.write(str(value) + "\n")


def write_storm(dev, prios):
    sim_write(dev, "rx_storm", prios)
    return int(dict(l.split() for l in sim_read(dev, "changed_ns").splitlines())["rx_storm"])


def carrier_changes(dev):
    with open("/sys/class/net/%s/carrier_changes" % dev) as f:
        return int(f.read())


def pfc_en(dev):
    out = subprocess.run(["dcb", "pfc", "show", "dev", dev, "prio-pfc"],
                         capture_output=True, text=True, check=True).stdout
    return sorted(int(p) for p, v in re.findall(r"(\d):(on|off)", out) if v == "on")


def wait_key(dev, key, old, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = prio_stats(dev, PRIO)
        if st[key] > old:
            return st
        time.sleep(0.002)
    return None


class Port:
    def __init__(self, spec, a):
        name, _, rest = spec.partition("=")
        parts = rest.split(",")
        self.dev, self.profile, self.a = name, parts[0], a
        opts = [p.split("=", 1) for p in parts[1:] if "=" in p]
        self.lead_ms = sum(int(v) for k, v in opts if k == "lead_ms")
        self.knobs = [kv for kv in opts if kv[0] != "lead_ms"]
        self.bounce_ok = "bounce_ok" in parts[1:]
        self.traffic = "traffic" in parts[1:]
        self.frames = "frames" in parts[1:]
        period, forced, known, self.counters, phase, pub_dur = PROFILES.get(
            self.profile, (0, False, False, True, False, False))
        # A flow of its own moves the totals between storms as well.
        self.phase = phase and (self.frames or self.traffic)
        for k, v in self.knobs:
            if k == "stats_period_ms":
                period = int(v)
            if k == "stats_refresh_on_read":
                forced = forced and v == "1"
            if k == "pause_duration":
                pub_dur = pub_dur and v != "0"
        self.pub_dur = pub_dur
        self.period, self.forced, self.known = period, forced, known
        self.lines, self.det, self.res, self.bad = [], [], [], 0

    def setup(self):
        with open(DFS + "new_port", "w") as f:
            f.write(self.dev)
        sim_write(self.dev, "profile", self.profile)
        for k, v in self.knobs:
            sim_write(self.dev, k, v)
        subprocess.run(["ip", "link", "set", self.dev, "up"], check=True)
        subprocess.run(["tc", "qdisc", "add", "dev", self.dev, "root", "pfcwd"],
                       check=True)
        for knob, v in (("detection_time_ms", self.a.t0),
                        ("restoration_time_ms", self.a.t1)):
            with open("/sys/class/net/%s/pfcwd/%s" % (self.dev, knob), "w") as f:
                f.write("%d\n" % v)
        self.rate = int(sim_read(self.dev, "pause_rate"))
        # Each publication comes up to this late after its grid point
        # (pfcsim caps it at half the period).
        self.jitter = min(int(sim_read(self.dev, "stats_jitter_ms")),
                          self.period // 2)
        # Half a ring at the link's rate: 24 bytes of preamble, IFG, FCS.
        ring = int(sim_read(self.dev, "tx_ring"))
        mbps = int(sim_read(self.dev, "link_mbps"))
        self.drain_ms = ring / 2 * (PKT + 24) * 8 / (mbps * 1000.0)
        with open("/sys/class/net/%s/mtu" % self.dev) as f:
            mtu = int(f.read())
        self.full_ms = (ring // 2 + 1) * (mtu + 42) * 8 / (mbps * 1000.0)
        # A PFC frame's longest pause: 65535 quanta of 512 bit times.
        self.hold_ms = 65535 * 512 / (mbps * 1000.0)
        if self.traffic:
            pg_flow(self.dev, PRIO)
        if self.frames:
            pg_flow(self.dev, 0, delay_ns=FRAMES_DELAY_NS, size=64)

    def bounds(self, first, length_ms):
        """Detection and restoration bounds beyond T0/T1, ms."""
        a = self.a
        fine = DURATIONS_BUSY_MS.get(self.profile, POLL_FINE_MS)
        busy = FORCED_MS[1] if self.forced else fine
        # pfcwd uses the queues once it knows how fresh the counters are:
        # from its table, or (a driver it does not know) once it learnt a
        # period or saw them live - after the first storm.
        queues = self.traffic and (self.known or not self.counters or not first)
        if queues:
            # The queues: checked every quiet interval, never stale.
            det = POLL_QUIET_MS + busy + self.full_ms + a.margin_ms
            if not self.counters:
                return det, (self.drain_ms + POLL_QUIET_MS + busy +
                             a.margin_ms)
            first = False       # the publication phase does not matter
        if self.forced:
            stale, busy, window = FORCED_MS[0], FORCED_MS[1], 0.0
        elif self.period:
            stale, busy = float(self.period + self.jitter), POLL_FINE_MS
            window = self.period / 8.0 + 2 * POLL_FINE_MS
        else:
            stale, busy, window = POLL_QUIET_MS, fine, 0.0
        det = stale + busy + window + a.margin_ms
        res = stale + busy + window + a.margin_ms
        if queues:
            det = POLL_QUIET_MS + busy + self.full_ms + a.margin_ms
        if self.period and not self.forced:
            if first and not self.phase:
                det += self.period      # phase (or period) not known yet
            # Pause time places the end, where the phase counters keep
            # the grid narrow; without them a restoration was seen 1370 ms
            # past T1 (R = 1000, 1.2 s storms, 6.12: detected from the
            # queues and mitigated before the first publication was read,
            # whose pause time then gave no rate), so the period stays.
            if length_ms < 2 * self.period and not (self.pub_dur and
                                                    self.phase):
                res += self.period
        return det, res

    def note(self, msg):
        self.lines.append("%s(%s): %s" % (self.dev, self.profile, msg))

    def run(self):
        a = self.a
        try:
            self._run()
        except Exception as e:      # a thread must report, not vanish
            self.bad += 1
            self.note("error: %s  <-- BAD" % e)

    def wait_phase(self):
        """Phase counters: wait until pfcwd shows the publication phase
        (phase 1, the interval at most PHASE_WIDTH_MS); False if it does
        not within PHASE_WAIT_S."""
        t0 = time.monotonic()
        r0 = port_stats(self.dev)["reads"]
        while time.monotonic() - t0 < PHASE_WAIT_S:
            st = port_stats(self.dev)
            w = st["pub_width_us"] / 1000.0
            if st["phase"] == 1 and 0 < w <= PHASE_WIDTH_MS:
                self.note("phase known after %.1f s: interval %.1f ms, %d "
                          "reads, %d publications seen by the totals alone" %
                          (time.monotonic() - t0, w, st["reads"] - r0,
                           st["phase_pubs"]))
                return True
            time.sleep(0.05)
        st = port_stats(self.dev)
        self.note("phase not known after %.0f s (phase %s, interval %.1f ms)"
                  "  <-- BAD" % (PHASE_WAIT_S, st["phase"],
                                 st["pub_width_us"] / 1000.0))
        return False

    def _run(self):
        a = self.a
        if self.phase and not self.wait_phase():
            self.bad += 1
            return
        time.sleep(self.lead_ms / 1000.0)
        base_pfc = pfc_en(self.dev)
        frame_ms = 1000.0 / self.rate
        cc = [carrier_changes(self.dev)]     # at each storm's start, then the end
        results = []
        for i in range(a.storms):
            if i:
                cc.append(carrier_changes(self.dev))
            st = prio_stats(self.dev, PRIO)
            det0, res0 = int(st["detected"]), int(st["restored"])
            start = write_storm(self.dev, str(PRIO))
            bdet, bres = self.bounds(i == 0, a.storm_ms)
            st = wait_key(self.dev, "detected", det0,
                          (a.t0 + bdet) / 1000.0 + 5)
            if st is None:
                self.bad += 1
                self.note("storm %d not detected  <-- BAD" % (i + 1))
                write_storm(self.dev, "")
                time.sleep(a.gap_ms / 1000.0)
                continue
            d_at = int(st["detected_at_ns"])
            left = start + a.storm_ms * 1e6 - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            if left > 0:
                time.sleep(left / 1e9)
            end = write_storm(self.dev, "")
            st = wait_key(self.dev, "restored", res0, (a.t1 + bres) / 1000.0 + 5)
            if st is None:
                self.bad += 1
                self.note("storm %d not restored  <-- BAD" % (i + 1))
                continue
            r_at = int(st["restored_at_ns"])
            derr = (d_at - start) / 1e6 - a.t0
            rerr = (r_at - end) / 1e6 - a.t1
            once = (int(st["detected"]) == det0 + 1 and
                    int(st["restored"]) == res0 + 1)
            pfc_ok = pfc_en(self.dev) == base_pfc
            # Queues alone: they wake after the pause ended, never early.
            low = 0.0 if self.traffic and not self.counters else -frame_ms
            ok = (0 <= derr <= bdet and low <= rerr <= bres and once
                  and pfc_ok)
            self.det.append(derr)
            self.res.append(rerr)
            results.append([i, derr, bdet, rerr, bres, once, pfc_ok, ok])
            time.sleep(a.gap_ms / 1000.0)
        cc.append(carrier_changes(self.dev))
        # The carrier, from each storm's start to the next one's (a bounce
        # comes back up after the restoration): only the first storm may
        # touch it, and only on a port marked bounce_ok.
        for i, derr, bdet, rerr, bres, once, pfc_ok, ok in results:
            bounces = cc[i + 1] - cc[i]
            if bounces and not (self.bounce_ok and i == 0):
                ok = False
            self.note("storm %d: detection %+.1f ms (bound %.1f), restoration "
                      "%+.1f ms (bound %.1f), once %s, pfc_en %s, carrier "
                      "changes %d%s" % (i + 1, derr, bdet, rerr, bres, once,
                                        "back" if pfc_ok else "CHANGED",
                                        bounces, "" if ok else "  <-- BAD"))
            if not ok:
                self.bad += 1
        if a.bursts:
            self.run_bursts()

    def never_ms(self):
        """The longest burst this port may see without a detection: T0 on
        the queues alone; on counters T0 less what a pause outlasts its
        last frame by (the frame's 65535 quanta at the link's speed, and
        the two fine reads pfcwd waits past them) and the busy read
        interval (how late the last frame is seen), and less the
        publication's uncertainty (2R + J + W) where counters are published
        and cannot be forced (DESIGN "published counters")."""
        a = self.a
        if not self.counters:
            return float(a.t0)
        fine = DURATIONS_BUSY_MS.get(self.profile, POLL_FINE_MS)
        busy = FORCED_MS[1] if self.forced else fine
        never = a.t0 - self.hold_ms - 2 * POLL_FINE_MS - busy
        if self.period and not self.forced:
            never -= (2 * self.period + self.jitter + self.period / 8.0 +
                      2 * POLL_FINE_MS)
        return never

    def run_bursts(self):
        """--bursts bursts of --burst-ms; each as long as pfcsim stamped
        it (a loaded guest can write its end late: a burst that lasted
        past never_ms() is said so and not judged), and no detection may
        follow one that was short."""
        a = self.a
        never = self.never_ms()
        lengths, short, bad = [], 0, 0
        for i in range(a.bursts):
            det0 = int(prio_stats(self.dev, PRIO)["detected"])
            start = write_storm(self.dev, str(PRIO))
            time.sleep(a.burst_ms / 1000.0)
            end = write_storm(self.dev, "")
            time.sleep(a.burst_gap_ms / 1000.0)
            n = int(prio_stats(self.dev, PRIO)["detected"]) - det0
            ms = (end - start) / 1e6
            lengths.append("%.0f" % ms)
            if ms >= never:
                self.note("burst %d lasted %.1f ms, not under %.1f (its end "
                          "was written late): not judged" % (i + 1, ms, never))
                continue
            short += 1
            if n:
                bad += 1
                self.note("burst %d of %.1f ms (under %.1f) detected  <-- BAD"
                          % (i + 1, ms, never))
        self.note("%d bursts of %d ms (as stamped: %s ms): %d of the %d "
                  "under %.1f ms detected%s" %
                  (a.bursts, a.burst_ms, "/".join(lengths), bad, short, never,
                   "" if not bad else "  <-- BAD"))
        if not short:
            bad += 1
            self.note("no burst was shorter than %.1f ms: nothing tested  <-- BAD"
                      % never)
        self.bad += bad


def pg_write(f, what):
    with open(PG + f, "w") as fh:
        fh.write(what + "\n")
    if f != "pgctrl":
        with open(PG + f) as fh:
            res = [l for l in fh if l.startswith("Result:")]
        if not res or not res[0].startswith("Result: OK"):
            raise RuntimeError("pktgen %s: %r: %s" % (f, what, res))


def pg_flow(dev, prio, delay_ns=1000, size=PKT):
    """pktgen thread 0 sends PRIO on DEV, tagged with PCP PRIO (VID 0),
    every DELAY_NS (1000: far above a 100 Mb/s link's rate)."""
    e = "%s@%d" % (dev, prio)
    pg_write("kpktgend_0", "add_device " + e)
    for c in ("count 0", "pkt_size %d" % size, "delay %d" % delay_ns,
              "clone_skb 0",
              "skb_priority %d" % prio, "vlan_id 0", "vlan_p %d" % prio,
              "dst 198.51.100.2", "dst_mac 02:00:00:00:00:02",
              "xmit_mode queue_xmit"):
        pg_write(e, c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ports", nargs="+")
    ap.add_argument("--t0", type=int, default=200)
    ap.add_argument("--t1", type=int, default=200)
    ap.add_argument("--storms", type=int, default=2)
    ap.add_argument("--storm-ms", type=int, default=3000)
    ap.add_argument("--gap-ms", type=int, default=2500)
    ap.add_argument("--margin-ms", type=float)
    ap.add_argument("--bursts", type=int, default=0)
    ap.add_argument("--burst-ms", type=int, default=80)
    ap.add_argument("--burst-gap-ms", type=int, default=400)
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.margin_ms is None:
        a.margin_ms = load_margin_ms()
    print("load margin %g ms" % a.margin_ms)

    ports = [Port(s, a) for s in a.ports]
    pg = None
    if any(p.traffic or p.frames for p in ports):
        subprocess.run(["modprobe", "pktgen"], check=True)
        pg_write("kpktgend_0", "rem_device_all")
    for p in ports:
        p.setup()
    if any(p.traffic or p.frames for p in ports):
        pg = subprocess.Popen(["sh", "-c", "echo start > " + PG + "pgctrl"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        threads = [threading.Thread(target=p.run) for p in ports]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if pg:
            pg_write("pgctrl", "stop")
            pg.wait()
            pg_write("kpktgend_0", "rem_device_all")

    bad, summary = 0, {}
    for p in ports:
        for line in p.lines:
            print(line)
        bad += p.bad
        if p.det:
            summary[p.dev] = {
                "profile": p.profile + ("_frames" if p.frames else ""),
                "storms": len(p.det), "bad": p.bad,
                "detect_err_ms": [pct(p.det, 50), pct(p.det, 99), max(p.det)],
                "restore_err_ms": [pct(p.res, 50), pct(p.res, 99), max(p.res)],
                "restore_err_min_ms": min(p.res),
            }
            print("%s(%s): detection error p50/p99/max %.1f/%.1f/%.1f ms, "
                  "restoration %.1f/%.1f/%.1f ms" %
                  ((p.dev, p.profile) + tuple(summary[p.dev]["detect_err_ms"]) +
                   tuple(summary[p.dev]["restore_err_ms"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f)
    print("%d violations" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
