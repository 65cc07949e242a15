// SPDX-License-Identifier: GPL-2.0
/*
 * Per-port sysfs: /sys/class/net/DEV/pfcwd/, present while DEV is a port.
 *
 *   detection_time_ms    rw  T0, 1-60000
 *   restoration_time_ms  rw  T1, 1-60000
 *   warning_time_ms      rw  storm warning after this long paused;
 *                            0 (off) or 1-59999, below T0
 *   action               rw  drop | forward | alert
 *   priorities           rw  watched priorities, e.g. "3,4" or "0-2,5"
 *   storm_limit          rw  storms within storm_window_ms that latch, 0-16
 *   restore_backoff      rw  0 | 1: each storm within storm_window_ms of
 *                            the last waits twice as long to be restored
 *   pause_rate_rx        rw  pause-rate warning: pause frames received per
 *                            second, 0 (off) - 100000000
 *   pause_rate_tx        rw  ...sent per second, 0 (off) - 100000000
 *   pause_rate_window_ms rw  how long the rate must stay above, 100-3600000
 *   enabled              rw  0 | 1
 *   stormed              ro  priorities stormed or latched
 *   restore              wo  priorities to restore by hand (latched ones)
 *   granularity_us       ro  bound on this port's detection lateness
 *                            (see pfcwd_port_granularity_ns())
 *   device_action        rw  auto | on | off: may mitigation use pfc_en
 *   profile              ro  the driver profile's name
 *   refresh_ms           ro  counter refresh period in force, 0 = live
 *
 * Writes need CAP_NET_ADMIN in the user namespace that owns the device's
 * netns (-EPERM otherwise, as net-sysfs and pfcwd's netlink), are parsed
 * strictly and applied through pfcwd_port_configure() (config.c), the
 * path tc and netlink share; a bad one fails with -EINVAL and changes
 * nothing.  The group hangs off the net_device's kobject, so it follows
 * renames and netns moves.
 *
 * Locking and context: process context.  Stores take RTNL with
 * rtnl_trylock() (restarting the syscall on contention: the group is
 * removed under RTNL, which waits for running handlers) and then
 * port->lock.  Shows take port->lock only.
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>

#include "pfcwd.h"
#include "prio_list.h"

typedef int (*pfcwd_store_fn)(struct pfcwd_port *port, const char *buf);

static struct pfcwd_port *pfcwd_sysfs_port(struct device *d)
{
	return pfcwd_port_get(to_net_dev(d));
}

static ssize_t pfcwd_sysfs_show(struct device *d, char *buf,
				ssize_t (*fn)(struct pfcwd_port *, char *))
{
	struct pfcwd_port *port = pfcwd_sysfs_port(d);
	ssize_t ret;

	if (!port)
		return -ENODEV;
	mutex_lock(&port->lock);
	ret = fn(port, buf);
	mutex_unlock(&port->lock);
	pfcwd_port_put(port);
	return ret;
}

static ssize_t pfcwd_sysfs_store(struct device *d, const char *buf,
				 size_t len, pfcwd_store_fn fn)
{
	struct pfcwd_port *port;
	int err;

	/* As net-sysfs and pfcwd's netlink: the device's netns decides. */
	if (!ns_capable(dev_net(to_net_dev(d))->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	port = pfcwd_sysfs_port(d);
	if (!port)
		return -ENODEV;
	if (!rtnl_trylock()) {
		pfcwd_port_put(port);
		return restart_syscall();
	}
	mutex_lock(&port->lock);
	err = port->dead ? -ENODEV : fn(port, buf);
	mutex_unlock(&port->lock);
	rtnl_unlock();
	pfcwd_port_put(port);
	return err ? err : len;
}

/* Applies one field parsed from a write; port->lock held. */
static int pfcwd_sysfs_set(struct pfcwd_port *port, unsigned int field,
			   const struct pfcwd_config *cfg)
{
	struct pfcwd_config_change chg = { .set = field, .cfg = *cfg };

	return pfcwd_port_configure(port, &chg, NULL);
}

#define PFCWD_ATTR_RW(name)						\
static ssize_t name##_show(struct device *d,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return pfcwd_sysfs_show(d, buf, pfcwd_show_##name);		\
}									\
static ssize_t name##_store(struct device *d,				\
			    struct device_attribute *attr,		\
			    const char *buf, size_t len)		\
{									\
	return pfcwd_sysfs_store(d, buf, len, pfcwd_store_##name);	\
}									\
static DEVICE_ATTR_RW(name)

static ssize_t pfcwd_show_detection_time_ms(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.detect_ms);
}

