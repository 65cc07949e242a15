// SPDX-License-Identifier: GPL-2.0
/*
 * Counter sources: how pfcwd learns what a priority's pause counters did.
 *
 *  (a) dcbnl: ieee_getpfc() gives, per priority, pause frames received
 *      (indications) and sent (requests); polled by poll.c.  Drivers may
 *      sleep in it (mlx5, mlxsw, hns3, bnxt), so it is called in process
 *      context under RTNL, one read per lock hold.
 *  (b) software PFC (swpfc.c): on a device without dcbnl PFC, pfcwd
 *      receives the PFC frames itself and knows each priority's pause
 *      exactly; pfcwd_swpfc_sample() reports it.
 *  (c) drivers pushing events through pfcwd_report_pause() (push.c) fill
 *      port->prio[].push instead; once a port has pushed, its push
 *      counters replace the others.
 * The port's receive progress comes from dev_get_stats().
 *
 * Freshness of dcbnl counters (the driver's profile, profile.c):
 *  - live: every read is fresh; read every poll_quiet_us while quiet,
 *    every poll_fine_us while busy.  Where the driver also counts pause
 *    time live (mlxsw), the reads the state machines see read it too
 *    (pfcwd_source_read_durations()), every force_busy_ms while busy.
 *  - forced: the driver publishes a copy, and get_ethtool_stats publishes
 *    it at once (mlx5, ixgbe, i40e, ice).  Every read is preceded by a
 *    forced refresh, which makes it fresh; reads are at most every
 *    force_quiet_ms / force_busy_ms, the cost bound.
 *  - published: a copy published every R ms that nothing can force (bnxt;
 *    or a period learnt at run time).  Reading faster than R tells
 *    nothing, so a quiet port is read once a period, at the end of the
 *    window in which a publication is expected once its phase is known,
 *    and a busy one around each publication (a read shortly before, then
 *    every poll_fine_us until the counters move or the window closes)
 *    and at the state machines' deadlines.  A read whose counters did
 *    not move and that comes before the next publication can have
 *    happened is marked stale: the state
 *    machine then keeps the pause state the last publication showed
 *    (storm.h).  Where the driver publishes frame totals in the same copy
 *    (the profile's phase_totals: bnxt), each read reads them too, first
 *    (pfcwd_source_read_phase()): with any traffic they move at every
 *    publication, so the phase is known before the first storm; a read
 *    that sees them move alone saw a publication without pause, and is
 *    not stale; and while they show publications a quiet port is read
 *    as a busy one until the interval is narrow (storm.h).
 *  - learnt: a driver not in the table starts live; if, while its
 *    counters are followed closely, they move in jumps separated by reads
 *    that saw nothing, each jump holding enough frames to have covered
 *    the whole gap, the gap is its refresh period: the smallest such gap
 *    seen is used from then on (logged).  Such jumps can also be the
 *    traffic's shape (XOFF in bursts a period apart), so the period stays
 *    on trial: every read that sees the counters move is followed by one
 *    a fine read later, and counters that moved in both (closer than any
 *    period: live_proven) are live again, for good (logged).  Counters
 *    proven live are never taken for a copy.
 *
 * Context: pfcwd_source_probe() and the reads run in process context with
 * RTNL held (the raw_* copies and the freshness fields belong to the
 * poller); pfcwd_source_sample() needs only port->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/dcbnl.h>

#include "pfcwd.h"

/* A read held back for its pause durations' step: at most this long. */
#define PFCWD_DUR_WAIT_NS	(10 * NSEC_PER_MSEC)

/* Published counters: never two reads closer than this. */
#define PFCWD_PUB_MIN_GAP_NS	(50 * NSEC_PER_USEC)

/* What port-get shows of the driver's statistics: read at most this often. */
#define PFCWD_SHOWN_NS		NSEC_PER_SEC

/* Learnt refresh periods: from 20 ms (faster is live enough) to 10 s. */
#define PFCWD_LEARN_MIN_NS	(20 * NSEC_PER_MSEC)
#define PFCWD_LEARN_MAX_NS	(10 * NSEC_PER_SEC)

static bool pfcwd_source_has_dcb(const struct net_device *dev)
{
	const struct dcbnl_rtnl_ops *ops = dev->dcbnl_ops;

	return ops && ops->ieee_getpfc && ops->ieee_setpfc;
}

