// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim's driver profiles: for each NIC driver studied, what writing its
 * name to a port's "profile" file sets the driver knobs and
 * count_when_disabled to, and the driver name get_drvinfo then reports
 * (ethtool.c).  The profile is applied by the debugfs write handler,
 * pfcsim_profile_write() (debugfs.c).
 *
 * Constant data: no locking, any context.  Entry PFCSIM_PROFILE_IDEAL is
 * the default; pfcsim_num_profiles counts the entries.
 */
#include "pfcsim.h"

const struct pfcsim_profile pfcsim_profiles[] = {
	{ "ideal", NULL, true, { } },
	{ "mlx5", "mlx5_core", true, {
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_GETPFC_DELAY] = 50,
		[PFCSIM_K_SETPFC_BOUNCE] = 200,
		[PFCSIM_K_PAUSE_DURATION] = 1 } },
	{ "ixgbe", "ixgbe", false, {
		[PFCSIM_K_STATS_PERIOD] = 2000,
		[PFCSIM_K_STATS_JITTER] = 10,
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_SWAP] = 1 } },
	{ "i40e", "i40e", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_STATS_JITTER] = 10,
		[PFCSIM_K_REFRESH_ON_READ] = 1 } },
	{ "ice", "ice", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_STATS_JITTER] = 10,
		[PFCSIM_K_REFRESH_ON_READ] = 1,
		[PFCSIM_K_SETPFC_REOPEN] = 1 } },
	/* The 1 s port statistics DMA carries the frame totals too. */
	{ "bnxt", "bnxt_en", true, {
		[PFCSIM_K_STATS_PERIOD] = 1000,
		[PFCSIM_K_STATS_JITTER] = 10,
		[PFCSIM_K_GETPFC_DELAY] = 100,
		[PFCSIM_K_PAUSE_DURATION] = 3,
		[PFCSIM_K_FRAME_COUNTERS] = 1 } },
	{ "hns3", "hns3", true, {
		[PFCSIM_K_GETPFC_DELAY] = 100,
		[PFCSIM_K_SETPFC_BOUNCE] = 100 } },
	{ "mlxsw", "mlxsw_spectrum", true, {
		[PFCSIM_K_GETPFC_DELAY] = 500,
		[PFCSIM_K_PAUSE_DURATION] = 2 } },
	{ "qede", "qede", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
	{ "cxgb4", "cxgb4", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
	{ "octeontx2", "rvu-nicpf", true, { [PFCSIM_K_NO_COUNTERS] = 1 } },
};

const unsigned int pfcsim_num_profiles = ARRAY_SIZE(pfcsim_profiles);
