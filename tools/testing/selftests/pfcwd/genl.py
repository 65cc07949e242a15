#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A raw generic netlink client for pfcwd's selftests: it sends exactly what
# it is told (including malformed requests) and prints replies and errors.
# Attribute and command numbers are read from include/uapi/linux/pfcwd.h,
# so the tests follow the ABI rather than a copy of it.
#
#   genl.py get DEV | dump                    JSON of one port / a list
#   genl.py set DEV NAME=VALUE...             port-set (names: detect_ms ...)
#   genl.py clear [DEV] | restore DEV MASK
#   genl.py raw CMD [--flags N] [--version N] [--reserved N] ATTR...
#        ATTR is NAME:TYPE:VALUE with TYPE u8|u16|u32|u64|str|strnz|hex,
#        NAME a port attribute name (ifindex, detect_ms, ...) or a number
#   genl.py listen SECONDS [--count N]        events, one JSON per line
#   genl.py batch                             "set DEV K=V..." lines on stdin
#   genl.py dumps N                           N dumps: ports, duplicates, intr
#   genl.py serve DIR                         many requests, one process
#        (reqserve.py): a line of genl.py arguments at a time
#
# Errors print "error: ERRNO_NAME: extack message" on stderr and exit 1
# (2 for usage errors).
import errno
import json
import os
import re
import select
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLM_F_DUMP_INTR = 0x10
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_MCAST_GROUPS = 1, 2, 7
CTRL_ATTR_MCAST_GRP_NAME, CTRL_ATTR_MCAST_GRP_ID = 1, 2
SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, NETLINK_EXT_ACK = 270, 1, 11
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, '../../../../include/uapi/linux/pfcwd.h')


def read_enums(path):
    """Values of the anonymous enums whose members start with PFCWD_."""
    text = open(path).read()
    vals = {}
    for body in re.findall(r'enum\s*\w*\s*\{(.*?)\}', text, re.S):
        n = 0
        for line in body.split('\n'):
            line = re.sub(r'/\*.*?\*/', '', line).strip().rstrip(',')
            if not line:
                continue
            m = re.match(r'(\w+)(\s*=\s*(\w+))?$', line)
            if not m:
                continue
            if m.group(3):
                n = int(m.group(3), 0)
            vals[m.group(1)] = n
            n += 1
    return vals


E = read_enums(HEADER)


def names(prefix):
    out = {}
    for k, v in E.items():
        if k.startswith(prefix) and not k.startswith('__') and \
           not k.endswith('_MAX') and not k.endswith('_UNSPEC'):
            out[k[len(prefix):].lower()] = v
    return out


PORT = names('PFCWD_A_PORT_')
PRIO = names('PFCWD_A_PRIO_')
CMD = names('PFCWD_CMD_')
PORT_BY_NUM = {v: k for k, v in PORT.items()}
PRIO_BY_NUM = {v: k for k, v in PRIO.items()}
CMD_BY_NUM = {v: k for k, v in CMD.items()}
U64_PRIO = {k for k in PRIO if k not in
            ('prio', 'watched', 'state', 'latch', 'action', 'pad',
             'backoff_level', 'effective_restore_ms', 'detect_ms',
             'restore_ms', 'warn_ms', 'policy_action', 'defaults',
             'overrides', 'effective_detect_ms', 'effective_warn_ms',
             'effective_action', 'lever', 'rdma_covered')}
