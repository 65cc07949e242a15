// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pfcwd/pause_rate.c, the pause-rate early warning, compiled
 * from the module's own source.  The clock is injected: a simulated
 * cumulative counter grows at a chosen rate and is sampled at the times
 * each test chooses.
 */
#include "../../../pfcwd/pause_rate.h"
#include "tap.h"

#define MS(n)		((u64)(n) * PFCWD_NSEC_PER_MSEC)
#define SEC(n)		((u64)(n) * PFCWD_NSEC_PER_SEC)
#define BASE		SEC(10)

struct sim {
	struct pfcwd_rate r;
	struct pfcwd_rate_stats st;
	struct pfcwd_rate_config cfg;
	u64 now;		/* the last sample's time */
	u64 ctr;		/* the cumulative counter, as the source shows it */
	u64 exact;		/* frames so far, in thousandths */
	u64 events;		/* events returned */
	u64 first_event;	/* time of the first one */
	bool wrap32;		/* the counter is 32 bits wide */
};

static void sim_init(struct sim *x, u32 threshold, u64 window, u64 refresh)
{
	*x = (struct sim){ .now = BASE };
	x->cfg.threshold = threshold;
	x->cfg.window_ns = window;
	x->cfg.refresh_ns = refresh;
	x->cfg.refresh_window_ns = refresh ? MS(10) : 0;
	x->cfg.bucket_ns = pfcwd_rate_bucket_ns(refresh);
}

/* One sample of the counter at @now, as storm.c makes it. */
static void sim_sample(struct sim *x, u64 now, u64 ctr)
{
	bool reset = pfcwd_counter_went_back(x->ctr, ctr);
	u64 d = reset ? 0 : ctr - x->ctr;

	if (ctr < x->ctr && !reset)		/* a 32-bit wrap */
		d = (u32)ctr - (u32)x->ctr;
	if (pfcwd_rate_sample(&x->r, &x->st, &x->cfg, x->now, now, d, reset)) {
		if (!x->events)
			x->first_event = now;
		x->events++;
	}
	x->now = now;
	x->ctr = ctr;
}

/*
 * @d of frames at @pps, sampled every @tick (live counters), or published
 * every x->cfg.refresh_ns and sampled every @tick.
 */
static void sim_run(struct sim *x, u64 d, u64 pps, u64 tick)
{
	u64 end = x->now + d, t, shown = x->ctr;

	for (t = x->now + tick; t <= end; t += tick) {
		x->exact += pps * tick / MS(1);
		if (!x->cfg.refresh_ns ||
		    (t - BASE) / x->cfg.refresh_ns !=
		    (t - tick - BASE) / x->cfg.refresh_ns)
			shown = x->exact / 1000;
		if (x->wrap32)
			shown &= PFCWD_U32_MAX;
		sim_sample(x, t, shown);
	}
}

static void test_live(void)
{
	struct sim x;

	sim_init(&x, 1000, SEC(1), 0);
	sim_run(&x, SEC(5), 2000, MS(4));
	tap_ok(x.events == 1 && x.st.events == 1,
	       "live: 2000/s over 1000/s for 5 s: exactly one event (%llu)",
	       (unsigned long long)x.events);
	tap_ok(x.st.last_rate >= 1990 && x.st.last_rate <= 2000,
	       "live: the event's rate is the mean, 1990-2000 (%llu)",
	       (unsigned long long)x.st.last_rate);
	tap_ok(x.st.last_duration_ns >= SEC(1) &&
	       x.st.last_duration_ns < SEC(1) + MS(104),
	       "live: reported once above for the window, within a bucket (%llu ms)",
	       (unsigned long long)(x.st.last_duration_ns / MS(1)));
	tap_ok(x.first_event >= BASE + SEC(1) &&
	       x.first_event < BASE + SEC(1) + MS(104),
	       "live: the event came 1.0-1.104 s after the rate rose");

	sim_init(&x, 1000, SEC(1), 0);
	sim_run(&x, SEC(5), 999, MS(4));
	tap_ok(x.events == 0, "live: 999/s under 1000/s: no event");

	sim_init(&x, 1000, SEC(1), 0);
	sim_run(&x, SEC(5), 1000, MS(4));
	tap_ok(x.events == 0, "live: exactly the threshold is not above it");

	sim_init(&x, 0, SEC(1), 0);
	sim_run(&x, SEC(5), 100000, MS(4));
	tap_ok(x.events == 0 && !x.r.bucket_start && !x.st.events,
	       "threshold 0: off, nothing kept");
}

