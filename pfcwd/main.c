// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd - PFC storm watchdog for lossless Ethernet.
 *
 * Module entry: brings up the parts of pfcwd.ko in order (the listeners of
 * the actions, poller, the ingress hook's DCB notifier, port lifecycle,
 * debugfs, then the netlink family and the qdisc kind, which create ports)
 * and takes them down in reverse.  Process context only (module load and
 * unload).
 *
 * The listeners (the netlink events, the qdisc's band queues) subscribe to
 * the actions first and unsubscribe last: actions run on ports only, and
 * no port exists before the netlink family or the qdisc kind is
 * registered, nor after pfcwd_port_exit(), so every event is heard
 * exactly as when action.c called them directly.
 *
 * The two registrations users can reach come last, and the qdisc kind
 * last of all.  While pfcwd_init() runs the module is COMING, which
 * try_module_get() lets through: a "tc qdisc add ... pfcwd" (or a netlink
 * dump, which pins the module between its reads) may start the moment its
 * registration is visible, and a failed init frees the module whatever
 * references were taken.  So nothing may fail after the first of them
 * that can hold one.  register_qdisc() fails only when the kind's name is
 * taken, which cannot happen to this module's own; genl_register_family()
 * can fail for memory, so it goes first, when a failure leaves no qdisc
 * behind.  Its ports (netlink holds) are released by pfcwd_port_exit() on
 * that path, after the family is gone and no request is in flight
 * (genl_unregister_family() waits for them).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "pfcwd.h"

/* Subscribes the listeners of the actions (@on), or unsubscribes them. */
static void pfcwd_listen(bool on)
{
	pfcwd_action_listen(PFCWD_LISTENER_NL, on ? &pfcwd_nl_listener : NULL);
	pfcwd_action_listen(PFCWD_LISTENER_SCHED,
			    on ? &pfcwd_sched_listener : NULL);
}

static int __init pfcwd_init(void)
{
	int err;

	pfcwd_listen(true);
	err = pfcwd_poll_init();
	if (err)
		goto err_listen;
	err = pfcwd_ingress_init();
	if (err)
		goto err_poll;
	err = pfcwd_port_init();
	if (err)
		goto err_ingress;
	pfcwd_debugfs_init();
	err = pfcwd_nl_init();
	if (err) {
		pr_err("cannot register the pfcwd netlink family: %d\n", err);
		goto err_port;
	}
	err = pfcwd_sched_register();
	if (err) {
		pr_err("cannot register the pfcwd qdisc: %d\n", err);
		goto err_nl;
	}
	return 0;

err_nl:
	pfcwd_nl_exit();
err_port:
	pfcwd_debugfs_exit();
	pfcwd_port_exit();
err_ingress:
	pfcwd_ingress_exit();
err_poll:
	pfcwd_poll_exit();
err_listen:
	pfcwd_listen(false);
	return err;
}

static void __exit pfcwd_exit(void)
{
	/* No qdisc is left: each held a reference to this module. */
	pfcwd_sched_unregister();
	pfcwd_nl_exit();
	pfcwd_port_exit();
	pfcwd_ingress_exit();
	pfcwd_debugfs_exit();
	pfcwd_poll_exit();
	pfcwd_listen(false);
	/* kfree_rcu() of the last ports must finish before the code goes. */
	rcu_barrier();
}

module_init(pfcwd_init);
module_exit(pfcwd_exit);

MODULE_DESCRIPTION("PFC storm watchdog and PFC-aware qdisc");
MODULE_LICENSE("GPL");
MODULE_VERSION(PFCWD_VERSION);