/* At port creation: what the device offers, and its lossless priorities. */
void pfcwd_source_probe(struct pfcwd_port *port)
{
	struct net_device *dev = port->dev;
	struct ieee_pfc pfc = {};

	ASSERT_RTNL();
	port->has_dcb = false;
	port->counters = false;
	pfcwd_profile_probe(port);
	if (!pfcwd_source_has_dcb(dev))
		return;
	if (dev->dcbnl_ops->ieee_getpfc(dev, &pfc))
		return;
	port->has_dcb = true;
	port->counters = !port->profile->no_counters;
	WRITE_ONCE(port->pfc_en, pfc.pfc_en);
	port->swapped = port->profile->swapped;
	port->refresh_ms = port->profile->refresh_ms;
	if (port->counters)
		return;
	if (pfcwd_txq_stall_prios(dev))
		pr_notice("%s: driver %s gives no PFC pause counters: pfcwd sees storms only as TX queues that stop sending\n",
			  port->name, port->profile->name);
	else
		pr_notice("%s: driver %s gives no PFC pause counters: pfcwd cannot see storms on it\n",
			  port->name, port->profile->name);
}

/* The port's counters are a copy that nothing can refresh on demand. */
bool pfcwd_source_published(const struct pfcwd_port *port)
{
	return !port->profile->force && READ_ONCE(port->refresh_ms);
}

/*
 * How long after it is due a publication may come: the window within
 * which pfcwd looks for it.  Publishing tasks are timers and work items
 * that run late under load; R / 8 (125 ms for a 1 s period) covers what
 * a loaded 2-CPU guest shows, plus two busy reads.
 */
static u64 pfcwd_source_window_ns(const struct pfcwd_port *port)
{
	u64 r = (u64)READ_ONCE(port->refresh_ms) * NSEC_PER_MSEC;
	u64 fine = (u64)READ_ONCE(pfcwd_params.poll_fine_us) * NSEC_PER_USEC;

	return r / 8 + 2 * fine;
}

/*
 * The refresh period the state machines must allow for, and the window
 * within which a publication is looked for, ns (storm.h).
 */
void pfcwd_source_refresh(const struct pfcwd_port *port, u64 *period,
			  u64 *window)
{
	*period = 0;
	*window = 0;
	if (!pfcwd_source_published(port))
		return;
	*period = (u64)READ_ONCE(port->refresh_ms) * NSEC_PER_MSEC;
	*window = pfcwd_source_window_ns(port);
}

static u64 pfcwd_source_stale_ns(const struct pfcwd_port *port)
{
	u64 period, window;

	pfcwd_source_refresh(port, &period, &window);
	return period + window;
}

/* The quiet read interval in force for @port (not published), ns. */
static u64 pfcwd_source_quiet_ns(const struct pfcwd_port *port)
{
	u64 quiet = pfcwd_poll_quiet_ns();

	if (port->counters && port->profile->force)
		quiet = max_t(u64, quiet,
			      (u64)port->profile->force_quiet_ms * NSEC_PER_MSEC);
	return quiet;
}

/* The busy read interval in force for @port, ns. */
u64 pfcwd_source_fine_ns(const struct pfcwd_port *port)
{
	u64 fine = (u64)READ_ONCE(pfcwd_params.poll_fine_us) * NSEC_PER_USEC;

	if (port->counters &&
	    (port->profile->force || port->profile->durations))
		fine = max_t(u64, fine,
			     (u64)port->profile->force_busy_ms * NSEC_PER_MSEC);
	return fine;
}

/*
 * Forced refresh: get_ethtool_stats makes the driver publish.  RTNL.
 * Return: true if the statistics were read (into port->refresh_stats).
 */
static bool pfcwd_source_force(struct pfcwd_port *port, u64 now)
{
	const struct ethtool_ops *ops = port->dev->ethtool_ops;
	struct ethtool_stats *st;
	u64 t;
	int n;

	if (!ops || !ops->get_sset_count || !ops->get_ethtool_stats ||
	    pfcwd_ethtool_begin(port->dev))
		return false;
	n = ops->get_sset_count(port->dev, ETH_SS_STATS);
	if (n <= 0 || n > PFCWD_ETHTOOL_STATS_MAX)
		goto fail;
	st = pfcwd_ectr_buf(port, n);
	if (!st)
		goto fail;
	t = ktime_get_ns();
	ops->get_ethtool_stats(port->dev, st, st->data);
	/* The driver read each counter somewhere within the call. */
	port->forced_end = ktime_get_ns();
	pfcwd_ethtool_complete(port->dev);
	port->forced_span = port->forced_end - t;
	WRITE_ONCE(port->forced, port->forced + 1);
	port->last_forced = now;
	return true;
fail:
	pfcwd_ethtool_complete(port->dev);
	return false;
}

/* At teardown, RTNL held: the poller no longer reads the port. */
void pfcwd_source_free(struct pfcwd_port *port)
{
	ASSERT_RTNL();
	kvfree(port->refresh_stats);
	port->refresh_stats = NULL;
}

