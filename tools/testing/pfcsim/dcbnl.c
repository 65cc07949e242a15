// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's IEEE DCB ops: PFC, with the driver knobs of ieee_getpfc and
 * ieee_setpfc (delay, failure, swapped or absent counters, the carrier
 * bounce, the ice-like reopen), ETS and the DCBX mode.
 *
 * Locking and context: the dcbnl ops are called in process context under
 * RTNL (dcbnl, pfcwd).  The DCB configuration (pfc_en, mbc, delay, ETS),
 * the knobs and the call counters are under port->lock (a spinlock, BH
 * disabled), under which nothing sleeps: ieee_getpfc sleeps for
 * getpfc_delay_us outside it, so it must not be called from atomic
 * context.  ieee_setpfc queues no work once port deletion has set
 * port->dead; with setpfc_reopen it closes and reopens the netdev from
 * within the call, under RTNL, port->lock released.
 *
 * Calls pause.c and netdev.c.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/spinlock.h>
#include <net/dcbnl.h>

#include "pfcsim.h"

/* --- dcbnl (RTNL held, process context) ------------------------------------ */

/* Sleeps @us microseconds, as a firmware command would; may sleep. */
static void pfcsim_sleep_us(u32 us)
{
	if (!us)
		return;
	if (us < 20 * USEC_PER_MSEC)
		usleep_range(us, us + us / 8 + 10);
	else
		msleep(DIV_ROUND_UP(us, USEC_PER_MSEC));
}

/* May sleep (getpfc_delay_us): process context only. */
static int pfcsim_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct pfcsim_port *port = netdev_priv(dev);
	struct pfcsim_snap snap;
	u32 delay, fail;
	bool swap;

	memset(pfc, 0, sizeof(*pfc));
	spin_lock_bh(&port->lock);
	port->calls[PFCSIM_C_GETPFC]++;
	delay = port->knob[PFCSIM_K_GETPFC_DELAY];
	fail = port->knob[PFCSIM_K_GETPFC_FAIL];
	spin_unlock_bh(&port->lock);
	pfcsim_sleep_us(delay);
	if (fail)
		return -(int)fail;

	pfc->pfc_cap = PFCSIM_NUM_PRIO;
	spin_lock_bh(&port->lock);
	pfc->pfc_en = port->pfc_en;
	pfc->mbc = port->mbc;
	pfc->delay = port->delay;
	if (!port->knob[PFCSIM_K_NO_COUNTERS]) {
		pfcsim_read_counters(port, ktime_get(), &snap);
		swap = port->knob[PFCSIM_K_SWAP];
		memcpy(pfc->requests, swap ? snap.ind : snap.req,
		       sizeof(pfc->requests));
		memcpy(pfc->indications, swap ? snap.req : snap.ind,
		       sizeof(pfc->indications));
	}
	spin_unlock_bh(&port->lock);
	return 0;
}

static int pfcsim_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct pfcsim_port *port = netdev_priv(dev);
	bool changed, reopen;
	ktime_t now;
	u32 fail;

	spin_lock_bh(&port->lock);
	port->calls[PFCSIM_C_SETPFC]++;
	fail = port->knob[PFCSIM_K_SETPFC_FAIL];
	if (fail) {
		spin_unlock_bh(&port->lock);
		return -(int)fail;
	}
	now = ktime_get();
	changed = port->pfc_en != pfc->pfc_en;
	pfcsim_fold(port, now);
	port->pfc_en = pfc->pfc_en;
	port->mbc = pfc->mbc;
	port->delay = pfc->delay;
	pfcsim_reconfigure(port);
	if (changed)
		pfcsim_bounce(port, now);
	reopen = changed && port->knob[PFCSIM_K_SETPFC_REOPEN];
	spin_unlock_bh(&port->lock);
	/* ice: enough of an ifdown/ifup to apply it, inside the call. */
	if (reopen && netif_running(dev)) {
		ASSERT_RTNL();
		dev_close(dev);
		netdev_state_change(dev);
		dev_open(dev, NULL);
		netdev_state_change(dev);
	}
	return 0;
}

static int pfcsim_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct pfcsim_port *port = netdev_priv(dev);

	spin_lock_bh(&port->lock);
	*ets = port->ets;
	spin_unlock_bh(&port->lock);
	return 0;
}

static int pfcsim_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct pfcsim_port *port = netdev_priv(dev);
	bool has_ets = false;
	int bw = 0, i;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= PFCSIM_NUM_PRIO)
			return -EINVAL;
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			has_ets = true;
			bw += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_CB_SHAPER:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			return -EINVAL;
		}
	}
	/* The ETS classes share the bandwidth left by the others. */
	if (has_ets && bw != 100)
		return -EINVAL;

	spin_lock_bh(&port->lock);
	port->ets = *ets;
	port->ets.ets_cap = PFCSIM_NUM_PRIO;
	spin_unlock_bh(&port->lock);
	return 0;
}

static u8 pfcsim_getdcbx(struct net_device *dev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static u8 pfcsim_setdcbx(struct net_device *dev, u8 mode)
{
	return mode == (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) ? 0 : 1;
}

const struct dcbnl_rtnl_ops pfcsim_dcbnl_ops = {
	.ieee_getets	= pfcsim_ieee_getets,
	.ieee_setets	= pfcsim_ieee_setets,
	.ieee_getpfc	= pfcsim_ieee_getpfc,
	.ieee_setpfc	= pfcsim_ieee_setpfc,
	.getdcbx	= pfcsim_getdcbx,
	.setdcbx	= pfcsim_setdcbx,
};
