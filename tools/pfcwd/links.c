// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): which devices are loopback or virtual, for apply's globs.
 * Virtual means made by "ip link add": the device has a link kind
 * (IFLA_INFO_KIND: veth, bridge, bond, vlan, dummy, tun, ...).  A NIC's
 * driver registers no link kind, so a glob over names ("dev *") keeps to
 * the host's NICs unless its rule says "virtual".  One RTM_GETLINK dump.
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <net/if.h>
#include <linux/rtnetlink.h>

#include "cli.h"

static int links_info_attr(const struct nlattr *a, void *data)
{
	bool *kind = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND)
		*kind = true;
	return MNL_CB_OK;
}

static int links_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_LINKINFO)
		mnl_attr_parse_nested(a, links_info_attr, data);
	return MNL_CB_OK;
}

static int links_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct virtual_links *l = data;
	bool kind = false;
	unsigned int *v;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return -EPROTO;
	mnl_attr_parse(nlh, sizeof(*ifi), links_attr, &kind);
	if (!kind && !(ifi->ifi_flags & IFF_LOOPBACK))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (unsigned int)ifi->ifi_index;
	return 0;
}

int links_virtual(struct genl *r, struct virtual_links *l)
{
	char buf[GENL_BUF_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	l->n = 0;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++r->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	return genl_run(r, nlh, links_cb, l, NULL);
}

bool links_is_virtual(const struct virtual_links *l, unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == ifindex)
			return true;
	return false;
}