/* Reads per second, over windows of at least a second, rounded. */
static void pfcwd_source_count_read(struct pfcwd_port *port, u64 now)
{
	u64 span;

	WRITE_ONCE(port->reads, port->reads + 1);
	if (!port->rate_start) {
		port->rate_start = now;
		port->rate_reads = 0;
		return;
	}
	port->rate_reads++;
	span = now - port->rate_start;
	if (span < NSEC_PER_SEC)
		return;
	WRITE_ONCE(port->read_rate,
		   div64_u64(port->rate_reads * NSEC_PER_SEC + span / 2, span));
	port->rate_start = now;
	port->rate_reads = 0;
}

/*
 * A driver not in the table: do its counters move in jumps, a period
 * apart?  @jump: the most frames any priority gained in this read.
 */
static void pfcwd_source_learn(struct pfcwd_port *port, u64 now, u64 jump)
{
	u64 prev = port->pub.last_read, lo, hi, gap;
	u32 ms;

	/* Counters seen moving twice within the shortest period are live. */
	if (!port->profile->learn || READ_ONCE(port->live_proven) ||
	    !port->last_change || !prev || prev < port->last_change)
		return;
	/*
	 * This jump was published after the read before this one, the last
	 * one after the read before last_change: the period lies in [lo, hi].
	 * A read that saw a publication late (a loaded host, or reads spaced
	 * a window apart) would make a gap short: learn only from a gap
	 * known to 1/8.
	 */
	lo = prev - port->last_change;
	hi = now - port->change_after;
	gap = lo + (hi - lo) / 2;
	if (hi - lo > gap / 8)
		return;
	if (port->unchanged_reads < 2 || gap < 16 * port->hold_ns ||
	    gap < PFCWD_LEARN_MIN_NS || gap > PFCWD_LEARN_MAX_NS)
		return;
	/* Enough frames to have kept the priority paused all along. */
	if (jump * port->hold_ns < gap)
		return;
	ms = div_u64(gap, NSEC_PER_MSEC);
	if (port->refresh_ms && port->refresh_ms <= ms)
		return;
	WRITE_ONCE(port->refresh_ms, ms);
	WRITE_ONCE(port->refresh_learnt, true);
	pr_notice("%s: PFC counters refresh every %u ms (learnt); storms are seen that late\n",
		  port->name, ms);
}

/*
 * A learnt period proven wrong: the counters moved in two reads closer
 * than any period (the jumps it was learnt from were the traffic's shape,
 * bursts a period apart).  Read live again, as before it was learnt.
 */
static void pfcwd_source_unlearn(struct pfcwd_port *port, u64 gap)
{
	if (!port->refresh_learnt)
		return;
	pr_notice("%s: PFC counters moved twice in %llu us: live, not refreshed every %u ms as learnt\n",
		  port->name, div_u64(gap, NSEC_PER_USEC), port->refresh_ms);
	WRITE_ONCE(port->refresh_ms, port->profile->refresh_ms);
	WRITE_ONCE(port->refresh_learnt, false);
}

/* The pause durations in @data, where found, into @c (us to ns). */
static void pfcwd_source_fill_durations(struct pfcwd_port *port,
					struct pfcwd_counters *c,
					const u64 *data)
{
	int p, i;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		i = port->ectr.idx[PFCWD_ECTR_DUR0 + p];
		if (i < 0)
			continue;
		c->paused_ns[p] = data[i] * NSEC_PER_USEC;
		c->dur_valid |= BIT(p);
	}
}

/*
 * The phase counters (storm.h), read before the pause counters: a driver
 * that copies the two in steps (bnxt_en: the pause counters DMAed, the
 * totals accumulated from the DMA right after) can then show them moving
 * only after the pause counters, never before.  RTNL held, poller.
 * Return: whether they moved since the last read that found them.
 */
static bool pfcwd_source_read_phase(struct pfcwd_port *port, u64 now,
				    struct pfcwd_counters *c)
{
	u32 want = PFCWD_ECTR_PHASE_MASK;
	bool moved, was = port->phase_found;
	const u64 *data;
	u64 total = 0;
	int id, i;

	if (!port->profile->phase_totals || !pfcwd_source_published(port) ||
	    READ_ONCE(port->push_active) || READ_ONCE(port->swpfc.active))
		return false;
	if (port->profile->pub_durations)
		want |= PFCWD_ECTR_DUR_MASK;
	data = pfcwd_ectr_fetch(port, now, false, want);
	/* The durations of the same publication, where found (storm.h). */
	if (data && port->profile->pub_durations) {
		pfcwd_source_fill_durations(port, c, data);
		if (c->dur_valid) {
			c->dur_pub = true;
			WRITE_ONCE(port->dur_reads, port->dur_reads + 1);
		}
	}
	if (data && !(port->ectr.found & PFCWD_ECTR_PHASE_MASK))
		data = NULL;
	WRITE_ONCE(port->phase_found, !!data);
	if (!data)
		return false;
	for (id = PFCWD_ECTR_RX_FRAMES; id <= PFCWD_ECTR_TX_FRAMES; id++) {
		i = port->ectr.idx[id];
		if (i >= 0)
			total += data[i];
	}
	moved = was && total != port->phase_total;
	port->phase_total = total;
	WRITE_ONCE(port->phase_reads, port->phase_reads + 1);
	return moved;
}

