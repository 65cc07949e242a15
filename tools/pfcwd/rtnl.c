// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): devices' root qdiscs over rtnetlink, for apply - what they are
 * (one RTM_GETQDISC dump, as "tc qdisc show": a GET of one root qdisc
 * answers only with NLM_F_ECHO, which would also announce it to every
 * "tc monitor" as new), pfcwd put there or its limit changed
 * (RTM_NEWQDISC, "tc qdisc replace"), and pfcwd taken away (RTM_DELQDISC).
 * apply does not need tc or its plugin for this.  A device whose root is
 * a built-in qdisc (noqueue, noop) is not in the dump.
 *
 * A replace with handle 0 and kind "pfcwd" changes a pfcwd root in place
 * (the core's "change": same kind at that parent) and grafts a new one
 * over any other root; so one request serves both.
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "cli.h"

static struct nlmsghdr *rtnl_msg(struct genl *r, void *buf, uint16_t type,
				 uint16_t flags, unsigned int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++r->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = 0;
	return nlh;
}

static int rtnl_pfcwd_opt(const struct nlattr *a, void *data)
{
	struct root_qdisc *q = data;

	if (mnl_attr_get_type(a) == TCA_PFCWD_LIMIT &&
	    !mnl_attr_validate(a, MNL_TYPE_U32)) {
		q->limit = mnl_attr_get_u32(a);
		q->has_limit = true;
	}
	return MNL_CB_OK;
}

static int rtnl_qdisc_attr(const struct nlattr *a, void *data)
{
	struct root_qdisc *q = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_KIND:
		if (!mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(q->kind, sizeof(q->kind), "%s",
				 mnl_attr_get_str(a));
		break;
	case TCA_OPTIONS:
		/* Read after TCA_KIND, which the core puts first. */
		if (!strcmp(q->kind, "pfcwd"))
			mnl_attr_parse_nested(a, rtnl_pfcwd_opt, q);
		break;
	}
	return MNL_CB_OK;
}

static int rtnl_qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct root_qdiscs *l = data;
	struct root_qdisc *q;

	if (nlh->nlmsg_type != RTM_NEWQDISC ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return -EPROTO;
	if (tcm->tcm_parent != TC_H_ROOT)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		q = realloc(l->v, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		l->v = q;
		l->cap = cap;
	}
	q = &l->v[l->n++];
	memset(q, 0, sizeof(*q));
	q->ifindex = (unsigned int)tcm->tcm_ifindex;
	q->handle = tcm->tcm_handle;
	mnl_attr_parse(nlh, sizeof(*tcm), rtnl_qdisc_attr, q);
	return 0;
}

int rtnl_root_qdiscs(struct genl *r, struct root_qdiscs *l)
{
	char buf[GENL_BUF_SIZE];
	struct nlmsghdr *nlh;

	l->n = 0;
	nlh = rtnl_msg(r, buf, RTM_GETQDISC, NLM_F_DUMP, 0);
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
	return genl_run(r, nlh, rtnl_qdisc_cb, l, NULL);
}

const struct root_qdisc *rtnl_root_of(const struct root_qdiscs *l,
				      unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].ifindex == ifindex)
			return &l->v[i];
	return NULL;
}

int rtnl_pfcwd_replace(struct genl *r, unsigned int ifindex, bool has_limit,
		       uint32_t limit)
{
	struct nlmsghdr *nlh;
	char buf[GENL_BUF_SIZE];
	struct nlattr *opt;

	nlh = rtnl_msg(r, buf, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
		       ifindex);
	mnl_attr_put_strz(nlh, TCA_KIND, "pfcwd");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	if (has_limit)
		mnl_attr_put_u32(nlh, TCA_PFCWD_LIMIT, limit);
	mnl_attr_nest_end(nlh, opt);
	return genl_run(r, nlh, NULL, NULL, NULL);
}

int rtnl_root_delete(struct genl *r, unsigned int ifindex)
{
	char buf[GENL_BUF_SIZE];

	return genl_run(r, rtnl_msg(r, buf, RTM_DELQDISC, 0, ifindex), NULL,
			NULL, NULL);
}
