// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's per-port debugfs files, /sys/kernel/debug/pfcsim/NAME/ (what
 * each does: the comment at the top of main.c), and pfcsim_debugfs, the
 * pfcsim/ directory, which main.c creates and removes.
 *
 * Locking and context: process context.  The handlers read and write the
 * storm lists, pfc_en (fw_pfc_en), pause_rate, count_when_disabled, the
 * knobs, the profile and the call counters (ethtool_calls too) under
 * port->lock (a spinlock, BH disabled), and tx_ring, link_mbps, tx_busy,
 * tx_lock_errors and the ring depths under port->ring_lock; slow_peer_pct
 * is read under port->lock and written under both (ring_lock inside); select_pcp and
 * bql under port->lock (bql under ring_lock too, after RTNL, like tx_ring).
 * The knob, profile, tx_ring and prio_tc writes take RTNL first, then
 * port->lock, so that the three ethtool ops agree on the layout of the
 * statistics.  They never take pfcsim_lock, so deleting a port may wait
 * for them (debugfs_remove) while holding it.  The detach write takes
 * RTNL.  The push_pause write takes
 * port->push_lock (pause.c), an inject_rx write port->inject_lock
 * (netdev.c).
 *
 * Calls pause.c and netdev.c, and reads profile.c's table.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "../../../pfcwd/prio_list.h"
#include "pfcsim.h"

/* /sys/kernel/debug/pfcsim/: created and removed by main.c. */
struct dentry *pfcsim_debugfs;

struct pfcsim_knob_def {
	const char *name;		/* its debugfs file */
	u32 max;			/* accepted: 0..max */
};

static const struct pfcsim_knob_def pfcsim_knob_defs[PFCSIM_NUM_KNOBS] = {
	[PFCSIM_K_STATS_PERIOD]		= { "stats_period_ms", 60000 },
	[PFCSIM_K_REFRESH_ON_READ]	= { "stats_refresh_on_read", 1 },
	[PFCSIM_K_GETPFC_DELAY]		= { "getpfc_delay_us", 1000000 },
	[PFCSIM_K_GETPFC_FAIL]		= { "getpfc_fail", MAX_ERRNO },
	[PFCSIM_K_SETPFC_FAIL]		= { "setpfc_fail", MAX_ERRNO },
	[PFCSIM_K_SETPFC_BOUNCE]	= { "setpfc_bounce_ms", 60000 },
	[PFCSIM_K_SWAP]			= { "swap", 1 },
	[PFCSIM_K_NO_COUNTERS]		= { "no_counters", 1 },
	[PFCSIM_K_PAUSE_DURATION]	= { "pause_duration", 3 },
	[PFCSIM_K_SETPFC_REOPEN]	= { "setpfc_reopen", 1 },
	[PFCSIM_K_FRAME_COUNTERS]	= { "frame_counters", 1 },
	[PFCSIM_K_STATS_JITTER]		= { "stats_jitter_ms", 10000 },
};

static const char * const pfcsim_calls_names[PFCSIM_NUM_CALLS] = {
	[PFCSIM_C_STATS_READS]	= "stats_reads",
	[PFCSIM_C_GETPFC]	= "getpfc_calls",
	[PFCSIM_C_SETPFC]	= "setpfc_calls",
};

/* Their debugfs files. */
static const char *const pfcsim_list_names[PFCSIM_NUM_LISTS] = {
	[PFCSIM_RX_STORM]	= "rx_storm",
	[PFCSIM_TX_STORM]	= "tx_storm",
	[PFCSIM_RX_SLOW]	= "rx_slow",
	[PFCSIM_TX_HANG]	= "tx_hang",
	[PFCSIM_RX_SLOW_PEER]	= "rx_slow_peer",
};

/* --- per-port debugfs (process context) ------------------------------------ */

