// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): the "stats" command and its subcommands - the counters as a
 * table or JSON (show.c), "stats clear" (stats-clear, here) and
 * "stats --check-storm" (check.c).  Only this file knows the three, so
 * that none of them calls back into another.
 *
 * Single-threaded; no locking.
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "cli.h"

void usage_stats(FILE *f)
{
	fprintf(f, "Usage: pfcwd stats [ dev DEV ]\n"
		   "       pfcwd stats clear [ dev DEV ]\n"
		   "       pfcwd stats --check-storm [ dev DEV ] [ -v | --verbose ]\n");
}

int cmd_stats_clear(int argc, char **argv)
{
	char buf[GENL_BUF_SIZE], what[64];
	unsigned int ifindex = 0;
	const char *dev = NULL;
	struct nlmsghdr *req;
	struct genl g;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "dev")) {
			dev = next_arg(&argc, &argv, "dev");
			ifindex = dev_index(dev);
		} else if (matches(*argv, "help")) {
			usage_stats(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("stats clear: unknown argument \"%s\"", *argv);
		}
	}
	if (genl_open(&g)) {
		genl_close(&g);
		return EXIT_FAIL;
	}
	req = genl_msg(&g, buf, PFCWD_CMD_STATS_CLEAR, NLM_F_ACK);
	if (ifindex)
		mnl_attr_put_u32(req, PFCWD_A_PORT_IFINDEX, ifindex);
	snprintf(what, sizeof(what), "stats clear%s%s", dev ? " dev " : "",
		 dev ? dev : "");
	ret = genl_do(&g, req, what) ? EXIT_FAIL : EXIT_OK;
	genl_close(&g);
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--check-storm"))
			return cmd_check_storm(argc, argv);
	if (argc > 0 && matches(argv[0], "clear"))
		return cmd_stats_clear(argc - 1, argv + 1);
	return ports_print(argc, argv, "stats", usage_stats, AK_STATS);
}
