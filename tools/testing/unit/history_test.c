// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pfcwd/history.c: pause-time accounting (exact and
 * estimated, windows) and the ring of storms, with an injected clock.
 */
#include "../../../pfcwd/history.h"
#include "tap.h"

#define N_TESTS		47

#define MS(n)		((u64)(n) * PFCWD_NSEC_PER_MSEC)
#define SEC(n)		((u64)(n) * PFCWD_NSEC_PER_SEC)
#define BASE		SEC(100)	/* a window boundary */

static struct pfcwd_hist_pause_read rd(struct pfcwd_hist_pause *h, u64 now)
{
	struct pfcwd_hist_pause_read r;

	pfcwd_hist_pause_read(h, now, &r);
	return r;
}

static void test_exact(void)
{
	struct pfcwd_hist_pause h;
	struct pfcwd_hist_pause_read r;
	u64 t;

	pfcwd_hist_pause_init(&h, BASE + MS(1));
	r = rd(&h, BASE + MS(2));
	tap_ok(r.paused_ns == 0 && r.episodes == 0 && !r.paused,
	       "exact: nothing at start");

	/* A 3.36 ms XOFF at 1 s, refreshed every 2 ms for 100 ms. */
	for (t = BASE + SEC(1); t <= BASE + SEC(1) + MS(100); t += MS(2))
		pfcwd_hist_pause_set(&h, t, t + 3360000);
	r = rd(&h, BASE + SEC(1) + MS(101));
	tap_ok(r.paused && r.episodes == 1, "exact: refreshed XOFF is one episode");
	tap_ok(r.paused_ns == MS(101), "exact: paused so far %llu ns",
	       (unsigned long long)r.paused_ns);
	r = rd(&h, BASE + SEC(2));
	tap_ok(!r.paused && r.paused_ns == MS(100) + 3360000,
	       "exact: pause ends when its last quanta run out (%llu)",
	       (unsigned long long)r.paused_ns);

	/* XON cuts a pause short. */
	pfcwd_hist_pause_set(&h, BASE + SEC(3), BASE + SEC(3) + MS(3));
	pfcwd_hist_pause_set(&h, BASE + SEC(3) + MS(1), BASE + SEC(3) + MS(1));
	r = rd(&h, BASE + SEC(4));
	tap_ok(r.episodes == 2 && r.paused_ns == MS(100) + 3360000 + MS(1),
	       "exact: XON ends the pause at once");

	/* A shorter quanta replaces the end. */
	pfcwd_hist_pause_set(&h, BASE + SEC(5), BASE + SEC(5) + MS(10));
	pfcwd_hist_pause_set(&h, BASE + SEC(5) + MS(2), BASE + SEC(5) + MS(4));
	r = rd(&h, BASE + SEC(6));
	tap_ok(r.episodes == 3 && r.paused_ns == MS(100) + 3360000 + MS(5),
	       "exact: a later frame's quanta replace the end");

	/* A frame after the last one ran out is a new episode. */
	pfcwd_hist_pause_set(&h, BASE + SEC(7), BASE + SEC(7) + MS(1));
	pfcwd_hist_pause_set(&h, BASE + SEC(7) + MS(2), BASE + SEC(7) + MS(3));
	r = rd(&h, BASE + SEC(8));
	tap_ok(r.episodes == 5, "exact: a gap makes two episodes");
	tap_ok(r.last_ns == 0 && r.last_eps == 0,
	       "exact: no window completed yet");

	/* The window [BASE, BASE + 10 s) completes. */
	r = rd(&h, BASE + SEC(10) + MS(1));
	tap_ok(r.last_eps == 5 && r.last_ns == MS(100) + 3360000 + MS(7),
	       "window: last interval %llu ns %llu episodes",
	       (unsigned long long)r.last_ns, (unsigned long long)r.last_eps);

	/* A pause across a boundary is split between the windows. */
	pfcwd_hist_pause_set(&h, BASE + SEC(19) + MS(900),
			     BASE + SEC(20) + MS(300));
	r = rd(&h, BASE + SEC(20) + MS(100));
	tap_ok(r.last_ns == MS(100) && r.last_eps == 1,
	       "window: a pause across the boundary counts its part (%llu)",
	       (unsigned long long)r.last_ns);
	r = rd(&h, BASE + SEC(30) + MS(5));
	tap_ok(r.last_ns == MS(300) && r.last_eps == 0,
	       "window: the rest lands in the next one, no episode there");
	/* Windows with no call: computed, not lost. */
	pfcwd_hist_pause_set(&h, BASE + SEC(35), BASE + SEC(65));
	r = rd(&h, BASE + SEC(62));
	tap_ok(r.last_ns == SEC(10) && r.last_eps == 0,
	       "window: a window spent paused with no call in it is 10 s");
	r = rd(&h, BASE + SEC(75));
	tap_ok(r.last_ns == SEC(5) && !r.paused,
	       "window: the pause ends inside a skipped window (%llu)",
	       (unsigned long long)r.last_ns);

	/* Clear: counts zero, an open pause counts on from then. */
	pfcwd_hist_pause_set(&h, BASE + SEC(80), BASE + SEC(81));
	pfcwd_hist_pause_clear(&h, BASE + SEC(80) + MS(500));
	r = rd(&h, BASE + SEC(82));
	tap_ok(r.episodes == 0 && r.paused_ns == MS(500) && r.last_ns == 0,
	       "clear: zeroed, the pause in force counts on (%llu)",
	       (unsigned long long)r.paused_ns);

	/* A clock that steps back a little (another CPU) is held. */
	pfcwd_hist_pause_set(&h, BASE + SEC(83), BASE + SEC(83) + MS(2));
	pfcwd_hist_pause_set(&h, BASE + SEC(83) - MS(1), BASE + SEC(83) + MS(3));
	r = rd(&h, BASE + SEC(84));
	tap_ok(r.episodes == 1 && r.paused_ns == MS(500) + MS(3),
	       "exact: an earlier timestamp does not go back in time");
}

