/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcwd - the interface for drivers that push PFC events to the watchdog.
 */
#ifndef _NET_PFCWD_H
#define _NET_PFCWD_H

#include <linux/netdevice.h>
#include <linux/types.h>

void pfcwd_report_pause(struct net_device *dev, unsigned int prio, u16 quanta);

#endif /* _NET_PFCWD_H */
