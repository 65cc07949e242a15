// SPDX-License-Identifier: GPL-2.0
/*
 * The push source: drivers (and pfcwd's own software PFC receive path) that
 * see each PFC frame report it here instead of, or besides, keeping
 * counters for ieee_getpfc().
 *
 * Context: any (hard irq, NAPI, process).  Lock-free: an RCU lookup of the
 * port, atomics on the priority's push counters, and a poll asked for
 * when the port was quiet (at most once per quiet interval,
 * pfcwd_poll_request()).
 */
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>

#include <net/pfcwd.h>

#include "pfcwd.h"

/**
 * pfcwd_report_pause - report a received PFC frame for one priority
 * @dev: the device that received it
 * @prio: the priority, 0-7
 * @quanta: its pause time in quanta; 0 is XON, which is never pause
 *
 * Safe in any context.  Does nothing unless @dev is a pfcwd port.  A port
 * that has pushed once is from then on watched through what it pushes, not
 * through its ieee_getpfc() indications.
 */
void pfcwd_report_pause(struct net_device *dev, unsigned int prio, u16 quanta)
{
	struct pfcwd_port *port;
	struct pfcwd_push *push;
	u64 now;

	if (prio >= PFCWD_NUM_PRIO || !quanta)
		return;
	port = pfcwd_port_get(dev);
	if (!port)
		return;
	now = ktime_get_ns();
	push = &port->prio[prio].push;
	atomic64_cmpxchg(&push->first, 0, now);
	atomic64_set(&push->last, now);
	atomic64_inc(&push->xoff);
	if (!READ_ONCE(port->push_active))
		WRITE_ONCE(port->push_active, true);
	pfcwd_poll_request(port, now);
	pfcwd_port_put(port);
}
EXPORT_SYMBOL_GPL(pfcwd_report_pause);
