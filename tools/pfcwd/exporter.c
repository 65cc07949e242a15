// SPDX-License-Identifier: GPL-2.0
/*
 * pfcwd(8): "exporter", the metrics of "pfcwd metrics" served over HTTP
 * for Prometheus to scrape:
 *
 *	pfcwd exporter [ listen ADDR:PORT ]	default 127.0.0.1:9860
 *
 * ADDR is a numeric IPv4 address or an IPv6 address in brackets
 * ([::1]:9860); names are not resolved.  One connection at a time, one
 * request per connection (Connection: close): GET or HEAD of /metrics
 * gives 200 and the metrics, taken at that moment; any other path 404;
 * another method 405; a malformed request 400; a request head larger than
 * REQ_MAX 431.  A client gets REQ_TIMEOUT_MS to send its request and as
 * long to take the answer, after which the connection is closed, so that
 * a slow or silent client delays the others by that much at most.  If the
 * ports cannot be read (pfcwd.ko unloaded), the answer is 500 and the
 * reason goes to stderr, so that Prometheus marks the target down.
 *
 * SIGTERM and SIGINT end it with status 0.  They are blocked and read from
 * a signalfd that every wait polls too, so that none is lost between a
 * check and a wait, and no handler runs in the middle of a request.
 *
 * Single-threaded; no locking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include "cli.h"

#define LISTEN_DEFAULT	"127.0.0.1:9860"
#define REQ_MAX		8192	/* request line and headers */
#define REQ_TIMEOUT_MS	5000	/* to send the request; to take the answer */
#define DRAIN_MAX	65536	/* read after the answer, before close */

/* The stop signals, and whether one came. */
static int sig_fd = -1;
static bool stop;

/* Reads the pending stop signal, if any; true once one came. */
static bool stopping(void)
{
	struct signalfd_siginfo si;

	if (!stop && read(sig_fd, &si, sizeof(si)) == sizeof(si))
		stop = true;
	return stop;
}

/**
 * parse_listen - "ADDR:PORT" or "[ADDR6]:PORT" into a socket address
 * @s: the argument
 * @ss: filled in
 * @len: its length
 *
 * Return: 0, or -EINVAL with the reason in @why.
 */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			socklen_t *len, const char **why)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN];
	const char *port, *end;
	uint32_t n;
	size_t hl;
	bool v6 = s[0] == '[';

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		end = strchr(s, ']');
		if (!end || end[1] != ':') {
			*why = "expected [IPV6]:PORT";
			return -EINVAL;
		}
		hl = (size_t)(end - s - 1);
		port = end + 2;
		s++;
	} else {
		end = strchr(s, ':');
		if (!end) {
			*why = "expected ADDR:PORT";
			return -EINVAL;
		}
		if (strchr(end + 1, ':')) {
			*why = "an IPv6 address goes in brackets: [ADDR]:PORT";
			return -EINVAL;
		}
		hl = (size_t)(end - s);
		port = end + 1;
	}
	if (!hl || hl >= sizeof(host)) {
		*why = "bad address";
		return -EINVAL;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (parse_u32(port, &n) || n == 0 || n > 65535) {
		*why = "the port must be a number from 1 to 65535";
		return -EINVAL;
	}
	if (v6) {
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1) {
			*why = "bad IPv6 address (numeric only)";
			return -EINVAL;
		}
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)n);
		*len = sizeof(*a6);
	} else {
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1) {
			*why = "bad IPv4 address (numeric only; IPv6 in brackets)";
			return -EINVAL;
		}
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)n);
		*len = sizeof(*a4);
	}
	return 0;
}

static int64_t now_ms(void)
{
	return (int64_t)(mono_ns() / 1000000);
}

/*
 * Waits until @fd is ready for @events, a stop signal comes, or @deadline
 * (now_ms(); -1 for none) passes.  Return: 1 ready, 0 timeout, -1 error
 * or a stop signal.
 */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = events },
		{ .fd = sig_fd, .events = POLLIN },
	};
	int64_t left = -1;
	int r;

	for (;;) {
		if (stopping())
			return -1;
		if (deadline >= 0) {
			left = deadline - now_ms();
			if (left <= 0)
				return 0;
		}
		r = poll(pfd, 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (pfd[0].revents)
			return 1;
	}
}

/* Writes all of @buf before @deadline; -1 if the client did not take it. */
static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    wait_fd(fd, POLLOUT, deadline) == 1)
			continue;
		return -1;
	}
	return 0;
}

/* 200 and the metrics in @body. */
static void respond_ok(int fd, const char *body, size_t len, bool head,
		       int64_t deadline)
{
	char hdr[160];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		     len);
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return;
	if (send_all(fd, hdr, (size_t)n, deadline))
		return;
	if (!head && len)
		send_all(fd, body, len, deadline);
}

/* A short plain text answer: the status line repeated as the body. */
static void respond_error(int fd, const char *status, const char *extra,
			  bool head, int64_t deadline)
{
	char hdr[320], body[64];
	int n, b;

	b = snprintf(body, sizeof(body), "%s\n", status);
	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n%s",
		     status, b, extra ? extra : "", head ? "" : body);
	if (n > 0 && (size_t)n < sizeof(hdr))
		send_all(fd, hdr, (size_t)n, deadline);
}

