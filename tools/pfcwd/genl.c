// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): generic netlink on libmnl.  Opens a NETLINK_GENERIC socket with
 * extended ACKs, resolves the "pfcwd" family and its "events" group, sends
 * a request and reads its replies until the ACK, the error or the end of
 * the dump, keeping the kernel's error: errno, extack message, and the
 * attribute it points at (named from the request we sent).  The same
 * request loop serves a NETLINK_ROUTE socket (genl_open_route(), for
 * apply's qdiscs), whose attributes are not named.
 *
 * Single-threaded; one socket per run; no locking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <sys/socket.h>

#include "cli.h"

#define GENL_RX_SIZE	(128 * 1024)

static struct nlmsghdr *genl_msg_type(void *buf, uint16_t type, uint8_t cmd,
				      uint8_t version, uint16_t flags,
				      unsigned int seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = version;
	return nlh;
}

/* A request of the pfcwd family in @buf (GENL_BUF_SIZE bytes). */
struct nlmsghdr *genl_msg(struct genl *g, void *buf, uint8_t cmd,
			  uint16_t flags)
{
	return genl_msg_type(buf, g->family, cmd, PFCWD_GENL_VERSION, flags,
			     ++g->seq);
}

struct extack_ctx {
	struct genl *g;
	const struct nlmsghdr *req;
};

/* The top-level attribute of @req that starts @offs bytes into it. */
static const char *genl_attr_at(const struct nlmsghdr *req, uint32_t offs)
{
	const struct nlattr *a;

	if (!req)
		return NULL;
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr)) {
		if ((const char *)a - (const char *)req == (long)offs)
			return port_attr_name(mnl_attr_get_type(a));
	}
	return NULL;
}

static int genl_extack_attr(const struct nlattr *a, void *data)
{
	struct extack_ctx *x = data;
	struct genl *g = x->g;
	const char *name;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(g->err_msg, sizeof(g->err_msg), "%s",
				 mnl_attr_get_str(a));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0 && !g->route) {
			name = genl_attr_at(x->req, mnl_attr_get_u32(a));
			if (name)
				snprintf(g->err_attr, sizeof(g->err_attr),
					 "attribute %s", name);
		}
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0 && !g->route)
			snprintf(g->err_attr, sizeof(g->err_attr),
				 "missing attribute %s",
				 port_attr_name(mnl_attr_get_u32(a)));
		break;
	}
	return MNL_CB_OK;
}

static void genl_extack(struct genl *g, const struct nlmsghdr *req,
			const void *tlvs, size_t len)
{
	struct extack_ctx x = { g, req };

	mnl_attr_parse_payload(tlvs, len, genl_extack_attr, &x);
}

/* NLMSG_ERROR: 0 for an ACK, else the error with its extack. */
static int genl_error(struct genl *g, const struct nlmsghdr *req,
		      const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t len = mnl_nlmsg_get_payload_len(nlh), off = sizeof(*e);

	if (len < sizeof(*e)) {
		g->err = EBADMSG;
		return -EBADMSG;
	}
	if (e->error == 0) {
		/* A warning may come with success: kept in err_msg. */
		if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
		    (nlh->nlmsg_flags & NLM_F_CAPPED))
			genl_extack(g, req, e + 1, len - off);
		return 0;
	}
	g->err = -e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		/* The TLVs follow our request, unless it was left out. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < sizeof(e->msg))
				return e->error;
			off = NLMSG_ALIGN(off + e->msg.nlmsg_len - sizeof(e->msg));
		}
		if (off <= len)
			genl_extack(g, req, (const char *)e + off, len - off);
	}
	return e->error;
}

/* NLMSG_DONE: the end of a dump, with the dump's error if it failed. */
static int genl_done(struct genl *g, const struct nlmsghdr *req,
		     const struct nlmsghdr *nlh)
{
	size_t len = mnl_nlmsg_get_payload_len(nlh);
	const int *err = mnl_nlmsg_get_payload(nlh);

	if (len < sizeof(int) || *err >= 0)
		return 0;
	g->err = -*err;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		genl_extack(g, req, err + 1, len - sizeof(int));
	return *err;
}

