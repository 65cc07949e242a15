// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd's pure priority-list parser and formatter (pfcwd/prio_list.c),
 * compiled into pfcsim.ko as well so that both modules accept exactly the
 * same lists.  Pure code: no locking, callable from any context.
 */
#include "../../../pfcwd/prio_list.c"