static void test_bursts(void)
{
	struct sim x;
	int i;

	sim_init(&x, 1000, SEC(1), 0);
	for (i = 0; i < 10; i++) {
		sim_run(&x, MS(700), 5000, MS(4));
		sim_run(&x, MS(200), 0, MS(4));
	}
	tap_ok(x.events == 0 && x.r.above_since == 0,
	       "bursts of 700 ms, quiet 200 ms, window 1 s: no event");

	/* 700 ms at 5000/s then 300 ms at 900/s: one bucket below ends it. */
	sim_init(&x, 1000, SEC(1), 0);
	for (i = 0; i < 5; i++) {
		sim_run(&x, MS(700), 5000, MS(4));
		sim_run(&x, MS(300), 900, MS(4));
	}
	tap_ok(x.events == 0, "a rate that dips below between bursts: no event");
}

static void test_rearm(void)
{
	struct sim x;

	sim_init(&x, 1000, MS(500), 0);
	sim_run(&x, SEC(2), 3000, MS(4));
	tap_ok(x.events == 1, "episode 1: one event");
	sim_run(&x, MS(300), 10, MS(4));
	tap_ok(x.r.above_since == 0 && !x.r.reported,
	       "below the threshold: cleared, re-armed");
	sim_run(&x, SEC(2), 3000, MS(4));
	tap_ok(x.events == 2 && x.st.events == 2,
	       "episode 2: a second event, counter 2");
	tap_ok(x.st.last_rate >= 2950 && x.st.last_rate <= 3000,
	       "episode 2's own rate (%llu)", (unsigned long long)x.st.last_rate);
}

static void test_irregular(void)
{
	static const u64 gaps[] = { MS(1), MS(37), MS(4), MS(90), MS(13), MS(250) };
	struct sim x;
	u64 exact = 0, t = BASE;
	int i;

	/* 4000/s, sampled at uneven times: the rate is over real time. */
	sim_init(&x, 3900, SEC(2), 0);
	for (i = 0; i < 60; i++) {
		u64 g = gaps[i % 6];

		t += g;
		exact += 4 * g / MS(1);
		sim_sample(&x, t, exact);
	}
	tap_ok(x.events == 1 && x.st.last_rate == 4000,
	       "uneven samples, 4000/s over 3900/s: one event at 4000/s (%llu)",
	       (unsigned long long)x.st.last_rate);
}

