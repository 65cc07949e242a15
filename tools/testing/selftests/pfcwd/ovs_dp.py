#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# An Open vSwitch kernel datapath for pfcwd's selftests, made over the
# datapath's own generic netlink families (include/uapi/linux/openvswitch.h),
# without ovs-vswitchd: what matters to software PFC is the datapath's
# receive hook on each port, which is the same whoever programs the flows.
# With no flow and no upcall listener, the datapath takes every frame its
# ports receive (its rx_handler) and drops it.
#
#   ovs_dp.py add DP DEV...    a datapath DP (its local port, the device DP)
#                              with each DEV as a netdev vport
#   ovs_dp.py del DP           the datapath and its vports
#
# Errors print "error: ERRNO_NAME: extack message" and exit 1.
import errno
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genl  # noqa: E402

OVS_DATAPATH_VERSION, OVS_VPORT_VERSION = 2, 1
OVS_DP_CMD_NEW, OVS_DP_CMD_DEL = 1, 2
OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID = 1, 2
OVS_VPORT_CMD_NEW = 1
OVS_VPORT_ATTR_TYPE, OVS_VPORT_ATTR_NAME, OVS_VPORT_ATTR_UPCALL_PID = 2, 3, 5
OVS_VPORT_TYPE_NETDEV = 1


class Family(genl.Genl):
    """A generic netlink family whose messages start with struct
    ovs_header (the datapath's ifindex)."""

    def __init__(self, name, version):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               genl.NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.s.setsockopt(genl.SOL_NETLINK, genl.NETLINK_EXT_ACK, 1)
        self.seq = 1
        self.version = version
        self.family, _ = self.resolve(name)

    def ovs(self, cmd, dp_ifindex, attrs):
        payload = struct.pack('i', dp_ifindex) + b''.join(attrs)
        return self.request(cmd, payload, version=self.version)


def u32(v):
    return struct.pack('I', v)


def name(s):
    return s.encode() + b'\0'


def add(dp, devs):
    dps = Family('ovs_datapath', OVS_DATAPATH_VERSION)
    dps.ovs(OVS_DP_CMD_NEW, 0, [genl.attr(OVS_DP_ATTR_NAME, name(dp)),
                                genl.attr(OVS_DP_ATTR_UPCALL_PID, u32(0))])
    ifindex = int(open('/sys/class/net/%s/ifindex' % dp).read())
    vps = Family('ovs_vport', OVS_VPORT_VERSION)
    for dev in devs:
        vps.ovs(OVS_VPORT_CMD_NEW, ifindex,
                [genl.attr(OVS_VPORT_ATTR_TYPE, u32(OVS_VPORT_TYPE_NETDEV)),
                 genl.attr(OVS_VPORT_ATTR_NAME, name(dev)),
                 genl.attr(OVS_VPORT_ATTR_UPCALL_PID, u32(0))])


def main(argv):
    if len(argv) >= 3 and argv[1] == 'add':
        fn = lambda: add(argv[2], argv[3:])  # noqa: E731
    elif len(argv) == 3 and argv[1] == 'del':
        fn = lambda: Family('ovs_datapath', OVS_DATAPATH_VERSION).ovs(  # noqa: E731
            OVS_DP_CMD_DEL, 0, [genl.attr(OVS_DP_ATTR_NAME, name(argv[2]))])
    else:
        print(__doc__ or 'usage: ovs_dp.py add DP DEV... | del DP', file=sys.stderr)
        return 2
    try:
        fn()
    except genl.NlError as e:
        print('error: %s: %s' % (errno.errorcode.get(e.err, e.err), e.msg),
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
