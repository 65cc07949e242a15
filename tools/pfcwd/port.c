// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): a port as the kernel describes it (port-get replies and event
 * notifications) parsed into struct port_info, and the table of JSON keys.
 *
 * Every attribute we know is checked for its size; one of the wrong size
 * makes the whole message malformed (-EPROTO), so that a changed ABI is
 * never shown as wrong numbers.  Attributes we do not know (a newer
 * kernel's) are ignored.  Single-threaded; no locking.
 */
#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "cli.h"

/*
 * The JSON keys of pfcwd(8), stable: add keys, never rename or remove one.
 * Order is the output order.
 */
const struct attr_key port_keys[] = {
	{ PFCWD_A_PORT_IFINDEX, "ifindex", AF_NUM, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PORT_IFNAME, "ifname", AF_STR, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PORT_EVENT_SEQ, "event_seq", AF_NUM, AK_EVENT },
	{ PFCWD_A_PORT_BLIND, "blind", AF_BOOL, AK_EVENT },
	{ PFCWD_A_PORT_SETPFC_ERRNO, "setpfc_errno", AF_NUM, AK_EVENT },
	{ PFCWD_A_PORT_SETPFC_PRIOS, "setpfc_prios", AF_PRIOS, AK_EVENT },
	{ PFCWD_A_PORT_ENABLED, "enabled", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_DETECT_MS, "detect_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_RESTORE_MS, "restore_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_WARN_MS, "warn_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_BACKOFF, "backoff", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_RATE_RX, "rate_rx", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_RATE_TX, "rate_tx", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_RATE_WINDOW_MS, "rate_window_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS, "effective_rate_window_ms",
	  AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_RATE_DIRECTION, "rate_direction", AF_RATE_DIR, AK_EVENT },
	{ PFCWD_A_PORT_RATE_PPS, "rate_pps", AF_NUM, AK_EVENT },
	{ PFCWD_A_PORT_RATE_DURATION_MS, "rate_duration_ms", AF_NUM, AK_EVENT },
	{ PFCWD_A_PORT_ACTION, "action", AF_ACTION, AK_SHOW },
	{ PFCWD_A_PORT_PRIOS, "prios", AF_PRIOS, AK_SHOW },
	{ PFCWD_A_PORT_STORM_LIMIT, "storm_limit", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_STORMED, "stormed", AF_PRIOS, AK_SHOW | AK_STATS },
	{ PFCWD_A_PORT_GRANULARITY_US, "granularity_us", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_RESTORE_LATE_US, "restore_late_us", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_SOURCE, "source", AF_SOURCE, AK_SHOW },
	{ PFCWD_A_PORT_PFC_EN, "pfc_en", AF_PRIOS, AK_SHOW },
	{ PFCWD_A_PORT_QDISCS, "qdiscs", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_HELD, "held", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_DEVICE_ACTION, "device_action", AF_DEVICE_ACTION, AK_SHOW },
	{ PFCWD_A_PORT_DEVICE_PFC, "device_pfc", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_SETPFC_HURTS, "setpfc_hurts", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_SETPFC_ERRORS, "setpfc_errors", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_PROFILE, "profile", AF_STR, AK_SHOW },
	{ PFCWD_A_PORT_REFRESH_MS, "refresh_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_REFRESH_LEARNT, "refresh_learnt", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_READS, "reads", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_FORCED_READS, "forced_reads", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_READ_ERRORS, "read_errors", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_READ_RATE, "read_rate", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_PHASE, "phase", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_PHASE_PUBS, "phase_pubs", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_PUB_WIDTH_US, "pub_width_us", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_TX_PROGRESS, "tx_progress", AF_BOOL, AK_SHOW },
	{ PFCWD_A_PORT_NIC_PREVENTION_MS, "nic_prevention_ms", AF_NUM, AK_SHOW },
	{ PFCWD_A_PORT_NIC_STORM_WARNINGS, "nic_storm_warnings", AF_NUM, AK_SHOW | AK_STATS },
	{ PFCWD_A_PORT_NIC_STORM_ERRORS, "nic_storm_errors", AF_NUM, AK_SHOW | AK_STATS },
	{ PFCWD_A_PORT_GLOBAL_PAUSE, "global_pause", AF_NUM, AK_STATS },
	{ PFCWD_A_PORT_PAUSE_MALFORMED, "pause_malformed", AF_NUM, AK_STATS },
};

const size_t n_port_keys = ARRAY_SIZE(port_keys);

const struct attr_key prio_keys[] = {
	{ PFCWD_A_PRIO_PRIO, "prio", AF_NUM, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_WATCHED, "watched", AF_BOOL, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_STATE, "state", AF_STATE, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LATCH, "latch", AF_LATCH, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_ACTION, "action", AF_ACTION, AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_BACKOFF_LEVEL, "backoff_level", AF_NUM,
	  AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS, "effective_restore_ms", AF_NUM,
	  AK_SHOW | AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_OVERRIDES, "overrides", AF_NUM, AK_SHOW },
	{ PFCWD_A_PRIO_DETECT_MS, "detect_ms_override", AF_NUM, AK_SHOW },
	{ PFCWD_A_PRIO_RESTORE_MS, "restore_ms_override", AF_NUM, AK_SHOW },
	{ PFCWD_A_PRIO_WARN_MS, "warn_ms_override", AF_NUM, AK_SHOW },
	{ PFCWD_A_PRIO_POLICY_ACTION, "action_override", AF_ACTION, AK_SHOW },
	{ PFCWD_A_PRIO_EFFECTIVE_DETECT_MS, "effective_detect_ms", AF_NUM,
	  AK_SHOW },
	{ PFCWD_A_PRIO_EFFECTIVE_WARN_MS, "effective_warn_ms", AF_NUM,
	  AK_SHOW },
	{ PFCWD_A_PRIO_EFFECTIVE_ACTION, "effective_action", AF_ACTION,
	  AK_SHOW },
	{ PFCWD_A_PRIO_DETECTED, "detected", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_RESTORED, "restored", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_TX_STORMS, "tx_storms", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_SLOW_EVENTS, "slow_events", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_WARNINGS, "warnings", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_WARN_PAUSED_US, "last_warn_paused_us", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_RATE_RX_EVENTS, "rate_rx_events", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_RATE_TX_EVENTS, "rate_tx_events", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_PFC_REENABLED, "pfc_reenabled", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_XOFF_WHILE_TX, "xoff_while_tx", AF_NUM, AK_STATS },
	{ PFCWD_A_PRIO_LEVER, "lever", AF_LEVER, AK_SHOW | AK_EVENT },
	{ PFCWD_A_PRIO_RDMA_COVERED, "rdma_covered", AF_BOOL,
	  AK_SHOW | AK_EVENT },
	{ PFCWD_A_PRIO_RX_PAUSE, "rx_pause", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_TX_PAUSE, "tx_pause", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_TX_PACKETS, "tx_packets", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_RX_PACKETS, "rx_packets", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_TX_DROPPED, "tx_dropped", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_RX_DROPPED, "rx_dropped", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_TX_FORWARDED, "tx_forwarded", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_TX_DROPPED, "last_tx_dropped", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_RX_DROPPED, "last_rx_dropped", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_TX_FORWARDED, "last_tx_forwarded", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_PAUSED_US, "last_paused_us", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_STORM_US, "last_storm_us", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_DETECTED_NS, "last_detected_ns", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_LAST_RESTORED_NS, "last_restored_ns", AF_NUM, AK_STATS | AK_EVENT },
	{ PFCWD_A_PRIO_EVENT_NS, "event_ns", AF_NUM, AK_EVENT },
};

const size_t n_prio_keys = ARRAY_SIZE(prio_keys);

/* Payload sizes of the attributes we read; 0 = not a number. */
static const uint8_t port_size[PORT_ATTRS] = {
	[PFCWD_A_PORT_IFINDEX] = 4,
	[PFCWD_A_PORT_ENABLED] = 1,
	[PFCWD_A_PORT_DETECT_MS] = 4,
	[PFCWD_A_PORT_RESTORE_MS] = 4,
	[PFCWD_A_PORT_WARN_MS] = 4,
	[PFCWD_A_PORT_BACKOFF] = 1,
	[PFCWD_A_PORT_RATE_RX] = 4,
	[PFCWD_A_PORT_RATE_TX] = 4,
	[PFCWD_A_PORT_RATE_WINDOW_MS] = 4,
	[PFCWD_A_PORT_EFFECTIVE_RATE_WINDOW_MS] = 4,
	[PFCWD_A_PORT_RATE_DIRECTION] = 1,
	[PFCWD_A_PORT_RATE_PPS] = 8,
	[PFCWD_A_PORT_RATE_DURATION_MS] = 4,
	[PFCWD_A_PORT_ACTION] = 4,
	[PFCWD_A_PORT_PRIOS] = 1,
	[PFCWD_A_PORT_STORM_LIMIT] = 4,
	[PFCWD_A_PORT_STORMED] = 1,
	[PFCWD_A_PORT_GRANULARITY_US] = 4,
	[PFCWD_A_PORT_RESTORE_LATE_US] = 4,
	[PFCWD_A_PORT_SOURCE] = 4,
	[PFCWD_A_PORT_PFC_EN] = 1,
	[PFCWD_A_PORT_QDISCS] = 4,
	[PFCWD_A_PORT_HELD] = 1,
	[PFCWD_A_PORT_GLOBAL_PAUSE] = 8,
	[PFCWD_A_PORT_PAUSE_MALFORMED] = 8,
	[PFCWD_A_PORT_DEVICE_ACTION] = 4,
	[PFCWD_A_PORT_DEVICE_PFC] = 1,
	[PFCWD_A_PORT_SETPFC_HURTS] = 1,
	[PFCWD_A_PORT_SETPFC_ERRORS] = 8,
	[PFCWD_A_PORT_REFRESH_MS] = 4,
	[PFCWD_A_PORT_REFRESH_LEARNT] = 1,
	[PFCWD_A_PORT_READS] = 8,
	[PFCWD_A_PORT_FORCED_READS] = 8,
	[PFCWD_A_PORT_READ_ERRORS] = 8,
	[PFCWD_A_PORT_READ_RATE] = 4,
	[PFCWD_A_PORT_PHASE] = 1,
	[PFCWD_A_PORT_PHASE_PUBS] = 8,
	[PFCWD_A_PORT_PUB_WIDTH_US] = 4,
	[PFCWD_A_PORT_TX_PROGRESS] = 1,
	[PFCWD_A_PORT_LEVER] = 4,
	[PFCWD_A_PORT_RDMA_COVERED] = 1,
	[PFCWD_A_PORT_NIC_PREVENTION_MS] = 4,
	[PFCWD_A_PORT_NIC_STORM_WARNINGS] = 8,
	[PFCWD_A_PORT_NIC_STORM_ERRORS] = 8,
	[PFCWD_A_PORT_EVENT_SEQ] = 8,
	[PFCWD_A_PORT_BLIND] = 1,
	[PFCWD_A_PORT_SETPFC_ERRNO] = 4,
	[PFCWD_A_PORT_SETPFC_PRIOS] = 1,
};

static const uint8_t prio_size[PRIO_ATTRS] = {
	[PFCWD_A_PRIO_PRIO] = 1,
	[PFCWD_A_PRIO_WATCHED] = 1,
	[PFCWD_A_PRIO_STATE] = 4,
	[PFCWD_A_PRIO_LATCH] = 4,
	[PFCWD_A_PRIO_ACTION] = 4,
	[PFCWD_A_PRIO_DETECTED ... PFCWD_A_PRIO_EVENT_NS] = 8,
	[PFCWD_A_PRIO_WARNINGS] = 8,
	[PFCWD_A_PRIO_LAST_WARN_PAUSED_US] = 8,
	[PFCWD_A_PRIO_BACKOFF_LEVEL] = 4,
	[PFCWD_A_PRIO_EFFECTIVE_RESTORE_MS] = 4,
	[PFCWD_A_PRIO_DETECT_MS ... PFCWD_A_PRIO_EFFECTIVE_ACTION] = 4,
	[PFCWD_A_PRIO_RATE_RX_EVENTS] = 8,
	[PFCWD_A_PRIO_RATE_TX_EVENTS] = 8,
	[PFCWD_A_PRIO_PFC_REENABLED] = 8,
	[PFCWD_A_PRIO_XOFF_WHILE_TX] = 8,
	[PFCWD_A_PRIO_LEVER] = 4,
	[PFCWD_A_PRIO_RDMA_COVERED] = 1,
};

/* A NUL-terminated string attribute into @buf; -EPROTO if malformed. */
static int attr_str(const struct nlattr *a, char *buf, size_t size)
{
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) ||
	    mnl_attr_get_payload_len(a) > size)
		return -EPROTO;
	snprintf(buf, size, "%s", mnl_attr_get_str(a));
	return 0;
}

