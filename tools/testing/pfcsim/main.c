// SPDX-License-Identifier: GPL-2.0
/*
 * pfcsim - a simulated lossless (DCB) NIC for testing pfcwd.
 *
 * Each port is an Ethernet net_device with eight TX queues and eight
 * traffic classes by default: priority P maps to traffic class P, which
 * maps to TX queue P (prio_tc and "ethtool -L" change this, see below).
 * Transmitted packets are counted per priority and freed, at once or,
 * with tx_ring, when they leave a TX ring drained at the link rate.  The
 * link reports link_mbps (100000 Mb/s) full duplex.  The port has real
 * IEEE DCB ops (PFC, ETS, DCBX mode), so that "dcb pfc show dev NAME" reads
 * its pause counters: ieee_pfc.requests[P] counts pause frames sent for
 * priority P, ieee_pfc.indications[P] pause frames received.  ethtool -S
 * shows the same as tx_prioP_pause and rx_prioP_pause, next to
 * tx_prioP_packets and rx_prioP_packets.
 *
 * Control lives in debugfs, /sys/kernel/debug/pfcsim/:
 *   new_port		write NAME: create a port called NAME
 *   del_port		write NAME: delete the port called NAME
 * and per port NAME/ (the directory keeps the name the port was created
 * with, even if the device is renamed):
 *   rx_storm		priority list: the link partner pauses these
 *			priorities continuously.  indications[P] rises at
 *			pause_rate while P is in pfc_en (or always, with
 *			count_when_disabled).  While P is in pfc_en its
 *			traffic class (prio_tc[P]) is paused, as hardware
 *			honouring the pause would: with tx_ring 0 every TX
 *			queue of that class is stopped; with rings, those
 *			queues' rings stop draining (the queues stop by
 *			themselves once their rings are full).
 *   rx_slow_peer	priority list: the link partner is a slow receiver
 *			for these priorities: it sends pause for them as in
 *			rx_storm (indications[P] rise at pause_rate, counted
 *			as rx_storm's are; push_pause reports them), but each
 *			pause is short, so the class is never stopped: with
 *			tx_ring 0 its queues stay awake and frames leave at
 *			once; with rings, while P is in pfc_en, the class's
 *			rings drain at slow_peer_pct % of link_mbps at most
 *			(its own share, beside the link's round robin), and
 *			pause_duration grows at the paused share, (100 -
 *			slow_peer_pct) % of the time.  A priority also in
 *			rx_storm behaves as in rx_storm alone.
 *   slow_peer_pct	1..99 (25): the share of the link a slow receiver's
 *			class gets (rx_slow_peer).
 *   tx_hang		priority list: the traffic classes of these
 *			priorities stop sending, with no pause frame at all
 *			(a hung transmit engine): as a pause would, with
 *			tx_ring 0 their TX queues are stopped, with rings
 *			the rings stop draining.
 *   tx_storm		priority list: this NIC emits pause for these
 *			priorities (requests[P] rises at pause_rate while P
 *			is in pfc_en) and its receive path is stalled:
 *			injected packets are dropped, counted in rx_dropped.
 *   rx_slow		priority list: this NIC emits pause for these
 *			priorities (as tx_storm) but keeps receiving.
 *   pause_rate		pause frames per second, 1..10000000 (10000)
 *   count_when_disabled 0/1 (1): whether received pause frames are counted
 *			for a priority that is not in pfc_en.
 *   push_pause		0/1 (0): also report every received pause to pfcwd
 *			through its push API, pfcwd_report_pause(): once a
 *			millisecond, one XOFF per priority whose indications
 *			are rising.  Needs pfcwd.ko loaded (-ENOENT otherwise;
 *			found with symbol_get(), so pfcsim does not depend on
 *			it); holds a reference on pfcwd.ko while on.
 *   PFC storm prevention (mlx5's): "ethtool --set-tunable NAME
 *			pfc-prevention-tout MS" (ETHTOOL_PFC_PREVENTION_TOUT:
 *			0 off, the default; 80..8000 ms; auto = 100 ms).  When
 *			on, a priority of tx_storm that has been sending pause
 *			for 85 % of MS (at least 80 ms) counts a warning event,
 *			and after MS the NIC stops sending pause for it (its
 *			requests stop) and counts an error event, until
 *			tx_storm is written again; ethtool -S then also shows
 *			the port-wide tx_pause_storm_warning_events and
 *			tx_pause_storm_error_events (after the per-priority
 *			statistics).  rx_slow is not a stall and is never
 *			stopped.
 *   changed_ns		read: when rx_storm, tx_storm, rx_slow, tx_hang and
 *			rx_slow_peer last changed (CLOCK_MONOTONIC ns), to
 *			time pfcwd exactly.
 *   fw_pfc_en		priority list: the device's pfc_en, read or
 *			written as the NIC's firmware DCBX agent would change
 *			it - no ieee_setpfc call, no dcbnl notification, no
 *			carrier bounce: the host only sees it in the next
 *			ieee_getpfc (and "dcb pfc show").
 *   inject_rx		write "PRIO COUNT": receive COUNT (1..1000000)
 *			802.1Q-tagged frames with PCP PRIO, VID 0, EtherType
 *			0x88b5, addressed to the port, with a pfcwd-pkt
 *			payload (magic, priority, sequence number).
 *			Or write "ipv4 DSCP COUNT" / "ipv6 DSCP COUNT": COUNT
 *			untagged IPv4 (192.0.2.2 -> 192.0.2.1) or IPv6
 *			(2001:db8::2 -> 2001:db8::1) packets with that DSCP
 *			(0..63), IP protocol 253 (experimental), the same
 *			payload right after the IP header.  Their priority,
 *			for the rx_prioP_packets counters and the payload, is
 *			the one the port's DCB APP table gives the DSCP (the
 *			highest if several, as a NIC trusting DSCP would), else
 *			0.
 * Driver behaviours (pfcwd must cope with what real NIC drivers do; each
 * knob reads back its value):
 *   stats_period_ms	0..60000 (0): when > 0, the pause counters that
 *			ieee_getpfc (requests/indications) and ethtool -S
 *			(rx/tx_prioP_pause, rx_prioP_pause_duration,
 *			rx/tx_total_frames) report are a copy of the live
 *			counters, taken every this many ms by a delayed work,
 *			as drivers that read the hardware periodically; between
 *			copies they stand still.
 *   stats_jitter_ms	0..10000 (0): each periodic copy comes a random
 *			0..this many ms (at most half the period) after its
 *			point on the stats_period_ms grid, as a driver's
 *			timer and work item run late; the grid stays fixed.
 *   published_ns	read: when the periodic task last took a copy
 *			(changed_ns's clock), 0 if it never did.
 *   stats_refresh_on_read 0/1 (0): ethtool -S (get_ethtool_stats) first
 *			takes a fresh copy, as mlx5, ixgbe, i40e and ice do.
 *			With stats_period_ms 0 and this 1 only ethtool -S
 *			refreshes the copy (mlx5: stale indefinitely).  With
 *			both 0 every read is live.  Writing either knob (or
 *			profile) takes a copy at once if the counters are
 *			then copied, and restarts the period from then.
 *   stats_reads	read: get_ethtool_stats calls so far.
 *   getpfc_calls	read: ieee_getpfc calls so far (failed ones too).
 *   setpfc_calls	read: ieee_setpfc calls so far (failed ones too).
 *   ethtool_calls	read: one line, "unbracketed N absent N begin N
 *			complete N drvinfo N link_ksettings N sset_count N
 *			strings N stats N tunable N ringparam N": the calls
 *			of each ethtool op so far; unbracketed, those of an
 *			op (or complete) outside a begin/complete pair;
 *			absent, those made while the device was detached.
 *			The ethtool core never makes either kind.
 *   detach		0/1 (0): 1 detaches the device, as a driver does for
 *			a reset (netif_device_detach(): not present, its TX
 *			queues stopped; the ethtool core refuses it then), 0
 *			attaches it again (its queues woken).
 *   getpfc_delay_us	0..1000000 (0): ieee_getpfc sleeps this long first
 *			(a firmware command), under RTNL.
 *   getpfc_fail	0..4095 (0): an errno; ieee_getpfc returns -errno
 *			(after the delay).
 *   setpfc_fail	0..4095 (0): ieee_setpfc returns -errno and changes
 *			nothing.
 *   setpfc_bounce_ms	0..60000 (0): a successful ieee_setpfc that changes
 *			pfc_en takes the carrier down for this long (as mlx5
 *			toggles the port): netif_carrier_off(), and a delayed
 *			work turns it back on (if the port is still up).
 *   setpfc_reopen	0/1 (0): a successful ieee_setpfc that changes
 *			pfc_en closes and reopens the netdev, announcing each
 *			step, from within the call (as ice's setpfc does,
 *			ice_dcbnl_devreset(): dev_close(), netdev_state_change(),
 *			dev_open(), netdev_state_change(), under RTNL):
 *			netdevice events (NETDEV_GOING_DOWN, DOWN, UP, CHANGE)
 *			reach every notifier before setpfc returns.
 *   swap		0/1 (0): ieee_getpfc reports requests and indications
 *			swapped, as ixgbe does (ethtool -S is not swapped).
 *   no_counters	0/1 (0): ieee_getpfc leaves requests and indications
 *			0 (qede, cxgb4, octeontx2, mlx4) and ethtool -S has no
 *			pause counters (nor durations): they are absent, only
 *			the packet counters remain.
 *   pause_duration	0..3 (0): ethtool -S also shows, per priority P, the
 *			microseconds P was paused by the link partner, i.e.
 *			while in rx_storm and in pfc_en (a share of the time
 *			in rx_slow_peer), copied like the pause
 *			counters, under the name a driver gives it: 1
 *			rx_prioP_pause_duration (mlx5), 2
 *			rx_pause_duration_prio_P (mlxsw, mlx4), 3
 *			pfc_priP_rx_duration_us (bnxt_en).
 *   frame_counters	0/1 (0): ethtool -S also shows two port-wide totals,
 *			after the per-priority statistics (and before the
 *			storm prevention's): rx_total_frames, every frame the
 *			port received (the rx_prioP_packets of all priorities
 *			plus the pause frames received, indications), and
 *			tx_total_frames (the tx_prioP_packets plus the pause
 *			frames sent, requests), as bnxt_en's port statistics.
 *			They come with the pause counters: the copy of
 *			stats_period_ms and stats_refresh_on_read holds both,
 *			taken at the same instant (bnxt_en's firmware DMA of
 *			the port statistics carries both, once a second);
 *			without a copy they are live.  The per-priority packet
 *			counters themselves are always live.
 *   counter_reset	write 1: the live and copied pause counters and
 *			durations drop to 0, as after a driver reset.
 *   counter_32bit	0/1 (0): the pause counters getpfc and ethtool -S
 *			report are 32 bits wide and wrap, as a driver that
 *			hands on a 32-bit hardware register does (the frame
 *			totals stay 64-bit).  Not a profile knob: writing it
 *			keeps the profile.
 *   counter_preset	write 0..4294967295: every pause counter, live and
 *			copied, jumps to that value (a test's way to a wrap;
 *			durations are left alone).
 *   profile		write a name to set all the knobs above and
 *			count_when_disabled as that driver behaves (the table
 *			pfcsim_profiles[]): ideal, mlx5, ixgbe, i40e, ice,
 *			bnxt, hns3, mlxsw, qede, cxgb4, octeontx2.  Reads the
 *			name last written ("ideal" at creation), or "custom"
 *			once one of those knobs was changed by a write of its
 *			own.  While a driver's profile is in effect,
 *			get_drvinfo gives that driver's name (mlx5_core, ixgbe,
 *			i40e, ice, bnxt_en, hns3, mlxsw_spectrum, qede, cxgb4,
 *			rvu-nicpf), so that pfcwd's driver profiles (looked up
 *			by drvinfo.driver when its port is created) apply;
 *			with ideal or custom, "pfcsim".
 * Transmit path and queue layout (profile writes leave these alone):
 *   tx_ring		0..4096 (0): descriptors per TX queue.  0: every
 *			frame leaves at once, counted in xmit.  Otherwise each
 *			TX queue has a ring of that many descriptors: xmit
 *			puts the frame in its queue's ring (keeping only its
 *			length and priority; the skb is freed at once) and,
 *			when that fills the ring, stops the queue with
 *			netif_tx_stop_queue(), as real drivers do.  A frame
 *			counts in tx_prioP_packets/bytes and the device's tx
 *			statistics when it leaves its ring.  The link sends
 *			(len + 24) * 8 bits per frame (preamble, SFD, IFG and
 *			FCS: 24 bytes) at link_mbps, shared frame by frame,
 *			round robin, among the rings that have frames and
 *			whose traffic class is not paused; a paused class's
 *			rings keep their frames.  A queue stopped because its
 *			ring was full is woken (netif_tx_wake_queue) once the
 *			ring is at most half full.  Any write (even of the
 *			same value) empties every ring, counting nothing, and
 *			wakes the queues stopped because their ring was full
 *			(but for those a pause stops with tx_ring 0).  While
 *			the port is down the rings are empty and xmit drops
 *			frames uncounted.
 *   tx_ring_depth	read: the frames in each real TX queue's ring, space
 *			separated, queue 0 first.
 *			With rings each queue keeps byte queue limits, as
 *			real drivers do: xmit reports a queued frame with
 *			netdev_tx_sent_queue(), each drain what it sent per
 *			queue with netdev_tx_completed_queue(), and emptying
 *			the rings resets them (netdev_tx_reset_queue()).  So
 *			the stack stops a queue before its ring fills once
 *			BQL's limit is reached (a paused ring keeps what BQL
 *			let in: byte_queue_limits/limit_min raises that), and
 *			it dequeues in bulk, as on real hardware.
 *   bql		0/1 (1): whether the rings keep byte queue limits
 *			(0: a driver without BQL; the stack then stops a
 *			queue only when its ring is full, and never
 *			dequeues in bulk).  Empties the rings like tx_ring.
 *   tx_busy		read: xmit calls on a full ring, answered with
 *			NETDEV_TX_BUSY (the queue is then stopped too); 0 as
 *			long as the stack honours stopped queues.
 *   tx_lock_errors	read: frames xmit was handed without the xmit lock
 *			of the TX queue they map to (skb->queue_mapping),
 *			whose ring a driver writes; the first one also
 *			WARNs.  0 as long as the stack takes the right lock.
 *   select_pcp		0/1 (1): 1 picks a tagged frame's TX queue by its
 *			PCP (below); 0 leaves every frame where the core
 *			puts it (skb->priority's traffic class), as drivers
 *			without a queue selection of their own do.
 *   link_mbps		10..400000 (100000): the link rate in Mb/s, reported by
 *			get_link_ksettings (ethtool) and the rate the rings
 *			drain at (from the next drain tick on).
 *   prio_tc		write 8 traffic classes 0-7, one per priority 0-7,
 *			single spaces ("0 0 1 1 2 2 3 3"): the priority to
 *			traffic class map; num_tc is the highest + 1, and
 *			every class 0..highest must be used by some priority.
 *			Reads back the 8 numbers ("0 1 2 3 4 5 6 7" at
 *			creation).  Applied with netdev_set_num_tc(),
 *			netdev_set_prio_tc_map() and netdev_set_tc_queue()
 *			under RTNL; empties the rings like tx_ring.  It is
 *			not the ETS prio_tc of "dcb ets", which is kept apart.
 *   "ethtool -L NAME tx N" (get/set_channels): N = 1..4 (1) TX queues per
 *			traffic class, as mlx5's channels: real_num_tx_queues
 *			is num_tc * N (the device has 32), class t owning
 *			queues [t * N, (t + 1) * N).  rx stays 1 (fixed);
 *			combined and other are 0.  Empties the rings like
 *			tx_ring.
 *   TX queue selection (ndo_select_queue), as mlx5's: a VLAN-tagged frame
 *   goes to a queue of its PCP's traffic class, any other frame where the
 *   core puts it (skb->priority's class); with select_pcp 0, every frame.
 *   A transmitted frame's priority, for tx_prioP_*, is its VLAN PCP if it
 *   is tagged (in the skb or in the frame), else the lowest priority
 *   mapped to its queue's traffic class (the queue number with the
 *   default layout).
 * Priority lists are "3,4", "0-2,5" or empty ("echo > rx_storm" ends a
 * storm).  A bad write fails with -EINVAL and changes nothing.
 *
 * Pause counters are not driven by timers: each is a base count plus the
 * time since which it has been rising; a read adds the frames of the
 * elapsed time at pause_rate.  Whenever an input changes (storm lists,
 * pfc_en, pause_rate, count_when_disabled, slow_peer_pct) the elapsed
 * part is first folded into the base, at the old settings.  Pause
 * durations work the same way (nanoseconds, rising while P is in rx_storm
 * and pfc_en, or at the paused share in rx_slow_peer).  The
 * copy that stats_period_ms and stats_refresh_on_read report is a
 * snapshot of these, and of the frame totals, at the time it was taken.
 *
 * The rings drain on a timer: drain_timer (an hrtimer, softirq), started
 * when a ring that is not paused gets a frame (or is unpaused with frames)
 * and ticking every 250 us while some ring that is not paused has frames;
 * no timer runs otherwise.  Each tick adds the elapsed time (at most
 * 50 ms: a later tick loses the rest) times link_mbps to the link's
 * credit in bits, and sends frames while the credit is positive (it may
 * go below 0 by the last frame, which is then still on the wire); an idle
 * link keeps no credit.  A change of what is paused first brings the
 * link up to that instant (pfcsim_drain_to()), so that a late tick does
 * not hold frames a real link had sent before the pause began.  A class
 * a slow receiver paces has a credit of its own, fed at slow_peer_pct %
 * of the link's: its rings send while both are positive, and stay ready
 * (the timer ticks on) while they hold frames.  Neither credit is saved
 * over time nothing could use.
 *
 * Source files (split by concern, as drivers/net/netdevsim/ is):
 *   pfcsim.h		struct pfcsim_port, the other shared types and
 *			constants, and what one file calls in another
 *   main.c		this documentation, the list of ports, port creation
 *			and deletion, new_port and del_port, module init/exit
 *   profile.c		the driver profiles (pfcsim_profiles[])
 *   pause.c		the pause model: counters, durations, their copy
 *			(stats_period_ms), counter_reset, the carrier bounce,
 *			push_pause
 *   ring.c		the TX rings and their drain timer
 *   netdev.c		the queue state (pause and tx_hang on the TX queues,
 *			the queue layout, storm prevention), the data path
 *			(xmit, inject_rx) and the ndo ops
 *   ethtool.c		the ethtool ops
 *   dcbnl.c		the IEEE DCB ops
 *   debugfs.c		the per-port debugfs files
 *   prio_list.c	pfcwd's priority-list parser
 * Each file's comment says which of the rules below are its own.
 *
 * Locking and context:
 *  - The push timer (hrtimer, softirq) reads ind_rising locklessly and
 *    calls pfcwd_report_pause(), which any context may call.  push_lock
 *    (a mutex) serialises turning it on and off (process context).
 *  - pfcsim_lock (a mutex) serialises port creation and deletion and
 *    protects pfcsim_ports.  It is taken by the new_port and del_port
 *    writes and by module exit, in process context, before RTNL.  The
 *    per-port debugfs handlers never take it, so deleting a port may wait
 *    for them (debugfs_remove) while holding it.
 *  - port->lock (a spinlock, taken with BH disabled) protects the DCB
 *    configuration (pfc_en, mbc, delay, ETS), the storm lists (and
 *    rx_slow_peer), pause_rate, slow_pct (with ring_lock, see below),
 *    count_when_disabled, the pause counters and durations, their copy,
 *    the driver knobs, the profile, the call counters, port->up,
 *    port->paused, the bounce deadline and port->dead.  Its users run in
 *    process context: debugfs reads and writes, the dcbnl ops and ethtool
 *    (under RTNL), ndo_open/ndo_stop (under RTNL), and the publish and
 *    bounce works.  The dcbnl ops are called in process context under RTNL
 *    (dcbnl, pfcwd): ieee_getpfc sleeps for getpfc_delay_us, outside
 *    port->lock, so it must not be called from atomic context.  TX queues
 *    are stopped (tx_ring 0) and woken for pause under port->lock, the
 *    queue's xmit lock nested inside; the transmit path never takes
 *    port->lock.  With rings, xmit stops a queue whose ring is full and
 *    the drain timer (or a reset of the rings) wakes it, under ring_lock.
 *    The carrier is turned on and off under port->lock (ndo_open/ndo_stop,
 *    a bouncing ieee_setpfc, the bounce work), so that the bounce work
 *    never turns on the carrier of a port that is down.  Nothing sleeps
 *    under it.
 *  - The knobs that decide which ethtool -S statistics exist (no_counters,
 *    pause_duration, frame_counters, so also profile) are written with
 *    RTNL held as well (debugfs handlers take RTNL, then port->lock), so
 *    that get_sset_count, get_strings and get_ethtool_stats, all called
 *    under RTNL, agree on the layout; the other knob writes take RTNL too,
 *    for simplicity.
 *  - port->publish_work (system_highpri_wq: see pause.c), port->bounce_work
 *    and port->prevent_work (system_wq), delayed works, re-arm themselves,
 *    under port->lock, only while !port->dead.  The prevention state
 *    (prevent_ms, generating, gen_since, warned, prevented, storm_warnings,
 *    storm_errors) is under port->lock;
 *    prevent_ms, which decides whether the two port-wide statistics exist,
 *    is written with RTNL held too (set_tunable runs under RTNL).  Port
 *    deletion sets port->dead under port->lock after removing the debugfs
 *    directory, then cancels its works (publish, bounce, prevent) synchronously (no lock held; the
 *    works take only port->lock) before unregistering, and so freeing,
 *    the device.  A later ieee_setpfc sees port->dead and queues nothing.
 *  - port->inject_lock (a mutex) serialises inject_rx writes, which makes
 *    them the only writer of the receive counters (u64_stats, updated with
 *    BH disabled).  Frames are passed up with netif_receive_skb() with BH
 *    disabled, in batches, rescheduling in between.
 *  - port->ring_lock (a spinlock) protects the rings and their
 *    descriptors, ring_size (tx_ring; written with RTNL and port->lock
 *    held too, so that either is enough to read it), link_mbps, slow_pct
 *    (slow_peer_pct; written with port->lock held too), ring_paused,
 *    ring_slow, ring_live, ring_dead, the drain state (draining, credit,
 *    slow_credit, drain_last, rr), tx_busy and the per-priority TX counters
 *    (u64_stats: every writer holds ring_lock).  It nests inside
 *    port->lock and inside a TX queue's xmit lock; no other lock of
 *    pfcsim, nor an xmit lock, is taken under it (netif_tx_stop_queue,
 *    netif_tx_wake_queue and hrtimer_start are called under it).  Process
 *    context takes it with BH disabled.
 *  - ndo_start_xmit runs with the TX queue's xmit lock held (softirq or
 *    process context, BH disabled) and takes ring_lock, never port->lock:
 *    it counts the frame (tx_ring 0) or queues it, stops the queue when
 *    its ring is full, and starts the drain timer if it is idle.  It
 *    checks that the lock it holds is that of the queue the skb maps to
 *    (tx_lock_errors, under ring_lock).  The BQL calls (sent, completed,
 *    reset) are all made under ring_lock, which serialises them.
 *    select_pcp is written under port->lock and read locklessly by
 *    ndo_select_queue.
 *  - pfcsim_drain_tick (drain_timer, softirq) takes only ring_lock; it
 *    counts the frames that leave and wakes queues.  It re-arms itself
 *    while a ring that is not paused has frames; "draining" (ring_lock)
 *    says whether it is armed or running, and only a live port starts
 *    it.  ndo_stop (RTNL) and port deletion clear ring_live and empty the
 *    rings under ring_lock, then hrtimer_cancel() it, no spinlock held;
 *    deletion also sets ring_dead (so that no ndo_open makes the rings
 *    live again) and frees the descriptors before unregistering, and so
 *    freeing, the device.
 *  - The queue layout (prio_tc, the class of each queue's lowest
 *    priority, channels, num_txq) is changed by the prio_tc write and
 *    set_channels (ethtool, RTNL held), in process context: the netdev's
 *    real_num_tx_queues and tc map under RTNL alone (they may sleep),
 *    then the copy under port->lock and ring_lock; any of the three is
 *    enough to read it.  tx_ring writes take RTNL, port->lock and
 *    ring_lock, allocating the new descriptors (GFP_KERNEL) before and
 *    freeing the old ones after.  Which queues are stopped by pause
 *    (port->paused, tx_ring 0) and which rings are paused
 *    (ring_paused) or paced (ring_slow) is set by pfcsim_apply_queues()
 *    under port->lock, after draining the rings up to then under
 *    ring_lock (as the tick does).
 *  - Readers of the packet counters (ndo_get_stats64, any context;
 *    ethtool; the frame totals, under port->lock) use the u64_stats retry
 *    loops.
 *  - port->dying is set (under pfcsim_lock) before a port's debugfs
 *    directory is removed, so that a long inject_rx stops early.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

#include "pfcsim.h"

static DEFINE_MUTEX(pfcsim_lock);
static LIST_HEAD(pfcsim_ports);

/* --- ports ----------------------------------------------------------------- */

