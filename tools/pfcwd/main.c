// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): the command for pfcwd, the PFC storm watchdog, in the style of
 * iproute2:
 *
 *	pfcwd [ OPTIONS ] OBJECT { COMMAND | help }
 *
 * This file: global options, the choice of command, help.  See cli.h for
 * the other files.  Single-threaded; no locking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct cli_opts cli;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pfcwd [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       pfcwd show [ dev DEV ]\n"
		"       pfcwd stats [ dev DEV ]\n"
		"       pfcwd stats clear [ dev DEV ]\n"
		"       pfcwd stats --check-storm [ dev DEV ] [ -v | --verbose ]\n"
		"       pfcwd set dev DEV [ on | off ] [ detect MS ] [ restore MS ]\n"
		"                         [ action { drop | forward | alert } ]\n"
		"                         [ prio LIST ] [ storm-limit N ]\n"
		"                         [ device-action { auto | on | off } ]\n"
		"                         [ warn MS ] [ backoff { on | off } ]\n"
		"                         [ rate-rx PPS ] [ rate-tx PPS ] [ rate-window MS ]\n"
		"       pfcwd restore dev DEV prio LIST\n"
		"       pfcwd monitor [ dev DEV ] [ count N ]\n"
		"       pfcwd history [ dev DEV ] [ prio PRIO ]\n"
		"       pfcwd headroom speed SPEED cable LENGTH [ mtu BYTES ]\n"
		"                      [ lossless-mtu BYTES ] [ cell BYTES ]\n"
		"                      [ intf-delay BT ] [ resp-delay BT ]\n"
		"       pfcwd metrics\n"
		"       pfcwd exporter [ listen ADDR:PORT ]\n"
		"       pfcwd apply [ -f FILE ] [ --dry-run ] [ dev DEV ]\n"
		"LIST := PRIO[,PRIO...] | none    PRIO := 0-7 | A-B\n"
		"SPEED := { 10G | 25G | 40G | 100G | 400G }\n"
		"OPTIONS := { -j[son] | -p[retty] | -n[etns] NAME | -V[ersion] | -h[elp] }\n"
		"See pfcwd(8).\n");
}

/* -n NAME: run in the network namespace NAME of "ip netns". */
static void enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!*name || strchr(name, '/'))
		usage_error("bad netns name \"%s\"", name);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "pfcwd: cannot open netns \"%s\": %s\n", name,
			strerror(errno));
		exit(EXIT_FAIL);
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "pfcwd: cannot enter netns \"%s\": %s\n", name,
			strerror(errno));
		exit(EXIT_FAIL);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		/* In this order when abbreviated: "s" is show. */
		{ "show", cmd_show },
		{ "stats", cmd_stats },
		{ "set", cmd_set },
		{ "restore", cmd_restore },
		{ "monitor", cmd_monitor },
		{ "headroom", cmd_headroom },
		{ "metrics", cmd_metrics },
		{ "exporter", cmd_exporter },
		{ "apply", cmd_apply },
		{ "history", cmd_history },
	};
	const char *opt;
	size_t i;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-' && argv[0][1]) {
		opt = argv[0] + 1;
		if (opt[0] == '-')
			opt++;		/* --json as -json */
		if (matches(opt, "json")) {
			cli.json = true;
		} else if (matches(opt, "pretty")) {
			cli.json = true;
			cli.pretty = true;
		} else if (matches(opt, "netns")) {
			enter_netns(next_arg(&argc, &argv, argv[0]));
		} else if (matches(opt, "Version")) {
			printf("pfcwd %s, for the pfcwd generic netlink family version %d\n",
			       PFCWD_VERSION, PFCWD_GENL_VERSION);
			exit(EXIT_OK);
		} else if (matches(opt, "help")) {
			usage(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("unknown option \"%s\"", argv[0]);
		}
		argc--;
		argv++;
	}
	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (matches(argv[0], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (matches(argv[0], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	usage_error("unknown command \"%s\"", argv[0]);
}
