// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): get_ports() fetches one port (a port-get request) or every
 * port of our netns (one dump, collected before anything is printed and
 * taken again, up to three times, if the kernel marks it inconsistent:
 * ports added or removed meanwhile, so that nothing is shown twice).
 *
 * Single-threaded; no locking.
 */
#include <errno.h>
#include <stdlib.h>
#include <libmnl/libmnl.h>

#include "cli.h"

#define DUMP_TRIES	3

static int port_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct port_list *l = data;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct port_info *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (port_parse(nlh, &l->v[l->n])) {
		fprintf(stderr, "pfcwd: malformed port from the kernel\n");
		return -EPROTO;
	}
	l->n++;
	return 0;
}

/*
 * The port @ifindex, or every port of our netns when @ifindex is 0, into
 * @l (which the caller frees).  Errors are printed.
 */
int get_ports(struct genl *g, unsigned int ifindex, const char *dev,
	      struct port_list *l)
{
	char buf[GENL_BUF_SIZE], what[64];
	struct nlmsghdr *req;
	bool intr = false;
	int tries, err;

	if (ifindex) {
		req = genl_msg(g, buf, PFCWD_CMD_PORT_GET, NLM_F_ACK);
		mnl_attr_put_u32(req, PFCWD_A_PORT_IFINDEX, ifindex);
		err = genl_run(g, req, port_list_cb, l, NULL);
		if (err) {
			snprintf(what, sizeof(what), "dev %s", dev);
			genl_perror(g, what);
		}
		return err;
	}
	for (tries = 0; tries < DUMP_TRIES; tries++) {
		l->n = 0;
		intr = false;
		req = genl_msg(g, buf, PFCWD_CMD_PORT_GET, NLM_F_DUMP);
		err = genl_run(g, req, port_list_cb, l, &intr);
		if (err) {
			genl_perror(g, "dump of the ports");
			return err;
		}
		if (!intr)
			return 0;
	}
	fprintf(stderr, "pfcwd: ports kept changing during the dump; it may be inconsistent\n");
	return 0;
}