/* Copies a whole debugfs write into @buf, NUL-terminated. */
static int pfcsim_user_arg(const char __user *ubuf, size_t count,
			   loff_t *ppos, char *buf, size_t size)
{
	if (*ppos != 0 || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

/*
 * A decimal number with no sign, no spaces and at most one trailing
 * newline; kstrtouint() alone would also take a leading '+'.  Overflow is
 * -EINVAL too, like every other bad write.
 */
static int pfcsim_parse_uint(const char *s, unsigned int *val)
{
	if (!isdigit(*s) || kstrtouint(s, 10, val))
		return -EINVAL;
	return 0;
}

static u8 *pfcsim_list_mask(struct pfcsim_port *port, enum pfcsim_list which)
{
	switch (which) {
	case PFCSIM_RX_STORM:
		return &port->rx_storm;
	case PFCSIM_TX_STORM:
		return &port->tx_storm;
	case PFCSIM_TX_HANG:
		return &port->tx_hang;
	case PFCSIM_RX_SLOW_PEER:
		return &port->rx_slow_peer;
	default:
		return &port->rx_slow;
	}
}

static ssize_t pfcsim_list_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	enum pfcsim_list which = pf->idx;
	char buf[PFCWD_PRIO_LIST_LEN + 1];
	size_t len;
	u8 mask;

	spin_lock_bh(&port->lock);
	mask = *pfcsim_list_mask(port, which);
	spin_unlock_bh(&port->lock);
	len = pfcwd_prio_list_format(mask, buf, PFCWD_PRIO_LIST_LEN);
	buf[len++] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_list_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	enum pfcsim_list which = pf->idx;
	char buf[PFCSIM_ARG_MAX];
	ktime_t now;
	u8 mask;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	err = pfcwd_prio_list_parse(buf, count, &mask);
	if (err)
		return err;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	pfcsim_fold(port, now);
	/* tx_storm is also read, without the lock, by inject_rx. */
	WRITE_ONCE(*pfcsim_list_mask(port, which), mask);
	port->changed[which] = now;
	/* A new tx_storm is a new stall: the NIC's prevention starts over. */
	if (which == PFCSIM_TX_STORM) {
		port->prevented = 0;
		port->generating = 0;
	}
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

/* fw_pfc_en: the device's pfc_en, as ieee_getpfc reports it. */
static ssize_t pfcsim_fw_pfc_en_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCWD_PRIO_LIST_LEN + 1];
	size_t len;
	u8 mask;

	spin_lock_bh(&port->lock);
	mask = port->pfc_en;
	spin_unlock_bh(&port->lock);
	len = pfcwd_prio_list_format(mask, buf, PFCWD_PRIO_LIST_LEN);
	buf[len++] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * A firmware agent (the NIC's own DCBX) rewrites pfc_en: no dcbnl call,
 * no RTM_SETDCB notification, no carrier bounce - the host only sees it
 * in the next ieee_getpfc.
 */
static ssize_t pfcsim_fw_pfc_en_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	u8 mask;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	err = pfcwd_prio_list_parse(buf, count, &mask);
	if (err)
		return err;
	spin_lock_bh(&port->lock);
	pfcsim_fold(port, ktime_get());
	port->pfc_en = mask;
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

/*
 * changed_ns: when each list last changed, in CLOCK_MONOTONIC ns (the
 * clock of ktime_get() and of pfcwd's timestamps), so that tests can time
 * pfcwd against the exact start and end of a storm.
 */
static ssize_t pfcsim_changed_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	ktime_t t[PFCSIM_NUM_LISTS];
	char buf[160];
	int i, len = 0;

	spin_lock_bh(&port->lock);
	memcpy(t, port->changed, sizeof(t));
	spin_unlock_bh(&port->lock);
	for (i = 0; i < PFCSIM_NUM_LISTS; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s %lld\n",
				 pfcsim_list_names[i], ktime_to_ns(t[i]));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* published_ns: when the periodic task last took a copy (changed_ns's clock). */
static ssize_t pfcsim_published_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[24];
	ktime_t t;
	int len;

	spin_lock_bh(&port->lock);
	t = port->pub_at;
	spin_unlock_bh(&port->lock);
	len = scnprintf(buf, sizeof(buf), "%lld\n", ktime_to_ns(t));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_uint_read(char __user *ubuf, size_t count,
				loff_t *ppos, unsigned int val)
{
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_pause_rate_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u32 rate;

	spin_lock_bh(&port->lock);
	rate = port->pause_rate;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, rate);
}

static ssize_t pfcsim_pause_rate_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int rate;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &rate);
	if (err || rate < 1 || rate > PFCSIM_RATE_MAX)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_fold(port, ktime_get());
	port->pause_rate = rate;
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_slow_pct_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u32 pct;

	spin_lock_bh(&port->lock);
	pct = port->slow_pct;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, pct);
}

