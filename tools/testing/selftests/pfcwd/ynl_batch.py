#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# cli.py's requests, many through one process (a request server,
# reqserve.py): each request is a line of cli.py's own arguments ("--do
# port-get --json '{...}'"), run through the kernel's ynl library
# (tools/net/ynl/lib, the YnlFamily cli.py builds); its output is what
# cli.py --output-json prints - the reply as one JSON line, or the NlError
# with its errno and extack - and its exit status cli.py's.
#
#   ynl_batch.py YNL_DIR SPEC OUTDIR
#
# Under TCG every cli.py run costs about a second and a half (Python, its
# imports, parsing the 1000-line spec); ynl.sh makes some seventy
# requests.  The requests, their encoding, the replies and the errors are
# the library's, as with cli.py; ynl.sh still runs cli.py itself for
# --list-ops, and ynl_listen.py subscribes.

import argparse
import json
import sys

ynl_dir, spec, outdir = sys.argv[1:4]
sys.dont_write_bytecode = True
sys.path.insert(0, ynl_dir + '/tools/net/ynl')
from lib import YnlFamily, Netlink, NlError  # noqa: E402
import reqserve  # noqa: E402
import ynl_json  # noqa: E402


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f'ynl_batch: bad request: {message}')
        sys.exit(2)


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


def main():
    ynl = YnlFamily(spec, '')
    p = parser()

    def run(argv):
        """One request; prints its output; returns cli.py's status."""
        args = p.parse_args(argv)
        try:
            attrs = json.loads(args.json_text) if args.json_text else {}
        except ValueError as e:
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
        print(ynl_json.dumps(reply))
        return 0

    return reqserve.serve(outdir, run)


sys.exit(main())
