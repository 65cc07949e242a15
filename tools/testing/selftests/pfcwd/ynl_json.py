# SPDX-License-Identifier: GPL-2.0
#
# ynl replies and notifications as JSON, the way cli.py --output-json
# prints them: bytes as hex; sets (of flag names) as lists, sorted here so
# that the same reply always prints the same.  For ynl_batch.py and
# ynl_listen.py.

import json


def _encode(obj):
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, set):
        return sorted(obj)
    raise TypeError(repr(obj))


def dumps(obj):
    """One JSON line of a ynl reply or list of notifications."""
    return json.dumps(obj, default=_encode)