/*
 * Pause durations (ethtool_ctr.c), where the forced refresh read them
 * anyway: reading the statistics for them alone would double what a read
 * costs.
 */
static void pfcwd_source_durations(struct pfcwd_port *port,
				   struct pfcwd_counters *c)
{
	const u64 *data;

	data = pfcwd_ectr_fetch(port, c->now, true, PFCWD_ECTR_DUR_MASK);
	if (!data)
		return;
	pfcwd_source_fill_durations(port, c, data);
	/*
	 * Dated at the end of the statistics call: the driver took them no
	 * later (and up to the whole call earlier), so a pause's start
	 * (dur_at - its time) is never early.
	 */
	c->dur_at = port->forced_end;
	c->dur_err = port->forced_span;
}

/**
 * pfcwd_source_read_durations - live pause durations for a sampled read
 * @port: the port; RTNL held, poller
 * @c: the counters just read, which the state machines will see
 *
 * On a device whose profile has live pause durations (mlxsw), reads them
 * through get_ethtool_stats - for the reads the state machines see only
 * (the quiet fast path skips this), so every sample they see has them and
 * a quiet port pays nothing more.  The sample is then dated at the end of
 * that call, after the PFC counters were read: whatever it shows happened
 * by then, so no pause is dated early (storm.h).
 */
void pfcwd_source_read_durations(struct pfcwd_port *port,
				 struct pfcwd_counters *c)
{
	const u64 *data;
	u64 start;

	ASSERT_RTNL();
	if (!port->counters || !port->profile->durations || c->dur_valid ||
	    READ_ONCE(port->push_active) || READ_ONCE(port->swpfc.active))
		return;
	start = ktime_get_ns();
	data = pfcwd_ectr_fetch(port, start, false, PFCWD_ECTR_DUR_MASK);
	if (!data)
		return;
	pfcwd_source_fill_durations(port, c, data);
	c->dur_at = ktime_get_ns();
	c->dur_err = c->dur_at - start;
	c->now = c->dur_at;
	WRITE_ONCE(port->dur_reads, port->dur_reads + 1);
}

/*
 * Published pause durations (bnxt_en) come in a later step of the same
 * publication than the pause counters (the totals' step, read before
 * getpfc): a read between the steps sees a priority's frames move without
 * its pause time.  Such a read is held back - nothing of it reaches the
 * machines (c->stale), the grid or the last values - and the port read
 * again a fine read later (pfcwd_source_next_read()), for up to
 * PFCWD_DUR_WAIT_NS; then the frames go alone (PFCWD_SAMPLE_DUR_OFF).
 * Pause time that moved without frames (long quanta over a whole period;
 * or a step that came after a read gave up on it) is no publication of
 * its own: DUR_OFF too, and the machines take it as the base of the next
 * interval (storm.h).  Only priorities in pfc_en are judged: one out of
 * it is not paused, whatever it receives.  RTNL held, poller.
 * Return: true if this read is held back.
 */
static bool pfcwd_source_dur_step(struct pfcwd_port *port,
				  struct pfcwd_counters *c)
{
	u8 ahead = 0, behind = 0;
	int p;

	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		bool fm = c->indications[p] != port->raw_ind[p];
		bool dm = c->paused_ns[p] != port->raw_dur[p];

		if (!(c->dur_valid & c->pfc_en & BIT(p)))
			continue;
		if (fm && !dm)
			ahead |= BIT(p);
		else if (dm && !fm)
			behind |= BIT(p);
	}
	if (ahead && (!port->dur_wait_since ||
		      c->now - port->dur_wait_since < PFCWD_DUR_WAIT_NS)) {
		if (!port->dur_wait_since)
			port->dur_wait_since = c->now;
		c->stale = true;
		WRITE_ONCE(port->dur_waits, port->dur_waits + 1);
		return true;
	}
	port->dur_wait_since = 0;
	c->dur_lag = ahead || behind;
	memcpy(port->raw_dur, c->paused_ns, sizeof(port->raw_dur));
	return false;
}

/*
 * What port-get shows of the driver's statistics - the per-priority packet
 * counters (tx_prioP_packets and rx_prioP_packets: mlx5's names, which
 * pfcsim uses too) and the NIC's storm prevention timeout - is read here,
 * by the poller, and port-get shows the copy: anyone may dump every port,
 * and that must cost the drivers nothing (on mlx5 a statistics read is a
 * series of firmware commands).  Read at most every PFCWD_SHOWN_NS, and
 * the packets also whenever this poll read the statistics anyway (@fresh:
 * a forced refresh, port->refresh_stats).  RTNL held, poller.
 */
