// SPDX-License-Identifier: GPL-2.0
/*
 * Published counters: where a port's publications fall on their grid, as
 * its reads see them, and so when to read it next (struct pfcwd_pub; see
 * storm.h for the model).  The storm machines get what it learns through
 * pfcwd_sample.pub_at and pub_lo.
 *
 * Pure code (pure.h): no kernel calls, no locking, no clock.  Every function
 * runs in whatever context its caller is in; the caller serialises the
 * calls on one port's tracking (pfcwd's poller does so in source.c).
 */
#include "storm.h"

/**
 * pfcwd_pub_read - a read of published counters (storm.h)
 * @pub: the port's publication tracking
 * @now: the read's time
 * @moved: whether the counters moved since the previous read
 * @r: the refresh period (0: not published)
 * @window: how late a publication may come
 *
 * Return: for a read that saw a publication, when it was made at the
 * latest (pfcwd_sample.pub_at); 0 otherwise.
 */
u64 pfcwd_pub_read(struct pfcwd_pub *pub, u64 now, bool moved, u64 r,
		   u64 window)
{
	u64 lo = pub->last_read, at = now, k, plo, phi;

	pub->last_read = now;
	if (!moved)
		return 0;
	pub->after = lo;
	pub->seen = now;
	/* Publications come every r: one came within the last period. */
	if (r && now > r && (!lo || lo < now - r))
		lo = now - r;
	if (lo >= now)
		lo = now - 1;
	if (pub->hi && r && now > pub->hi) {
		/* The grid point nearest this read, from the last one seen. */
		k = pfcwd_div_u64(now - pub->hi + r / 2, r);
		plo = pub->lo + k * r;
		phi = pub->hi + k * r;
		/*
		 * Made by the window after the grid point at the latest; a
		 * window a period, for a period known only roughly (learnt).
		 */
		if (k && lo < phi + k * window && phi + k * window < now)
			at = phi + k * window;
		/* The next one, and both bound it: the interval narrows. */
		if (k == 1 && now > plo && lo < phi) {
			if (lo < plo)
				lo = plo;
			if (now > phi)
				now = phi;
		} else if (k == 1 && lo >= phi && lo < phi + window / 2 &&
			   pub->hi - pub->lo <= window / 2) {
			/*
			 * Late by a timer's rounding: the grid stays, if it
			 * is narrow; a wide one is narrowed to this read.
			 */
			pub->lo = plo;
			pub->hi = phi;
			pub->at = at;
			return at;
		}
		/*
		 * Else earlier than the grid (the last one was late: the
		 * busy reads start a window early), later than a rounding
		 * (a learnt R a little short drifts), or periods later: anew.
		 */
	}
	pub->lo = lo;
	pub->hi = now;
	pub->at = at;
	return at;
}

/**
 * pfcwd_pub_next - when to read published counters next (storm.h)
 * @pub: the port's publication tracking
 * @now: the time
 * @how: busy (the state machines follow a pause or a storm), prompt or
 *	 quiet (storm.h)
 * @r: the refresh period
 * @window: how late a publication may come
 * @fine: the busy read interval
 *
 * Return: the time of the next read; a period away if the phase is not
 * known yet.
 */
u64 pfcwd_pub_next(const struct pfcwd_pub *pub, u64 now,
		   enum pfcwd_pub_reads how, u64 r, u64 window, u64 fine)
{
	u64 k = 1, lo, hi, step;

	if (!pub->hi || !r)
		return now + r;
	/* The next publication whose window is still open. */
	if (now >= pub->hi + r + window)
		k = pfcwd_div_u64(now - pub->hi - window, r) + 1;
	lo = pub->lo + k * r;
	hi = pub->hi + k * r;
	if (how == PFCWD_PUB_QUIET)
		return hi + window;
	if (how == PFCWD_PUB_PROMPT) {
		/* Just after it; if it was late, a quarter window apart. */
		if (now < hi + fine)
			return hi + fine;
		step = window / 4 > fine ? window / 4 : fine;
		return now + step < hi + window ? now + step : hi + window;
	}
	/* Up to a window early (the last one was late): 8 reads. */
	step = window / 8 > fine ? window / 8 : fine;
	if (now + step < lo)
		return lo > window + step && now + step < lo - window ?
		       lo - window : now + step;
	if (now + fine < lo)
		return lo - fine;
	step = (pub->hi - pub->lo) / 8;
	if (step < fine)
		step = fine;
	if (now < hi)
		return now + step < hi ? now + step : hi;
	return now + fine;
}

/**
 * pfcwd_pub_phase - whether phase counters that moved alone show a new
 * publication (storm.h); called at every read, before pfcwd_pub_read()
 * @pub: the port's publication tracking
 * @moved: the pause counters moved since the previous read
 * @phase: the phase counters moved since the previous read
 *
 * Return: true if only the phase counters moved, and not as the rest of a
 * publication whose pause counters an earlier read saw without them.
 */
bool pfcwd_pub_phase(struct pfcwd_pub *pub, bool moved, bool phase)
{
	bool news = phase && !moved && !pub->lag;

	if (moved)
		pub->lag = !phase;
	else if (phase)
		pub->lag = false;
	return news;
}

/**
 * pfcwd_pub_quiet_reads - how to read a quiet port whose phase counters
 * show publications (storm.h)
 * @pub: the port's publication tracking
 * @now: the time
 * @r: the refresh period
 * @window: how late a publication may come
 * @fine: the busy read interval
 *
 * Return: while a read saw a publication within the last two periods and
 * a window, busy to narrow an interval wider than two fine reads, else
 * prompt; quiet once none did.
 */
enum pfcwd_pub_reads pfcwd_pub_quiet_reads(const struct pfcwd_pub *pub,
					   u64 now, u64 r, u64 window,
					   u64 fine)
{
	if (!r || !pub->hi || !pub->seen || now >= pub->seen + 2 * r + window)
		return PFCWD_PUB_QUIET;
	return pub->hi - pub->lo > 2 * fine ? PFCWD_PUB_BUSY : PFCWD_PUB_PROMPT;
}