/* slow_peer_pct, 1..99: the durations folded at the old share first. */
static ssize_t pfcsim_slow_pct_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int pct;
	ktime_t now;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &pct);
	if (err || pct < 1 || pct > 99)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	now = ktime_get();
	pfcsim_fold(port, now);
	pfcsim_set_slow_pct(port, pct, now);
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_cwd_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	bool cwd;

	spin_lock_bh(&port->lock);
	cwd = port->count_when_disabled;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, cwd);
}

static ssize_t pfcsim_cwd_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_fold(port, ktime_get());
	if (port->count_when_disabled != val)
		WRITE_ONCE(port->profile, PFCSIM_PROFILE_CUSTOM);
	port->count_when_disabled = val;
	pfcsim_reconfigure(port);
	spin_unlock_bh(&port->lock);
	return count;
}

/*
 * counter_32bit: not a driver knob of the profiles (a test's choice on
 * any of them), so writing it leaves the profile as it is.
 */
static ssize_t pfcsim_c32_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	bool on;

	spin_lock_bh(&port->lock);
	on = port->counter_32bit;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, on);
}

static ssize_t pfcsim_c32_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	port->counter_32bit = val;
	spin_unlock_bh(&port->lock);
	return count;
}

/* The driver knobs: one pair of handlers, the knob in the private data. */
static ssize_t pfcsim_knob_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	u32 val;

	spin_lock_bh(&port->lock);
	val = port->knob[pf->idx];
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, val);
}

static ssize_t pfcsim_knob_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > pfcsim_knob_defs[pf->idx].max)
		return err ?: -EINVAL;

	/*
	 * RTNL: no_counters, pause_duration and frame_counters change
	 * ethtool's layout.
	 */
	rtnl_lock();
	spin_lock_bh(&port->lock);
	if (port->knob[pf->idx] != val)
		WRITE_ONCE(port->profile, PFCSIM_PROFILE_CUSTOM);
	port->knob[pf->idx] = val;
	if (pf->idx == PFCSIM_K_STATS_PERIOD ||
	    pf->idx == PFCSIM_K_REFRESH_ON_READ)
		pfcsim_stats_restart(port, ktime_get());
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	return count;
}

static ssize_t pfcsim_calls_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port_file *pf = file->private_data;
	struct pfcsim_port *port = pf->port;
	char buf[24];
	u64 val;
	int len;

	spin_lock_bh(&port->lock);
	val = port->calls[pf->idx];
	spin_unlock_bh(&port->lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* "begin N complete N unbracketed N absent N drvinfo N ...", one line. */
static ssize_t pfcsim_eop_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	struct pfcsim_eop_audit a;
	char buf[PFCSIM_NUM_EOPS * 40 + 80];
	int len, i;

	spin_lock_bh(&port->lock);
	a = port->eop;
	spin_unlock_bh(&port->lock);
	len = scnprintf(buf, sizeof(buf), "unbracketed %llu absent %llu",
			a.unbracketed, a.absent);
	for (i = 0; i < PFCSIM_NUM_EOPS; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %s %llu",
				 pfcsim_eop_names[i], a.calls[i]);
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_detach_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;

	return pfcsim_uint_read(ubuf, count, ppos,
				!netif_device_present(port->dev));
}

/* 1: netif_device_detach(), as a driver in a reset; 0: attach again. */
static ssize_t pfcsim_detach_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;
	/* RTNL: the ethtool core and pfcwd check presence under it. */
	rtnl_lock();
	if (val)
		netif_device_detach(port->dev);
	else
		netif_device_attach(port->dev);
	rtnl_unlock();
	return count;
}

