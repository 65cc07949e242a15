// SPDX-License-Identifier: GPL-2.0
/*
 * PFCWD_CMD_PRIO_RESTORE: an operator restores stormed or latched
 * priorities (PFCWD_A_PORT_PRIOS, a mask) of a port to lossless operation.
 * Restoring none of them (none was stormed or latched) is an error.
 *
 * Locking and context: process context; RTNL, then port->lock.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "netlink.h"

const struct nla_policy pfcwd_nl_prio_restore_policy[PFCWD_A_PORT_MAX + 1] = {
	PFCWD_NL_DEV_POLICY,
	[PFCWD_A_PORT_PRIOS] = NLA_POLICY_MIN(NLA_U8, 1),
};

int pfcwd_nl_prio_restore_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pfcwd_port *port;
	int err, n;
	u8 prios;

	if (GENL_REQ_ATTR_CHECK(info, PFCWD_A_PORT_PRIOS)) {
		NL_SET_ERR_MSG(info->extack,
			       "pfcwd: name the priorities to restore (prios)");
		return -EINVAL;
	}
	prios = nla_get_u8(info->attrs[PFCWD_A_PORT_PRIOS]);

	rtnl_lock();
	port = pfcwd_nl_req_port(info);
	if (IS_ERR(port)) {
		err = PTR_ERR(port);
		goto out;
	}
	mutex_lock(&port->lock);
	n = port->dead ? -ENODEV : pfcwd_action_restore(port, prios);
	if (n > 0) {
		WRITE_ONCE(port->quiet, false);
		WRITE_ONCE(port->next_poll, 0);
		pfcwd_poll_kick();
	}
	mutex_unlock(&port->lock);
	pfcwd_port_put(port);
	err = n < 0 ? n : 0;
	if (!n) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PFCWD_A_PORT_PRIOS],
				    "pfcwd: none of these priorities is stormed or latched");
		err = -EINVAL;
	}
out:
	rtnl_unlock();
	return err;
}