static void pfcsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &pfcsim_netdev_ops;
	dev->ethtool_ops = &pfcsim_ethtool_ops;
	dev->dcbnl_ops = &pfcsim_dcbnl_ops;
	dev->needs_free_netdev = true;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9216;
}

static void pfcsim_port_init(struct pfcsim_port *port, struct net_device *dev)
{
	ktime_t now = ktime_get();
	int p;

	port->dev = dev;
	spin_lock_init(&port->lock);
	spin_lock_init(&port->ring_lock);
	mutex_init(&port->inject_lock);
	mutex_init(&port->push_lock);
	hrtimer_init(&port->push_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	port->push_timer.function = pfcsim_push_tick;
	hrtimer_init(&port->drain_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_SOFT);
	port->drain_timer.function = pfcsim_drain_tick;
	port->link_mbps = PFCSIM_MBPS_DEFAULT;
	port->slow_pct = PFCSIM_SLOW_PCT_DEFAULT;
	port->channels = 1;
	port->select_pcp = true;
	port->bql = true;
	INIT_DELAYED_WORK(&port->publish_work, pfcsim_publish_work);
	INIT_DELAYED_WORK(&port->bounce_work, pfcsim_bounce_work);
	INIT_DELAYED_WORK(&port->prevent_work, pfcsim_prevent_work);
	port->profile = PFCSIM_PROFILE_IDEAL;
	port->pfc_en = PFCSIM_PFC_EN_DEFAULT;
	port->pause_rate = PFCSIM_RATE_DEFAULT;
	port->count_when_disabled = true;
	port->ets.ets_cap = PFCSIM_NUM_PRIO;
	for (p = 0; p < PFCSIM_NUM_PRIO; p++) {
		port->prio_tc[p] = p;
		port->ets.prio_tc[p] = p;
		port->ets.tc_tsa[p] = IEEE_8021QAZ_TSA_STRICT;
		port->req[p].since = now;
		port->ind[p].since = now;
		port->dur[p].since = now;
		u64_stats_init(&port->tx[p].syncp);
	}
	u64_stats_init(&port->rx.syncp);
}

/* Called with pfcsim_lock held, in process context. */
static int pfcsim_port_new(const char *name)
{
	u8 prio_tc[PFCSIM_NUM_PRIO] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct pfcsim_port *port;
	struct net_device *dev;
	struct dentry *dir;
	int err;

	/* The directory keeps a renamed port's old name; that name is taken. */
	dir = debugfs_lookup(name, pfcsim_debugfs);
	if (dir) {
		dput(dir);
		return -EEXIST;
	}
	dev = alloc_netdev_mqs(sizeof(*port), name, NET_NAME_USER, pfcsim_setup,
			       PFCSIM_MAX_TXQ, 1);
	if (!dev)
		return -ENOMEM;
	port = netdev_priv(dev);
	pfcsim_port_init(port, dev);
	eth_hw_addr_random(dev);

	rtnl_lock();
	err = pfcsim_set_layout(port, prio_tc, 1);
	if (!err)
		err = register_netdevice(dev);
	rtnl_unlock();
	if (err) {
		free_netdev(dev);
		return err;
	}
	err = pfcsim_port_debugfs(port);
	if (err) {
		unregister_netdev(dev);
		return err;
	}
	list_add_tail(&port->list, &pfcsim_ports);
	return 0;
}

/*
 * Stops everything of @port but its net_device, and moves it from
 * pfcsim_ports to @dying; the caller unregisters the device (which frees
 * the port).  Called with pfcsim_lock held, in process context, without
 * RTNL (the works cancelled here take it).
 */
static void pfcsim_port_stop(struct pfcsim_port *port, struct list_head *dying)
{
	struct pfcsim_desc *desc;

	list_move_tail(&port->list, dying);
	WRITE_ONCE(port->dying, true);
	/* Waits for the port's debugfs handlers; none can start after. */
	debugfs_remove(port->dir);
	pfcsim_push_set(port, false);
	/* No work re-arms itself, nor does ieee_setpfc queue one, after. */
	spin_lock_bh(&port->lock);
	port->dead = true;
	spin_unlock_bh(&port->lock);
	cancel_delayed_work_sync(&port->publish_work);
	cancel_delayed_work_sync(&port->bounce_work);
	cancel_delayed_work_sync(&port->prevent_work);
	/* No frame is queued, nor the drain timer started, after. */
	spin_lock_bh(&port->ring_lock);
	port->ring_dead = true;
	port->ring_live = false;
	pfcsim_rings_flush(port);
	desc = port->desc;
	port->desc = NULL;
	spin_unlock_bh(&port->ring_lock);
	pfcsim_drain_cancel(port);
	kvfree(desc);
}

/*
 * Unregisters the devices of the stopped ports on @dying, in one batch
 * (one round of RCU waits for all: a thousand ports, one by one, took
 * half a minute under emulation).  Frees the ports.
 */
static void pfcsim_ports_unregister(struct list_head *dying)
{
	struct pfcsim_port *port;
	LIST_HEAD(devs);

	rtnl_lock();
	list_for_each_entry(port, dying, list)
		unregister_netdevice_queue(port->dev, &devs);
	unregister_netdevice_many(&devs);
	rtnl_unlock();
}

/* Called with pfcsim_lock held, in process context. */
static void pfcsim_port_del(struct pfcsim_port *port)
{
	LIST_HEAD(dying);

	pfcsim_port_stop(port, &dying);
	pfcsim_ports_unregister(&dying);
}

/* Called with pfcsim_lock held; RTNL keeps the names stable. */
static struct pfcsim_port *pfcsim_port_find(const char *name)
{
	struct pfcsim_port *port, *found = NULL;

	rtnl_lock();
	list_for_each_entry(port, &pfcsim_ports, list) {
		if (!strcmp(port->dev->name, name)) {
			found = port;
			break;
		}
	}
	rtnl_unlock();
	return found;
}

/* --- control files (process context) --------------------------------------- */

/* Copies a one-word debugfs write into @name; strips one trailing newline. */
static int pfcsim_read_name(const char __user *ubuf, size_t count,
			    char name[IFNAMSIZ])
{
	if (count == 0 || count > IFNAMSIZ)
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	if (name[count - 1] == '\n')
		count--;
	if (count == 0 || count >= IFNAMSIZ)
		return -EINVAL;
	name[count] = '\0';
	return dev_valid_name(name) ? 0 : -EINVAL;
}

static ssize_t pfcsim_new_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	err = pfcsim_port_new(name);
	mutex_unlock(&pfcsim_lock);
	return err ? err : count;
}

