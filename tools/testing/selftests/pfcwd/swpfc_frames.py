#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""swpfc_frames.py - MAC control frames for the software PFC selftest.

The frames are built by Scapy (Debian's python3-scapy: its MAC control
layers, scapy.contrib.mac_control) and sent through Scapy's layer 2
socket; this script only chooses their fields and their timing.

  swpfc_frames.py storm DEV PRIOS [--quanta Q] [--interval-us N]
                  [--duration-ms N] [--count N] [--xon-end]
      XOFF frames (802.1Qbb PFC, opcode 0x0101) pausing PRIOS (e.g. 3 or
      3,4) for Q quanta (default 65535), one every N us (default 1000),
      until the duration or count is reached or SIGTERM/SIGINT comes;
      with --xon-end, then one XON frame for PRIOS.
  swpfc_frames.py xon DEV PRIOS [--interval-us N] [--duration-ms N]
                  [--count N]
      XON frames (PFC, quanta 0) only.
  swpfc_frames.py xoffxon DEV PRIOS [...]
      Each XOFF immediately followed by an XON: frames, no lasting pause.
  swpfc_frames.py pause DEV [--quanta Q] [--unicast MAC] [...]
      802.3x PAUSE frames (opcode 0x0001) to 01:80:c2:00:00:01, or to MAC.
  swpfc_frames.py pfc DEV P:Q[,P:Q...] [P:Q[,P:Q...]...]
      One PFC frame per argument, in order, each enabling the priorities
      listed with their quanta (0: XON).
  swpfc_frames.py tap DEV P:Q[,P:Q...] [--count N] [--interval-us N]
                  [--duration-ms N] [--keep-ms N]
      The same PFC frame, repeatedly, as if received by tap device DEV
      (written to its file, which stays open --keep-ms more).
  swpfc_frames.py malformed DEV
      One frame of each kind software PFC must ignore; prints the kinds.
  swpfc_frames.py hold DEV PEER PRIO OTHER [--refresh] [--xon]
                  [--tries N]
      A pause holds band PRIO of DEV's pfcwd qdisc, not band OTHER: see
      hold() below.
  swpfc_frames.py recv DEV COUNT TIMEOUT_MS
      Receives pfcwd-pkt test frames (EtherType 0x88b5) until COUNT came
      or none for TIMEOUT_MS; prints "PRIO SEQ T" per frame, T the
      kernel's receive time (SO_TIMESTAMPNS) in CLOCK_MONOTONIC ns.

  swpfc_frames.py serve DIR
      Runs the commands above, and swpfc_timing.py, for a shell script
      without starting Python and Scapy each time (about two seconds
      under TCG): a request server (reqserve.py), whose requests are
        run ARGS...          this script's ARGS, DIR/out and DIR/err its
                             output, then "%% rc N" (its exit status)
        timing ARGS...       the same for swpfc_timing.py ARGS
        bg FILE ARGS...      ARGS in the background, its output in FILE:
                             "%% pid N" at once
        wait PID             waits for that background run: its error
                             output in DIR/err, then "%% rc N"
        reset                ends every background run: "%% rc 0"
      Each run is a child forked from the server, with Scapy imported.
      At EOF or SIGTERM the server ends its background runs and exits.