static void pfcwd_source_read_shown(struct pfcwd_port *port, u64 now,
				    bool fresh)
{
	bool due = !port->shown_at || now - port->shown_at >= PFCWD_SHOWN_NS;
	u64 tx[PFCWD_NUM_PRIO] = {}, rx[PFCWD_NUM_PRIO] = {};
	const int *idx = port->ectr.idx;
	const u64 *data;
	u8 found = 0;
	int p;

	if (!due && !fresh)
		return;
	if (due) {
		port->shown_at = now;
		pfcwd_nic_prevention_read(port);
	}
	data = pfcwd_ectr_fetch(port, now, fresh, PFCWD_ECTR_PKTS_MASK);
	/* A failed read keeps the last copy; names not there clear it. */
	if (!data && (port->ectr.found & PFCWD_ECTR_PKTS_MASK))
		return;
	for (p = 0; data && p < PFCWD_NUM_PRIO; p++) {
		if (idx[PFCWD_ECTR_TX_PKTS0 + p] >= 0) {
			tx[p] = data[idx[PFCWD_ECTR_TX_PKTS0 + p]];
			found |= PFCWD_PKTS_TX;
		}
		if (idx[PFCWD_ECTR_RX_PKTS0 + p] >= 0) {
			rx[p] = data[idx[PFCWD_ECTR_RX_PKTS0 + p]];
			found |= PFCWD_PKTS_RX;
		}
	}
	mutex_lock(&port->lock);
	port->shown_pkts = found;
	memcpy(port->shown_tx, tx, sizeof(tx));
	memcpy(port->shown_rx, rx, sizeof(rx));
	mutex_unlock(&port->lock);
}

/*
 * Reads the device's PFC counters; RTNL held.  Returns whether any of them
 * moved since the last read (always true for a device without them).
 */
bool pfcwd_source_read_pfc(struct pfcwd_port *port, struct pfcwd_counters *c)
{
	struct net_device *dev = port->dev;
	struct ieee_pfc pfc = {};
	u64 jump = 0, r, window, phase_total;
	bool moved, forced = false, phase = false, news = false;
	int p, err;

	ASSERT_RTNL();
	memset(c, 0, sizeof(*c));
	if (!port->has_dcb) {
		c->now = ktime_get_ns();
		pfcwd_source_read_shown(port, c->now, false);
		return true;
	}
	/* A read held back (below) leaves the totals for the next one. */
	phase_total = port->phase_total;
	if (port->counters && port->profile->force)
		forced = pfcwd_source_force(port, ktime_get_ns());
	else if (port->counters)
		phase = pfcwd_source_read_phase(port, ktime_get_ns(), c);
	err = dev->dcbnl_ops->ieee_getpfc(dev, &pfc);
	c->now = ktime_get_ns();
	c->forced = forced;
	pfcwd_source_count_read(port, c->now);
	pfcwd_source_read_shown(port, c->now, forced);
	if (err) {
		WRITE_ONCE(port->read_errors, port->read_errors + 1);
		port->read_fails++;
		return true;
	}
	port->read_fails = 0;
	c->pfc_en = pfc.pfc_en;
	c->pfc_valid = true;
	if (!port->counters)
		return true;
	if (forced)
		pfcwd_source_durations(port, c);
	memcpy(c->indications, port->swapped ? pfc.requests :
	       pfc.indications, sizeof(c->indications));
	memcpy(c->requests, port->swapped ? pfc.indications :
	       pfc.requests, sizeof(c->requests));

	moved = memcmp(c->indications, port->raw_ind, sizeof(port->raw_ind)) ||
		memcmp(c->requests, port->raw_req, sizeof(port->raw_req));
	/* Pause time without frames (sparse XOFF, long quanta) is news too. */
	if (c->dur_pub) {
		if (pfcwd_source_dur_step(port, c)) {
			port->phase_total = phase_total;
			return false;
		}
	} else if (c->dur_valid &&
		   memcmp(c->paused_ns, port->raw_dur, sizeof(port->raw_dur))) {
		moved = true;
		memcpy(port->raw_dur, c->paused_ns, sizeof(port->raw_dur));
	}
	if (moved) {
		/* Two reads in a row moved, closer than any period learnt. */
		if (port->last_change && !port->unchanged_reads &&
		    c->now - port->last_change < PFCWD_LEARN_MIN_NS) {
			WRITE_ONCE(port->live_proven, true);
			pfcwd_source_unlearn(port, c->now - port->last_change);
		}
		for (p = 0; p < PFCWD_NUM_PRIO; p++)
			jump = max(jump, pfcwd_counter_delta(port->raw_ind[p],
							     c->indications[p]));
		pfcwd_source_learn(port, c->now, jump);
		port->change_after = port->pub.last_read;
		port->last_change = c->now;
		port->unchanged_reads = 0;
	}
	/*
	 * Every read, so that the one that learns the period already bounds
	 * its publication by the read before (storm.h).  The phase counters
	 * alone: a publication without pause, unless the rest of the one the
	 * read before saw.
	 */
	pfcwd_source_refresh(port, &r, &window);
	if (port->phase_found && r)
		news = pfcwd_pub_phase(&port->pub, moved, phase);
	if (news)
		WRITE_ONCE(port->phase_pubs, port->phase_pubs + 1);
	pfcwd_pub_read(&port->pub, c->now, moved || news, r, window);
	if (!moved) {
		port->unchanged_reads++;
		/* Before the next one is due: from the grid (storm.h). */
		c->stale = pfcwd_source_published(port) && port->pub.hi &&
			   !news &&
			   c->now < port->pub.hi + pfcwd_source_stale_ns(port);
	}
	memcpy(port->raw_ind, c->indications, sizeof(port->raw_ind));
	memcpy(port->raw_req, c->requests, sizeof(port->raw_req));
	/* Pause time a step behind: the machines must see it (storm.h). */
	return moved || c->dur_lag;
}

