#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Listens to pfcwd's "events" multicast group through the kernel's own ynl
# library (tools/net/ynl/lib, what cli.py --subscribe uses) and prints the
# notifications as cli.py --output-json does, one JSON list.  Unlike
# cli.py, which sleeps a fixed time before it reads anything, it stops
# LINGER seconds after the COUNT-th notification (so that one too many
# still shows), or at TIMEOUT seconds; exit status 1 if fewer than COUNT
# came.
#
#   ynl_listen.py YNL_DIR SPEC COUNT TIMEOUT LINGER
#
# It waits in nanosleep between reads, which ynl.sh's wait_subscribed()
# takes as "subscribed".

import sys
import time

ynl_dir, spec, count, timeout, linger = sys.argv[1:6]
sys.path.insert(0, ynl_dir + '/tools/net/ynl')
from lib import YnlFamily  # noqa: E402
import ynl_json  # noqa: E402


ynl = YnlFamily(spec, '')
ynl.ntf_subscribe('events')
count, now = int(count), time.monotonic()
end = now + float(timeout)
while now < end:
    time.sleep(0.05)
    ynl.check_ntf()
    now = time.monotonic()
    if len(ynl.async_msg_queue) >= count:
        end = min(end, now + float(linger))
print(ynl_json.dumps(ynl.async_msg_queue))
sys.exit(0 if len(ynl.async_msg_queue) >= count else 1)
