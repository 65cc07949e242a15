// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd-pkt - send and receive numbered test frames with a given priority.
 *
 *   pfcwd-pkt send DEV PRIO COUNT [SIZE [PCP]]
 *	Sends COUNT Ethernet frames (EtherType 0x88b5, local experimental)
 *	out of DEV through its qdisc, with skb->priority = PRIO (SO_PRIORITY)
 *	and the priority and a sequence number in the payload; with PCP, the
 *	frames carry an 802.1Q tag with that priority (VID 0) in the frame
 *	itself.  PRIO may be a range, LOW-HIGH: COUNT frames of each, lowest
 *	first, from one process (a burst queued faster than a process start).
 *	Prints the number of frames the stack accepted.
 *
 *   pfcwd-pkt recv DEV COUNT TIMEOUT_MS
 *	Receives test frames on DEV until COUNT arrived or no frame arrived
 *	for TIMEOUT_MS; prints one line per frame, "PRIO SEQ", in arrival
 *	order, and exits 0.
 *
 *   pfcwd-pkt now
 *	Prints CLOCK_MONOTONIC in nanoseconds, the clock of pfcwd's event
 *	times (a Python start for the same costs the tests most of a second
 *	under TCG).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PKT_ETHERTYPE	0x88b5
#define PKT_MAGIC	0x70666377u	/* "pfcw" */

struct pkt_payload {
	uint32_t magic;
	uint32_t prio;
	uint32_t seq;
};	/* no padding: three 32-bit fields */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static unsigned long parse_num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0' || v > max) {
		fprintf(stderr, "pfcwd-pkt: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int open_socket(const char *dev, struct sockaddr_ll *sll)
{
	int fd;

	fd = socket(AF_PACKET, SOCK_RAW, htons(PKT_ETHERTYPE));
	if (fd < 0)
		die("socket");
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(PKT_ETHERTYPE);
	sll->sll_ifindex = if_nametoindex(dev);
	if (!sll->sll_ifindex)
		die(dev);
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)) < 0)
		die("bind");
	return fd;
}

static int do_send(const char *dev, unsigned int lo, unsigned int hi,
		   unsigned long count, unsigned long size, int pcp)
{
	unsigned char frame[9216];
	struct pkt_payload pl = { .magic = htonl(PKT_MAGIC) };
	struct sockaddr_ll sll;
	unsigned long i, sent = 0;
	unsigned int prio;
	int fd, sprio;
	size_t hlen = pcp >= 0 ? ETH_HLEN + 4 : ETH_HLEN;

	if (size < hlen + sizeof(pl) || size > sizeof(frame)) {
		fprintf(stderr, "pfcwd-pkt: size must be %zu..%zu\n",
			hlen + sizeof(pl), sizeof(frame));
		return 2;
	}
	memset(frame, 0, size);
	memset(frame, 0xff, ETH_ALEN);			/* broadcast */
	frame[6] = 0x02;				/* local source */
	if (pcp >= 0) {
		frame[12] = ETH_P_8021Q >> 8;
		frame[13] = ETH_P_8021Q & 0xff;
		frame[14] = pcp << 5;		/* PCP in the top 3 bits, VID 0 */
		frame[15] = 0;
	}
	frame[hlen - 2] = PKT_ETHERTYPE >> 8;
	frame[hlen - 1] = PKT_ETHERTYPE & 0xff;
	/*
	 * A socket per priority, as a process each would have: frames
	 * waiting in the qdisc count against their socket's send buffer, and
	 * one socket for all would block the sender mid-burst, leaving a
	 * queue empty for a moment.
	 */
	for (prio = lo; prio <= hi; prio++) {
		fd = open_socket(dev, &sll);
		sprio = prio;
		if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &sprio,
			       sizeof(sprio)) < 0)
			die("SO_PRIORITY");
		frame[11] = prio;
		pl.prio = htonl(prio);
		for (i = 0; i < count; i++) {
			pl.seq = htonl(i);
			memcpy(frame + hlen, &pl, sizeof(pl));
			if (send(fd, frame, size, 0) == (ssize_t)size)
				sent++;
			else if (errno != ENOBUFS)
				die("send");
		}
		close(fd);
	}
	printf("%lu\n", sent);
	return 0;
}

static int do_recv(const char *dev, unsigned long count, int timeout_ms)
{
	unsigned char frame[9216];
	struct pkt_payload pl;
	struct sockaddr_ll sll;
	struct pollfd pfd;
	unsigned long got = 0;
	ssize_t n;

	pfd.fd = open_socket(dev, &sll);
	pfd.events = POLLIN;
	while (got < count) {
		int r = poll(&pfd, 1, timeout_ms);

		if (r < 0)
			die("poll");
		if (r == 0)
			break;
		n = recv(pfd.fd, frame, sizeof(frame), 0);
		if (n < 0)
			die("recv");
		if (n < (ssize_t)(ETH_HLEN + sizeof(pl)))
			continue;
		memcpy(&pl, frame + ETH_HLEN, sizeof(pl));
		if (ntohl(pl.magic) != PKT_MAGIC)
			continue;
		printf("%u %u\n", ntohl(pl.prio), ntohl(pl.seq));
		got++;
	}
	fflush(stdout);
	return 0;
}

static int do_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	printf("%llu\n", (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec);
	return 0;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: pfcwd-pkt send DEV PRIO|LOW-HIGH COUNT [SIZE [PCP]]\n"
		"       pfcwd-pkt recv DEV COUNT TIMEOUT_MS\n"
		"       pfcwd-pkt now\n");
	exit(2);
}

/* "P" or "LOW-HIGH", priorities 0..7, LOW <= HIGH. */
static void parse_prio_range(char *s, unsigned int *lo, unsigned int *hi)
{
	char *dash = strchr(s, '-');

	if (dash) {
		*dash = '\0';
		*lo = parse_num(s, 7);
		*hi = parse_num(dash + 1, 7);
		if (*lo > *hi) {
			fprintf(stderr, "pfcwd-pkt: bad priority range\n");
			exit(2);
		}
		return;
	}
	*lo = parse_num(s, 7);
	*hi = *lo;
}

int main(int argc, char **argv)
{
	unsigned int lo, hi;

	if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "send")) {
		parse_prio_range(argv[3], &lo, &hi);
		return do_send(argv[2], lo, hi,
			       parse_num(argv[4], 100000000),
			       argc >= 6 ? parse_num(argv[5], 9216) : 64,
			       argc == 7 ? (int)parse_num(argv[6], 7) : -1);
	}
	if (argc == 5 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], parse_num(argv[3], 100000000),
			       parse_num(argv[4], 600000));
	if (argc == 2 && !strcmp(argv[1], "now"))
		return do_now();
	print_usage();
	return 2;
}
