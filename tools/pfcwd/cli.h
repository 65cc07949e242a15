/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfcwd(8), the command: declarations shared by its files.
 *
 *   main.c          global options, dispatch, help
 *   genl.c          generic netlink on libmnl: family, requests, errors
 *   port.c          replies parsed into struct port_info; names and keys
 *   ports_get.c     one port, or a dump of them all
 *   show.c          show, and the stats tables
 *   stats.c         stats: dispatch to its subcommands; stats clear
 *   check.c         stats --check-storm
 *   history.c       history
 *   metrics.c       metrics (Prometheus text format)
 *   exporter.c      exporter (the metrics over HTTP)
 *   set.c           set, restore
 *   conf.c          the configuration file read into rules (no netlink)
 *   apply.c         apply: the rules made true on the devices
 *   rtnl.c          root qdiscs over rtnetlink, for apply
 *   monitor.c       monitor
 *   headroom_cmd.c  headroom (the computation: headroom.c)
 *   json.c          JSON writer
 *   table.c         human tables
 *   util.c          argument parsing and formatting helpers
 *
 * Single-threaded; no locking anywhere.
 */
#ifndef _PFCWD_TOOLS_CLI_H
#define _PFCWD_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <linux/pfcwd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/*
 * The kernel's __printf() (linux/compiler_attributes.h), which user space
 * lacks: printf-style arguments checked by the compiler.
 */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, \
						      a, b)))
#endif

/* Exit statuses. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the request failed */
#define EXIT_USAGE	2	/* bad command line */

/* Global options. */
struct cli_opts {
	bool json;		/* -j */
	bool pretty;		/* -p */
};

extern struct cli_opts cli;

/* ---- util.c ---- */
bool matches(const char *arg, const char *keyword);
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
const char *next_arg(int *argc, char ***argv, const char *keyword);
int parse_u32(const char *s, uint32_t *v);
int parse_ms(const char *s, uint32_t *v);
int parse_prios(const char *s, uint8_t *mask);
int parse_action(const char *s, uint32_t *action);
int parse_device_action(const char *s, uint32_t *da);
unsigned int dev_index(const char *name);
const char *action_name(uint64_t action);
const char *device_action_name(uint64_t da);
const char *lever_name(uint64_t lever);
const char *lever_reach(uint64_t lever);
const char *state_name(uint64_t state);
const char *latch_name(uint64_t latch);
const char *source_name(uint64_t source);
void prio_list(uint8_t mask, char *buf, size_t size);
uint64_t mono_ns(void);
void fmt_milli(char *buf, size_t size, uint64_t v_x1000);
void fmt_us(char *buf, size_t size, uint64_t us);
void fmt_ago(char *buf, size_t size, uint64_t then_ns, uint64_t now_ns);
void fmt_wall(char *buf, size_t size, uint64_t mono_event_ns, bool iso_utc);

/* ---- json.c ---- */
void jw_init(FILE *f, bool pretty);
void jw_obj_open(const char *key);
void jw_obj_close(void);
void jw_arr_open(const char *key);
void jw_arr_close(void);
void jw_u64(const char *key, uint64_t v);
void jw_str(const char *key, const char *s);
void jw_bool(const char *key, bool v);
void jw_fixed(const char *key, uint64_t v_x1000);
void jw_prio_list(const char *key, uint8_t mask);

/* ---- genl.c ---- */
struct genl {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t version;
	uint32_t events_group;		/* multicast group id, 0 = none */
	bool route;			/* NETLINK_ROUTE: attributes unnamed */
	unsigned int portid;
	unsigned int seq;
	char *rx;			/* receive buffer */
	size_t rx_size;
	/* The last error: errno, the kernel's extack message and the name of
	 * the attribute it points at, if any.
	 */
	int err;
	char err_msg[256];
	char err_attr[64];
};

typedef int (*genl_cb)(const struct nlmsghdr *nlh, void *data);

int genl_open(struct genl *g);
int genl_open_route(struct genl *g);
void genl_close(struct genl *g);
struct nlmsghdr *genl_msg(struct genl *g, void *buf, uint8_t cmd,
			  uint16_t flags);
int genl_run(struct genl *g, struct nlmsghdr *req, genl_cb cb, void *data,
	     bool *interrupted);
