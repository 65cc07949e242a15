# SPDX-License-Identifier: GPL-2.0
"""
tdc_config_local.py - pfcwd's settings for the kernel's tc-testing runner.

tdc_config.py imports this module (found through PYTHONPATH, tdc.sh).
tdc runs each command with the environment ENVIR only: it must carry PATH
and TC_LIB_DIR, through which Debian's tc finds the pfcwd plugin
(build/tools/q_pfcwd.so of this tree).
"""

import os
import shutil

_TOP = os.path.abspath(os.path.join(os.path.dirname(__file__),
                                    '..', '..', '..', '..', '..'))

ENVIR = os.environ.copy()
ENVIR['TC_LIB_DIR'] = os.path.join(_TOP, 'build', 'tools')

EXTRA_NAMES = {
    'TC': shutil.which('tc') or '/usr/sbin/tc',
    'IP': shutil.which('ip') or '/usr/sbin/ip',
}
