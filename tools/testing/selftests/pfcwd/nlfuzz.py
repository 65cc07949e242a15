#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A fuzzer for the pfcwd generic netlink family, generated from its spec.

Every operation of Documentation/netlink/specs/pfcwd.yaml (do and dump as
the spec has them), with its request attributes, their types, checks and
enums, and the nested "prio" set of port-set, gets requests that mix valid
random and boundary values with malformed ones: values outside the checks,
wrong lengths and types, strings without NUL or too long, unknown and
foreign attributes, bad and truncated nests, duplicates, bad genetlink
headers, the wrong mode (do/dump) and unknown commands.  The same seed
sends the same requests (nothing in them depends on the replies).

  nlfuzz.py fuzz --seed N --count N --target DEV... [--quiet DEV...]
            [--netns NAME --foreign DEV...] [--unpriv] [--expect-ports P...]
            [--race-file F]
  nlfuzz.py dumper --stop FILE --out FILE [--expect-ports P...]

Checks, per request: a refusal carries an extack message unless the
genetlink core refused it before pfcwd saw it (the exemptions below, by
errno and cause, counted); a request that had to be refused was; nothing
that port-set, stats-clear or prio-restore can change differs after a
refused one (port-get of the targets; sysfs in the initial netns); dumps
hold each port once with its 8 priorities; unprivileged, every set-type
operation is refused with EPERM and nothing else is; in another netns,
the foreign devices are never reached and their ports never change.
Findings print as "FINDING ..." with the request's number and bytes; the
exit status is 1 if there was any.
"""
import argparse
import ctypes
import errno
import json
import os
import random
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import genl  # noqa: E402
import yaml  # noqa: E402

SPEC = os.path.join(HERE, '../../../../Documentation/netlink/specs/pfcwd.yaml')
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
NLM_F_ECHO, NLM_F_DUMP_INTR = 0x8, 0x10
GENL_HDRLEN = 4
HIST = genl.names('PFCWD_A_HIST_')
CLONE_NEWNET = 0x40000000
FMT = {'u8': 'B', 'u16': 'H', 'u32': 'I', 'u64': 'Q'}
# The spec lists no request attributes for a nest; the kernel's policy of
# a port-set "prio" nest (nl_port_set.c) has these, prio at most 7.
NEST_REQUEST = {'prio': ['prio', 'detect-ms', 'restore-ms', 'warn-ms',
                         'policy-action', 'defaults']}
NEST_CHECKS = {('prio', 'prio'): {'max': 'num-prio-minus-1'}}
# What a refused set-type request must leave alone: the configuration
# (every port), and on ports without a storm going on also state and the
# counters only a storm or stats-clear moves.
PORT_CFG = ['enabled', 'detect_ms', 'restore_ms', 'action', 'prios',
            'storm_limit', 'device_action', 'warn_ms', 'backoff', 'rate_rx',
            'rate_tx', 'rate_window_ms', 'held', 'qdiscs']
PORT_QUIET = ['stormed', 'pfc_en']
PRIO_CFG = ['prio', 'overrides', 'detect_ms', 'restore_ms', 'warn_ms',
            'policy_action']
PRIO_QUIET = ['state', 'latch', 'detected', 'restored', 'tx_storms',
              'rx_pause', 'tx_pause', 'tx_dropped', 'rx_dropped', 'warnings']
SYSFS = ['enabled', 'detection_time_ms', 'restoration_time_ms', 'action',
         'priorities', 'storm_limit', 'device_action']


class Attr:
    """One attribute of the spec: number, type and the range its checks
    (or its enum) allow."""

    def __init__(self, spec, set_name, a, num):
        self.name, self.type, self.num = a['name'], a['type'], num
        self.nested = a.get('nested-attributes')
        checks = dict(a.get('checks', {}))
        checks.update(NEST_CHECKS.get((set_name, self.name), {}))
        bits = {'u8': 8, 'u16': 16, 'u32': 32, 'u64': 64}.get(self.type, 0)
        self.tmax = (1 << bits) - 1 if bits else 0
        self.lo = spec.const(checks.get('min', 0))
        self.hi = spec.const(checks.get('max', self.tmax))
        if 'enum' in a and 'max' not in checks:
            self.hi = spec.enums[a['enum']] - 1
        self.max_len = spec.const(checks.get('max-len', 0))


class Spec:
    def __init__(self, path):
        with open(path) as f:
            y = yaml.safe_load(f)
        self.consts, self.enums = {}, {}
        for d in y['definitions']:
            if d['type'] == 'const':
                self.consts[d['name']] = d['value']
            elif d['type'] == 'enum':
                self.enums[d['name']] = len(d['entries'])
        self.consts['num-prio-minus-1'] = self.consts['num-prio'] - 1
        self.sets = {}
        for s in y['attribute-sets']:
            nums = genl.names(s['name-prefix'].upper().replace('-', '_'))
            self.sets[s['name']] = {
                a['name']: Attr(self, s['name'], a,
                                nums[a['name'].replace('-', '_')])
                for a in s['attributes']}
        self.ops, self.events = [], []
        for op in y['operations']['list']:
            cmd = genl.CMD[op['name'].replace('-', '_')]
            if 'event' in op:
                self.events.append(cmd)
                continue
            modes = {}
            for mode in ('do', 'dump'):
                if mode in op:
                    req = (op[mode] or {}).get('request') or {}
                    modes[mode] = req.get('attributes', [])
            self.ops.append({'name': op['name'], 'cmd': cmd, 'modes': modes,
                             'set': op['attribute-set'],
                             'perm': 'uns-admin-perm' in op.get('flags', [])})
        self.cmd_max = max(genl.CMD.values())

    def const(self, v):
        return self.consts[v] if isinstance(v, str) else v

    def maxattr(self, set_name):
        return max(a.num for a in self.sets[set_name].values())


class Req:
    """A request as sent, and what the generator knows it must get."""

    def __init__(self, n):
        self.n = n
        self.op = None          # the spec's operation, None: unknown cmd
        self.cmd = 0
        self.dump = False
        self.attrs = []         # encoded attributes, in order
        self.bad = []           # why the kernel must refuse it
        self.version, self.reserved, self.flags = 1, 0, genl.NLM_F_ACK
        self.short = None       # bytes of a genetlink header cut short
        self.named = []         # the targets named
        self.uses_dev = False   # the operation looks the device up

    def body(self):
        hdr = struct.pack('BBH', self.cmd, self.version, self.reserved)
        if self.short is not None:
            return hdr[:self.short]
        return hdr + b''.join(self.attrs)

    def settype(self):
        return self.op is not None and self.op['perm']


def raw_attr(t, payload, ln=None):
    """An attribute whose length field may lie."""
    a = struct.pack('HH', 4 + len(payload) if ln is None else ln, t) + payload
    return a + b'\0' * ((4 - len(a) % 4) % 4)


class Gen:
    """The request generator: a seeded random source and the spec."""

    def __init__(self, spec, rng, devs):
        self.spec, self.rng, self.devs = spec, rng, devs

    def int_ok(self, a):
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice([a.lo, a.hi, min(a.lo + 1, a.hi)])
        hi = a.hi
        if hi > 100000 and r < 0.8:
            hi = max(a.lo, min(hi, 5000))
        return self.rng.randint(a.lo, hi)

    def int_bad(self, a):
        cands = []
        if a.lo > 0:
            cands += [a.lo - 1, 0]
        if a.hi < a.tmax:
            cands += [a.hi + 1, a.tmax, self.rng.randint(a.hi + 1, a.tmax)]
        return self.rng.choice(cands) if cands else None

    def string_ok(self):
        return self.rng.choice([d['name'] for d in self.devs] + ['nosuchdev'])

    def value(self, r, a, bad):
        """An attribute of spec attribute a, valid or (bad) out of its
        checks; None if there is no such value."""
        if a.type in FMT:
            v = self.int_bad(a) if bad else self.int_ok(a)
            if v is None:
                return None
            if bad:
                r.bad.append('%s=%d out of its checks' % (a.name, v))
            return genl.attr(a.num, struct.pack(FMT[a.type], v))
        if a.type == 'string':
            if not bad:
                return genl.attr(a.num, self.string_ok().encode() + b'\0')
            kind = self.rng.choice(['long', 'nonul', 'empty'])
            if kind == 'long':
                s = 'x' * (a.max_len + 1 + self.rng.randint(0, 40)) + '\0'
                r.bad.append('%s longer than %d' % (a.name, a.max_len))
            elif kind == 'nonul':
                s = self.string_ok()
                r.bad.append('%s without NUL' % a.name)
            else:
                s = ''
                r.bad.append('%s empty' % a.name)
            return genl.attr(a.num, s.encode())
        if a.type == 'nest':
            return self.nest(r, a, bad)
        return None

    def nest(self, r, a, bad):
        """A nest of its set's request attributes; bad: one of them out
        of its checks, or the nest itself malformed."""
        inner = self.spec.sets[a.nested]
        names = NEST_REQUEST[a.nested]
        shape = bad and self.rng.random() < 0.6
        body = []
        if self.rng.random() < 0.9:
            body.append(self.value(r, inner['prio'], False))
        picked = self.rng.sample(names[1:], self.rng.randint(0, 3))
        wrong = self.rng.choice(names) if bad and not shape else None
        if wrong and wrong not in picked:
            picked.append(wrong)
        for n in picked:
            v = self.value(r, inner[n], n == wrong)
            if v is None and n == wrong:
                shape = True
            elif v:
                body.append(v)
        payload = b''.join(body)
        if shape:
            return self.bad_nest(r, a, payload)
        return genl.attr(a.num | NLA_F_NESTED, payload)

    def bad_nest(self, r, a, payload):
        kind = self.rng.choice(['noflag', 'innerlen', 'tinylen', 'trunc',
                                'unknown', 'garbage', 'deep'])
        if kind == 'noflag':
            r.bad.append('nest without NLA_F_NESTED')
            return genl.attr(a.num, payload)
        if kind == 'innerlen':
            r.bad.append('inner length past the nest')
            return genl.attr(a.num | NLA_F_NESTED,
                             payload + raw_attr(1, b'\x03', ln=200))
        if kind == 'tinylen':
            r.bad.append('inner length below a header')
            return genl.attr(a.num | NLA_F_NESTED,
                             payload + raw_attr(1, b'', ln=2))
        if kind == 'trunc':
            inner = genl.attr(1, b'\x03') + genl.attr(2, struct.pack('I', 50))
            r.bad.append('nest cut inside its last attribute')
            return raw_attr(a.num | NLA_F_NESTED, inner[:-2])
        if kind == 'unknown':
            t = self.rng.choice([0, self.spec.maxattr(a.nested) + 1, 0x3fff])
            r.bad.append('unknown attribute %d in the nest' % t)
            return genl.attr(a.num | NLA_F_NESTED,
                             payload + genl.attr(t, struct.pack('I', 1)))
        if kind == 'deep':
            r.bad.append('a nest in the nest')
            return genl.attr(a.num | NLA_F_NESTED, genl.attr(
                a.num | NLA_F_NESTED, payload))
        # Random bytes: refused or not, it must say why.
        n = self.rng.randint(1, 24)
        return genl.attr(a.num | NLA_F_NESTED,
                         bytes(self.rng.getrandbits(8) for _ in range(n)))

    def dev_attrs(self, r, pset):
        """How the request names its device."""
        ai, an = pset['ifindex'], pset['ifname']
        rng = self.rng
        k = rng.random()
        d = rng.choice(self.devs)
        if k < 0.06:
            return []
        if k < 0.40:
            r.named.append(d)
            return [genl.attr(ai.num, struct.pack('I', d['ifindex']))]
        if k < 0.75:
            r.named.append(d)
            return [genl.attr(an.num, d['name'].encode() + b'\0')]
        if k < 0.85:
            e = rng.choice(self.devs)
            r.named += [d, e]
            return [genl.attr(ai.num, struct.pack('I', d['ifindex'])),
                    genl.attr(an.num, e['name'].encode() + b'\0')]
        if k < 0.92:
            return [genl.attr(ai.num, struct.pack(
                'I', rng.choice([rng.randint(5000, 1 << 31), 0xffffffff])))]
        return [self.value(r, rng.choice([ai, an]), True)]

    def mutate(self, r, pset, allowed):
        """One malformation of the attribute list."""
        rng = self.rng
        kind = rng.choice(['wronglen', 'wronglen', 'foreign', 'unknown',
                           'dup', 'trailing', 'truncated', 'nestflag',
                           'byteorder'])
        ints = [pset[n] for n in allowed if pset[n].type in FMT]
        if kind == 'wronglen' and ints:
            a = rng.choice(ints)
            ln = rng.choice([x for x in (0, 1, 2, 3, 4, 8, 12)
                             if x != struct.calcsize(FMT[a.type])])
            r.bad.append('%s with %d bytes' % (a.name, ln))
            r.attrs.append(genl.attr(a.num, bytes(ln)))
        elif kind == 'foreign':
            others = [a for n, a in pset.items()
                      if n not in allowed and a.type != 'pad']
            a = rng.choice(others)
            r.bad.append('%s is not a request attribute here' % a.name)
            v = self.value(r, a, False) if a.type != 'nest' else None
            r.attrs.append(v or genl.attr(a.num, struct.pack('I', 0)))
        elif kind == 'unknown':
            t = rng.choice([0, self.spec.maxattr('port') + 1,
                            rng.randint(self.spec.maxattr('port') + 1, 0x3fff)])
            r.bad.append('unknown attribute %d' % t)
            r.attrs.insert(rng.randint(0, len(r.attrs)),
                           genl.attr(t, struct.pack('I', rng.getrandbits(32))))
        elif kind == 'dup' and r.attrs:
            # Accepted or not: the policy keeps the last one.
            r.attrs.insert(rng.randint(0, len(r.attrs)), rng.choice(r.attrs))
        elif kind == 'trailing':
            r.bad.append('bytes after the last attribute')
            r.attrs.append(bytes(rng.randint(1, 3)))
        elif kind == 'truncated' and r.attrs:
            last = r.attrs.pop()
            ln = struct.unpack('H', last[:2])[0]
            r.bad.append('last attribute longer than the message')
            r.attrs.append(struct.pack('H', ln + rng.randint(4, 64)) + last[2:])
        elif kind == 'nestflag' and ints:
            a = rng.choice(ints)
            r.bad.append('NLA_F_NESTED on %s' % a.name)
            r.attrs.append(genl.attr(a.num | NLA_F_NESTED,
                                     struct.pack(FMT[a.type], a.lo)))
        elif kind == 'byteorder' and ints:
            # Ignored by the policy of a host-order integer.
            a = rng.choice(ints)
            r.attrs.append(genl.attr(a.num | NLA_F_NET_BYTEORDER,
                                     struct.pack(FMT[a.type], self.int_ok(a))))

    def header(self, r):
        rng = self.rng
        k = rng.random()
        if k < 0.05:
            r.version = rng.choice([0, 2, 255])
        elif k < 0.08:
            r.reserved = rng.randint(1, 0xffff)
            if r.cmd >= 1:
                r.bad.append('reserved header field set')
        elif k < 0.11:
            r.flags |= rng.choice([0x20, 0x100, 0x200, 0x400, 0x800,
                                   NLM_F_ECHO])
            # As genl_header_check() sees them.
            f = r.flags
            if f & genl.NLM_F_DUMP == genl.NLM_F_DUMP:
                f &= ~genl.NLM_F_DUMP
            if r.cmd >= 1 and f & ~(genl.NLM_F_ACK | NLM_F_ECHO):
                r.bad.append('reserved nlmsg flags')
        elif k < 0.13:
            r.short = rng.randint(0, GENL_HDRLEN - 1)

    def request(self, n):
        rng = self.rng
        r = Req(n)
        weights = {'port-get': 2, 'port-set': 5, 'stats-clear': 1,
                   'prio-restore': 1.5, 'history-get': 1}
        op = rng.choices(self.spec.ops,
                         [weights.get(o['name'], 1) for o in self.spec.ops])[0]
        modes = list(op['modes'])
        mode = rng.choice(modes)
        r.op, r.cmd = op, op['cmd']
        if rng.random() < 0.05:
            mode = 'dump' if mode == 'do' else 'do'
        if rng.random() < 0.04:
            r.op = None
            r.cmd = rng.choice([0, self.spec.cmd_max + 1, 255] +
                               self.spec.events)
        r.dump = mode == 'dump'
        if r.dump:
            r.flags |= genl.NLM_F_DUMP
        pset = self.spec.sets[op['set']]
        allowed = op['modes'].get(mode) or op['modes'][modes[0]]
        # The dump of port-get lists none, but the per-op policy is the
        # do's (kernel-policy: per-op).
        if not op['modes'].get(mode):
            allowed = [n for m in op['modes'].values() for n in m]
        if 'ifindex' in allowed:
            r.attrs += self.dev_attrs(r, pset)
        r.uses_dev = r.op is not None and \
            'ifindex' in op['modes'].get(mode, [])
        rest = [n for n in allowed if n not in ('ifindex', 'ifname')]
        if rest:
            k = rng.randint(0, min(4, len(rest)))
            for name in rng.sample(rest, k):
                reps = rng.randint(1, 3) if pset[name].type == 'nest' else 1
                for _ in range(reps):
                    v = self.value(r, pset[name], rng.random() < 0.12)
                    if v:
                        r.attrs.append(v)
        if rng.random() < 0.3:
            self.mutate(r, pset, allowed)
        self.header(r)
        return r


class Target:
    """A device the requests name, and how to read what it must keep."""

    def __init__(self, name, ifindex, quiet, foreign=False):
        self.name, self.ifindex = name, ifindex
        self.quiet, self.foreign = quiet, foreign

    def as_dict(self):
        return {'name': self.name, 'ifindex': self.ifindex,
                'foreign': self.foreign}


def pick(data, want):
    """The attributes of data whose type is in want, raw: a snapshot is
    taken after most requests, and under TCG decoding them all cost most
    of the run."""
    out, i, n = [], 0, len(data)
    while i + 4 <= n:
        ln, t = struct.unpack_from('HH', data, i)
        if ln < 4:
            break
        t &= 0x3fff
        if t in want:
            out.append((t, data[i + 4:i + ln]))
        i += (ln + 3) & ~3
    return tuple(out)


def wanted(names, table):
    return frozenset(table[n] for n in names)


WANT = {False: (wanted(PORT_CFG + ['prio'], genl.PORT),
                wanted(PRIO_CFG, genl.PRIO)),
        True: (wanted(PORT_CFG + PORT_QUIET + ['prio'], genl.PORT),
               wanted(PRIO_CFG + PRIO_QUIET, genl.PRIO))}


def port_view(msg, quiet):
    """What a refused request must leave alone, from a port-get reply:
    raw attribute values, so nothing is decoded."""
    want_port, want_prio = WANT[quiet]
    nest = genl.PORT['prio']
    return tuple((t, pick(v, want_prio) if t == nest else v)
                 for t, v in pick(msg[4:], want_port))


def sysfs_view(name):
    out = []
    for f in SYSFS:
        try:
            with open('/sys/class/net/%s/pfcwd/%s' % (name, f)) as fh:
                out.append(fh.read())
        except OSError as e:
            out.append(e.errno)
    return tuple(out)


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.spec = Spec(SPEC)
        self.rng = random.Random(args.seed)
        self.findings = []
        self.stats = {'requests': 0, 'accepted': 0, 'refused': 0,
                      'errno': {}, 'core_no_extack': {}, 'bad_refused': 0,
                      'snapshots': 0, 'dumps': 0, 'dump_msgs_max': 0,
                      'sets_ok': 0, 'sets_during_dump': 0}
        self.set_times = []
        self.foreign_obs = None
        if args.netns:
            # The foreign ports seen from where they live, before leaving.
            self.foreign_obs = genl.Genl()
            foreign = [Target(n, socket.if_nametoindex(n), n in args.quiet,
                              True) for n in args.foreign]
            fd = os.open('/run/netns/' + args.netns, os.O_RDONLY)
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), 'setns ' + args.netns)
            os.close(fd)
        self.obs = genl.Genl()
        self.targets = [Target(n, socket.if_nametoindex(n), n in args.quiet)
                        for n in args.target]
        if args.netns:
            local = {t.ifindex for t in self.targets}
            # A foreign ifindex that is taken here names a local device.
            self.foreign = [t for t in foreign
                            if not self.ifindex_here(t.ifindex)]
            self.foreign_snap = self.snap_of(self.foreign_obs, self.foreign)
            assert not local & {t.ifindex for t in self.foreign}
        else:
            self.foreign, self.foreign_snap = [], None
        if args.unpriv:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        self.g = genl.Genl()
        self.g.s.settimeout(20)
        self.gen = Gen(self.spec, self.rng,
                       [t.as_dict() for t in self.targets + self.foreign])

    @staticmethod
    def ifindex_here(idx):
        try:
            socket.if_indextoname(idx)
            return True
        except OSError:
            return False

    def snap_of(self, obs, targets):
        out = {}
        for t in targets:
            try:
                msgs, _ = obs.request(genl.CMD['port_get'], genl.attr(
                    genl.PORT['ifindex'], struct.pack('I', t.ifindex)))
                out[t.name] = port_view(msgs[0], t.quiet)
            except genl.NlError as e:
                out[t.name] = ('no port', e.err)
            if not self.args.netns:
                out[t.name + ' sysfs'] = sysfs_view(t.name)
        return out

    def snapshot(self):
        self.stats['snapshots'] += 1
        s = self.snap_of(self.obs, self.targets)
        if self.foreign_obs:
            f = self.snap_of(self.foreign_obs, self.foreign)
            if f != self.foreign_snap:
                self.finding(None, 'a foreign port changed: %s' %
                             diff(self.foreign_snap, f))
                self.foreign_snap = f
        return s

    def settled(self):
        """A snapshot after a change: the same twice in a row (what a
        change sets off in the module may finish a little later)."""
        s = self.snapshot()
        for _ in range(10):
            time.sleep(0.01)
            t = self.snapshot()
            if t == s:
                return s
            s = t
        return s

    def finding(self, r, what):
        if r is None:
            line = 'FINDING seed %d: %s' % (self.args.seed, what)
        else:
            line = 'FINDING seed %d req %d (%s %s cmd %d): %s; sent %s' % (
                self.args.seed, r.n, r.op['name'] if r.op else '?',
                'dump' if r.dump else 'do', r.cmd, what,
                genl.nlmsg(0, 0, 0, r.body()).hex())
        print(line, flush=True)
        self.findings.append(line)

    def exchange(self, r):
        """Sends r; returns (errno, extack, messages, dump interrupted)."""
        self.g.seq += 1
        seq = self.g.seq
        self.g.s.send(genl.nlmsg(self.g.family, r.flags | genl.NLM_F_REQUEST,
                                 seq, r.body()))
        msgs, intr = [], False
        while True:
            data = self.g.s.recv(1 << 20)
            for t, fl, sq, msg in genl.split_msgs(data):
                if sq != seq:
                    continue
                if t in (genl.NLMSG_ERROR, genl.NLMSG_DONE):
                    err, ext = genl.ack_error(fl, msg,
                                              t == genl.NLMSG_DONE)
                    intr |= bool(fl & NLM_F_DUMP_INTR)
                    return err, ext, msgs, intr
                intr |= bool(fl & NLM_F_DUMP_INTR)
                msgs.append(msg)

    def core_cause(self, r):
        """Why the genetlink core refuses r before pfcwd sees it, without
        an extack message (net/netlink/genetlink.c, genl_family_rcv_msg):
        a header shorter than struct genlmsghdr (EINVAL); no operation
        for the command in this mode (EOPNOTSUPP); the permission check
        of GENL_UNS_ADMIN_PERM (EPERM).  In that order; 6.1 looks the
        command up without the mode and checks the permission first, so
        a set command as a dump, unprivileged, is EPERM there.  Returns
        (cause, errnos allowed), or None."""
        if r.short is not None:
            return 'short genetlink header', {errno.EINVAL}
        # Before the command's lookup, with a message.
        if [b for b in r.bad if b.startswith('reserved')]:
            return None
        op = r.op
        if op is None or ('dump' if r.dump else 'do') not in op['modes']:
            ok = {errno.EOPNOTSUPP}
            if op is not None and op['perm'] and self.args.unpriv:
                ok.add(errno.EPERM)
            return 'no such operation', ok
        if op['perm'] and self.args.unpriv:
            return 'no CAP_NET_ADMIN', {errno.EPERM}
        return None

    def check(self, r, err, ext, msgs):
        cause = self.core_cause(r)
        if err:
            self.stats['refused'] += 1
            name = ename(err)
            self.stats['errno'][name] = self.stats['errno'].get(name, 0) + 1
        else:
            self.stats['accepted'] += 1
        if cause:
            if err not in cause[1]:
                self.finding(r, 'wanted %s (%s), got %s %r' % (
                    '/'.join(ename(e) for e in cause[1]),
                    cause[0], ename(err), ext))
            elif not ext:
                key = '%s %s' % (ename(err), cause[0])
                c = self.stats['core_no_extack']
                c[key] = c.get(key, 0) + 1
            return
        if err and not ext:
            self.finding(r, 'refused with %s and no extack message' %
                         ename(err))
        if err == errno.EPERM:
            self.finding(r, 'EPERM where the spec asks no privilege')
        if r.bad:
            if not err:
                self.finding(r, 'accepted, but: ' + '; '.join(r.bad))
            else:
                self.stats['bad_refused'] += 1
        if not err and r.uses_dev and any(d['foreign'] for d in r.named):
            self.finding(r, 'a foreign device was reached')
        if not err and r.dump:
            self.check_dump(r, msgs)

    def check_dump(self, r, msgs):
        self.stats['dumps'] += 1
        self.stats['dump_msgs_max'] = max(self.stats['dump_msgs_max'],
                                          len(msgs))
        keys = [dump_key(r.cmd, m) for m in msgs]
        if len(set(keys)) != len(keys):
            self.finding(r, 'a dump sent something twice')
        foreign = {t.name for t in self.foreign}
        if foreign & {k[1] for k in keys}:
            self.finding(r, 'a dump showed a foreign port')
        if r.cmd == genl.CMD['port_get']:
            for m in msgs:
                n = sum(1 for t, _ in genl.parse_attrs(m[4:])
                        if t == genl.PORT['prio'])
                if n != 8:
                    self.finding(r, 'a port with %d prio nests' % n)
            names = {k[1] for k in keys}
            missing = [p for p in self.args.expect_ports if p not in names]
            if missing:
                self.finding(r, 'dump without ports %s' % missing[:5])

    def run(self):
        a = self.args
        print('nlfuzz: seed %d count %d context %s' % (
            a.seed, a.count, 'unprivileged' if a.unpriv else
            ('netns %s' % a.netns if a.netns else 'root, initial netns')),
            flush=True)
        t0 = time.monotonic()
        snap = self.snapshot()
        for n in range(a.count):
            r = self.gen.request(n)
            self.stats['requests'] += 1
            try:
                err, ext, msgs, _intr = self.exchange(r)
            except socket.timeout:
                self.finding(r, 'no reply within 20 s')
                break
            self.check(r, err, ext, msgs)
            if not r.settype():
                continue
            if not err:
                self.stats['sets_ok'] += 1
                self.set_times.append(time.monotonic())
                snap = self.settled()
                continue
            after = self.snapshot()
            if after != snap:
                self.finding(r, 'refused (%s %r) but changed: %s' % (
                    ename(err), ext, diff(snap, after)))
            snap = after
        self.stats['seconds'] = round(time.monotonic() - t0, 1)
        if a.race_file:
            self.count_overlaps(a.race_file)
        self.stats['findings'] = len(self.findings)
        print('nlfuzz: ' + json.dumps(self.stats, sort_keys=True), flush=True)
        return 1 if self.findings else 0

    def count_overlaps(self, path):
        """Successful sets made while the dumper was inside a dump."""
        spans = []
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 2:
                    spans.append((float(w[0]), float(w[1])))
        self.stats['sets_during_dump'] = sum(
            1 for t in self.set_times if any(s < t < e for s, e in spans))
        self.stats['dumper_dumps'] = len(spans)


def ename(e):
    return 'EOPNOTSUPP' if e == errno.EOPNOTSUPP else \
        errno.errorcode.get(e, str(e))


def diff(a, b):
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return '; '.join('%s: %s' % (k, attr_diff(a.get(k), b.get(k)))
                     for k in keys)


def attr_diff(a, b):
    """The attributes (by number; prio nests by index) that differ."""
    if not (isinstance(a, tuple) and isinstance(b, tuple) and
            all(isinstance(x, tuple) and len(x) == 2 for x in a + b)):
        return '%s -> %s' % (short(a), short(b))
    da, db = dict(a), dict(b)
    if len(da) != len(a) or len(db) != len(b):
        # The prio nests: one entry per nest, compared in order.
        da, db = dict(enumerate(a)), dict(enumerate(b))
    return ', '.join('%s: %s -> %s' % (k, short(da.get(k)), short(db.get(k)))
                     for k in sorted(set(da) | set(db), key=str)
                     if da.get(k) != db.get(k))


def short(v):
    s = repr(v)
    return s if len(s) < 300 else s[:300] + '...'


def dump_key(cmd, msg):
    """What a dump must not send twice: the port, and for history-get the
    priority too."""
    idx, name, prio = None, None, None
    for t, v in genl.parse_attrs(msg[4:]):
        if t == genl.PORT['ifindex']:
            idx = struct.unpack('I', v)[0]
        elif t == genl.PORT['ifname']:
            name = v.rstrip(b'\0').decode()
        elif t == genl.PORT['history']:
            for ht, hv in genl.parse_attrs(v):
                if ht == HIST['prio']:
                    prio = hv[0]
    return (idx, name, prio) if cmd == genl.CMD['history_get'] else \
        (idx, name)


def dumper(args):
    """Dumps port-get and history-get in a loop until the stop file
    exists; each dump's span goes to --spans, the totals to stdout."""
    g = genl.Genl()
    res = {'dumps': 0, 'duplicates': 0, 'intr': 0, 'errors': 0,
           'missing': 0, 'max_msgs': 0}
    spans = open(args.spans, 'w')
    n = 0
    while not os.path.exists(args.stop):
        cmd = genl.CMD['port_get'] if n % 2 == 0 else genl.CMD['history_get']
        n += 1
        t0 = time.monotonic()
        try:
            msgs, intr = g.request(cmd, b'', flags=genl.NLM_F_DUMP |
                                   genl.NLM_F_ACK)
        except genl.NlError as e:
            res['errors'] += 1
            print('dumper: error %s: %s' % (ename(e.err),
                                            e.msg), flush=True)
            continue
        spans.write('%f %f\n' % (t0, time.monotonic()))
        spans.flush()
        keys = [dump_key(cmd, m) for m in msgs]
        res['dumps'] += 1
        res['intr'] += intr
        res['max_msgs'] = max(res['max_msgs'], len(msgs))
        res['duplicates'] += len(keys) - len(set(keys))
        names = {k[1] for k in keys}
        res['missing'] += sum(1 for p in args.expect_ports if p not in names)
    spans.close()
    print(json.dumps(res, sort_keys=True))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='mode', required=True)
    f = sub.add_parser('fuzz')
    f.add_argument('--seed', type=int, default=None)
    f.add_argument('--count', type=int, default=1000)
    f.add_argument('--target', nargs='+', default=[])
    f.add_argument('--quiet', nargs='*', default=[])
    f.add_argument('--netns')
    f.add_argument('--foreign', nargs='*', default=[])
    f.add_argument('--unpriv', action='store_true')
    f.add_argument('--expect-ports', nargs='*', default=[])
    f.add_argument('--race-file')
    d = sub.add_parser('dumper')
    d.add_argument('--stop', required=True)
    d.add_argument('--spans', required=True)
    d.add_argument('--expect-ports', nargs='*', default=[])
    args = ap.parse_args()
    if args.mode == 'dumper':
        return dumper(args)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 32)
    return Fuzzer(args).run()


if __name__ == '__main__':
    sys.exit(main())