static ssize_t pfcsim_counter_reset_write(struct file *file,
					  const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val != 1)
		return err ?: -EINVAL;

	spin_lock_bh(&port->lock);
	pfcsim_reset_counters(port, ktime_get());
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_counter_preset_write(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err)
		return err;

	spin_lock_bh(&port->lock);
	pfcsim_preset_counters(port, ktime_get(), val);
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_profile_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	const char *name = "custom";
	char buf[32];
	int prof, len;

	spin_lock_bh(&port->lock);
	prof = port->profile;
	spin_unlock_bh(&port->lock);
	if (prof != PFCSIM_PROFILE_CUSTOM)
		name = pfcsim_profiles[prof].name;
	len = scnprintf(buf, sizeof(buf), "%s\n", name);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A profile's name, with at most one trailing newline. */
static ssize_t pfcsim_profile_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	const struct pfcsim_profile *prof;
	char buf[PFCSIM_ARG_MAX];
	size_t len;
	ktime_t now;
	int err, i;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (err)
		return err;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (i = 0; i < pfcsim_num_profiles; i++)
		if (!strcmp(buf, pfcsim_profiles[i].name))
			break;
	if (i == pfcsim_num_profiles)
		return -EINVAL;
	prof = &pfcsim_profiles[i];

	rtnl_lock();
	spin_lock_bh(&port->lock);
	now = ktime_get();
	pfcsim_fold(port, now);
	memcpy(port->knob, prof->knob, sizeof(port->knob));
	port->count_when_disabled = prof->count_when_disabled;
	WRITE_ONCE(port->profile, i);
	pfcsim_reconfigure(port);
	pfcsim_stats_restart(port, now);
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	return count;
}

static ssize_t pfcsim_push_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[4];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", !!READ_ONCE(port->push_fn));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_push_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;
	err = pfcsim_push_set(port, val);
	return err ?: count;
}

/*
 * "PRIO COUNT" (one digit 0-7, one space, a decimal count) or
 * "ipv4 DSCP COUNT" / "ipv6 DSCP COUNT" (DSCP 0-63), single spaces.
 */
static int pfcsim_parse_inject(char *buf, struct pfcsim_rx_spec *spec,
			       unsigned int *count)
{
	unsigned int dscp;
	char *arg, *sp;

	memset(spec, 0, sizeof(*spec));
	if (!strncmp(buf, "ipv4 ", 5) || !strncmp(buf, "ipv6 ", 5)) {
		spec->kind = buf[3] == '4' ? PFCSIM_RX_IPV4 : PFCSIM_RX_IPV6;
		arg = buf + 5;
		sp = strchr(arg, ' ');
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		if (pfcsim_parse_uint(arg, &dscp) || dscp >= PFCSIM_NUM_DSCP)
			return -EINVAL;
		spec->dscp = dscp;
		arg = sp + 1;
	} else if (buf[0] >= '0' && buf[0] <= '7' && buf[1] == ' ') {
		spec->kind = PFCSIM_RX_TAGGED;
		spec->prio = buf[0] - '0';
		arg = buf + 2;
	} else {
		return -EINVAL;
	}
	if (pfcsim_parse_uint(arg, count) || *count < 1 ||
	    *count > PFCSIM_INJECT_MAX)
		return -EINVAL;
	return 0;
}

static ssize_t pfcsim_inject_rx_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	struct pfcsim_rx_spec spec;
	char buf[PFCSIM_ARG_MAX];
	unsigned int n;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_inject(buf, &spec, &n);
	if (!err)
		err = pfcsim_inject(port, &spec, n);
	return err ?: count;
}

static ssize_t pfcsim_tx_ring_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u32 size;

	spin_lock_bh(&port->ring_lock);
	size = port->ring_size;
	spin_unlock_bh(&port->ring_lock);
	return pfcsim_uint_read(ubuf, count, ppos, size);
}

