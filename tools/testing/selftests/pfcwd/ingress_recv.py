#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Counts the frames pfcsim's inject_rx delivers to the stack of a device,
# past its ingress hooks.
#
#   ingress_recv.py DEV KIND READY STOP
#
# KIND is "tagged" (inject_rx "PRIO COUNT": EtherType 0x88b5 once the core
# has taken the VLAN tag off), "ipv4" or "ipv6" (inject_rx "ipv4 DSCP
# COUNT"...: IP protocol 253).  A packet socket bound to DEV and to that
# EtherType is a protocol handler: it sees what the ingress hooks let
# through, unlike a tap (ETH_P_ALL), which sees every frame before them.
#
# The file READY is created once the socket is bound.  Frames are counted
# until the file STOP exists and the socket's queue is empty: inject_rx
# delivers synchronously, so creating STOP after the last inject_rx write
# returned means every frame that got through is counted.  Prints one line
# "PRIO COUNT" per priority seen (the priority field of the payload), in
# order, then "sock_drops N": frames the socket itself lost (queue full),
# which would make the counts meaningless.

import os
import socket
import struct
import sys

MAGIC = 0x70666377          # "pfcw", as pfcwd-pkt and pfcsim
IP_PROTO = 253
SOL_PACKET = 263
PACKET_STATISTICS = 6
SO_RCVBUFFORCE = 33

# kind: (EtherType, offset of the IP protocol byte or None, payload offset)
KINDS = {
    "tagged": (0x88b5, None, 14),
    "ipv4": (0x0800, 14 + 9, 14 + 20),
    "ipv6": (0x86dd, 14 + 6, 14 + 40),
}


def main():
    if len(sys.argv) != 5 or sys.argv[2] not in KINDS:
        sys.exit("usage: ingress_recv.py DEV tagged|ipv4|ipv6 READY STOP")
    dev, kind, ready, stop = sys.argv[1:]
    etype, proto_at, off = KINDS[kind]

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(etype))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((dev, etype))
    s.settimeout(0.05)
    open(ready, "w").close()

    counts = {}
    while True:
        try:
            data = s.recv(65536)
        except socket.timeout:
            if os.path.exists(stop):
                break
            continue
        if len(data) < off + 12:
            continue
        if proto_at is not None and data[proto_at] != IP_PROTO:
            continue
        magic, prio, _ = struct.unpack("!III", data[off:off + 12])
        if magic != MAGIC:
            continue
        counts[prio] = counts.get(prio, 0) + 1

    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    for prio in sorted(counts):
        print(prio, counts[prio])
    print("sock_drops", drops)


if __name__ == "__main__":
    main()