/* GET or HEAD /metrics: the metrics as they are now. */
static void respond_metrics(int fd, bool head, int64_t deadline)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	if (!f) {
		perror("pfcwd: exporter");
		respond_error(fd, "500 Internal Server Error", NULL, head,
			      deadline);
		return;
	}
	err = metrics_write(f);
	if (fclose(f) || err)
		respond_error(fd, "500 Internal Server Error", NULL, head,
			      deadline);
	else
		respond_ok(fd, buf, len, head, deadline);
	free(buf);
}

/*
 * Reads the request head (up to the empty line) into @buf.  Return: its
 * length, 0 if the client went away or was too slow, -1 if too large.
 */
static ssize_t read_request(int fd, char *buf, int64_t deadline)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (wait_fd(fd, POLLIN, deadline) != 1)
			return 0;
		n = recv(fd, buf + len, REQ_MAX - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return 0;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return (ssize_t)len;
		if (len == REQ_MAX)
			return -1;
	}
}

static void serve(int fd)
{
	static char buf[REQ_MAX + 1];
	char *method, *target, *version, *eol, *q;
	int64_t deadline = now_ms() + REQ_TIMEOUT_MS;
	ssize_t len;
	bool head;

	len = read_request(fd, buf, deadline);
	if (len < 0) {
		respond_error(fd, "431 Request Header Fields Too Large", NULL,
			      false, now_ms() + REQ_TIMEOUT_MS);
		return;
	}
	if (len == 0)
		return;
	deadline = now_ms() + REQ_TIMEOUT_MS;
	eol = strpbrk(buf, "\r\n");
	*eol = '\0';
	/* METHOD SP TARGET SP HTTP/1.x, nothing else on the line. */
	method = buf;
	target = strchr(method, ' ');
	version = target ? strchr(target + 1, ' ') : NULL;
	if (!target || !version || strchr(version + 1, ' ') ||
	    strncmp(version + 1, "HTTP/1.", 7) || target[1] != '/') {
		respond_error(fd, "400 Bad Request", NULL, false, deadline);
		return;
	}
	*target++ = '\0';
	*version = '\0';
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		respond_error(fd, "405 Method Not Allowed",
			      "Allow: GET, HEAD\r\n", false, deadline);
		return;
	}
	q = strchr(target, '?');
	if (q)
		*q = '\0';
	if (strcmp(target, "/metrics")) {
		respond_error(fd, "404 Not Found", NULL, head, deadline);
		return;
	}
	respond_metrics(fd, head, deadline);
}

/*
 * After the answer: no more to send, and what the client still sends is
 * read (briefly) so that close() does not reset the connection before it
 * has the answer.
 */
static void finish(int fd)
{
	int64_t deadline = now_ms() + 1000;
	size_t total = 0;
	char junk[4096];
	ssize_t n;

	shutdown(fd, SHUT_WR);
	while (total < DRAIN_MAX && wait_fd(fd, POLLIN, deadline) == 1) {
		n = recv(fd, junk, sizeof(junk), MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
}

void usage_exporter(FILE *f)
{
	fprintf(f, "Usage: pfcwd exporter [ listen ADDR:PORT ]\n"
		   "ADDR:PORT := IPV4:PORT | [IPV6]:PORT    default %s\n",
		LISTEN_DEFAULT);
}

int cmd_exporter(int argc, char **argv)
{
	const char *listen_arg = LISTEN_DEFAULT, *why = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	sigset_t set;
	int one = 1, fd, c;

	for (; argc > 0; argc--, argv++) {
		if (matches(*argv, "listen")) {
			listen_arg = next_arg(&argc, &argv, "listen");
		} else if (matches(*argv, "help")) {
			usage_exporter(stdout);
			exit(EXIT_OK);
		} else {
			usage_error("exporter: unknown argument \"%s\"", *argv);
		}
	}
	if (parse_listen(listen_arg, &ss, &len, &why))
		usage_error("bad listen address \"%s\": %s", listen_arg, why);

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_fd < 0) {
		perror("pfcwd: exporter: signalfd");
		return EXIT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN);

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0) {
		perror("pfcwd: exporter: socket");
		return EXIT_FAIL;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16)) {
		fprintf(stderr, "pfcwd: exporter: cannot listen on %s: %s\n",
			listen_arg, strerror(errno));
		close(fd);
		return EXIT_FAIL;
	}
	fprintf(stderr, "pfcwd: exporter listening on %s\n", listen_arg);

	while (wait_fd(fd, POLLIN, -1) == 1) {
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0) {
			/* Out of descriptors: the backlog waits a moment. */
			if (errno == EMFILE || errno == ENFILE)
				usleep(100000);
			continue;
		}
		serve(c);
		finish(c);
	}
	close(fd);
	close(sig_fd);
	if (!stop) {
		perror("pfcwd: exporter: poll");
		return EXIT_FAIL;
	}
	fprintf(stderr, "pfcwd: exporter stopped\n");
	return EXIT_OK;
}