/* Reads a number attribute of the size the ABI says; -EPROTO if not. */
static int attr_num(const struct nlattr *a, unsigned int size, uint64_t *v)
{
	if (mnl_attr_get_payload_len(a) != size)
		return -EPROTO;
	switch (size) {
	case 1:
		*v = mnl_attr_get_u8(a);
		break;
	case 4:
		*v = mnl_attr_get_u32(a);
		break;
	default:
		*v = mnl_attr_get_u64(a);
	}
	return 0;
}

static int prio_parse(const struct nlattr *nest, struct port_info *pi)
{
	struct prio_info tmp = { 0 };
	const struct nlattr *a;
	uint64_t v;

	mnl_attr_for_each_nested(a, nest) {
		uint16_t t = mnl_attr_get_type(a);

		if (t >= PRIO_ATTRS || !prio_size[t])
			continue;
		if (attr_num(a, prio_size[t], &v))
			return -EPROTO;
		tmp.v[t] = v;
		tmp.have |= 1ULL << t;
	}
	if (!has(tmp.have, PFCWD_A_PRIO_PRIO) ||
	    tmp.v[PFCWD_A_PRIO_PRIO] >= PFCWD_NUM_PRIO)
		return -EPROTO;
	pi->prio[tmp.v[PFCWD_A_PRIO_PRIO]] = tmp;
	return 0;
}