PORT_TYPES = {'ifindex': 'u32', 'ifname': 'str', 'enabled': 'u8',
              'detect_ms': 'u32', 'restore_ms': 'u32', 'action': 'u32',
              'prios': 'u8', 'storm_limit': 'u32', 'stormed': 'u8',
              'granularity_us': 'u32', 'source': 'u32', 'pfc_en': 'u8',
              'qdiscs': 'u32', 'held': 'u8', 'global_pause': 'u64',
              'pause_malformed': 'u64', 'device_action': 'u32',
              'device_pfc': 'u8', 'setpfc_hurts': 'u8',
              'setpfc_errors': 'u64', 'profile': 'str', 'refresh_ms': 'u32',
              'refresh_learnt': 'u8', 'reads': 'u64', 'forced_reads': 'u64',
              'read_errors': 'u64', 'read_rate': 'u32',
              'restore_late_us': 'u32', 'warn_ms': 'u32',
              'rate_rx': 'u32', 'rate_tx': 'u32', 'rate_window_ms': 'u32',
              'effective_rate_window_ms': 'u32', 'rate_direction': 'u8',
              'rate_pps': 'u64', 'rate_duration_ms': 'u32', 'backoff': 'u8',
              'phase': 'u8', 'phase_pubs': 'u64', 'pub_width_us': 'u32',
              'tx_progress': 'u8', 'lever': 'u32', 'rdma_covered': 'u8',
              'event_seq': 'u64', 'blind': 'u8', 'setpfc_errno': 'u32',
              'setpfc_prios': 'u8'}


def attr(t, payload):
    a = struct.pack('HH', 4 + len(payload), t) + payload
    return a + b'\0' * ((4 - len(a) % 4) % 4)


def encode(typ, value):
    if typ == 'u8':
        return struct.pack('B', int(value, 0) if isinstance(value, str) else value)
    if typ == 'u16':
        return struct.pack('H', int(value, 0))
    if typ == 'u32':
        return struct.pack('I', int(value, 0) if isinstance(value, str) else value)
    if typ == 'u64':
        return struct.pack('Q', int(value, 0))
    if typ == 'str':
        return value.encode() + b'\0'
    if typ == 'strnz':
        return value.encode()
    if typ == 'hex':
        return bytes.fromhex(value)
    raise ValueError('unknown type ' + typ)


def nlmsg(ftype, flags, seq, body):
    """A netlink message: header and body (which may be malformed)."""
    return struct.pack('IHHII', 16 + len(body), ftype, flags, seq, 0) + body


def split_msgs(data):
    """(type, flags, seq, payload) of each message in a datagram."""
    while len(data) >= 16:
        ln, t, fl, seq, _pid = struct.unpack('IHHII', data[:16])
        if ln < 16:
            return
        yield t, fl, seq, data[16:ln]
        data = data[(ln + 3) & ~3:]


def ack_error(fl, msg, done=False):
    """(errno, extack message) of an NLMSG_ERROR payload, or with done of
    an NLMSG_DONE one (its TLVs follow the error code directly)."""
    err = -struct.unpack('i', msg[:4])[0]
    ext = ''
    if fl & NLM_F_ACK_TLVS:
        if done:
            skip = 4
        elif fl & NLM_F_CAPPED:
            skip = 4 + 16
        else:
            skip = 4 + ((struct.unpack('I', msg[4:8])[0] + 3) & ~3)
        for at, av in parse_attrs(msg[skip:]):
            if at == NLMSGERR_ATTR_MSG:
                ext = av.rstrip(b'\0').decode(errors='replace')
    return err, ext