static void test_estimated(void)
{
	struct pfcwd_hist_pause h;
	struct pfcwd_hist_pause_read r;

	pfcwd_hist_pause_init(&h, BASE);
	pfcwd_hist_pause_begin(&h, BASE + SEC(1), BASE + SEC(1) + MS(5));
	r = rd(&h, BASE + SEC(2));
	tap_ok(r.paused && r.episodes == 1 && r.paused_ns == SEC(1),
	       "estimated: open pause counts up to now");
	pfcwd_hist_pause_begin(&h, BASE + SEC(1) + MS(100), BASE + SEC(2));
	tap_ok(rd(&h, BASE + SEC(2)).episodes == 1,
	       "estimated: begin while open changes nothing");
	pfcwd_hist_pause_end(&h, BASE + SEC(3), BASE + SEC(3) + MS(5));
	r = rd(&h, BASE + SEC(4));
	tap_ok(!r.paused && r.paused_ns == SEC(2),
	       "estimated: end at the last XOFF seen");
	pfcwd_hist_pause_end(&h, BASE + SEC(5), BASE + SEC(5));
	tap_ok(rd(&h, BASE + SEC(6)).paused_ns == SEC(2),
	       "estimated: end without a pause changes nothing");
	/* A pause seen beginning before the window is counted from it. */
	pfcwd_hist_pause_begin(&h, BASE + SEC(9), BASE + SEC(10) + MS(1));
	r = rd(&h, BASE + SEC(10) + MS(1));
	tap_ok(r.last_ns == SEC(2) && r.last_eps == 1,
	       "estimated: window closed before the late begin");
	pfcwd_hist_pause_end(&h, BASE + SEC(11), BASE + SEC(11));
	r = rd(&h, BASE + SEC(20) + MS(1));
	tap_ok(r.last_ns == SEC(1) && r.last_eps == 1 && r.paused_ns == SEC(3),
	       "estimated: a late begin is counted from its window");
	/* An end reported later than now is taken as now. */
	pfcwd_hist_pause_begin(&h, BASE + SEC(21), BASE + SEC(21));
	pfcwd_hist_pause_end(&h, BASE + SEC(30), BASE + SEC(22));
	tap_ok(rd(&h, BASE + SEC(23)).paused_ns == SEC(4),
	       "estimated: an end in the future is now");

	/* Following the detector: begun, XOFF seen, gone. */
	pfcwd_hist_pause_init(&h, BASE);
	pfcwd_hist_pause_follow(&h, 0, 0, BASE + MS(1));
	tap_ok(rd(&h, BASE + MS(2)).episodes == 0, "follow: nothing, nothing");
	pfcwd_hist_pause_follow(&h, BASE + MS(10), BASE + MS(10), BASE + MS(11));
	pfcwd_hist_pause_follow(&h, BASE + MS(10), BASE + MS(300), BASE + MS(301));
	pfcwd_hist_pause_follow(&h, 0, 0, BASE + MS(320));
	r = rd(&h, BASE + SEC(1));
	tap_ok(r.episodes == 1 && !r.paused && r.paused_ns == MS(290),
	       "follow: the pause ends at the last XOFF seen (%llu)",
	       (unsigned long long)r.paused_ns);
	pfcwd_hist_pause_follow(&h, BASE + SEC(2), 0, BASE + SEC(2));
	pfcwd_hist_pause_follow(&h, 0, 0, BASE + SEC(3));
	r = rd(&h, BASE + SEC(4));
	tap_ok(r.episodes == 2 && r.paused_ns == MS(290) + SEC(1),
	       "follow: no XOFF time known: ends when seen gone");
}