/**
 * genl_run - send a request and read its replies
 * @g: the socket
 * @req: the request (its sequence number picks the replies)
 * @cb: called for each reply of the family; a negative return stops
 * @data: for @cb
 * @interrupted: set if a reply of a dump was marked NLM_F_DUMP_INTR
 *
 * Requests other than dumps must ask for an ACK (NLM_F_ACK).
 *
 * Return: 0, or a negative errno (g->err, g->err_msg say more).
 */
int genl_run(struct genl *g, struct nlmsghdr *req, genl_cb cb, void *data,
	     bool *interrupted)
{
	unsigned int seq = req->nlmsg_seq;

	g->err = 0;
	g->err_msg[0] = '\0';
	g->err_attr[0] = '\0';
	if (mnl_socket_sendto(g->nl, req, req->nlmsg_len) < 0) {
		g->err = errno;
		return -g->err;
	}
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(g->nl, g->rx, g->rx_size);
		const struct nlmsghdr *nlh = (const void *)g->rx;
		int len = (int)n, ret;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			g->err = errno;
			return -g->err;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != g->portid)
				continue;	/* stale: an earlier request's */
			if ((nlh->nlmsg_flags & NLM_F_DUMP_INTR) && interrupted)
				*interrupted = true;
			switch (nlh->nlmsg_type) {
			case NLMSG_ERROR:
				return genl_error(g, req, nlh);
			case NLMSG_DONE:
				return genl_done(g, req, nlh);
			case NLMSG_NOOP:
			case NLMSG_OVERRUN:
				continue;
			}
			if (!cb)
				continue;
			ret = cb(nlh, data);
			if (ret < 0) {
				g->err = -ret;
				return ret;
			}
		}
	}
}

/* Prints the last error: the kernel's message if it gave one. */
void genl_perror(const struct genl *g, const char *what)
{
	const char *hint = "";

	if (g->err == EPERM && !g->err_msg[0])
		hint = " (CAP_NET_ADMIN is needed)";
	if (g->err_msg[0])
		fprintf(stderr, "Error: %s: %s (%s%s%s)\n", what, g->err_msg,
			strerror(g->err), g->err_attr[0] ? "; " : "",
			g->err_attr);
	else if (g->err_attr[0])
		fprintf(stderr, "Error: %s: %s (%s)\n", what, strerror(g->err),
			g->err_attr);
	else
		fprintf(stderr, "Error: %s: %s%s\n", what, strerror(g->err),
			hint);
}

/*
 * Sends @req (which asks for an ACK) and prints the outcome under @what:
 * the error, or the warning the kernel gave with a success.
 * Return: 0 or a negative errno.
 */
int genl_do(struct genl *g, struct nlmsghdr *req, const char *what)
{
	int err = genl_run(g, req, NULL, NULL, NULL);

	if (err)
		genl_perror(g, what);
	else
		genl_pwarn(g, what);
	return err;
}

/* Prints the warning the kernel gave with a success, if any. */
void genl_pwarn(const struct genl *g, const char *what)
{
	if (g->err_msg[0])
		fprintf(stderr, "Warning: %s: %s\n", what, g->err_msg);
}

struct family_ctx {
	struct genl *g;
	bool found;
};

static int genl_group_cb(const struct nlattr *a, void *data)
{
	const struct nlattr *tb_name = NULL, *tb_id = NULL, *x;
	struct genl *g = data;

	mnl_attr_for_each_nested(x, a) {
		if (mnl_attr_get_type(x) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(x, MNL_TYPE_NUL_STRING) == 0)
			tb_name = x;
		else if (mnl_attr_get_type(x) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(x, MNL_TYPE_U32) == 0)
			tb_id = x;
	}
	if (tb_name && tb_id &&
	    !strcmp(mnl_attr_get_str(tb_name), PFCWD_MCGRP_EVENTS))
		g->events_group = mnl_attr_get_u32(tb_id);
	return MNL_CB_OK;
}

