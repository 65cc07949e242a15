# SPDX-License-Identifier: GPL-2.0
"""reqserve.py - the selftests' Python helpers as request servers.

Under TCG a Python start costs a quarter of a second (-S, no imports) to
two seconds (Scapy), and the scripts make hundreds of requests.  A helper
run as "HELPER ... serve DIR" answers them all from one process, one at a
time: a line of shell-quoted arguments on its standard input; the
request's standard output and error go to the files DIR/out and DIR/err,
then "%% rc N" (N its exit status) - or another "%% ..." line the helper
gives - goes to its standard output.  EOF ends it.  The replies are files
because bash reads a pipe a byte at a time.  lib.sh's srv_start and
srv_ask are the shell's side.
"""
import contextlib
import os
import shlex
import sys
import traceback


def exit_code(e):
    """A SystemExit's code as an exit status."""
    if e.code is None:
        return 0
    return e.code if isinstance(e.code, int) else 1


def serve(outdir, run, at_end=None):
    """Answers requests on stdin until EOF: run(ARGS) with its output in
    DIR/out and DIR/err returns an exit status, or a reply line of its own
    ("%% pid N").  Calls at_end() at EOF.  Returns 0."""
    out, err = os.path.join(outdir, "out"), os.path.join(outdir, "err")
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        with open(out, "w") as o, open(err, "w") as e, \
                contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            try:
                rc = run(shlex.split(line))
            except SystemExit as x:
                rc = exit_code(x)
            except Exception:   # what a run of its own would have printed
                traceback.print_exc()
                rc = 1
        sys.stdout.write(rc if isinstance(rc, str) else "%%%% rc %d" % rc)
        sys.stdout.write("\n")
        sys.stdout.flush()
    if at_end:
        at_end()
    return 0