/*
 * When to read @port next (poll.c adds the state machines' deadlines).
 * Poller only.
 */
u64 pfcwd_source_next_read(struct pfcwd_port *port, u64 now, bool busy)
{
	u64 quiet = pfcwd_source_quiet_ns(port);
	u64 fine = pfcwd_source_fine_ns(port);
	enum pfcwd_pub_reads how = PFCWD_PUB_QUIET;
	u64 r, window;

	if (!port->counters || !pfcwd_source_published(port) ||
	    READ_ONCE(port->push_active))
		return busy ? now + fine : pfcwd_poll_quiet_next(now, quiet);

	/* A read held back for its pause durations' step: soon. */
	if (port->dur_wait_since)
		return now + fine;
	/*
	 * A learnt period is on trial: right after a read that saw the
	 * counters move, one more, which a publication a period apart cannot
	 * move but live counters that go on rising do (pfcwd_source_unlearn()).
	 */
	if (READ_ONCE(port->refresh_learnt) && !port->unchanged_reads &&
	    port->last_change == port->pub.last_read)
		return now + fine;
	r = (u64)READ_ONCE(port->refresh_ms) * NSEC_PER_MSEC;
	if (!port->pub.hi)		/* phase unknown: once a period */
		return now + max(r, quiet);
	window = pfcwd_source_window_ns(port);
	/* Phase counters that show publications: narrow, then prompt. */
	if (busy)
		how = PFCWD_PUB_BUSY;
	else if (port->phase_found)
		how = pfcwd_pub_quiet_reads(&port->pub, now, r, window, fine);
	/* Around the publication grid the reads found (storm.h). */
	return max(pfcwd_pub_next(&port->pub, now, how, r, window, fine),
		   now + PFCWD_PUB_MIN_GAP_NS);
}

/* The port's receive counter, for NIC-side storms; RTNL held. */
void pfcwd_source_read_stats(struct pfcwd_port *port,
			     struct pfcwd_counters *c)
{
	struct rtnl_link_stats64 stats;

	ASSERT_RTNL();
	dev_get_stats(port->dev, &stats);
	c->rx_packets = stats.rx_packets;
}

/*
 * Whether the counters' freshness is known: from the table, learnt, or
 * proven live.  Until then a transmit stall is not used with them: a
 * storm it detected would be restored by counters that only look quiet
 * because nobody knows yet that they are a copy published every R.
 */
static bool pfcwd_source_freshness_known(const struct pfcwd_port *port)
{
	return !port->profile->learn || READ_ONCE(port->refresh_learnt) ||
	       READ_ONCE(port->live_proven);
}

/*
 * Transmit stalls of the priorities in pfc_en (no other can be paused by
 * PFC), at c->now; RTNL held.  Return: those stalled now.
 */
u8 pfcwd_source_read_stall(struct pfcwd_port *port, struct pfcwd_counters *c)
{
	u8 pfc_en = c->pfc_valid ? c->pfc_en : port->pfc_en, stalled = 0;
	int p;

	ASSERT_RTNL();
	c->stall_valid = pfcwd_txq_stall_read(port, c->now, c->stall_since);
	if (port->counters && !pfcwd_source_freshness_known(port)) {
		c->stall_valid = 0;
		memset(c->stall_since, 0, sizeof(c->stall_since));
	}
	for (p = 0; p < PFCWD_NUM_PRIO; p++) {
		if (!(pfc_en & BIT(p)))
			c->stall_since[p] = 0;
		if (c->stall_since[p])
			stalled |= BIT(p);
	}
	return stalled;
}

