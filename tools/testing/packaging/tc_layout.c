// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for tc that loads q_pfcwd.so as tc does (dlopen, then dlsym
 * of "pfcwd_qdisc_util") and prints which of its slots the plugin left
 * set: "parse print xstats", or "none".  It exports, as tc does, a
 * prio_qdisc_util of its own: laid out as iproute2 6.1's (argument
 * "same") or with the kind one slot further (argument "other").
 *
 * Usage: tc_layout same|other PLUGIN
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int dummy(void)
{
	return 0;
}

/* Eight pointers, as iproute2 6.1's struct qdisc_util. */
void *prio_qdisc_util[8];

int main(int argc, char **argv)
{
	void *h, **util;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "same")) {
		prio_qdisc_util[1] = "prio";
		prio_qdisc_util[2] = (void *)dummy;
		prio_qdisc_util[3] = (void *)dummy;
	} else {
		prio_qdisc_util[2] = "prio";
		prio_qdisc_util[3] = (void *)dummy;
	}
	h = dlopen(argv[2], RTLD_LAZY);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	util = dlsym(h, "pfcwd_qdisc_util");
	if (!util || !util[1] || strcmp(util[1], "pfcwd"))
		return 1;
	if (!util[2] && !util[3] && !util[4])
		printf("none\n");
	else
		printf("%s%s%s\n", util[2] ? "parse " : "",
		       util[3] ? "print " : "", util[4] ? "xstats" : "");
	return 0;
}