/**
 * port_parse - a port-get reply or an event, parsed
 * @nlh: the message
 * @pi: filled in; a priority without a nest has prio[p].have 0
 *
 * Return: 0, or -EPROTO for a malformed message (no ifindex, a bad size).
 */
int port_parse(const struct nlmsghdr *nlh, struct port_info *pi)
{
	const struct nlattr *a;
	uint64_t v;

	memset(pi, 0, sizeof(*pi));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == PFCWD_A_PORT_IFNAME || t == PFCWD_A_PORT_PROFILE) {
			if (t == PFCWD_A_PORT_IFNAME ?
			    attr_str(a, pi->ifname, sizeof(pi->ifname)) :
			    attr_str(a, pi->profile, sizeof(pi->profile)))
				return -EPROTO;
			pi->have |= 1ULL << t;
			continue;
		}
		if (t == PFCWD_A_PORT_PRIO) {
			if (prio_parse(a, pi))
				return -EPROTO;
			continue;
		}
		if (t >= PORT_ATTRS || !port_size[t])
			continue;
		if (attr_num(a, port_size[t], &v))
			return -EPROTO;
		pi->v[t] = v;
		pi->have |= 1ULL << t;
	}
	if (!has(pi->have, PFCWD_A_PORT_IFINDEX))
		return -EPROTO;
	return 0;
}