static void test_reset(void)
{
	struct sim x;

	/* A driver reset from 10^9 to 5, at no real rate. */
	sim_init(&x, 1000, SEC(1), 0);
	sim_sample(&x, BASE + MS(10), 1000000000);
	sim_run(&x, SEC(1), 0, MS(4));
	sim_sample(&x, x.now + MS(4), 5);
	sim_run(&x, SEC(3), 0, MS(4));
	tap_ok(x.events == 0,
	       "a counter reset (10^9 to 5) is no rate: no event");

	/* A reset in an episode: the window is observed again after it. */
	sim_init(&x, 1000, SEC(1), 0);
	sim_run(&x, MS(800), 2000, MS(4));
	x.exact = 0;
	sim_sample(&x, x.now + MS(4), 0);
	sim_run(&x, MS(900), 2000, MS(4));
	tap_ok(x.events == 0, "reset 800 ms into an episode: the window restarts");
	sim_run(&x, MS(300), 2000, MS(4));
	tap_ok(x.events == 1 && x.st.last_rate <= 2000 &&
	       x.st.last_duration_ns >= SEC(1),
	       "...and reports a whole window after the reset (%llu/s)",
	       (unsigned long long)x.st.last_rate);

	/* A 32-bit counter wraps: counted, not a reset. */
	sim_init(&x, 1000, SEC(1), 0);
	x.wrap32 = true;
	x.ctr = PFCWD_U32_MAX - 1000;
	x.exact = x.ctr * 1000;
	sim_run(&x, SEC(2), 2000, MS(4));
	tap_ok(x.events == 1 && x.st.last_rate >= 1990 &&
	       x.st.last_rate <= 2000 && x.ctr < 10000,
	       "a 32-bit wrap is counted: one event at 2000/s (%llu)",
	       (unsigned long long)x.st.last_rate);

	tap_ok(!pfcwd_counter_went_back(5, 5) && !pfcwd_counter_went_back(5, 6) &&
	       pfcwd_counter_went_back(1000000000, 5) &&
	       !pfcwd_counter_went_back(PFCWD_U32_MAX - 1, 3) &&
	       pfcwd_counter_went_back((u64)PFCWD_U32_MAX + 10, 3) &&
	       pfcwd_counter_went_back(1U << 31, 1),
	       "pfcwd_counter_went_back: resets, not wraps");
}

static void test_published(void)
{
	struct sim x;

	/* Published once a second, window 200 ms: effective window 1 s. */
	sim_init(&x, 1000, MS(200), SEC(1));
	tap_ok(x.cfg.bucket_ns == SEC(1) && pfcwd_rate_window_ns(&x.cfg) == SEC(1),
	       "R = 1 s: the bucket and the effective window are 1 s");
	sim_run(&x, SEC(6), 2000, MS(4));
	tap_ok(x.events == 1, "published 2000/s over 1000/s: one event (%llu)",
	       (unsigned long long)x.events);
	tap_ok(x.st.last_rate >= 1900 && x.st.last_rate <= 2100 &&
	       x.st.last_duration_ns >= SEC(1),
	       "published: rate %llu/s within 5 %%, duration %llu ms >= 1 s",
	       (unsigned long long)x.st.last_rate,
	       (unsigned long long)(x.st.last_duration_ns / MS(1)));

	sim_init(&x, 1000, MS(200), SEC(1));
	sim_run(&x, SEC(6), 900, MS(4));
	tap_ok(x.events == 0, "published 900/s under 1000/s: no event");

	/* The publications stop: a bucket closes without one, below. */
	sim_init(&x, 1000, MS(200), SEC(1));
	sim_run(&x, SEC(3), 2000, MS(4));
	sim_run(&x, SEC(3), 0, MS(4));
	tap_ok(x.events == 1 && x.r.above_since == 0 && !x.r.reported,
	       "no publication with frames for 2 periods: cleared");

	sim_init(&x, 1000, MS(50), 0);
	tap_ok(pfcwd_rate_window_ns(&x.cfg) == MS(100) &&
	       pfcwd_rate_bucket_ns(MS(30)) == MS(100),
	       "live: the window is at least the 100 ms bucket");
}

static void test_pps(void)
{
	tap_ok(pfcwd_rate_pps(2000, SEC(1)) == 2000 &&
	       pfcwd_rate_pps(3, MS(1)) == 3000 && pfcwd_rate_pps(1, 0) == 0,
	       "pfcwd_rate_pps");
	tap_ok(pfcwd_rate_pps(PFCWD_U64_MAX / 2, SEC(1000)) ==
	       (PFCWD_U64_MAX / 2) / 1000000 * 1000,
	       "pfcwd_rate_pps: huge counts do not overflow");
}

int main(void)
{
	tap_plan(27);
	test_live();
	test_bursts();
	test_rearm();
	test_irregular();
	test_reset();
	test_published();
	test_pps();
	return tap_done();
}
