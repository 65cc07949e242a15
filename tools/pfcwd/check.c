// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "stats --check-storm", a gate for scripts and health checks.
 *
 *	pfcwd stats --check-storm [ dev DEV ] [ -v | --verbose ]
 *
 * Exit 0: every port asked about watches a priority and can see a storm,
 * and no priority is stormed or latched; 1: at least one is; 2: could not
 * ask (bad command line, no such device, the device is not a port,
 * pfcwd.ko not loaded, a netlink error); 3: unknown - nothing is watched
 * (no port, or none enabled with a priority), or a watched port has no
 * source of pause information.  2 and 3 say why on stderr.  Otherwise
 * quiet unless asked: -v prints one line per stormed or latched priority,
 * -j (global option) a JSON array of them (empty when there is none).
 *
 * Single-threaded; no locking.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define EXIT_STORM	1	/* a priority is stormed or latched */
#define EXIT_ERROR	2	/* could not ask */
#define EXIT_UNKNOWN	3	/* asked, but nothing could see a storm */

/*
 * Stormed or latched.  The kernel reports a state other than operational
 * only for a priority it is mitigating or holding, which the gate must
 * report even if the priority was taken out of the watched set meanwhile.
 */
static bool prio_storming(const struct prio_info *pr)
{
	return has(pr->have, PFCWD_A_PRIO_STATE) &&
	       pr->v[PFCWD_A_PRIO_STATE] != PFCWD_PRIO_STATE_OPERATIONAL;
}

static void report(const struct port_info *pi, int p)
{
	const struct prio_info *pr = &pi->prio[p];
	uint64_t st = pr->v[PFCWD_A_PRIO_STATE];
	bool latched = st == PFCWD_PRIO_STATE_LATCHED;

	if (cli.json) {
		jw_obj_open(NULL);
		jw_str("ifname", pi->ifname);
		jw_u64("prio", p);
		jw_str("state", state_name(st));
		if (has(pr->have, PFCWD_A_PRIO_LATCH))
			jw_str("latch", latch_name(pr->v[PFCWD_A_PRIO_LATCH]));
		jw_obj_close();
	} else if (latched && has(pr->have, PFCWD_A_PRIO_LATCH)) {
		printf("%s prio %d: latched (%s)\n", pi->ifname, p,
		       latch_name(pr->v[PFCWD_A_PRIO_LATCH]));
	} else {
		printf("%s prio %d: %s\n", pi->ifname, p, state_name(st));
	}
}

/* Enabled with a priority to watch. */
static bool port_watching(const struct port_info *pi)
{
	return has(pi->have, PFCWD_A_PORT_ENABLED) &&
	       pi->v[PFCWD_A_PORT_ENABLED] &&
	       has(pi->have, PFCWD_A_PORT_PRIOS) && pi->v[PFCWD_A_PORT_PRIOS];
}

/*
 * Whether a quiet answer would be true: something is watched, and every
 * watched port has a source.  Says on stderr what is not so.
 */
static bool ports_can_see(const struct port_list *l)
{
	bool watched = false, blind = false;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!port_watching(&l->v[i]))
			continue;
		watched = true;
		if (has(l->v[i].have, PFCWD_A_PORT_SOURCE) &&
		    l->v[i].v[PFCWD_A_PORT_SOURCE] != PFCWD_SOURCE_NONE)
			continue;
		fprintf(stderr, "pfcwd: %s: no source of pause information: %s\n",
			l->v[i].ifname, "a storm there cannot be seen");
		blind = true;
	}
	if (!watched)
		fprintf(stderr, "pfcwd: nothing is watched: no port is enabled with a priority\n");
	return watched && !blind;
}

void usage_check_storm(FILE *f)
{
	fprintf(f, "Usage: pfcwd stats --check-storm [ dev DEV ] [ -v | --verbose ]\n"
		   "Exit 0: nothing stormed or latched; 1: something is; 2: error;\n"
		   "3: unknown (nothing watched, or a watched port cannot see storms).\n");
}

int cmd_check_storm(int argc, char **argv)
{
	struct port_list l = { 0 };
	unsigned int ifindex = 0;
	bool verbose = false, any = false;
	const char *dev = NULL;
	struct genl g;
	int ret = EXIT_ERROR, p;
	size_t i;

	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "--check-storm")) {
			continue;
		} else if (!strcmp(*argv, "-v") || !strcmp(*argv, "--verbose")) {
			verbose = true;
		} else if (matches(*argv, "dev")) {
			if (dev)
				usage_error("stats --check-storm: \"dev\" given twice");
			dev = next_arg(&argc, &argv, "dev");
			if (!*dev || strlen(dev) >= IF_NAMESIZE)
				usage_error("bad device name \"%s\"", dev);
		} else if (matches(*argv, "help")) {
			usage_check_storm(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("stats --check-storm: unknown argument \"%s\"",
				    *argv);
		}
	}
	/* Not dev_index(): its exit status 1 would read as "stormed". */
	if (dev) {
		ifindex = if_nametoindex(dev);
		if (!ifindex) {
			fprintf(stderr, "pfcwd: cannot find device \"%s\"\n",
				dev);
			return EXIT_ERROR;
		}
	}
	if (genl_open(&g))
		goto out;
	if (get_ports(&g, ifindex, dev, &l))
		goto out;
	if (cli.json) {
		jw_init(stdout, cli.pretty);
		jw_arr_open(NULL);
	}
	for (i = 0; i < l.n; i++) {
		for (p = 0; p < PFCWD_NUM_PRIO; p++) {
			if (!prio_storming(&l.v[i].prio[p]))
				continue;
			any = true;
			if (verbose || cli.json)
				report(&l.v[i], p);
		}
	}
	if (cli.json)
		jw_arr_close();
	if (fflush(stdout)) {
		perror("pfcwd: stdout");
		goto out;
	}
	if (any)
		ret = EXIT_STORM;
	else
		ret = ports_can_see(&l) ? EXIT_OK : EXIT_UNKNOWN;
out:
	genl_close(&g);
	free(l.v);
	return ret;
}
