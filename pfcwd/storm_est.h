/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storm machine's estimators (storm_*.c): what storm.c calls of
 * them and nothing outside it does.  Same rules as storm.h.
 */
#ifndef _PFCWD_STORM_EST_H
#define _PFCWD_STORM_EST_H

#include "storm.h"

/* storm_stall.c */
u64 pfcwd_storm_stalled(const struct pfcwd_storm_config *cfg,
			const struct pfcwd_sample *s);
u64 pfcwd_storm_stall(struct pfcwd_storm *sm,
		      const struct pfcwd_storm_config *cfg,
		      const struct pfcwd_sample *s, bool xoff,
		      bool fresh);

#endif /* _PFCWD_STORM_EST_H */
