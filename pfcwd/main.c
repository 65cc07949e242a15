// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd - PFC storm watchdog for lossless Ethernet.
 *
 * Module entry: registers the parts of pfcwd.ko in order and unregisters
 * them in reverse.  Runs in process context only (module load and unload).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "pfcwd.h"

static int __init pfcwd_init(void)
{
	int err;

	err = pfcwd_sched_register();
	if (err) {
		pr_err("cannot register the pfcwd qdisc: %d\n", err);
		return err;
	}
	return 0;
}

static void __exit pfcwd_exit(void)
{
	pfcwd_sched_unregister();
}

module_init(pfcwd_init);
module_exit(pfcwd_exit);

MODULE_DESCRIPTION("PFC storm watchdog and PFC-aware qdisc");
MODULE_LICENSE("GPL");