static int pfcwd_store_detection_time_ms(struct pfcwd_port *port,
					 const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.detect_ms))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_DETECT, &cfg);
}

PFCWD_ATTR_RW(detection_time_ms);

static ssize_t pfcwd_show_restoration_time_ms(struct pfcwd_port *port,
					      char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.restore_ms);
}

static int pfcwd_store_restoration_time_ms(struct pfcwd_port *port,
					   const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.restore_ms))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_RESTORE, &cfg);
}

PFCWD_ATTR_RW(restoration_time_ms);

static ssize_t pfcwd_show_warning_time_ms(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.warn_ms);
}

/* 0 turns it off; otherwise below T0 (config.c refuses the rest). */
static int pfcwd_store_warning_time_ms(struct pfcwd_port *port,
				       const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.warn_ms))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_WARN, &cfg);
}

PFCWD_ATTR_RW(warning_time_ms);

static ssize_t pfcwd_show_pause_rate_rx(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.rate_rx);
}

static int pfcwd_store_pause_rate_rx(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.rate_rx))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_RATE_RX, &cfg);
}

PFCWD_ATTR_RW(pause_rate_rx);

static ssize_t pfcwd_show_pause_rate_tx(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.rate_tx);
}

static int pfcwd_store_pause_rate_tx(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.rate_tx))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_RATE_TX, &cfg);
}

PFCWD_ATTR_RW(pause_rate_tx);

static ssize_t pfcwd_show_pause_rate_window_ms(struct pfcwd_port *port,
					       char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.rate_window_ms);
}

static int pfcwd_store_pause_rate_window_ms(struct pfcwd_port *port,
					    const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.rate_window_ms))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_RATE_WINDOW, &cfg);
}

PFCWD_ATTR_RW(pause_rate_window_ms);

static ssize_t pfcwd_show_action(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%s\n", pfcwd_action_name(port->cfg.action));
}

/* A storm in progress keeps the action it started with. */
static int pfcwd_store_action(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};

	if (pfcwd_action_parse(buf, &cfg.action))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_ACTION, &cfg);
}

PFCWD_ATTR_RW(action);

static ssize_t pfcwd_show_list(char *buf, u8 mask)
{
	char list[PFCWD_PRIO_LIST_LEN];

	pfcwd_prio_list_format(mask, list, sizeof(list));
	return sysfs_emit(buf, "%s\n", list);
}

static ssize_t pfcwd_show_priorities(struct pfcwd_port *port, char *buf)
{
	return pfcwd_show_list(buf, port->cfg.prios);
}

/* Priorities no longer watched are restored and forgotten. */
static int pfcwd_store_priorities(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};

	if (pfcwd_prio_list_parse(buf, strlen(buf), &cfg.prios))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_PRIOS, &cfg);
}

PFCWD_ATTR_RW(priorities);

static ssize_t pfcwd_show_storm_limit(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.storm_limit);
}

static int pfcwd_store_storm_limit(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou32(buf, 10, &cfg.storm_limit))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_STORM_LIMIT, &cfg);
}

PFCWD_ATTR_RW(storm_limit);

static ssize_t pfcwd_show_restore_backoff(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", port->cfg.backoff);
}

static int pfcwd_store_restore_backoff(struct pfcwd_port *port,
				       const char *buf)
{
	struct pfcwd_config cfg = {};

	if (kstrtou8(buf, 10, &cfg.backoff) || cfg.backoff > 1)
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_BACKOFF, &cfg);
}

PFCWD_ATTR_RW(restore_backoff);

static ssize_t pfcwd_show_enabled(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%d\n", port->cfg.enabled);
}

/* Disabling restores every priority and forgets all state but the stats. */
static int pfcwd_store_enabled(struct pfcwd_port *port, const char *buf)
{
	struct pfcwd_config cfg = {};
	u32 v;

	if (kstrtou32(buf, 10, &v) || v > 1)
		return -EINVAL;
	cfg.enabled = v;
	return pfcwd_sysfs_set(port, PFCWD_CFG_ENABLED, &cfg);
}