static int genl_family_attr(const struct nlattr *a, void *data)
{
	struct family_ctx *f = data;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0) {
			f->g->family = mnl_attr_get_u16(a);
			f->found = true;
		}
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			f->g->version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_parse_nested(a, genl_group_cb, f->g);
		break;
	}
	return MNL_CB_OK;
}

static int genl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), genl_family_attr, data);
	return 0;
}

/**
 * genl_open - open the socket and resolve the pfcwd family
 * @g: zeroed or not; filled in
 *
 * Prints what went wrong.
 *
 * Return: 0 or a negative errno.
 */
/* A bound socket of @bus with extended ACKs. */
static int genl_socket(struct genl *g, int bus)
{
	int one = 1;

	memset(g, 0, sizeof(*g));
	g->rx_size = GENL_RX_SIZE;
	g->rx = malloc(g->rx_size);
	g->nl = mnl_socket_open(bus);
	if (!g->rx || !g->nl) {
		perror("pfcwd: netlink socket");
		return -errno;
	}
	if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("pfcwd: netlink bind");
		return -errno;
	}
	/* Error messages from the kernel, and no copy of our request. */
	mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	g->portid = mnl_socket_get_portid(g->nl);
	g->seq = (unsigned int)time(NULL);
	return 0;
}

/* An rtnetlink socket for genl_run(); requests numbered with ++g->seq. */
int genl_open_route(struct genl *g)
{
	int err = genl_socket(g, NETLINK_ROUTE);

	g->route = true;
	return err;
}

int genl_open(struct genl *g)
{
	char buf[GENL_BUF_SIZE];
	struct family_ctx f = { g, false };
	struct nlmsghdr *req;
	int err;

	err = genl_socket(g, NETLINK_GENERIC);
	if (err)
		return err;

	req = genl_msg_type(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
			    NLM_F_ACK, ++g->seq);
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, PFCWD_GENL_NAME);
	err = genl_run(g, req, genl_family_cb, &f, NULL);
	if (err == -ENOENT) {
		fprintf(stderr, "pfcwd: no netlink family \"%s\": is pfcwd.ko loaded?\n",
			PFCWD_GENL_NAME);
		return err;
	}
	if (err) {
		genl_perror(g, "cannot resolve the pfcwd netlink family");
		return err;
	}
	if (!f.found) {
		fprintf(stderr, "pfcwd: the kernel did not give the family's id\n");
		return -EPROTO;
	}
	if (g->version < PFCWD_GENL_VERSION) {
		fprintf(stderr, "pfcwd: kernel family version %u, we need %u\n",
			g->version, PFCWD_GENL_VERSION);
		return -EPROTO;
	}
	return 0;
}

void genl_close(struct genl *g)
{
	if (g->nl)
		mnl_socket_close(g->nl);
	free(g->rx);
	g->nl = NULL;
	g->rx = NULL;
}

int genl_subscribe(struct genl *g, uint32_t group)
{
	int size = 4 << 20;

	/* Room for bursts of events; the kernel caps it at rmem_max. */
	setsockopt(mnl_socket_get_fd(g->nl), SOL_SOCKET, SO_RCVBUF, &size,
		   sizeof(size));
	if (mnl_socket_setsockopt(g->nl, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		g->err = errno;
		return -errno;
	}
	return 0;
}

/**
 * genl_recv_events - read notifications of the family until @cb stops
 * @g: the socket, subscribed
 * @cb: called for each notification; a non-zero return stops (its value
 *      is returned)
 * @data: for @cb
 *
 * Lost events (receive buffer overrun) are reported on stderr.
 *
 * Return: what @cb returned, or a negative errno.
 */
int genl_recv_events(struct genl *g, genl_cb cb, void *data)
{
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(g->nl, g->rx, g->rx_size);
		const struct nlmsghdr *nlh = (const void *)g->rx;
		int len = (int)n, ret;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				fputs("pfcwd: events lost (buffer overrun)\n", stderr);
				continue;
			}
			g->err = errno;
			return -errno;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type != g->family)
				continue;
			ret = cb(nlh, data);
			if (ret)
				return ret;
		}
	}
}
