#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tc-nl.py - send one RTM_NEWQDISC for a pfcwd qdisc over raw rtnetlink.

Lets the selftests exercise the kernel's validation of pfcwd's tc options
byte by byte, independent of any tc plugin.

  tc-nl.py add|change|replace DEV [handle MAJ] [parent MAJ:MIN] [limit N]
           [detect N] [restore N] [action N] [lossless MASK]
           [attr TYPE:HEX]...
           [kind KIND] [noflag]
  tc-nl.py show DEV [all]
  tc-nl.py serve DIR       the above, many requests from one process
                           (reqserve.py: the selftests' request server)

limit, detect, restore and action are sent as u32, lossless as u8 (N and
MASK: decimal or 0x hex, not range-checked here: the kernel's job).
"attr TYPE:HEX" appends a raw attribute inside TCA_OPTIONS (HEX = payload
bytes); "noflag" sends TCA_OPTIONS without NLA_F_NESTED.  Prints the
kernel's extack message if any ("extack: MSG") and the error; exits 0 on success, else the errno.
"show" prints the options of DEV's pfcwd qdiscs as dumped by the kernel,
one "handle MAJ: limit N" line per qdisc; with "all", every option:
"handle MAJ: limit N detect N restore N action N lossless 0xMASK".
"""
import os
import socket
import struct
import sys

RTM_NEWQDISC, RTM_GETQDISC = 36, 38
NLM_F_DUMP = 0x300
NLMSG_DONE = 3
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
NLMSG_ERROR = 2
NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
NLA_F_NESTED = 0x8000
TCA_KIND, TCA_OPTIONS = 1, 2
TCA_PFCWD_LIMIT, TCA_PFCWD_DETECT, TCA_PFCWD_RESTORE = 1, 2, 3
TCA_PFCWD_ACTION, TCA_PFCWD_LOSSLESS = 4, 5
U32_OPTS = {"limit": TCA_PFCWD_LIMIT, "detect": TCA_PFCWD_DETECT,
            "restore": TCA_PFCWD_RESTORE, "action": TCA_PFCWD_ACTION}
SHOW_OPTS = (("limit", TCA_PFCWD_LIMIT, "=I"), ("detect", TCA_PFCWD_DETECT, "=I"),
             ("restore", TCA_PFCWD_RESTORE, "=I"), ("action", TCA_PFCWD_ACTION, "=I"),
             ("lossless", TCA_PFCWD_LOSSLESS, "=B"))
NLMSGERR_ATTR_MSG = 1
TC_H_ROOT = 0xFFFFFFFF


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return hdr + payload + pad


def attrs(data, off, end):
    while off + 4 <= end:
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        yield atype & 0x3FFF, data[off + 4:off + alen]
        off += (alen + 3) & ~3


def show(dev, every=False):
    ifindex = socket.if_nametoindex(dev)
    body = struct.pack("=BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
    hdr = struct.pack("=IHHII", 16 + len(body), RTM_GETQDISC,
                      NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.send(hdr + body)
    while True:
        data = s.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, _, _, _ = struct.unpack_from("=IHHII", data, off)
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                return 0
            _, idx, handle, _, _ = struct.unpack_from("=BxxxiIII", data, off + 16)
            tb = dict(attrs(data, off + 36, off + mlen))
            if idx == ifindex and tb.get(TCA_KIND) == b"pfcwd\0":
                opts = dict(attrs(tb.get(TCA_OPTIONS, b""), 0,
                                  len(tb.get(TCA_OPTIONS, b""))))
                line = "handle %x:" % (handle >> 16)
                for name, atype, fmt in SHOW_OPTS[:None if every else 1]:
                    if atype not in opts:
                        continue
                    val = struct.unpack(fmt, opts[atype])[0]
                    line += (" %s 0x%02x" if fmt == "=B" else " %s %d") % (name, val)
                print(line)
            off += (mlen + 3) & ~3


def usage():
    sys.stderr.write(__doc__)
    sys.exit(2)


def main(argv):
    if len(argv) < 3:
        usage()
    if argv[1] == "show" and len(argv) == 3:
        return show(argv[2])
    if argv[1] == "show" and len(argv) == 4 and argv[3] == "all":
        return show(argv[2], True)
    flags = {"add": NLM_F_CREATE | NLM_F_EXCL, "change": 0,
             "replace": NLM_F_CREATE | NLM_F_REPLACE}.get(argv[1])
    if flags is None:
        usage()
    dev = argv[2]
    kind, handle, opts, nested = b"pfcwd\0", 0, b"", NLA_F_NESTED
    parent = TC_H_ROOT
    have_opts = False
    args = argv[3:]
    while args:
        key = args.pop(0)
        if key in U32_OPTS:
            opts += nla(U32_OPTS[key], struct.pack("=I", int(args.pop(0), 0)))
            have_opts = True
        elif key == "lossless":
            opts += nla(TCA_PFCWD_LOSSLESS, struct.pack("=B", int(args.pop(0), 0)))
            have_opts = True
        elif key == "attr":
            t, h = args.pop(0).split(":")
            opts += nla(int(t, 0), bytes.fromhex(h))
            have_opts = True
        elif key == "handle":
            handle = int(args.pop(0), 16) << 16
        elif key == "parent":
            maj, mnr = args.pop(0).split(":")
            parent = (int(maj, 16) << 16) | int(mnr or "0", 16)
        elif key == "kind":
            kind = args.pop(0).encode() + b"\0"
        elif key == "noflag":
            nested = 0
        else:
            usage()

    ifindex = socket.if_nametoindex(dev)
    body = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex, handle,
                       parent, 0)
    body += nla(TCA_KIND, kind)
    if have_opts:
        body += nla(TCA_OPTIONS | nested, opts)
    hdr = struct.pack("=IHHII", 16 + len(body), RTM_NEWQDISC,
                      NLM_F_REQUEST | NLM_F_ACK | flags, 1, 0)

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.send(hdr + body)
    while True:
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data, off)
            if mtype == NLMSG_ERROR:
                err = -struct.unpack_from("=i", data, off + 16)[0]
                # The request follows the error code: its header only if
                # capped, else all of it; the extack TLVs come after.
                if mflags & NLM_F_CAPPED:
                    tlv = off + 20 + 16
                else:
                    tlv = off + 20 + struct.unpack_from("=I", data, off + 20)[0]
                if mflags & NLM_F_ACK_TLVS:
                    while tlv + 4 <= off + mlen:
                        alen, atype = struct.unpack_from("=HH", data, tlv)
                        if alen < 4:
                            break
                        if atype == NLMSGERR_ATTR_MSG:
                            msg = data[tlv + 4:tlv + alen].rstrip(b"\0")
                            print("extack: " + msg.decode(errors="replace"))
                        tlv += (alen + 3) & ~3
                if err:
                    print("error: %s" % os.strerror(err))
                return err
            off += (mlen + 3) & ~3


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        sys.dont_write_bytecode = True
        import reqserve
        sys.exit(reqserve.serve(sys.argv[2],
                                lambda args: main([sys.argv[0]] + args)))
    sys.exit(main(sys.argv))