The sending commands print one JSON object at the end: frames sent, and
CLOCK_MONOTONIC stamps taken just before and just after the first and the
last frame ("first_before", "first_after", "last_before", "last_after",
"xon_before", "xon_after") and "max_gap_ns", the largest time between the
start of one send and the end of the next: an upper bound on the gap
between two frames' arrivals.  A send that fails because the device went
away ends the run ("error" says why).
"""
import argparse
import fcntl
import json
import logging
import os
import signal
import socket
import struct
import sys
import time

# Scapy warns about interfaces without an address (lo in the test VM).
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.config import conf  # noqa: E402
from scapy.contrib.mac_control import (MACControl,  # noqa: E402
                                       MACControlClassBasedFlowControl,
                                       MACControlGate, MACControlPause)
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
from pfcwd_debugfs import mono_ns as mono, on_debug_kernel, swpfc_stats  # noqa: E402
import reqserve  # noqa: E402

DST = MACControl.DEFAULT_DST_MAC      # 01:80:c2:00:00:01
SRC = "02:00:00:00:5c:01"
PKT_ETHERTYPE = 0x88B5
PKT_MAGIC = 0x70666377
# Not in Python's socket module: asm-generic/socket.h (x86 too), 64-bit.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)

stop = False


def on_signal(signum, frame):
    global stop
    stop = True


def prio_list(text):
    prios = sorted({int(p) for p in text.split(",")})
    if any(p < 0 or p > 7 for p in prios):
        raise argparse.ArgumentTypeError("priorities are 0-7")
    return prios


def pfc(prios, quanta, reserved=0, dst=DST):
    """A PFC frame: @quanta for each of @prios, or a {prio: quanta} dict."""
    fields = {"_reserved": reserved}
    times = prios if isinstance(prios, dict) else {p: quanta for p in prios}
    for p, q in times.items():
        fields["c%d_enabled" % p] = 1
        fields["c%d_pause_time" % p] = q
    return Ether(dst=dst, src=SRC) / MACControlClassBasedFlowControl(**fields)


def quanta_map(text):
    times = {}
    for item in text.split(","):
        p, q = (int(x) for x in item.split(":"))
        if not 0 <= p <= 7 or not 0 <= q <= 65535 or p in times:
            raise argparse.ArgumentTypeError("bad P:Q list '%s'" % text)
        times[p] = q
    return times


def cmd_pfc(a):
    sock = conf.L2socket(iface=a.dev)
    for times in a.frames:
        sock.send(bytes(pfc(times, 0)))
    sock.close()
    print(len(a.frames))
    return 0


def pause(quanta, dst=DST):
    return Ether(dst=dst, src=SRC) / MACControlPause(pause_time=quanta)


class TapSender:
    """Frames "received" by tap device @name: written to its file.  The
    device must exist (ip tuntap add ... mode tap); attaching to it turns
    its carrier on, closing the file off."""
    TUNSETIFF = 0x400454CA
    IFF_TAP = 0x0002
    IFF_NO_PI = 0x1000

    def __init__(self, name):
        self.fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(self.fd, self.TUNSETIFF,
                    struct.pack("16sH", name.encode(), self.IFF_TAP | self.IFF_NO_PI))

    def send(self, frame):
        return os.write(self.fd, frame)

    def close(self):
        os.close(self.fd)


def sender(dev, tap=False):
    """Something to send frames with: Scapy's layer 2 socket on @dev, or
    (@tap) @dev's tap file."""
    return TapSender(dev) if tap else conf.L2socket(iface=dev)


def send_loop(sock, frames, interval_us, duration_ms=None, count=None,
              stamps=False, final=None, should_stop=lambda: stop):
    """Sends the byte strings of @frames with @sock in turn, one every
    interval, then @final if given; returns the stamps (module docstring).
    Does not close @sock."""
    interval = interval_us * 1000
    end = mono() + duration_ms * 1000000 if duration_ms else None
    out = {"sent": 0, "max_gap_ns": 0}
    prev_before = None
    nxt = mono()
    i = 0
    try:
        while not should_stop() and (count is None or out["sent"] < count):
            now = mono()
            if end is not None and now >= end:
                break
            if nxt > now:
                time.sleep((nxt - now) / 1e9)
            nxt += interval
            if nxt < mono():
                nxt = mono()         # behind: no burst to catch up
            before = mono()
            sock.send(frames[i % len(frames)])
            after = mono()
            i += 1
            if not out["sent"]:
                out["first_before"], out["first_after"] = before, after
            elif after - prev_before > out["max_gap_ns"]:
                out["max_gap_ns"] = after - prev_before
            out["last_before"], out["last_after"] = before, after
            if stamps:
                out.setdefault("before", []).append(before)
                out.setdefault("after", []).append(after)
            prev_before = before
            out["sent"] += 1
        if final is not None:
            out["xon_before"] = mono()
            sock.send(final)
            out["xon_after"] = mono()
    except OSError as e:
        out["error"] = str(e)
    return out


def cmd_send(a):
    if a.cmd == "storm":
        frames = [bytes(pfc(a.prios, a.quanta))]
    elif a.cmd == "xon":
        frames = [bytes(pfc(a.prios, 0))]
    elif a.cmd == "xoffxon":
        frames = [bytes(pfc(a.prios, a.quanta)), bytes(pfc(a.prios, 0))]
    elif a.cmd == "tap":
        frames = [bytes(pfc(a.times, 0))]
    else:
        frames = [bytes(pause(a.quanta, a.unicast or DST))]
    final = bytes(pfc(a.prios, 0)) if getattr(a, "xon_end", False) else None
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sock = sender(a.dev, a.cmd == "tap")
    out = send_loop(sock, frames, a.interval_us, a.duration_ms, a.count,
                    a.stamps, final)
    if a.cmd == "tap" and a.keep_ms:
        time.sleep(a.keep_ms / 1000.0)
    sock.close()
    print(json.dumps(out))
    sys.stdout.flush()
    return 0