/*
 * Published pause durations are as of the last publication, this read's
 * or an earlier one's (a read that saw none, or pause time a step
 * behind its frames): dated at the latest it can have been made, to
 * within the interval the reads left it (storm.h).  Poller.
 */
static void pfcwd_source_dur_dated(const struct pfcwd_port *port,
				   const struct pfcwd_counters *c,
				   struct pfcwd_sample *s)
{
	u64 at = s->pub_at, after = s->pub_after;

	if (!at) {
		at = port->pub.at;
		after = port->pub.after;
	}
	if (!at || at > c->now) {
		s->paused_at = c->now;
		s->paused_err = 0;
		return;
	}
	s->paused_at = at;
	s->paused_err = after && after < at ? at - after : at;
}

/*
 * The latest a dequeue stamped in jiffy @stamp can have been, ns: the
 * stamp is written once a jiffy, so up to the end of that jiffy.
 */
static u64 pfcwd_source_tx_at(u64 now, unsigned long stamp)
{
	unsigned long ago = jiffies - stamp;

	if (!stamp || ago == 0 || ago > HZ)
		return 0;
	return now - min_t(u64, now, jiffies_to_nsecs(ago - 1));
}

/* The sample of priority @prio from counters @c; port->lock held. */
void pfcwd_source_sample(struct pfcwd_port *port, int prio,
			 const struct pfcwd_counters *c,
			 struct pfcwd_sample *s)
{
	struct pfcwd_push *push = &port->prio[prio].push;

	memset(s, 0, sizeof(*s));
	s->now = c->now;
	s->tx_pause = c->requests[prio];
	s->rx_packets = c->rx_packets;
	/* Packets the port's qdiscs sent are transmit progress: no pause. */
	s->tx_progress = READ_ONCE(port->prio[prio].tx_jiffies);
	s->tx_progress_at = pfcwd_source_tx_at(c->now, s->tx_progress);
	s->valid = PFCWD_SAMPLE_RX | PFCWD_SAMPLE_TX;
	s->nic_storm = c->nic_storm & BIT(prio);
	if (c->stale)
		s->valid |= PFCWD_SAMPLE_STALE;
	/* This read saw a publication: dated by the grid (storm.h). */
	if (pfcwd_source_published(port) && port->pub.hi &&
	    port->pub.last_read == c->now && port->last_change == c->now) {
		s->pub_after = port->pub.after;
		s->pub_at = port->pub.at;
		s->pub_lo = port->pub.lo;
	}
	if (READ_ONCE(port->push_active)) {
		s->rx_pause = atomic64_read(&push->xoff);
		s->xoff_first = atomic64_xchg(&push->first, 0);
		s->xoff_last = s->xoff_first ? atomic64_read(&push->last) : 0;
		/*
		 * Frames pushed after the counters were read: the sample is
		 * taken now, so that none is dated before it came: dated at
		 * the read, a storm's first frame would begin its pause up to
		 * a poll pass before the storm, and detection come early.
		 */
		if (s->xoff_last > s->now)
			s->now = ktime_get_ns();
		s->xoff_first = min(s->xoff_first, s->now);
		s->xoff_last = min(s->xoff_last, s->now);
	} else if (READ_ONCE(port->swpfc.active)) {
		pfcwd_swpfc_sample(port, prio, s);
	} else {
		/* Counters, or none: the queues say when they cannot send. */
		if (c->stall_valid & BIT(prio)) {
			s->valid |= PFCWD_SAMPLE_STALL;
			s->stall_since = c->stall_since[prio];
		}
		s->rx_pause = c->indications[prio];
		if (c->dur_valid & BIT(prio)) {
			s->paused_ns = c->paused_ns[prio];
			s->paused_at = min(c->dur_at, c->now);
			s->paused_err = c->dur_err;
			/* Published: as of the last publication (storm.h). */
			if (c->dur_pub)
				pfcwd_source_dur_dated(port, c, s);
			s->valid |= PFCWD_SAMPLE_DURATION;
			if (c->dur_lag)
				s->valid |= PFCWD_SAMPLE_DUR_OFF;
			/* Out of pfc_en (pfcwd's mitigation): not paused. */
			if (!((c->pfc_valid ? c->pfc_en :
			       READ_ONCE(port->pfc_en)) & BIT(prio)))
				s->valid |= PFCWD_SAMPLE_DUR_OFF;
		}
	}
}

/*
 * The per-priority packet counters as the poller last read them, for
 * port-get; port->lock held.
 * Return: PFCWD_PKTS_TX and/or PFCWD_PKTS_RX for what was found.
 */
