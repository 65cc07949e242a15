// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the actions, device-actions and levers, as sysfs, the
 * module parameters and the logs spell them, and their parsers.  Pure tables,
 * below everything that names an action (params.c, sysfs.c, action.c's
 * log lines): this file calls nothing of pfcwd's, so reading a module
 * parameter's name never calls up into action.c.
 *
 * Context: any; no lock (constant tables).
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "pfcwd.h"

static const char * const pfcwd_device_action_names[] = {
	[PFCWD_DEVICE_ACTION_AUTO] = "auto",
	[PFCWD_DEVICE_ACTION_ON] = "on",
	[PFCWD_DEVICE_ACTION_OFF] = "off",
};

const char *pfcwd_device_action_name(enum pfcwd_device_action da)
{
	return da < ARRAY_SIZE(pfcwd_device_action_names) ?
	       pfcwd_device_action_names[da] : "unknown";
}

/* Parses "auto", "on" or "off" (one trailing newline allowed). */
int pfcwd_device_action_parse(const char *buf, enum pfcwd_device_action *da)
{
	int i = sysfs_match_string(pfcwd_device_action_names, buf);

	if (i < 0)
		return -EINVAL;
	*da = i;
	return 0;
}

static const char * const pfcwd_action_names[] = {
	[PFCWD_ACTION_DROP] = "drop",
	[PFCWD_ACTION_FORWARD] = "forward",
	[PFCWD_ACTION_ALERT] = "alert",
};

const char *pfcwd_action_name(enum pfcwd_action action)
{
	return action < ARRAY_SIZE(pfcwd_action_names) ?
	       pfcwd_action_names[action] : "unknown";
}

/* Parses "drop", "forward" or "alert" (one trailing newline allowed). */
int pfcwd_action_parse(const char *buf, enum pfcwd_action *action)
{
	int i = sysfs_match_string(pfcwd_action_names, buf);

	if (i < 0)
		return -EINVAL;
	*action = i;
	return 0;
}

/* What a lever reaches, as the detection log line ends. */
static const char * const pfcwd_lever_reaches[] = {
	[PFCWD_LEVER_NONE] = "lever none",
	[PFCWD_LEVER_DATAPATH] = "lever datapath: RDMA stays paused",
	[PFCWD_LEVER_PFC_EN] = "lever pfc_en: RDMA covered",
};

const char *pfcwd_lever_reach(enum pfcwd_lever lever)
{
	return lever < ARRAY_SIZE(pfcwd_lever_reaches) ?
	       pfcwd_lever_reaches[lever] : "lever unknown";
}