static void test_ring(void)
{
	struct pfcwd_hist_ring ring;
	const struct pfcwd_hist_storm *s;
	struct pfcwd_hist_storm *o;
	int i;
	bool ok;

	pfcwd_hist_ring_init(&ring);
	tap_ok(!pfcwd_hist_storm_at(&ring, 0) && !pfcwd_hist_storm_ongoing(&ring),
	       "ring: empty");
	tap_ok(!pfcwd_hist_storm_end(&ring, SEC(1), PFCWD_HIST_RESTORED, 1, 2, 3),
	       "ring: ending nothing is refused");

	o = pfcwd_hist_storm_begin(&ring, SEC(10), SEC(10) + MS(205), 0, false);
	tap_ok(o && o->detect_us == 205000 && pfcwd_hist_storm_start(o) == SEC(10) &&
	       o->end == 0 && o->end_reason == PFCWD_HIST_ONGOING,
	       "ring: a storm begins, detected after 205 ms, ongoing");
	tap_ok(pfcwd_hist_storm_ongoing(&ring) == o, "ring: it is ongoing");
	tap_ok(pfcwd_hist_storm_end(&ring, SEC(12), PFCWD_HIST_RESTORED, 7, 8, 9),
	       "ring: it ends");
	s = pfcwd_hist_storm_at(&ring, 0);
	tap_ok(s->end == SEC(12) && s->end_reason == PFCWD_HIST_RESTORED &&
	       s->tx_dropped == 7 && s->rx_dropped == 8 && s->tx_forwarded == 9,
	       "ring: restored, with its counts");
	tap_ok(!pfcwd_hist_storm_ongoing(&ring), "ring: nothing ongoing after");
	tap_ok(!pfcwd_hist_storm_end(&ring, SEC(13), PFCWD_HIST_BY_HAND, 0, 0, 0) &&
	       s->end_reason == PFCWD_HIST_RESTORED,
	       "ring: an ended storm does not end again");

	/* Latched by the storm limit, then by hand. */
	pfcwd_hist_storm_begin(&ring, SEC(20), SEC(20) + MS(200), 0, false);
	pfcwd_hist_storm_latch(&ring, 1);
	s = pfcwd_hist_storm_at(&ring, 1);
	tap_ok(s->latch == 1 && s->end_reason == PFCWD_HIST_ONGOING,
	       "ring: a latched storm is still ongoing, with its latch");
	pfcwd_hist_storm_end(&ring, SEC(30), PFCWD_HIST_BY_HAND, 1, 0, 0);
	tap_ok(s->end_reason == PFCWD_HIST_BY_HAND && s->latch == 1,
	       "ring: latched, ended by hand");

	/* Every other end reason, and a generated storm. */
	ok = true;
	for (i = PFCWD_HIST_DISABLED; i <= PFCWD_HIST_REMOVED; i++) {
		pfcwd_hist_storm_begin(&ring, SEC(40 + i), SEC(40 + i), 2, i & 1);
		ok &= pfcwd_hist_storm_end(&ring, SEC(40 + i) + MS(1), i, 0, 0, 0);
		s = pfcwd_hist_storm_at(&ring, ring.len - 1);
		ok &= s->end_reason == i && s->action == 2 && s->tx == (i & 1) &&
		      s->detect_us == 0;
	}
	tap_ok(ok && ring.len == 6, "ring: disabled, unwatched, netns, removed");

	/* A storm begun while one is open replaces it. */
	pfcwd_hist_storm_begin(&ring, SEC(50), SEC(50), 0, false);
	pfcwd_hist_storm_begin(&ring, SEC(51), SEC(51), 0, false);
	s = pfcwd_hist_storm_at(&ring, 6);
	tap_ok(s->end_reason == PFCWD_HIST_REPLACED && s->end == SEC(51),
	       "ring: an open storm is ended as replaced by a new one");
	pfcwd_hist_storm_end(&ring, SEC(52), PFCWD_HIST_RESTORED, 0, 0, 0);

	/* A start after the detection is taken as the detection. */
	o = pfcwd_hist_storm_begin(&ring, SEC(61), SEC(60), 0, false);
	tap_ok(pfcwd_hist_storm_start(o) == SEC(60) && o->detect_us == 0,
	       "ring: start never after detection");
	pfcwd_hist_storm_end(&ring, SEC(59), PFCWD_HIST_RESTORED, 0, 0, 0);
	tap_ok(o->end == SEC(60), "ring: end never before detection");

	/* Wrap at 16: the oldest go, order kept. */
	for (i = 0; i < 20; i++) {
		pfcwd_hist_storm_begin(&ring, SEC(100 + i), SEC(100 + i) + MS(i),
				       0, false);
		pfcwd_hist_storm_end(&ring, SEC(100 + i) + MS(500),
				     PFCWD_HIST_RESTORED, i, 0, 0);
	}
	tap_ok(ring.len == PFCWD_HIST_STORMS && ring.total == 29,
	       "ring: holds 16 of 29 (%u, %llu)", ring.len,
	       (unsigned long long)ring.total);
	s = pfcwd_hist_storm_at(&ring, 0);
	tap_ok(pfcwd_hist_storm_start(s) == SEC(104) && s->tx_dropped == 4,
	       "ring: the oldest held is the 5th of the last 20");
	s = pfcwd_hist_storm_at(&ring, 15);
	tap_ok(pfcwd_hist_storm_start(s) == SEC(119) && s->detect_us == 19000,
	       "ring: the newest is last");
	tap_ok(!pfcwd_hist_storm_at(&ring, 16), "ring: nothing past 16");
	ok = true;
	for (i = 1; i < 16; i++)
		ok &= pfcwd_hist_storm_start(pfcwd_hist_storm_at(&ring, i)) >
		      pfcwd_hist_storm_start(pfcwd_hist_storm_at(&ring, i - 1));
	tap_ok(ok, "ring: oldest first throughout");
	/* An ongoing storm at the wrap. */
	pfcwd_hist_storm_begin(&ring, SEC(200), SEC(200) + MS(100), 1, false);
	s = pfcwd_hist_storm_at(&ring, 15);
	tap_ok(ring.len == 16 && pfcwd_hist_storm_start(s) == SEC(200) &&
	       s->end_reason == PFCWD_HIST_ONGOING && s->end == 0 &&
	       pfcwd_hist_storm_start(pfcwd_hist_storm_at(&ring, 0)) == SEC(105),
	       "ring: an ongoing storm overwrites the oldest");
	tap_ok(sizeof(struct pfcwd_hist_storm) == 48,
	       "record: 48 bytes (%zu)", sizeof(struct pfcwd_hist_storm));
	tap_ok(!__builtin_strcmp(pfcwd_hist_end_name(PFCWD_HIST_BY_HAND), "by-hand") &&
	       !__builtin_strcmp(pfcwd_hist_end_name(99), "unknown"),
	       "end names");
}

int main(void)
{
	tap_plan(N_TESTS);
	test_exact();
	test_estimated();
	test_ring();
	return tap_done();
}