def parse_attrs(data):
    out = []
    while len(data) >= 4:
        ln, t = struct.unpack('HH', data[:4])
        if ln < 4:
            break
        out.append((t & 0x3fff, data[4:ln]))
        data = data[(ln + 3) & ~3:]
    return out


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.seq = int(time.time()) & 0xffff
        self.family, self.groups = self.resolve('pfcwd')

    def send(self, ftype, flags, cmd, payload, version=1, reserved=0):
        self.seq += 1
        body = struct.pack('BBH', cmd, version, reserved) + payload
        self.s.send(nlmsg(ftype, flags | NLM_F_REQUEST, self.seq, body))
        return self.seq

    def recv(self):
        """Yields (type, flags, payload) until DONE or an ack/error."""
        while True:
            data = self.s.recv(1 << 20)
            for t, fl, _seq, msg in split_msgs(data):
                if t == NLMSG_DONE:
                    yield ('done', fl, msg)
                    return
                if t == NLMSG_ERROR:
                    err, ext = ack_error(fl, msg)
                    yield ('error', err, ext)
                    return
                yield ('msg', fl, msg)

    def request(self, cmd, payload, flags=NLM_F_ACK, **kw):
        self.send(self.family, flags, cmd, payload, **kw)
        msgs, intr = [], False
        for kind, fl, msg in self.recv():
            if kind == 'msg':
                msgs.append(msg)
                intr |= bool(fl & NLM_F_DUMP_INTR)
            elif kind == 'error':
                if fl:
                    raise NlError(fl, msg)
            elif kind == 'done':
                intr |= bool(fl & NLM_F_DUMP_INTR)
        return msgs, intr

    def resolve(self, name):
        self.send(GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY,
                  attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b'\0'))
        fid, groups = None, {}
        for kind, fl, msg in self.recv():
            if kind == 'error' and fl:
                raise NlError(fl, 'family %s: %s' % (name, msg))
            if kind != 'msg':
                continue
            for t, v in parse_attrs(msg[4:]):
                if t == CTRL_ATTR_FAMILY_ID:
                    fid = struct.unpack('H', v[:2])[0]
                elif t == CTRL_ATTR_MCAST_GROUPS:
                    for _i, g in parse_attrs(v):
                        ga = dict(parse_attrs(g))
                        groups[ga[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b'\0').decode()] = \
                            struct.unpack('I', ga[CTRL_ATTR_MCAST_GRP_ID])[0]
        return fid, groups


class NlError(Exception):
    def __init__(self, err, msg):
        super().__init__(msg)
        self.err, self.msg = err, msg


def decode_prio(data):
    out = {}
    for t, v in parse_attrs(data):
        name = PRIO_BY_NUM.get(t, str(t))
        if name == 'pad':
            continue
        if name in U64_PRIO:
            out[name] = struct.unpack('Q', v)[0]
        elif name in ('prio', 'watched', 'rdma_covered'):
            out[name] = v[0]
        else:
            out[name] = struct.unpack('I', v)[0]
    return out


def decode_port(msg):
    out, prios = {}, []
    for t, v in parse_attrs(msg[4:]):
        name = PORT_BY_NUM.get(t, str(t))
        if name == 'prio':
            prios.append(decode_prio(v))
        elif name == 'pad':
            continue
        else:
            typ = PORT_TYPES.get(name, 'hex')
            if typ == 'str':
                out[name] = v.rstrip(b'\0').decode()
            elif typ == 'u8':
                out[name] = v[0]
            elif typ == 'u32':
                out[name] = struct.unpack('I', v)[0]
            elif typ == 'u64':
                out[name] = struct.unpack('Q', v)[0]
            else:
                out[name] = v.hex()
    if prios:
        out['prio'] = prios
    return out


def port_ifindex(msg):
    """A port message's ifindex alone (dumps: decode_port of 1024 ports
    twenty times over took most of a minute under TCG)."""
    for t, v in parse_attrs(msg[4:]):
        if t == PORT['ifindex']:
            return struct.unpack('I', v)[0]
    return None


def dev_attr(dev):
    if dev.isdigit():
        return attr(PORT['ifindex'], struct.pack('I', int(dev)))
    return attr(PORT['ifname'], dev.encode() + b'\0')