/* Any write, even of the same size, empties the rings. */
static ssize_t pfcsim_tx_ring_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	struct pfcsim_desc *desc = NULL;
	char buf[PFCSIM_ARG_MAX];
	unsigned int size;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &size);
	if (err || size > PFCSIM_RING_MAX)
		return err ?: -EINVAL;
	if (size) {
		desc = kvcalloc(PFCSIM_MAX_TXQ * size, sizeof(*desc),
				GFP_KERNEL);
		if (!desc)
			return -ENOMEM;
	}

	rtnl_lock();
	spin_lock_bh(&port->lock);
	desc = pfcsim_rings_reset(port, desc, size);
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	kvfree(desc);
	return count;
}

static ssize_t pfcsim_link_mbps_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;

	return pfcsim_uint_read(ubuf, count, ppos, READ_ONCE(port->link_mbps));
}

static ssize_t pfcsim_link_mbps_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int mbps;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &mbps);
	if (err || mbps < PFCSIM_MBPS_MIN || mbps > PFCSIM_MBPS_MAX)
		return err ?: -EINVAL;
	spin_lock_bh(&port->ring_lock);
	WRITE_ONCE(port->link_mbps, mbps);
	spin_unlock_bh(&port->ring_lock);
	return count;
}

static ssize_t pfcsim_tx_busy_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[24];
	u64 busy;
	int len;

	spin_lock_bh(&port->ring_lock);
	busy = port->tx_busy;
	spin_unlock_bh(&port->ring_lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", busy);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_tx_lock_errors_read(struct file *file,
					  char __user *ubuf, size_t count,
					  loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[24];
	u64 errors;
	int len;

	spin_lock_bh(&port->ring_lock);
	errors = port->tx_lock_errors;
	spin_unlock_bh(&port->ring_lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", errors);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_select_pcp_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	bool on;

	spin_lock_bh(&port->lock);
	on = port->select_pcp;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, on);
}

static ssize_t pfcsim_select_pcp_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;
	spin_lock_bh(&port->lock);
	WRITE_ONCE(port->select_pcp, val);
	spin_unlock_bh(&port->lock);
	return count;
}

static ssize_t pfcsim_bql_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	bool on;

	spin_lock_bh(&port->lock);
	on = port->bql;
	spin_unlock_bh(&port->lock);
	return pfcsim_uint_read(ubuf, count, ppos, on);
}

/* Empties the rings, which resets BQL's counts: none is left half kept. */
static ssize_t pfcsim_bql_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	unsigned int val;
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_uint(buf, &val);
	if (err || val > 1)
		return err ?: -EINVAL;
	rtnl_lock();
	spin_lock_bh(&port->lock);
	spin_lock(&port->ring_lock);
	port->bql = val;
	spin_unlock(&port->ring_lock);
	pfcsim_rings_reset(port, port->desc, port->ring_size);
	spin_unlock_bh(&port->lock);
	rtnl_unlock();
	return count;
}

/* The occupancy of each real TX queue's ring, space separated. */
static ssize_t pfcsim_tx_ring_depth_read(struct file *file,
					 char __user *ubuf, size_t count,
					 loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u16 depth[PFCSIM_MAX_TXQ];
	char buf[PFCSIM_MAX_TXQ * 5 + 1];
	int q, n, len = 0;

	spin_lock_bh(&port->ring_lock);
	n = port->num_txq;
	for (q = 0; q < n; q++)
		depth[q] = port->ring[q].count;
	spin_unlock_bh(&port->ring_lock);
	for (q = 0; q < n; q++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s%u",
				 q ? " " : "", depth[q]);
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t pfcsim_prio_tc_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	u8 tc[PFCSIM_NUM_PRIO];
	char buf[2 * PFCSIM_NUM_PRIO + 1];
	int p;

	spin_lock_bh(&port->lock);
	memcpy(tc, port->prio_tc, sizeof(tc));
	spin_unlock_bh(&port->lock);
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		buf[2 * p] = '0' + tc[p];
		buf[2 * p + 1] = p == PFCSIM_NUM_PRIO - 1 ? '\n' : ' ';
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf,
				       2 * PFCSIM_NUM_PRIO);
}

