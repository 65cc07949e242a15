/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of tc's (iproute2's) binary interface that the pfcwd tc plugin
 * uses: our own declarations, written from an inspection of the binary
 * they must match, not copied from iproute2.
 *
 * Matches: Debian 12's /usr/sbin/tc, package iproute2 6.1.0-3
 * ("tc -V": iproute2-6.1.0), x86_64.  How it was checked (see also
 * Documentation/networking/pfcwd.rst, section "tc"):
 *
 *  - "strings tc" shows the plugin path format "%s/q_%s.so" and the symbol
 *    format "%s_qdisc_util"; disassembling get_qdisc_kind() shows
 *    dlopen(path, RTLD_LAZY) then dlsym(handle, "pfcwd_qdisc_util"), the
 *    directory being $TC_LIB_DIR or, by default, the string returned by
 *    get_tc_lib(): "/usr/lib/x86_64-linux-gnu/tc/".  When no plugin is
 *    found, tc calloc()s a 64-byte descriptor of its own (options then
 *    unparsable, none printed) - which is why the qdisc works without us.
 *  - "readelf --dyn-syms tc": every built-in *_qdisc_util object is 64
 *    bytes, i.e. eight pointers.  Their relocations give the slots: +8 is
 *    the kind string ("prio", "fq_codel", ...), +16 a parser (absent in
 *    pfifo_fast), +24 the options printer (prio_print_opt in prio and
 *    pfifo_fast), +32 an xstats printer (fq_codel), +40/+48 the class
 *    parser/printer (htb only).  get_qdisc_kind() stores the list link at
 *    +0.
 *  - The call sites fix the arguments: the qdisc add/change path calls
 *    +16 as (util, argc, argv, nlmsghdr, dev); print_qdisc() calls +24 as
 *    (util, FILE, TCA_OPTIONS attribute) - inside the JSON object
 *    "options", and only when the dump has TCA_OPTIONS - and +32 as
 *    (util, FILE, TCA_STATS_APP attribute); the "block exists" check calls
 *    +56 as (util, attribute, block index, bool *).
 *  - tc is linked -rdynamic: "nm -D tc" lists its libnetlink and JSON
 *    print helpers.  Disassembly of addattr8/addattr32/addattr_nest/
 *    addattr_nest_end, is_json_context, print_nl, print_color_uint/u64/
 *    string/bool, open/close_json_object and open/close_json_array gives
 *    the prototypes below; output type bits: 1 plain only, 2 JSON only,
 *    4 both; colour 6 is "none".
 *
 * The helpers are weak references: under a tc that does not export them
 * they are NULL and the plugin falls back to plain printf() (no JSON) or,
 * for the netlink builders, refuses to parse options.
 */
#ifndef _PFCWD_TC_IPROUTE2_H
#define _PFCWD_TC_IPROUTE2_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct nlmsghdr;
struct rtattr;

/* iproute2 6.1's struct qdisc_util (64 bytes; slots as found above). */
struct tc_qdisc_plugin {
	struct tc_qdisc_plugin *next;
	const char *kind;
	int (*parse_qopt)(struct tc_qdisc_plugin *qp, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct tc_qdisc_plugin *qp, FILE *f,
			  struct rtattr *opt);
	int (*print_xstats)(struct tc_qdisc_plugin *qp, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct tc_qdisc_plugin *qp, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct tc_qdisc_plugin *qp, FILE *f,
			  struct rtattr *opt);
	int (*has_block)(struct tc_qdisc_plugin *qp, struct rtattr *opt,
			 uint32_t block, bool *has);
};

/* What the layout above was established against, for the user. */
#define TC_IPROUTE2_BUILT_FOR \
	"iproute2 6.1.0 (Debian 12's tc, package iproute2 6.1.0-3, x86_64)"

/*
 * A built-in descriptor of tc's, exported (-rdynamic): its kind at the slot
 * above tells at load whether this tc lays descriptors out as we do.
 */
extern struct tc_qdisc_plugin prio_qdisc_util;
#pragma weak prio_qdisc_util

/* Output type bits and the "no colour" value of the print helpers. */
#define TC_OUT_PLAIN	1
#define TC_OUT_JSON	2
#define TC_OUT_ANY	4
#define TC_COLOR_NONE	6

/* tc's exported helpers; made weak below: NULL when tc lacks one. */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

bool is_json_context(void);
void print_nl(void);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(int type, const char *key);
void close_json_array(int type, const char *delim);
int print_color_uint(int type, int color, const char *key, const char *fmt,
		     unsigned int value);
int print_color_u64(int type, int color, const char *key, const char *fmt,
		    uint64_t value);
int print_color_string(int type, int color, const char *key,
		       const char *fmt, const char *value);
int print_color_bool(int type, int color, const char *key, const char *fmt,
		     bool value);

#pragma weak addattr_l
#pragma weak addattr_nest
#pragma weak addattr_nest_end
#pragma weak is_json_context
#pragma weak print_nl
#pragma weak open_json_object
#pragma weak close_json_object
#pragma weak open_json_array
#pragma weak close_json_array
#pragma weak print_color_uint
#pragma weak print_color_u64
#pragma weak print_color_string
#pragma weak print_color_bool

#endif /* _PFCWD_TC_IPROUTE2_H */
