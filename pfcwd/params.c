// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters, /sys/module/pfcwd/parameters/: the defaults for new
 * ports (detection_time_ms, restoration_time_ms, action) and the
 * module-wide tuning of polling, the storm-limit window and slow-receiver
 * detection.  Every write is range checked: a bad one fails with -EINVAL
 * and changes nothing.  Values are read with READ_ONCE; process context.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "pfcwd.h"

struct pfcwd_params pfcwd_params = {
	.detect_ms = 200,
	.restore_ms = 200,
	.action = PFCWD_ACTION_DROP,
	.poll_quiet_us = 4000,
	.poll_fine_us = 1000,
	.poll_budget = 65536,
	.storm_window_ms = 60000,
	.slow_threshold = 1000,
	.slow_window_ms = 1000,
	.max_userns_ports = 0,
};

struct pfcwd_range {
	u32 *val;
	u32 min, max;
};

static int pfcwd_param_set_u32(const char *buf, const struct kernel_param *kp)
{
	const struct pfcwd_range *r = kp->arg;
	u32 v;

	if (kstrtou32(buf, 10, &v) || v < r->min || v > r->max)
		return -EINVAL;
	WRITE_ONCE(*r->val, v);
	return 0;
}

static int pfcwd_param_get_u32(char *buf, const struct kernel_param *kp)
{
	const struct pfcwd_range *r = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*r->val));
}

static const struct kernel_param_ops pfcwd_u32_ops = {
	.set = pfcwd_param_set_u32,
	.get = pfcwd_param_get_u32,
};

static struct pfcwd_range pfcwd_range_detect = {
	&pfcwd_params.detect_ms, PFCWD_TIME_MS_MIN, PFCWD_TIME_MS_MAX
};

static struct pfcwd_range pfcwd_range_restore = {
	&pfcwd_params.restore_ms, PFCWD_TIME_MS_MIN, PFCWD_TIME_MS_MAX
};

static struct pfcwd_range pfcwd_range_quiet = {
	&pfcwd_params.poll_quiet_us, 100, 100000
};

static struct pfcwd_range pfcwd_range_fine = {
	&pfcwd_params.poll_fine_us, 50, 10000
};

static struct pfcwd_range pfcwd_range_budget = {
	&pfcwd_params.poll_budget, 1000, 10000000
};

static struct pfcwd_range pfcwd_range_window = {
	&pfcwd_params.storm_window_ms, 1, 86400000
};

static struct pfcwd_range pfcwd_range_slow = {
	&pfcwd_params.slow_threshold, 0, 100000000
};

static struct pfcwd_range pfcwd_range_slow_window = {
	&pfcwd_params.slow_window_ms, 100, 3600000
};

static struct pfcwd_range pfcwd_range_userns_ports = {
	&pfcwd_params.max_userns_ports, 0, 1000000
};

module_param_cb(detection_time_ms, &pfcwd_u32_ops, &pfcwd_range_detect, 0644);
MODULE_PARM_DESC(detection_time_ms, "Default T0 for new ports, ms (1-60000)");
module_param_cb(restoration_time_ms, &pfcwd_u32_ops, &pfcwd_range_restore, 0644);
MODULE_PARM_DESC(restoration_time_ms, "Default T1 for new ports, ms (1-60000)");
module_param_cb(poll_quiet_us, &pfcwd_u32_ops, &pfcwd_range_quiet, 0644);
MODULE_PARM_DESC(poll_quiet_us, "Poll interval of quiet ports, us (100-100000)");
module_param_cb(poll_fine_us, &pfcwd_u32_ops, &pfcwd_range_fine, 0644);
MODULE_PARM_DESC(poll_fine_us, "Poll interval of busy ports, us (50-10000)");
module_param_cb(poll_budget, &pfcwd_u32_ops, &pfcwd_range_budget, 0644);
MODULE_PARM_DESC(poll_budget,
		 "Quiet polls per second for all ports together; more ports poll less often");
module_param_cb(storm_window_ms, &pfcwd_u32_ops, &pfcwd_range_window, 0644);
MODULE_PARM_DESC(storm_window_ms, "Storm limit window, ms (1-86400000)");
module_param_cb(slow_threshold, &pfcwd_u32_ops, &pfcwd_range_slow, 0644);
MODULE_PARM_DESC(slow_threshold, "Slow receiver: pause frames sent per second (0 = off)");
module_param_cb(slow_window_ms, &pfcwd_u32_ops, &pfcwd_range_slow_window, 0644);
MODULE_PARM_DESC(slow_window_ms, "Slow receiver: time above the threshold, ms (100-3600000)");
module_param_cb(max_userns_ports, &pfcwd_u32_ops, &pfcwd_range_userns_ports,
		0644);
MODULE_PARM_DESC(max_userns_ports,
		 "Ports on devices of network namespaces that user namespaces own, all together (0-1000000)");

static int pfcwd_param_set_action(const char *buf,
				  const struct kernel_param *kp)
{
	enum pfcwd_action action;

	if (pfcwd_action_parse(buf, &action))
		return -EINVAL;
	WRITE_ONCE(pfcwd_params.action, action);
	return 0;
}

static int pfcwd_param_get_action(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  pfcwd_action_name(READ_ONCE(pfcwd_params.action)));
}

static const struct kernel_param_ops pfcwd_action_ops = {
	.set = pfcwd_param_set_action,
	.get = pfcwd_param_get_action,
};

module_param_cb(action, &pfcwd_action_ops, NULL, 0644);
MODULE_PARM_DESC(action, "Default action for new ports: drop, forward or alert");