/*
 * Eight traffic classes 0-7, one per priority, single spaces, at most one
 * trailing newline; the classes used must be 0..max, each of them.
 */
static int pfcsim_parse_prio_tc(const char *buf, u8 tc[PFCSIM_NUM_PRIO])
{
	size_t len = strlen(buf);
	u8 used = 0, max = 0;
	int p;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 2 * PFCSIM_NUM_PRIO - 1)
		return -EINVAL;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		if (buf[2 * p] < '0' || buf[2 * p] > '7' ||
		    (p < PFCSIM_NUM_PRIO - 1 && buf[2 * p + 1] != ' '))
			return -EINVAL;
		tc[p] = buf[2 * p] - '0';
		used |= BIT(tc[p]);
		max = max(max, tc[p]);
	}
	return used == GENMASK(max, 0) ? 0 : -EINVAL;
}

static ssize_t pfcsim_prio_tc_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct pfcsim_port *port = file->private_data;
	char buf[PFCSIM_ARG_MAX];
	u8 tc[PFCSIM_NUM_PRIO];
	int err;

	err = pfcsim_user_arg(ubuf, count, ppos, buf, sizeof(buf));
	if (!err)
		err = pfcsim_parse_prio_tc(buf, tc);
	if (err)
		return err;
	rtnl_lock();
	err = pfcsim_set_layout(port, tc, port->channels);
	rtnl_unlock();
	return err ?: count;
}

#define PFCSIM_FOPS(_name, _read, _write)		\
static const struct file_operations _name = {		\
	.owner	= THIS_MODULE,				\
	.open	= simple_open,				\
	.read	= _read,				\
	.write	= _write,				\
	.llseek	= default_llseek,			\
}

PFCSIM_FOPS(pfcsim_list_fops, pfcsim_list_read, pfcsim_list_write);
PFCSIM_FOPS(pfcsim_pause_rate_fops, pfcsim_pause_rate_read,
	    pfcsim_pause_rate_write);
PFCSIM_FOPS(pfcsim_slow_pct_fops, pfcsim_slow_pct_read,
	    pfcsim_slow_pct_write);
PFCSIM_FOPS(pfcsim_cwd_fops, pfcsim_cwd_read, pfcsim_cwd_write);
PFCSIM_FOPS(pfcsim_c32_fops, pfcsim_c32_read, pfcsim_c32_write);
PFCSIM_FOPS(pfcsim_inject_rx_fops, NULL, pfcsim_inject_rx_write);
PFCSIM_FOPS(pfcsim_push_fops, pfcsim_push_read, pfcsim_push_write);
PFCSIM_FOPS(pfcsim_changed_fops, pfcsim_changed_read, NULL);
PFCSIM_FOPS(pfcsim_published_fops, pfcsim_published_read, NULL);
PFCSIM_FOPS(pfcsim_fw_pfc_en_fops, pfcsim_fw_pfc_en_read,
	    pfcsim_fw_pfc_en_write);
PFCSIM_FOPS(pfcsim_knob_fops, pfcsim_knob_read, pfcsim_knob_write);
PFCSIM_FOPS(pfcsim_calls_fops, pfcsim_calls_read, NULL);
PFCSIM_FOPS(pfcsim_counter_reset_fops, NULL, pfcsim_counter_reset_write);
PFCSIM_FOPS(pfcsim_counter_preset_fops, NULL, pfcsim_counter_preset_write);
PFCSIM_FOPS(pfcsim_eop_fops, pfcsim_eop_read, NULL);
PFCSIM_FOPS(pfcsim_detach_fops, pfcsim_detach_read, pfcsim_detach_write);
PFCSIM_FOPS(pfcsim_profile_fops, pfcsim_profile_read, pfcsim_profile_write);
PFCSIM_FOPS(pfcsim_tx_ring_fops, pfcsim_tx_ring_read, pfcsim_tx_ring_write);
PFCSIM_FOPS(pfcsim_link_mbps_fops, pfcsim_link_mbps_read,
	    pfcsim_link_mbps_write);