def cmd_malformed(a):
    other = "02:00:00:00:5c:99"
    kinds = [
        # opcode and part of a class-enable vector: too short
        ("pfc-short", Ether(dst=DST, src=SRC, type=0x8808) / Raw(b"\x01\x01\x00")),
        # PFC cut after three of its eight times
        ("pfc-truncated", Ether(dst=DST, src=SRC, type=0x8808) /
         Raw(bytes(MACControlClassBasedFlowControl(c3_enabled=1, c3_pause_time=65535))[:10])),
        ("pfc-reserved-bits", pfc([3], 65535, reserved=0x80)),
        ("pfc-wrong-dst", pfc([3], 65535, dst=other)),
        ("pfc-vlan-tagged", Ether(dst=DST, src=SRC) / Dot1Q(vlan=5, prio=3) /
         MACControlClassBasedFlowControl(c3_enabled=1, c3_pause_time=65535)),
        ("pause-short", Ether(dst=DST, src=SRC, type=0x8808) / Raw(b"\x00\x01\xff")),
        ("pause-wrong-dst", pause(65535, dst=other)),
        ("unknown-opcode", Ether(dst=DST, src=SRC) / MACControlGate()),
        ("no-opcode", Ether(dst=DST, src=SRC, type=0x8808)),
    ]
    sock = conf.L2socket(iface=a.dev)
    for name, pkt in kinds:
        sock.send(bytes(pkt))
        print(name)
    sock.close()
    return 0


def rt_to_mono():
    """The offset from CLOCK_REALTIME to CLOCK_MONOTONIC, read tightly."""
    best = None
    for _ in range(5):
        m0 = mono()
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        m1 = mono()
        if best is None or m1 - m0 < best[0]:
            best = (m1 - m0, r - (m0 + m1) // 2)
    return best[1]


def data_socket(dev, prio):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(PKT_ETHERTYPE))
    s.bind((dev, PKT_ETHERTYPE))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
    return s


def data_frame(prio, seq):
    """A pfcwd-pkt test frame (pfcwd-pkt.c), padded to 64 bytes."""
    hdr = b"\xff" * 6 + bytes([2, 0, 0, 0, 0, prio]) + struct.pack("!H", PKT_ETHERTYPE)
    return (hdr + struct.pack("!III", PKT_MAGIC, prio, seq)).ljust(64, b"\0")


def recv_frames(s, off, count, timeout_s, idle=False):
    """Up to @count test frames: (prio, seq, arrival in CLOCK_MONOTONIC),
    within @timeout_s, or (@idle) until none came for @timeout_s."""
    got = []
    end = time.monotonic() + timeout_s
    while len(got) < count:
        if idle:
            end = time.monotonic() + timeout_s
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(16))
        except socket.timeout:
            break
        if len(data) < 26:
            continue
        magic, prio, seq = struct.unpack("!III", data[14:26])
        if magic != PKT_MAGIC:
            continue
        t = 0
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                t = sec * 1000000000 + nsec - off
        got.append((prio, seq, t))
    return got


def max_tries_factor():
    """hold's tries, at most this many times --tries: 10, or 40 on the
    debug kernel (make check-debug), which receives the XOFF so late that
    the data frames often go before it arrives (an inconclusive try), and
    reads debugfs too slowly to wait for it within a 3.4 ms pause."""
    return 40 if on_debug_kernel() else 10