/* One attribute as a JSON member. */
static void json_attr(const struct attr_key *k, uint64_t v)
{
	switch (k->fmt) {
	case AF_STR:
		break;
	case AF_NUM:
		jw_u64(k->key, v);
		break;
	case AF_BOOL:
		jw_bool(k->key, v != 0);
		break;
	case AF_ACTION:
		jw_str(k->key, action_name(v));
		break;
	case AF_STATE:
		jw_str(k->key, state_name(v));
		break;
	case AF_LATCH:
		jw_str(k->key, latch_name(v));
		break;
	case AF_SOURCE:
		jw_str(k->key, source_name(v));
		break;
	case AF_PRIOS:
		jw_prio_list(k->key, (uint8_t)v);
		break;
	case AF_DEVICE_ACTION:
		jw_str(k->key, device_action_name(v));
		break;
	case AF_RATE_DIR:
		jw_str(k->key, v == PFCWD_RATE_TX ? "tx" : "rx");
		break;
	case AF_LEVER:
		jw_str(k->key, lever_name(v));
		break;
	}
}

/*
 * What a mitigation acts with now: nothing (action alert), the device's
 * pfc_en (which RDMA obeys too), or the datapath alone (the kernel's own
 * traffic: RDMA bypasses the qdisc).  The kernel's word where it says;
 * derived for a module without the lever; NULL from one that does not
 * report the device side.
 */
