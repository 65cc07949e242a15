#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# cli.py's requests, many through one process: reads one request a line on
# standard input, in cli.py's own words ("--do port-get --json '{...}'",
# shell-quoted), runs it through the kernel's ynl library
# (tools/net/ynl/lib, the YnlFamily cli.py builds), writes what cli.py
# --output-json would print for it - the reply as one JSON line, or the
# NlError with its errno and extack - to the file OUTDIR/out, then prints
# a line "%% rc N" with the exit status cli.py would have had.  EOF ends
# it.  (A file, not the pipe: bash reads a pipe a byte at a time.)
#
#   ynl_batch.py YNL_DIR SPEC OUTDIR
#
# Under TCG every cli.py run costs about a second and a half (Python, its
# imports, parsing the 1000-line spec); ynl.sh makes some seventy
# requests.  The requests, their encoding, the replies and the errors are
# the library's, as with cli.py; ynl.sh still runs cli.py itself for
# --list-ops with the schema validation, and ynl_listen.py subscribes.

import argparse
import contextlib
import json
import os
import shlex
import sys

ynl_dir, spec, outdir = sys.argv[1:4]
sys.path.insert(0, ynl_dir + '/tools/net/ynl')
from lib import YnlFamily, Netlink, NlError  # noqa: E402


def encode(obj):
    """As cli.py's YnlEncoder: bytes as hex, sets as lists."""
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, set):
        return list(obj)
    raise TypeError(repr(obj))


class Refused(Exception):
    """A request line cli.py's argument parser would have refused."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)


def parser():
    p = Parser(prog='ynl_batch', add_help=False)
    p.add_argument('--json', dest='json_text', type=str)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument('--do', type=str)
    group.add_argument('--dump', type=str)
    for name, flag in (('--replace', Netlink.NLM_F_REPLACE),
                       ('--excl', Netlink.NLM_F_EXCL),
                       ('--create', Netlink.NLM_F_CREATE),
                       ('--append', Netlink.NLM_F_APPEND)):
        p.add_argument(name, dest='flags', action='append_const',
                       const=flag)
    return p


def run(ynl, p, line):
    """Runs one request line; prints its output; returns cli.py's status."""
    try:
        args = p.parse_args(shlex.split(line))
        attrs = json.loads(args.json_text) if args.json_text else {}
    except (Refused, ValueError) as e:
        print(f'ynl_batch: bad request: {e}')
        return 2
    try:
        if args.do:
            reply = ynl.do(args.do, attrs, args.flags)
        else:
            reply = ynl.dump(args.dump, attrs)
    except NlError as e:
        print(e)
        return 1
    print(json.dumps(reply, default=encode))
    return 0


def main():
    ynl = YnlFamily(spec, '')
    p = parser()
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        with open(os.path.join(outdir, 'out'), 'w') as out, \
                contextlib.redirect_stdout(out):
            try:
                rc = run(ynl, p, line)
            except Exception as e:  # what would have been cli.py's traceback
                print(f'ynl_batch: {type(e).__name__}: {e}')
                rc = 1
        print(f'%% rc {rc}', flush=True)


main()