void genl_perror(const struct genl *g, const char *what);
void genl_pwarn(const struct genl *g, const char *what);
int genl_do(struct genl *g, struct nlmsghdr *req, const char *what);
int genl_subscribe(struct genl *g, uint32_t group);
int genl_recv_events(struct genl *g, genl_cb cb, void *data);

#define GENL_BUF_SIZE	1024	/* requests: eight prio nests fit */

/* ---- port.c ---- */
#define PORT_ATTRS	(PFCWD_A_PORT_MAX + 1)
#define PRIO_ATTRS	(PFCWD_A_PRIO_MAX + 1)

struct prio_info {
	uint64_t have;			/* bit (1 << PFCWD_A_PRIO_x) */
	uint64_t v[PRIO_ATTRS];
};

struct port_info {
	uint64_t have;			/* bit (1 << PFCWD_A_PORT_x) */
	uint64_t v[PORT_ATTRS];
	char ifname[IF_NAMESIZE];
	char profile[32];		/* PFCWD_A_PORT_PROFILE */
	struct prio_info prio[PFCWD_NUM_PRIO];
};

/* How a port or priority attribute is shown. */
enum attr_fmt {
	AF_NUM,		/* a number */
	AF_STR,		/* a string (ifname, profile) */
	AF_BOOL,	/* 0 or 1 */
	AF_ACTION,	/* enum pfcwd_action */
	AF_STATE,	/* enum pfcwd_prio_state */
	AF_LATCH,	/* enum pfcwd_latch_reason */
	AF_SOURCE,	/* enum pfcwd_source */
	AF_PRIOS,	/* bitmask of priorities */
	AF_DEVICE_ACTION, /* enum pfcwd_device_action */
	AF_RATE_DIR,	/* enum pfcwd_rate_direction: "rx" or "tx" */
	AF_LEVER,	/* enum pfcwd_lever */
};

/* Which JSON objects carry the attribute. */
#define AK_SHOW		0x1	/* pfcwd show */
#define AK_STATS	0x2	/* pfcwd stats */
#define AK_EVENT	0x4	/* pfcwd monitor */

struct attr_key {
	uint16_t type;
	const char *key;	/* JSON key, stable: see pfcwd(8) */
	enum attr_fmt fmt;
	unsigned int in;	/* AK_* */
};

extern const struct attr_key port_keys[];
extern const size_t n_port_keys;
extern const struct attr_key prio_keys[];
extern const size_t n_prio_keys;

static inline bool has(uint64_t have, unsigned int type)
{
	return have & (1ULL << type);
}

int port_parse(const struct nlmsghdr *nlh, struct port_info *pi);
const char *port_lever(const struct port_info *pi);
void json_port_members(const struct port_info *pi, unsigned int kind);
void json_prio_members(const struct prio_info *pr, unsigned int kind);
const char *port_attr_name(uint16_t type);

/* ---- ports_get.c ---- */
struct port_list {
	struct port_info *v;
	size_t n, cap;
};

int get_ports(struct genl *g, unsigned int ifindex, const char *dev,
	      struct port_list *l);

/* ---- util.c, set.c: per-priority policy (prio-detect P:MS ...) ---- */
struct prio_policy {
	uint8_t set[PFCWD_NUM_PRIO];	/* PFCWD_PRIO_OVR_* to set */
	uint8_t drop[PFCWD_NUM_PRIO];	/* ...and to drop (P:default) */
	uint32_t detect_ms[PFCWD_NUM_PRIO];
	uint32_t restore_ms[PFCWD_NUM_PRIO];
	uint32_t warn_ms[PFCWD_NUM_PRIO];
	uint32_t action[PFCWD_NUM_PRIO];
};

int prio_policy_parse(struct prio_policy *pp, unsigned int ovr,
		      const char *tok, char *err, size_t err_size);
unsigned int prio_policy_keyword(const char *kw);
const char *prio_policy_kw(unsigned int ovr);
bool prio_policy_empty(const struct prio_policy *pp);
void prio_policy_put(struct nlmsghdr *req, const struct prio_policy *pp);