PFCWD_ATTR_RW(enabled);

static ssize_t pfcwd_show_stormed(struct pfcwd_port *port, char *buf)
{
	u8 mask = 0;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++)
		if (port->prio[p].sm.state != PFCWD_OPERATIONAL)
			mask |= BIT(p);
	return pfcwd_show_list(buf, mask);
}

static ssize_t stormed_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	return pfcwd_sysfs_show(d, buf, pfcwd_show_stormed);
}

static DEVICE_ATTR_RO(stormed);

static int pfcwd_store_restore(struct pfcwd_port *port, const char *buf)
{
	u8 mask;

	if (pfcwd_prio_list_parse(buf, strlen(buf), &mask) || !mask)
		return -EINVAL;
	pfcwd_action_restore(port, mask);
	WRITE_ONCE(port->quiet, false);
	WRITE_ONCE(port->next_poll, 0);
	pfcwd_poll_kick();
	return 0;
}

static ssize_t restore_store(struct device *d, struct device_attribute *attr,
			     const char *buf, size_t len)
{
	return pfcwd_sysfs_store(d, buf, len, pfcwd_store_restore);
}

static DEVICE_ATTR_WO(restore);

#define PFCWD_ATTR_RO(name)						\
static ssize_t name##_show(struct device *d,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return pfcwd_sysfs_show(d, buf, pfcwd_show_##name);		\
}									\
static DEVICE_ATTR_RO(name)

static ssize_t pfcwd_show_granularity_us(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  div_u64(pfcwd_port_granularity_ns(port),
				  NSEC_PER_USEC));
}

PFCWD_ATTR_RO(granularity_us);

static ssize_t pfcwd_show_device_action(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  pfcwd_device_action_name(port->cfg.device_action));
}

/* Storms in progress keep their pfc_en state; see config.c. */
static int pfcwd_store_device_action(struct pfcwd_port *port,
				     const char *buf)
{
	struct pfcwd_config cfg = {};

	if (pfcwd_device_action_parse(buf, &cfg.device_action))
		return -EINVAL;
	return pfcwd_sysfs_set(port, PFCWD_CFG_DEVICE_ACTION, &cfg);
}

PFCWD_ATTR_RW(device_action);

static ssize_t pfcwd_show_profile(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%s\n", port->profile->name);
}

PFCWD_ATTR_RO(profile);

/* The poller's, written without port->lock: a racy read, for display. */
static ssize_t pfcwd_show_refresh_ms(struct pfcwd_port *port, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(port->refresh_ms));
}

PFCWD_ATTR_RO(refresh_ms);

static struct attribute *pfcwd_attrs[] = {
	&dev_attr_detection_time_ms.attr,
	&dev_attr_restoration_time_ms.attr,
	&dev_attr_warning_time_ms.attr,
	&dev_attr_action.attr,
	&dev_attr_priorities.attr,
	&dev_attr_storm_limit.attr,
	&dev_attr_restore_backoff.attr,
	&dev_attr_pause_rate_rx.attr,
	&dev_attr_pause_rate_tx.attr,
	&dev_attr_pause_rate_window_ms.attr,
	&dev_attr_enabled.attr,
	&dev_attr_stormed.attr,
	&dev_attr_restore.attr,
	&dev_attr_granularity_us.attr,
	&dev_attr_device_action.attr,
	&dev_attr_profile.attr,
	&dev_attr_refresh_ms.attr,
	NULL,
};

static const struct attribute_group pfcwd_attr_group = {
	.name = "pfcwd",
	.attrs = pfcwd_attrs,
};

/* RTNL held. */
int pfcwd_sysfs_add(struct pfcwd_port *port)
{
	int err;

	ASSERT_RTNL();
	err = sysfs_create_group(&port->dev->dev.kobj, &pfcwd_attr_group);
	if (!err)
		port->sysfs = true;
	return err;
}

/* RTNL held; waits for running handlers (they never block on RTNL). */
void pfcwd_sysfs_del(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	if (!port->sysfs)
		return;
	/* An unregistered device's kobject took the group along with it. */
	if (device_is_registered(&port->dev->dev))
		sysfs_remove_group(&port->dev->dev.kobj, &pfcwd_attr_group);
	port->sysfs = false;
}