static ssize_t pfcsim_del_port_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct pfcsim_port *port;
	char name[IFNAMSIZ];
	int err;

	err = pfcsim_read_name(ubuf, count, name);
	if (err)
		return err;
	mutex_lock(&pfcsim_lock);
	port = pfcsim_port_find(name);
	if (port)
		pfcsim_port_del(port);
	mutex_unlock(&pfcsim_lock);
	return port ? count : -ENODEV;
}

static const struct file_operations pfcsim_new_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_new_port_write,
	.llseek	= noop_llseek,
};

static const struct file_operations pfcsim_del_port_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= pfcsim_del_port_write,
	.llseek	= noop_llseek,
};

static int __init pfcsim_init(void)
{
	pfcsim_debugfs = debugfs_create_dir("pfcsim", NULL);
	if (IS_ERR(pfcsim_debugfs))
		return PTR_ERR(pfcsim_debugfs);
	debugfs_create_file("new_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_new_port_fops);
	debugfs_create_file("del_port", 0200, pfcsim_debugfs, NULL,
			    &pfcsim_del_port_fops);
	return 0;
}

static void __exit pfcsim_exit(void)
{
	struct pfcsim_port *port, *tmp;
	LIST_HEAD(dying);

	/*
	 * An open debugfs file holds a module reference, so no handler runs
	 * any more: delete the ports (and their directories), then the rest.
	 */
	mutex_lock(&pfcsim_lock);
	list_for_each_entry_safe(port, tmp, &pfcsim_ports, list)
		pfcsim_port_stop(port, &dying);
	pfcsim_ports_unregister(&dying);
	mutex_unlock(&pfcsim_lock);
	debugfs_remove_recursive(pfcsim_debugfs);
}

module_init(pfcsim_init);
module_exit(pfcsim_exit);

MODULE_DESCRIPTION("Simulated lossless (DCB) NIC for pfcwd tests");
MODULE_LICENSE("GPL");