def hold(a):
    """One try: an XOFF for PRIO from PEER; N frames of PRIO, then N of
    OTHER, out of DEV (through its pfcwd qdisc, to PEER); with --refresh, a
    second XOFF; with --xon, an XON.  Arrival times are the kernel's
    (SO_TIMESTAMPNS on PEER), pfcwd's stamps say when the XOFF frames
    arrived (debugfs: the pause's start and last XOFF), and the pause ends
    at E = the last XOFF + 65535 quanta.  A try is conclusive if the PRIO
    frames went into the qdisc while the pause was in force (after the
    first XOFF arrived, before its end), the second XOFF (--refresh) came
    before that end too - refreshing the pause, not beginning another -
    and the XON (--xon) was sent before E.  Checked in every try: the
    OTHER frames arrive while being sent (nothing holds them); each
    priority's frames arrive in order.  In conclusive tries: without
    --xon, PRIO frames arrive at E or later (held until the pause ends,
    the refreshed one included); with --xon, PRIO frames arrive at the XON
    or later, and in at least one try before E (the XON released them; the
    pause's end alone never could).  Prints one line per try; exits 1 on a
    failed check or with fewer than --tries conclusive tries (of at most
    max_tries_factor() times as many)."""
    n = 3
    off = rt_to_mono()
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(PKT_ETHERTYPE))
    rx.bind((a.peer, PKT_ETHERTYPE))
    rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    tx_p, tx_o = data_socket(a.dev, a.prio), data_socket(a.dev, a.other)
    pfcs = conf.L2socket(iface=a.peer)
    xoff, xon = bytes(pfc([a.prio], 65535)), bytes(pfc([a.prio], 0))
    conclusive = early = failed = 0
    seq = 0
    lateness = []
    for attempt in range(1, max_tries_factor() * a.tries + 1):
        if conclusive >= a.tries:
            break
        port, sw0 = swpfc_stats(a.dev, a.prio)
        q = -(-65535 * port["quantum_ps"] // 1000)
        pfcs.send(xoff)
        d_b = mono()
        for i in range(n):
            tx_p.send(data_frame(a.prio, seq + i))
        d_e = mono()
        o_b = mono()
        for i in range(n):
            tx_o.send(data_frame(a.other, seq + i))
        o_e = mono()
        if a.refresh:
            pfcs.send(xoff)
        x_b = x_e = 0
        if a.xon:
            x_b = mono()
            pfcs.send(xon)
            x_e = mono()
        got = recv_frames(rx, off, 2 * n, 5.0)
        _, sw = swpfc_stats(a.dev, a.prio)
        seq += n
        start, end = sw["since_ns"], sw["last_xoff_ns"] + q
        ok = True
        why = []
        mine = [g for g in got if g[0] == a.prio]
        other = [g for g in got if g[0] == a.other]
        if len(mine) != n or len(other) != n or any(not g[2] for g in got):
            why.append("received %d+%d of %d+%d frames" % (len(mine), len(other), n, n))
            ok = False
        for frames in (mine, other):
            if [g[1] for g in frames] != sorted(g[1] for g in frames):
                why.append("reordered")
                ok = False
        if ok and not all(o_b <= g[2] <= o_e for g in other):
            why.append("OTHER frames held: %s" % ["%.3f" % ((g[2] - o_e) / 1e6) for g in other])
            ok = False
        conc = (ok and sw["pauses"] == sw0["pauses"] + 1 and
                sw["xoff"] == sw0["xoff"] + (2 if a.refresh else 1) and
                start < d_b and d_e < start + q and (not a.xon or x_e < end))
        first = min(g[2] for g in mine) if mine else 0
        if conc:
            conclusive += 1
            if a.xon:
                if first < x_b:
                    why.append("released %.3f ms before the XON" % ((x_b - first) / 1e6))
                    ok = False
                elif first < end:
                    early += 1
            elif first < end:
                why.append("released %.3f ms before the pause ended" % ((end - first) / 1e6))
                ok = False
            else:
                lateness.append(first - end)
        if not ok:
            failed += 1
        print("try %d: %s; PRIO frames sent %.3f ms into a pause of %.3f ms, first "
              "arrived %+.3f ms from its end%s%s" %
              (attempt, "conclusive" if conc else "inconclusive",
               (d_e - start) / 1e6, (end - start) / 1e6,
               (first - end) / 1e6 if mine else float("nan"),
               "" if not a.xon else ", %+.3f ms from the XON" % ((first - x_b) / 1e6),
               "" if ok else "  <-- BAD: " + "; ".join(why)))
        time.sleep(0.02)
    if lateness:
        print("held until the end of the pause; released %.3f ms (max) after it" %
              (max(lateness) / 1e6))
    if a.xon:
        print("%d of %d conclusive tries released by the XON before the pause's end" %
              (early, conclusive))
    if conclusive < a.tries:
        print("only %d conclusive tries" % conclusive)
        return 1
    if a.xon and not early:
        return 1
    return 1 if failed else 0


def cmd_recv(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(PKT_ETHERTYPE))
    s.bind((a.dev, PKT_ETHERTYPE))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    got = recv_frames(s, rt_to_mono(), a.count, a.timeout_ms / 1000.0, idle=True)
    print("\n".join("%d %d %d" % g for g in got))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("storm", "xon", "xoffxon", "pause", "tap"):
        p = sub.add_parser(name)
        p.add_argument("dev")
        if name == "tap":
            p.add_argument("times", type=quanta_map)
            p.add_argument("--keep-ms", type=int, default=0)
        elif name != "pause":
            p.add_argument("prios", type=prio_list)
        p.add_argument("--quanta", type=int, default=65535)
        p.add_argument("--interval-us", type=int, default=1000)
        p.add_argument("--duration-ms", type=int)
        p.add_argument("--count", type=int)
        p.add_argument("--stamps", action="store_true",
                       help="also every frame's stamps: \"before\", \"after\"")
        if name == "storm":
            p.add_argument("--xon-end", action="store_true")
        if name == "pause":
            p.add_argument("--unicast")
    p = sub.add_parser("pfc")
    p.add_argument("dev")
    p.add_argument("frames", type=quanta_map, nargs="+")
    p = sub.add_parser("malformed")
    p.add_argument("dev")
    p = sub.add_parser("hold")
    p.add_argument("dev")
    p.add_argument("peer")
    p.add_argument("prio", type=int)
    p.add_argument("other", type=int)
    p.add_argument("--refresh", action="store_true")
    p.add_argument("--xon", action="store_true")
    p.add_argument("--tries", type=int, default=5)
    p = sub.add_parser("recv")
    p.add_argument("dev")
    p.add_argument("count", type=int)
    p.add_argument("timeout_ms", type=int)
    a = ap.parse_args()
    if a.cmd == "malformed":
        return cmd_malformed(a)
    if a.cmd == "pfc":
        return cmd_pfc(a)
    if a.cmd == "recv":
        return cmd_recv(a)
    if a.cmd == "hold":
        return hold(a)
    if getattr(a, "quanta", 0) < 0 or getattr(a, "quanta", 0) > 65535:
        ap.error("--quanta is 0-65535")
    return cmd_send(a)


def _run_child(target, argv, out, err):
    """In a forked child: runs @target() with sys.argv @argv, stdout to
    file @out, stderr to file @err ("{pid}" there: the child's pid); never
    returns."""
    rc = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                                (1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, err.format(pid=os.getpid()),
                                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            f = os.open(path, flags, 0o644)
            os.dup2(f, fd)
            os.close(f)
        # The server's sys.stdout and stderr are its request's files.
        sys.stdout, sys.stderr = os.fdopen(1, "w"), os.fdopen(2, "w")
        sys.argv = argv
        rc = target()
    except SystemExit as e:
        rc = reqserve.exit_code(e)
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(rc if isinstance(rc, int) else 0)


def _status(status):
    """A wait status as the shell's $?."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def serve(outdir):
    """"serve DIR" (module docstring): a request server (reqserve.py)
    whose runs are children forked from it, Scapy imported."""
    here = os.path.dirname(os.path.abspath(__file__))
    out, err = os.path.join(outdir, "out"), os.path.join(outdir, "err")
    children = set()

    def end_children():
        for pid in children:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        children.clear()

    def on_term(signum, frame):
        end_children()
        os._exit(128 + signum)

    def timing():
        import swpfc_timing
        return swpfc_timing.main()

    def fork(target, prog, args, to, to_err):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _run_child(target, [os.path.join(here, prog)] + args, to, to_err)
        return pid

    def run(words):
        verb, args = (words[0], words[1:]) if words else ("", [])
        if verb in ("run", "timing"):
            target, prog = ((timing, "swpfc_timing.py") if verb == "timing"
                            else (main, "swpfc_frames.py"))
            return _status(os.waitpid(fork(target, prog, args, out, err), 0)[1])
        if verb == "bg" and args:
            # The child's error output under its pid, for "wait".
            pid = fork(main, "swpfc_frames.py", args[1:], args[0],
                       os.path.join(outdir, "bg-{pid}.err"))
            children.add(pid)
            return "%%%% pid %d" % pid
        if verb == "wait" and len(args) == 1 and args[0].isdigit() \
                and int(args[0]) in children:
            pid = int(args[0])
            rc = _status(os.waitpid(pid, 0)[1])
            children.discard(pid)
            bg_err = os.path.join(outdir, "bg-%d.err" % pid)
            if os.path.exists(bg_err):
                with open(bg_err) as f:
                    sys.stderr.write(f.read())
                os.unlink(bg_err)
            return rc
        if verb == "reset":
            end_children()
            return 0
        print("swpfc_frames.py serve: bad request: %s" % " ".join(words),
              file=sys.stderr)
        return 2

    signal.signal(signal.SIGTERM, on_term)
    return reqserve.serve(outdir, run, at_end=end_children)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        sys.exit(serve(sys.argv[2]))
    sys.exit(main())