PFCSIM_FOPS(pfcsim_prio_tc_fops, pfcsim_prio_tc_read, pfcsim_prio_tc_write);
PFCSIM_FOPS(pfcsim_tx_busy_fops, pfcsim_tx_busy_read, NULL);
PFCSIM_FOPS(pfcsim_tx_ring_depth_fops, pfcsim_tx_ring_depth_read, NULL);
PFCSIM_FOPS(pfcsim_tx_lock_errors_fops, pfcsim_tx_lock_errors_read, NULL);
PFCSIM_FOPS(pfcsim_bql_fops, pfcsim_bql_read, pfcsim_bql_write);
PFCSIM_FOPS(pfcsim_select_pcp_fops, pfcsim_select_pcp_read,
	    pfcsim_select_pcp_write);

int pfcsim_port_debugfs(struct pfcsim_port *port)
{
	struct pfcsim_port_file *pf;
	struct dentry *dir;
	int i;

	dir = debugfs_create_dir(port->dev->name, pfcsim_debugfs);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < PFCSIM_NUM_LISTS; i++) {
		pf = &port->list_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_list_names[i], 0600, dir, pf,
				    &pfcsim_list_fops);
	}
	debugfs_create_file("pause_rate", 0600, dir, port,
			    &pfcsim_pause_rate_fops);
	debugfs_create_file("slow_peer_pct", 0600, dir, port,
			    &pfcsim_slow_pct_fops);
	debugfs_create_file("count_when_disabled", 0600, dir, port,
			    &pfcsim_cwd_fops);
	debugfs_create_file("counter_32bit", 0600, dir, port, &pfcsim_c32_fops);
	debugfs_create_file("inject_rx", 0200, dir, port,
			    &pfcsim_inject_rx_fops);
	debugfs_create_file("push_pause", 0600, dir, port, &pfcsim_push_fops);
	debugfs_create_file("changed_ns", 0400, dir, port, &pfcsim_changed_fops);
	debugfs_create_file("published_ns", 0400, dir, port,
			    &pfcsim_published_fops);
	debugfs_create_file("fw_pfc_en", 0600, dir, port,
			    &pfcsim_fw_pfc_en_fops);
	for (i = 0; i < PFCSIM_NUM_KNOBS; i++) {
		pf = &port->knob_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_knob_defs[i].name, 0600, dir, pf,
				    &pfcsim_knob_fops);
	}
	for (i = 0; i < PFCSIM_NUM_CALLS; i++) {
		pf = &port->calls_file[i];
		pf->port = port;
		pf->idx = i;
		debugfs_create_file(pfcsim_calls_names[i], 0400, dir, pf,
				    &pfcsim_calls_fops);
	}
	debugfs_create_file("counter_reset", 0200, dir, port,
			    &pfcsim_counter_reset_fops);
	debugfs_create_file("counter_preset", 0200, dir, port,
			    &pfcsim_counter_preset_fops);
	debugfs_create_file("ethtool_calls", 0400, dir, port, &pfcsim_eop_fops);
	debugfs_create_file("detach", 0600, dir, port, &pfcsim_detach_fops);
	debugfs_create_file("profile", 0600, dir, port, &pfcsim_profile_fops);
	debugfs_create_file("tx_ring", 0600, dir, port, &pfcsim_tx_ring_fops);
	debugfs_create_file("link_mbps", 0600, dir, port,
			    &pfcsim_link_mbps_fops);
	debugfs_create_file("prio_tc", 0600, dir, port, &pfcsim_prio_tc_fops);
	debugfs_create_file("tx_busy", 0400, dir, port, &pfcsim_tx_busy_fops);
	debugfs_create_file("tx_ring_depth", 0400, dir, port,
			    &pfcsim_tx_ring_depth_fops);
	debugfs_create_file("tx_lock_errors", 0400, dir, port,
			    &pfcsim_tx_lock_errors_fops);
	debugfs_create_file("bql", 0600, dir, port, &pfcsim_bql_fops);
	debugfs_create_file("select_pcp", 0600, dir, port,
			    &pfcsim_select_pcp_fops);
	port->dir = dir;
	return 0;
}