/* ---- conf.c ---- */
#define CONF_HAS_ENABLED	0x001
#define CONF_HAS_DETECT		0x002
#define CONF_HAS_RESTORE	0x004
#define CONF_HAS_ACTION		0x008
#define CONF_HAS_PRIOS		0x010
#define CONF_HAS_STORM_LIMIT	0x020
#define CONF_HAS_DEVICE_ACTION	0x040
#define CONF_HAS_QDISC		0x080
#define CONF_HAS_QDISC_LIMIT	0x100
#define CONF_HAS_WARN		0x200
#define CONF_HAS_BACKOFF	0x400
#define CONF_HAS_PRIO_POLICY	0x800	/* prio-detect P:MS ... (pp) */
#define CONF_HAS_RATE_RX	0x1000
#define CONF_HAS_RATE_TX	0x2000
#define CONF_HAS_RATE_WINDOW	0x4000

enum conf_qdisc {
	CONF_QDISC_PFCWD = 1,	/* the root qdisc is pfcwd */
	CONF_QDISC_NONE,	/* no pfcwd root qdisc (removed if there) */
};

/* What a rule, or the rules matching a device, set (CONF_HAS_* in has). */
struct conf_set {
	unsigned int has;
	uint8_t enabled;
	uint8_t prios;
	uint8_t backoff;
	uint32_t detect_ms, restore_ms, action, storm_limit, device_action;
	uint32_t warn_ms;
	struct prio_policy pp;	/* per-priority overrides: set, drop */
	uint32_t rate_rx, rate_tx, rate_window_ms;
	enum conf_qdisc qdisc;
	uint32_t qdisc_limit;
};

struct conf_rule {
	char pattern[64];	/* a device name or an fnmatch(3) glob */
	bool virtual_too;	/* the glob matches loopback, virtual devices */
	unsigned int line;
	struct conf_set set;
};

struct conf {
	char name[256];		/* the file's name, for messages */
	struct conf_rule *rules;
	size_t n, cap;
	char err[512];		/* "FILE:LINE: reason" once parsing failed */
};

int conf_parse(FILE *f, const char *name, struct conf *c);
/* @virt: @ifname is loopback or virtual (links.c). */
bool conf_resolve(const struct conf *c, const char *ifname, bool virt,
		  struct conf_set *out, unsigned int *last_line);
bool conf_pattern_is_glob(const char *pattern);
void conf_free(struct conf *c);

/* ---- rtnl.c ---- */
struct root_qdisc {
	unsigned int ifindex;
	char kind[32];
	uint32_t handle;
	bool has_limit;		/* pfcwd's TCA_PFCWD_LIMIT */
	uint32_t limit;
};

struct root_qdiscs {
	struct root_qdisc *v;
	size_t n, cap;
};

/* @r: a socket of genl_open_route(); errors as genl_run()'s. */
int rtnl_root_qdiscs(struct genl *r, struct root_qdiscs *l);
const struct root_qdisc *rtnl_root_of(const struct root_qdiscs *l,
				      unsigned int ifindex);
int rtnl_pfcwd_replace(struct genl *r, unsigned int ifindex, bool has_limit,
		       uint32_t limit);
int rtnl_root_delete(struct genl *r, unsigned int ifindex);

/* ---- links.c ---- */
struct virtual_links {
	unsigned int *v;	/* ifindexes: loopback, or with a link kind */
	size_t n, cap;
};

/* @r: a socket of genl_open_route(); errors as genl_run()'s. */
int links_virtual(struct genl *r, struct virtual_links *l);
bool links_is_virtual(const struct virtual_links *l, unsigned int ifindex);

/* ---- table.c ---- */
struct table;
struct table *table_new(unsigned int cols, const char *const *heads,
			const char *align);
void table_add(struct table *t, const char *const *cells);
void table_print(struct table *t, FILE *f, const char *indent);
void table_free(struct table *t);

/* ---- commands ---- */
int cmd_show(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int ports_print(int argc, char **argv, const char *cmd,
		void (*usage)(FILE *f), unsigned int kind);
int cmd_set(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_stats_clear(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_headroom(int argc, char **argv);
int cmd_check_storm(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_exporter(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_history(int argc, char **argv);

/* ---- metrics.c ---- */
int metrics_write(FILE *f);

void usage_show(FILE *f);
void usage_stats(FILE *f);
void usage_set(FILE *f);
void usage_restore(FILE *f);
void usage_history(FILE *f);
void usage_monitor(FILE *f);
void usage_headroom(FILE *f);
void usage_check_storm(FILE *f);
void usage_metrics(FILE *f);
void usage_exporter(FILE *f);
void usage_apply(FILE *f);

#endif /* _PFCWD_TOOLS_CLI_H */