def main(argv):
    if not argv:
        print(__doc__ or 'usage: see the header', file=sys.stderr)
        return 2
    g = Genl()
    op, args = argv[0], argv[1:]
    try:
        if op == 'get':
            msgs, _ = g.request(CMD['port_get'], dev_attr(args[0]))
            print(json.dumps(decode_port(msgs[0])))
        elif op == 'dump':
            msgs, intr = g.request(CMD['port_get'], b'',
                                   flags=NLM_F_DUMP | NLM_F_ACK)
            print(json.dumps({'intr': intr,
                              'ports': [decode_port(m) for m in msgs]}))
        elif op == 'set':
            payload = dev_attr(args[0])
            for kv in args[1:]:
                k, v = kv.split('=', 1)
                payload += attr(PORT[k], encode(PORT_TYPES[k], v))
            g.request(CMD['port_set'], payload)
        elif op == 'batch':
            for line in sys.stdin:
                words = line.split()
                if words and words[0] == 'set':
                    payload = dev_attr(words[1])
                    for kv in words[2:]:
                        k, v = kv.split('=', 1)
                        payload += attr(PORT[k], encode(PORT_TYPES[k], v))
                    g.request(CMD['port_set'], payload)
        elif op == 'dumps':
            res = {'dumps': 0, 'duplicates': 0, 'intr': 0, 'min': None,
                   'max': 0}
            for _ in range(int(args[0])):
                msgs, intr = g.request(CMD['port_get'], b'',
                                       flags=NLM_F_DUMP | NLM_F_ACK)
                idx = [port_ifindex(m) for m in msgs]
                res['dumps'] += 1
                res['duplicates'] += len(idx) - len(set(idx))
                res['intr'] += intr
                res['min'] = len(idx) if res['min'] is None else \
                    min(res['min'], len(idx))
                res['max'] = max(res['max'], len(idx))
            print(json.dumps(res))
        elif op == 'clear':
            g.request(CMD['stats_clear'], dev_attr(args[0]) if args else b'')
        elif op == 'restore':
            g.request(CMD['prio_restore'],
                      dev_attr(args[0]) + attr(PORT['prios'],
                                               encode('u8', args[1])))
        elif op == 'raw':
            cmd = CMD[args[0]] if args[0] in CMD else int(args[0], 0)
            kw, flags, payload = {}, NLM_F_ACK, b''
            rest = args[1:]
            while rest and rest[0].startswith('--'):
                opt, val = rest[0][2:], int(rest[1], 0)
                rest = rest[2:]
                if opt == 'flags':
                    flags = val
                else:
                    kw[opt] = val
            for spec in rest:
                name, typ, value = spec.split(':', 2)
                t = PORT[name] if name in PORT else int(name, 0)
                payload += attr(t, encode(typ, value))
            msgs, _ = g.request(cmd, payload, flags=flags, **kw)
            for m in msgs:
                print(json.dumps(decode_port(m)))
        elif op == 'listen':
            secs = float(args[0])
            count = int(args[2]) if len(args) > 2 and args[1] == '--count' else 0
            g.s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
                           g.groups['events'])
            print('listening', flush=True)
            end, n = time.monotonic() + secs, 0
            while time.monotonic() < end and (not count or n < count):
                r, _, _ = select.select([g.s], [], [], end - time.monotonic())
                if not r:
                    break
                data = g.s.recv(1 << 16)
                while len(data) >= 16:
                    ln, t, _fl, _s, _p = struct.unpack('IHHII', data[:16])
                    msg = data[16:ln]
                    data = data[(ln + 3) & ~3:]
                    if t != g.family:
                        continue
                    ev = decode_port(msg)
                    ev['event'] = CMD_BY_NUM.get(msg[0], str(msg[0]))
                    print(json.dumps(ev), flush=True)
                    n += 1
        else:
            print('unknown operation ' + op, file=sys.stderr)
            return 2
    except NlError as e:
        name = 'EOPNOTSUPP' if e.err == errno.EOPNOTSUPP else \
            errno.errorcode.get(e.err, str(e.err))
        print('error: %s: %s' % (name, e.msg), file=sys.stderr)
        return 1
    finally:
        g.s.close()
    return 0


def serve_one(args):
    """One request of "serve": anything but another server or stdin."""
    if args[:1] in (['serve'], ['batch'], ['listen']):
        print('not through serve: ' + args[0], file=sys.stderr)
        return 2
    return main(args)


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'serve':
        sys.dont_write_bytecode = True
        import reqserve
        sys.exit(reqserve.serve(sys.argv[2], serve_one))
    sys.exit(main(sys.argv[1:]))