const char *port_lever(const struct port_info *pi)
{
	if (has(pi->have, PFCWD_A_PORT_LEVER))
		return lever_name(pi->v[PFCWD_A_PORT_LEVER]);
	if (!has(pi->have, PFCWD_A_PORT_DEVICE_PFC))
		return NULL;
	if (has(pi->have, PFCWD_A_PORT_ACTION) &&
	    pi->v[PFCWD_A_PORT_ACTION] == PFCWD_ACTION_ALERT)
		return "none";
	return pi->v[PFCWD_A_PORT_DEVICE_PFC] ? "pfc_en" : "datapath";
}

/* The port's attributes that go into JSON objects of @kind (AK_*). */
void json_port_members(const struct port_info *pi, unsigned int kind)
{
	const char *lever = port_lever(pi);
	size_t i;

	for (i = 0; i < n_port_keys; i++) {
		const struct attr_key *k = &port_keys[i];

		if (!(k->in & kind) || !has(pi->have, k->type))
			continue;
		if (k->type == PFCWD_A_PORT_IFNAME)
			jw_str(k->key, pi->ifname);
		else if (k->type == PFCWD_A_PORT_PROFILE)
			jw_str(k->key, pi->profile);
		else
			json_attr(k, pi->v[k->type]);
	}
	if ((kind & AK_SHOW) && lever) {
		jw_str("lever", lever);
		jw_bool("rdma_covered", !strcmp(lever, "pfc_en"));
	}
}

/* The same for a priority. */
void json_prio_members(const struct prio_info *pr, unsigned int kind)
{
	size_t i;

	for (i = 0; i < n_prio_keys; i++) {
		const struct attr_key *k = &prio_keys[i];

		if ((k->in & kind) && has(pr->have, k->type))
			json_attr(k, pr->v[k->type]);
	}
}

/* The command-line word for a port attribute of a request, for errors. */
const char *port_attr_name(uint16_t type)
{
	switch (type) {
	case PFCWD_A_PORT_IFINDEX:
	case PFCWD_A_PORT_IFNAME:
		return "dev";
	case PFCWD_A_PORT_ENABLED:
		return "on/off";
	case PFCWD_A_PORT_DETECT_MS:
		return "detect";
	case PFCWD_A_PORT_RESTORE_MS:
		return "restore";
	case PFCWD_A_PORT_WARN_MS:
		return "warn";
	case PFCWD_A_PORT_BACKOFF:
		return "backoff";
	case PFCWD_A_PORT_RATE_RX:
		return "rate-rx";
	case PFCWD_A_PORT_RATE_TX:
		return "rate-tx";
	case PFCWD_A_PORT_RATE_WINDOW_MS:
		return "rate-window";
	case PFCWD_A_PORT_ACTION:
		return "action";
	case PFCWD_A_PORT_PRIOS:
		return "prio";
	case PFCWD_A_PORT_STORM_LIMIT:
		return "storm-limit";
	case PFCWD_A_PORT_DEVICE_ACTION:
		return "device-action";
	}
	return "(unknown)";
}
