// SPDX-License-Identifier: GPL-2.0
/*
 * The push source: drivers (and pfcwd's own software PFC receive path) that
 * see each PFC frame report it here instead of, or besides, keeping
 * counters for ieee_getpfc().
 *
 * Each report also keeps the priority's exact pause history (history.c):
 * paused from the report until its quanta run out at the link speed
 * (swpfc.quantum_ps, the speed pfcwd last read), a later report's quanta
 * replacing an earlier one's, an XON ending the pause; on a device with
 * DCB, a frame for a priority not in pfc_en (lossy, or PFC cleared by a
 * mitigation) is not honoured by the MAC and ends the pause too.  That
 * is the time the MAC honours the frames for, as for software PFC, not
 * an estimate from counters.
 *
 * Context: any (hard irq, NAPI, process).  An RCU lookup of the port,
 * atomics on the priority's push counters, and a poll asked for when the
 * port was quiet (at most once per quiet interval, pfcwd_poll_request());
 * the history under port->push_lock, a leaf spinlock taken with IRQs off
 * by the reporter and by pfcwd_push_history() (process context).
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
 * @quanta: its pause time in quanta; 0 is XON, which is never pause (it
 *	ends the pause in the priority's history)
 *
 * Safe in any context.  Does nothing unless @dev is a pfcwd port.  A port
 * that has pushed an XOFF once is from then on watched through what it
 * pushes, not through its ieee_getpfc() indications.
 */
void pfcwd_report_pause(struct net_device *dev, unsigned int prio, u16 quanta)
{
	struct pfcwd_port *port;
	struct pfcwd_push *push;
	unsigned long flags;
	u64 now, until;

	if (prio >= PFCWD_NUM_PRIO)
		return;
	port = pfcwd_port_get(dev);
	if (!port)
		return;
	now = ktime_get_ns();
	push = &port->prio[prio].push;
	until = now + pfcwd_quanta_ns(READ_ONCE(port->swpfc.quantum_ps), quanta);
	/* A MAC with DCB honours pause only for a priority in pfc_en. */
	if (port->has_dcb && !(READ_ONCE(port->pfc_en) & BIT(prio)))
		until = now;
	spin_lock_irqsave(&port->push_lock, flags);
	pfcwd_hist_pause_set(&push->paused, now, until);
	spin_unlock_irqrestore(&port->push_lock, flags);
	if (!quanta)
		goto out;
	atomic64_cmpxchg(&push->first, 0, now);
	atomic64_set(&push->last, now);
	atomic64_inc(&push->xoff);
	if (!READ_ONCE(port->push_active))
		WRITE_ONCE(port->push_active, true);
	pfcwd_poll_request(port, now);
out:
	pfcwd_port_put(port);
}
EXPORT_SYMBOL_GPL(pfcwd_report_pause);

/**
 * pfcwd_push_history - the exact pause time one priority's reports give
 * @port: a port; process context
 * @prio: the priority
 * @now: ns
 * @r: the reading (history.h)
 */
void pfcwd_push_history(struct pfcwd_port *port, int prio, u64 now,
			struct pfcwd_hist_pause_read *r)
{
	unsigned long flags;

	spin_lock_irqsave(&port->push_lock, flags);
	pfcwd_hist_pause_read(&port->prio[prio].push.paused, now, r);
	spin_unlock_irqrestore(&port->push_lock, flags);
}