unsigned int pfcwd_source_prio_packets(const struct pfcwd_port *port,
				       u64 *tx, u64 *rx)
{
	lockdep_assert_held(&port->lock);
	memcpy(tx, port->shown_tx, sizeof(port->shown_tx));
	memcpy(rx, port->shown_rx, sizeof(port->shown_rx));
	return port->shown_pkts;
}

/*
 * How wide the interval in which the port's publications come is, us; 0
 * while not known (storm.h).  The poller's, read racily for display.
 */
u32 pfcwd_source_pub_width_us(const struct pfcwd_port *port)
{
	u64 lo = READ_ONCE(port->pub.lo), hi = READ_ONCE(port->pub.hi);

	if (!pfcwd_source_published(port) || hi <= lo)
		return 0;
	return min_t(u64, div_u64(hi - lo, NSEC_PER_USEC), U32_MAX);
}

/* Where the port's pause information comes from.  Any context. */
enum pfcwd_source pfcwd_port_source(const struct pfcwd_port *port)
{
	if (READ_ONCE(port->push_active))
		return PFCWD_SOURCE_PUSH;
	if (port->has_dcb && port->counters)
		return PFCWD_SOURCE_DCB;
	if (READ_ONCE(port->swpfc.active))
		return PFCWD_SOURCE_SOFTWARE;
	if (READ_ONCE(port->stall_prios))
		return PFCWD_SOURCE_TXQ;
	return PFCWD_SOURCE_NONE;
}

/* Counter reads failing this many times in a row blind the port. */
#define PFCWD_READ_FAILS_BLIND	3

/*
 * Whether @port watches a priority and can see no storm there: it has no
 * source of pause information, or its counter reads keep failing.
 * Poller, RTNL held.
 */
bool pfcwd_source_blind(const struct pfcwd_port *port)
{
	if (!port->cfg.enabled || !port->cfg.prios)
		return false;
	return pfcwd_port_source(port) == PFCWD_SOURCE_NONE ||
	       port->read_fails >= PFCWD_READ_FAILS_BLIND;
}

/*
 * What @port's pause information resolves: how late the counters (or the
 * queues) may first show a storm, plus one busy read - the granularity
 * without the poller's lateness, which load changes from one minute to
 * the next.  Any context (READ_ONCE).
 */
u64 pfcwd_port_resolution_ns(const struct pfcwd_port *port)
{
	u64 quiet = pfcwd_source_quiet_ns(port);
	u64 fine = pfcwd_source_fine_ns(port);

	/* The queues are checked every quiet interval; the ring drains. */
	if (pfcwd_port_source(port) == PFCWD_SOURCE_TXQ)
		return pfcwd_poll_quiet_ns() + fine +
		       pfcwd_txq_stall_err_ns(port);

	if (port->counters && pfcwd_source_published(port) &&
	    !READ_ONCE(port->push_active)) {
		/* A publication, then the window that finds it. */
		quiet = pfcwd_source_stale_ns(port);
		if (!READ_ONCE(port->pub.hi))		/* phase unknown */
			quiet += (u64)READ_ONCE(port->refresh_ms) * NSEC_PER_MSEC;
	}
	return quiet + fine;
}

/*
 * How late a storm on @port may be detected beyond T0 (and restored beyond
 * T1): the resolution plus twice the poller's own measured lateness.  Any
 * context (READ_ONCE).
 */
u64 pfcwd_port_granularity_ns(const struct pfcwd_port *port)
{
	return pfcwd_port_resolution_ns(port) +
	       2 * READ_ONCE(pfcwd_poll_stats.late_ns);
}

/*
 * How late a storm on @port may be restored beyond T1 (after its last
 * pause frame): the granularity, except on published counters, where a
 * storm shorter than two periods may be seen over only in a publication
 * without pause frames - up to two periods plus the window late - unless
 * published pause time places its end in a grid known to a window (the
 * phase counters).  Any context (READ_ONCE).
 */
u64 pfcwd_port_restore_late_ns(const struct pfcwd_port *port)
{
	u64 g = pfcwd_port_granularity_ns(port);
	u64 period, window, late;
	u32 width;

	if (pfcwd_port_source(port) != PFCWD_SOURCE_DCB)
		return g;
	pfcwd_source_refresh(port, &period, &window);
	if (!period)
		return g;
	/*
	 * Published pause time places the end, in a grid the phase counters
	 * keep narrow: no second period (storm.h).
	 */
	width = pfcwd_source_pub_width_us(port);
	if (port->profile->pub_durations &&
	    READ_ONCE(port->ectr.dur_name) >= 0 &&
	    READ_ONCE(port->phase_found) && width &&
	    width <= div_u64(window, NSEC_PER_USEC))
		return g;
	late = 2 * READ_ONCE(pfcwd_poll_stats.late_ns);
	return max_t(u64, g, 2 * period + window +
		     pfcwd_source_fine_ns(port) + late);
}
