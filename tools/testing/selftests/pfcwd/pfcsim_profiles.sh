#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pfcsim's driver behaviours: the published copy of the pause counters
# (stats_period_ms, stats_jitter_ms, published_ns, stats_refresh_on_read),
# getpfc_delay_us, getpfc_fail,
# setpfc_fail, setpfc_bounce_ms, swap, no_counters, counter_reset,
# pause_duration, frame_counters (published with the pause counters), the
# driver profiles, bad writes, and deleting ports or unloading the module
# with a publication and a carrier bounce pending.

. "$(dirname "$0")/lib.sh"

P=psim0
KNOBS="stats_period_ms stats_refresh_on_read getpfc_delay_us getpfc_fail setpfc_fail
       setpfc_bounce_ms swap no_counters pause_duration count_when_disabled
       frame_counters stats_jitter_ms"

setup() {
	unload_mod pfcsim
	pfcsim_new $P
}

dfs() { echo "$PFCSIM_DFS/$1/$2"; }

# These and the helpers below read and write in bash: the profile cases
# call them hundreds of times, and each process (or "$(...)" inside one)
# costs tens of milliseconds under TCG.
dfs_set() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "write '$3' to $1/$2 failed"
}

dfs_get() { readf "$PFCSIM_DFS/$1/$2"; }

# "dcb -s pfc show" as JSON; field $2 (jq path) of port $1.
dcb_pfc() { dcb -j -s pfc show dev "$1" | jq -c "$2"; }

pfc_set() { check dcb_set pfc set dev "$1" prio-pfc "${@:2}"; }

rx_pause() { ethtool_stat "$1" "rx_prio$2_pause"; }
tx_pause() { ethtool_stat "$1" "tx_prio$2_pause"; }
rx_dur() { ethtool_stat "$1" "rx_prio$2_pause_duration"; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

carrier() {
	local v

	{ IFS= read -r v < "/sys/class/net/$1/carrier"; } 2>/dev/null || v=0
	echo "${v:-0}"
}
carrier_changes() { readf "/sys/class/net/$1/carrier_changes"; }

# ethtool -S $1_prioP_pause ($1 rx or tx) of port $2 for every priority,
# as a JSON array, from one ethtool -S.
ethtool_arr() {
	local k v rest p a=(missing missing missing missing missing missing missing missing)

	while read -r k v rest; do
		for p in 0 1 2 3 4 5 6 7; do
			[ "$k" = "$1_prio${p}_pause:" ] && a[p]=$v
		done
	done < <(ethtool -S "$2")
	local IFS=,
	echo "[${a[*]}]"
}

# Sends a DCB_CMD_IEEE_SET with pfc_en $2 to port $1 and prints the status
# dcbnl returns in DCB_ATTR_IEEE (0, or the driver's -errno as a u8):
# iproute2's dcb does not look at it, so it cannot tell a failed set.
ieee_setpfc_status() {
	python3 -S - "$1" "$2" <<'PY'
import socket, struct, sys
RTM_SETDCB, DCB_CMD_IEEE_SET = 79, 20
DCB_ATTR_IFNAME, DCB_ATTR_IEEE, DCB_ATTR_IEEE_PFC = 1, 13, 2
NLM_F_REQUEST = 1

def attr(kind, data):
    a = struct.pack("HH", 4 + len(data), kind) + data
    return a + b"\0" * (-len(a) % 4)

pfc = struct.pack("BBBxH2x8Q8Q", 8, int(sys.argv[2]), 0, 0, *([0] * 16))
body = struct.pack("BBH", socket.AF_UNSPEC, DCB_CMD_IEEE_SET, 0)
body += attr(DCB_ATTR_IFNAME, sys.argv[1].encode() + b"\0")
body += attr(DCB_ATTR_IEEE | 0x8000, attr(DCB_ATTR_IEEE_PFC, pfc))
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.bind((0, 0))
s.send(struct.pack("IHHII", 16 + len(body), RTM_SETDCB, NLM_F_REQUEST, 1, 0) + body)
msg = s.recv(65536)
length, kind = struct.unpack("IH", msg[:6])
if kind != RTM_SETDCB:
    print("unexpected reply type %d" % kind)
    sys.exit(1)
off = 20
while off + 4 <= length:
    alen, akind = struct.unpack("HH", msg[off:off + 4])
    if akind & 0x3fff == DCB_ATTR_IEEE:
        print(msg[off + 4])
        sys.exit(0)
    off += (alen + 3) & ~3
print("no DCB_ATTR_IEEE in the reply")
sys.exit(1)
PY
}

# Reads indications[$2] of port $1 with DCB_CMD_IEEE_GET (what dcb pfc show
# does) $3 times, every 100 ms, from one process: dcb itself takes about
# 100 ms to start in the emulated VM.  Prints "ms value" lines.
sample_ind() {
	python3 -S - "$1" "$2" "$3" <<'PY'
import socket, struct, sys, time
RTM_GETDCB, DCB_CMD_IEEE_GET = 78, 21
DCB_ATTR_IFNAME, DCB_ATTR_IEEE, DCB_ATTR_IEEE_PFC = 1, 13, 2

def attrs(buf):
    off = 0
    while off + 4 <= len(buf):
        alen, kind = struct.unpack("HH", buf[off:off + 4])
        yield kind & 0x3fff, buf[off + 4:off + alen]
        off += (alen + 3) & ~3

name = sys.argv[1].encode() + b"\0"
a = struct.pack("HH", 4 + len(name), DCB_ATTR_IFNAME) + name
a += b"\0" * (-len(a) % 4)
body = struct.pack("BBH", socket.AF_UNSPEC, DCB_CMD_IEEE_GET, 0) + a
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.bind((0, 0))
prio, t0 = int(sys.argv[2]), time.monotonic()
for i in range(int(sys.argv[3])):
    due = t0 + i * 0.1
    time.sleep(max(0, due - time.monotonic()))
    t = time.monotonic()
    s.send(struct.pack("IHHII", 16 + len(body), RTM_GETDCB, 1, i + 1, 0) + body)
    msg = s.recv(65536)
    val = "none"
    for kind, data in attrs(msg[20:struct.unpack("I", msg[:4])[0]]):
        if kind == DCB_ATTR_IEEE:
            for k2, d2 in attrs(data):
                if k2 == DCB_ATTR_IEEE_PFC:
                    val = struct.unpack("8Q", d2[72:136])[prio]
    print("%d %s" % ((t - t0) * 1000, val))
PY
}

dcb_ind3() { dcb_pfc $P '.indications[3]'; }

test_stats_period() {
	setup
	dfs_set $P stats_period_ms 500
	expect_eq "$(dfs_get $P stats_period_ms)" 500 "stats_period_ms"
	dfs_set $P rx_storm 3
	sample_ind $P 3 30 > /tmp/samples.txt || fail "cannot read the counters"
	log "$(xargs < /tmp/samples.txt)"
	# Runs of equal values, each about 500 ms long, then a jump of about
	# 500 ms of pause frames (5000 at 10000/s).
	awk '
		NR > 1 && $2 != v {
			jumps++
			if (jumps > 1 && last_t) {
				gap = $1 - last_t
				if (gap < 300 || gap > 1600) bad = bad " gap " gap
				d = $2 - v
				if (d < 2500 || d > 7500) bad = bad " jump " d
			}
			last_t = $1
		}
		NR > 1 && $2 < v { bad = bad " backwards " $2 }
		{ v = $2; t = $1 }
		END {
			if (jumps < 4 || jumps > 2 + t / 400) bad = bad " " jumps " jumps in " t " ms"
			if (bad != "") { print bad; exit 1 }
		}' /tmp/samples.txt || fail "dcb indications not published every 500 ms:$(awk '
		NR > 1 && $2 != v { printf " %s:%s", $1, $2 } { v = $2 }' /tmp/samples.txt)"
	# ethtool -S gives the same copy (stats_refresh_on_read is 0); a
	# dcb and ethtool round takes about a publication period here, so
	# compare once the storm is over and published.
	dfs_set $P rx_storm ""
	sleep 0.7
	a=$(dcb_ind3)
	expect_eq "$(rx_pause $P 3)" "$a" "ethtool rx_prio3_pause vs dcb indications"
	# Back to 0: fresh on every read.
	dfs_set $P stats_period_ms 0
	dfs_set $P rx_storm 3
	a=$(dcb_ind3)
	sleep 0.1
	b=$(dcb_ind3)
	[ "$b" -gt "$a" ] || fail "with stats_period_ms 0 the counter stands still: $a $b"
}

# published_ns at each of $3 publications of port $1 (period $2 ms), one per
# line: read every 10 ms, a value kept when it changes.
publications() {
	local n=0 last v i

	last=$(dfs_get "$1" published_ns)
	for ((i = 0; n < $3 && i < $3 * $2 / 5 + 200; i++)); do
		v=$(dfs_get "$1" published_ns)
		[ "$v" != "$last" ] && { echo "$v"; last=$v; n=$((n + 1)); }
		sleep 0.01
	done
}

# stats_jitter_ms: each copy comes 0..J ms after its point on a fixed
# grid.  With J = 0 every copy is k periods after the first, within the
# delayed work's lateness (a jiffy, and the guest's load: bounds.sh);
# with J = 200 they spread over the 200 ms, never earlier than the grid
# allows nor later than J plus that lateness, and the grid does not drift.
test_stats_jitter() {
	local late_ms

	setup
	late_ms=$(($(wakeup_late_us) / 1000 + 4))
	dfs_set $P stats_period_ms 500
	publications $P 500 8 > /tmp/pubs0.txt
	dfs_set $P stats_jitter_ms 200
	expect_eq "$(dfs_get $P stats_jitter_ms)" 200 "stats_jitter_ms"
	publications $P 500 12 > /tmp/pubs1.txt
	for f in /tmp/pubs0.txt:0 /tmp/pubs1.txt:200; do
		awk -v j=${f#*:} -v late=$late_ms -v per=500 '
			NR == 1 { t0 = $1 }
			{ d = ($1 - t0) / 1e6 - (NR - 1) * per; dev[NR] = d
			  if (d < lo || NR == 1) lo = d; if (d > hi || NR == 1) hi = d }
			END {
				if (NR < 6) { print "only " NR " publications"; exit 1 }
				# Offsets from the grid of the first copy: within
				# [-(j + late), j + late], and spread by j.
				if (lo < -(j + late) || hi > j + late) {
					printf "offsets %d..%d ms beyond +-%d\n", lo, hi, j + late; exit 1 }
				if (j == 0 && hi - lo > late) { printf "no jitter, yet a spread of %d ms\n", hi - lo; exit 1 }
				if (j > 0 && hi - lo < j / 4) { printf "jitter %d ms spread only %d ms\n", j, hi - lo; exit 1 }
				printf "# %d publications, offsets from the grid %d..%d ms\n", NR, lo, hi
			}' "${f%:*}" || fail "publications with stats_jitter_ms ${f#*:}: $(xargs < "${f%:*}")"
	done
	# Capped at half the period: copies keep their order.
	dfs_set $P stats_jitter_ms 10000
	dfs_set $P stats_period_ms 200
	publications $P 200 6 > /tmp/pubs2.txt
	awk -v late=$late_ms 'NR > 1 && ($1 - p) / 1e6 > 300 + late {
		printf "gap %d ms\n", ($1 - p) / 1e6; bad = 1 } { p = $1 }
		END { exit bad || NR < 4 }' /tmp/pubs2.txt ||
		fail "stats_jitter_ms above half the period: $(xargs < /tmp/pubs2.txt)"
}

# counter_32bit: the pause counters wrap at 2^32 (counter_preset brings
# them there), in getpfc and ethtool -S alike; the frame totals do not.
test_counter_32bit() {
	local near=$((4294967296 - 1000)) a e t0 t1

	setup
	dfs_set $P frame_counters 1
	dfs_set $P counter_32bit 1
	dfs_set $P counter_preset $near
	expect_eq "$(dcb_ind3)" $near "indications preset"
	expect_eq "$(rx_pause $P 3)" $near "ethtool rx_prio3_pause preset"
	t0=$(ethtool_stat $P rx_total_frames)
	dfs_set $P rx_storm 3
	sleep 0.5	# 5000 frames at 10000/s: past the wrap
	dfs_set $P rx_storm ""
	a=$(dcb_ind3)
	e=$(rx_pause $P 3)
	t1=$(ethtool_stat $P rx_total_frames)
	log "indications $near -> $a, ethtool $e, rx_total_frames $t0 -> $t1"
	[ "$a" -gt 0 ] && [ "$a" -lt 20000 ] || fail "indications did not wrap: $a"
	expect_eq "$e" "$a" "ethtool rx_prio3_pause vs dcb indications"
	[ $((t1 - t0)) -ge $((1000 + a - 2000)) ] || fail "frame totals wrapped too: $t0 -> $t1"
	# Off: the same counters, 64 bits wide.
	dfs_set $P counter_32bit 0
	expect_eq "$(dcb_ind3)" $((4294967296 + a)) "indications with counter_32bit 0"
	expect_eq "$(dcb_pfc $P .indications[2])" $near "an idle priority stays at the preset"
	# A test's choice, not a driver's: the profile stays.
	dfs_set $P profile bnxt
	dfs_set $P counter_32bit 1
	expect_eq "$(dfs_get $P profile)/$(dfs_get $P counter_32bit)" bnxt/1 "profile after counter_32bit"
	dfs_set $P profile mlx5
	expect_eq "$(dfs_get $P counter_32bit)" 1 "counter_32bit after a profile"
}

test_refresh_on_read() {
	setup
	dfs_set $P stats_period_ms 60000
	dfs_set $P stats_refresh_on_read 1
	dfs_set $P rx_storm 3
	# The copy was taken before the storm.
	expect_eq "$(dcb_ind3)" 0 "indications before any ethtool -S"
	sleep 0.3
	expect_eq "$(dcb_ind3)" 0 "indications 300 ms into the storm"
	r0=$(dfs_get $P stats_reads)
	e=$(rx_pause $P 3)
	expect_eq "$(dfs_get $P stats_reads)" $((r0 + 1)) "stats_reads after one ethtool -S"
	[ "$e" -gt 1000 ] || fail "ethtool -S did not refresh: rx_prio3_pause $e"
	expect_eq "$(dcb_ind3)" "$e" "dcb indications after ethtool -S"
	sleep 0.2
	expect_eq "$(dcb_ind3)" "$e" "dcb indications 200 ms later"
	e2=$(rx_pause $P 3)
	[ "$e2" -gt "$e" ] || fail "second ethtool -S did not refresh: $e2 <= $e"
	expect_eq "$(dcb_ind3)" "$e2" "dcb indications after a second ethtool -S"
	# getpfc_calls counts dcb's reads, not ethtool's.
	g0=$(dfs_get $P getpfc_calls)
	dcb pfc show dev $P > /dev/null || fail "dcb pfc show failed"
	dcb pfc show dev $P > /dev/null || fail "dcb pfc show failed"
	rx_pause $P 3 > /dev/null
	expect_eq "$(dfs_get $P getpfc_calls)" $((g0 + 2)) "getpfc_calls after two dcb pfc show"
}

test_stale_until_read() {
	setup
	dfs_set $P stats_refresh_on_read 1
	expect_eq "$(dfs_get $P stats_period_ms)" 0 "stats_period_ms"
	dfs_set $P rx_storm 3
	sleep 1.5
	expect_eq "$(dcb_ind3)" 0 "indications 1.5 s into the storm, no ethtool -S"
	e=$(rx_pause $P 3)
	[ "$e" -gt 5000 ] || fail "ethtool -S did not refresh: rx_prio3_pause $e"
	sleep 1.2
	expect_eq "$(dcb_ind3)" "$e" "indications 1.2 s after ethtool -S"
	# Turning refresh_on_read off makes the counters live again.
	dfs_set $P stats_refresh_on_read 0
	a=$(dcb_ind3)
	[ "$a" -gt "$e" ] || fail "live again: $a <= $e"
}

# Prints the fastest of 3 runs of "$@", in ms.
fastest_ms() {
	local i t0 t best=999999

	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" > /dev/null || fail "$* failed"
		t=$((($(date +%s%N) - t0) / 1000000))
		[ $t -lt $best ] && best=$t
	done
	echo $best
}

test_getpfc_delay() {
	setup
	base=$(fastest_ms dcb pfc show dev $P)
	dfs_set $P getpfc_delay_us 20000
	expect_eq "$(dfs_get $P getpfc_delay_us)" 20000 "getpfc_delay_us"
	slow=$(fastest_ms dcb pfc show dev $P)
	log "dcb pfc show: $base ms, with getpfc_delay_us 20000: $slow ms"
	[ "$slow" -ge 20 ] || fail "dcb pfc show took $slow ms with a 20 ms delay"
	dfs_set $P getpfc_delay_us 300000
	slow=$(fastest_ms dcb pfc show dev $P)
	log "with getpfc_delay_us 300000: $slow ms"
	[ "$slow" -ge 300 ] || fail "dcb pfc show took $slow ms with a 300 ms delay"
	[ "$slow" -le $((300 + base + 1000)) ] || fail "dcb pfc show took $slow ms"
	# ethtool -S does not call getpfc.
	dfs_set $P getpfc_delay_us 1000000
	t=$(fastest_ms ethtool -S $P)
	[ "$t" -lt 1000 ] || fail "ethtool -S took $t ms"
}

test_get_set_fail() {
	setup
	dfs_set $P getpfc_fail 5
	expect_eq "$(dfs_get $P getpfc_fail)" 5 "getpfc_fail"
	g0=$(dfs_get $P getpfc_calls)
	err=$(dcb pfc show dev $P 2>&1) && fail "dcb pfc show succeeded with getpfc_fail: $err"
	log "dcb pfc show with getpfc_fail 5: $err"
	expect_eq "$(dfs_get $P getpfc_calls)" $((g0 + 1)) "getpfc_calls after a failed show"
	# dcb pfc set reads first, and fails too; nothing is set.
	s0=$(dfs_get $P setpfc_calls)
	dcb pfc set dev $P prio-pfc 0:on > /dev/null 2>&1 && fail "dcb pfc set succeeded"
	expect_eq "$(dfs_get $P setpfc_calls)" "$s0" "setpfc_calls after a failed dcb read"
	dfs_set $P getpfc_fail 0
	expect_eq "$(pfc_on $P)" "3 4" "pfc_en after a failed getpfc"

	# setpfc fails with EOPNOTSUPP (95): -95 as a u8 is 161.
	dfs_set $P setpfc_fail 95
	expect_eq "$(ieee_setpfc_status $P 1)" 161 "DCB_ATTR_IEEE status of a failed set"
	expect_eq "$(dfs_get $P setpfc_calls)" $((s0 + 1)) "setpfc_calls after a failed set"
	expect_eq "$(pfc_on $P)" "3 4" "pfc_en after a failed set"
	# dcb itself does not see the status: it exits 0, nothing changes.
	dcb pfc set dev $P prio-pfc 0:on 2>&1 | sed 's/^/dcb: /'
	expect_eq "$(pfc_on $P)" "3 4" "pfc_en after a failed dcb pfc set"
	dfs_set $P setpfc_fail 0
	expect_eq "$(ieee_setpfc_status $P 1)" 0 "DCB_ATTR_IEEE status of a good set"
	expect_eq "$(pfc_on $P)" "0" "pfc_en after a good set"
}

# Waits up to $2 ms for the carrier of $1 to be 1; prints the wait in ms.
wait_carrier() {
	local t0 i

	t0=$(now_ms)
	for ((i = 0; i < $2 / 20; i++)); do
		[ "$(carrier "$1")" = 1 ] && break
		sleep 0.02
	done
	[ "$(carrier "$1")" = 1 ] || fail "carrier of $1 not back after $2 ms"
	echo $(($(now_ms) - t0))
}

test_setpfc_bounce() {
	setup
	# 1 s: dcb and the checks after it take a while in a loaded VM.
	dfs_set $P setpfc_bounce_ms 1000
	expect_eq "$(dfs_get $P setpfc_bounce_ms)" 1000 "setpfc_bounce_ms"
	sleep 0.2	# the carrier_on of ip link set up settles
	c0=$(carrier_changes $P)
	t0=$(now_ms)
	pfc_set $P 0:on
	car=$(carrier $P)
	chg=$(carrier_changes $P)
	# Only meaningful if we looked within the bounce (a starved VM may not).
	if [ $(($(now_ms) - t0)) -lt 900 ]; then
		expect_eq "$car" 0 "carrier right after a pfc_en change"
		expect_eq "$chg" $((c0 + 1)) "carrier_changes during the bounce"
	else
		log "looked $(($(now_ms) - t0)) ms after the set: too late to see the bounce"
	fi
	wait_carrier $P 3000 > /dev/null
	down=$(($(now_ms) - t0))
	log "carrier back $down ms after the dcb pfc set began"
	[ $down -ge 1000 ] || fail "carrier back after $down ms, bounce is 1000 ms"
	expect_eq "$(carrier_changes $P)" $((c0 + 2)) "carrier_changes after one bounce"
	# Setting the same pfc_en again: no bounce.
	pfc_set $P 0:on
	sleep 0.1
	expect_eq "$(carrier_changes $P)" $((c0 + 2)) "carrier_changes after a no-op set"
	# A second change: two more.
	pfc_set $P 0:off
	wait_carrier $P 3000 > /dev/null
	expect_eq "$(carrier_changes $P)" $((c0 + 4)) "carrier_changes after two bounces"
	# A failed set does not bounce.
	dfs_set $P setpfc_fail 5
	ieee_setpfc_status $P 1 > /dev/null
	sleep 0.1
	expect_eq "$(carrier_changes $P)" $((c0 + 4)) "carrier_changes after a failed set"
	dfs_set $P setpfc_fail 0
	# A port taken down during a bounce stays without carrier; up again
	# after the bounce, it has it.
	pfc_set $P 1:on
	check ip link set $P down
	sleep 1.3
	expect_eq "$(carrier $P)" 0 "carrier of a port down after the bounce"
	check ip link set $P up
	wait_carrier $P 2000 > /dev/null
	# Up again during a bounce: the carrier waits for its end.
	t0=$(now_ms)
	pfc_set $P 1:off
	check ip link set $P down
	check ip link set $P up
	car=$(carrier $P)
	if [ $(($(now_ms) - t0)) -lt 900 ]; then
		expect_eq "$car" 0 "carrier of a port up again during a bounce"
	else
		log "down and up took $(($(now_ms) - t0)) ms: too late to see the bounce"
	fi
	wait_carrier $P 2000 > /dev/null
	# 0 turns the bounce off.
	dfs_set $P setpfc_bounce_ms 0
	c1=$(carrier_changes $P)
	pfc_set $P 2:on
	sleep 0.1
	expect_eq "$(carrier_changes $P)" "$c1" "carrier_changes with setpfc_bounce_ms 0"
	expect_eq "$(carrier $P)" 1 "carrier with setpfc_bounce_ms 0"
}

# Freezes a port that had an rx storm on 3 and a tx storm on 4.
storm_and_freeze() {
	dfs_set "$1" rx_storm 3
	dfs_set "$1" tx_storm 4
	sleep 0.3
	dfs_set "$1" rx_storm ""
	dfs_set "$1" tx_storm ""
}

test_swap() {
	setup
	storm_and_freeze $P
	req=$(dcb_pfc $P .requests)
	ind=$(dcb_pfc $P .indications)
	erx=$(ethtool_arr rx $P)
	etx=$(ethtool_arr tx $P)
	expect_eq "$ind" "$erx" "indications vs rx_prioP_pause"
	expect_eq "$req" "$etx" "requests vs tx_prioP_pause"
	dfs_set $P swap 1
	expect_eq "$(dfs_get $P swap)" 1 "swap"
	expect_eq "$(dcb_pfc $P .requests)" "$erx" "swapped requests vs rx_prioP_pause"
	expect_eq "$(dcb_pfc $P .indications)" "$etx" "swapped indications vs tx_prioP_pause"
	# ethtool -S is not swapped.
	expect_eq "$(ethtool_arr rx $P)" "$erx" "rx_prioP_pause with swap"
	dfs_set $P swap 0
	expect_eq "$(dcb_pfc $P .indications)" "$ind" "indications with swap 0 again"
}

test_no_counters() {
	setup
	dfs_set $P rx_storm 3
	dfs_set $P tx_storm 4
	sleep 0.2
	dfs_set $P no_counters 1
	expect_eq "$(dfs_get $P no_counters)" 1 "no_counters"
	expect_eq "$(dcb_pfc $P .requests)" "[0,0,0,0,0,0,0,0]" "requests with no_counters"
	expect_eq "$(dcb_pfc $P .indications)" "[0,0,0,0,0,0,0,0]" "indications with no_counters"
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,true,true,false,false,false]" \
		"prio-pfc with no_counters"
	expect_eq "$(dcb_pfc $P .pfc_cap)" 8 "pfc-cap with no_counters"
	# Only the packet counters are left in ethtool -S.
	dfs_set $P pause_duration 1
	names=$(ethtool -S $P | awk -F: 'NR > 1 { gsub(" ", "", $1); print $1 }' | sort | xargs)
	want=$(for p in 0 1 2 3 4 5 6 7; do echo rx_prio${p}_packets tx_prio${p}_packets; done |
		xargs -n1 | sort | xargs)
	expect_eq "$names" "$want" "ethtool -S names with no_counters"
	expect_eq "$(rx_pause $P 3)" missing "rx_prio3_pause with no_counters"
	# The hardware kept counting.
	dfs_set $P no_counters 0
	[ "$(rx_pause $P 3)" -gt 1000 ] || fail "rx_prio3_pause after no_counters 0"
	[ "$(dcb_pfc $P '.requests[4]')" -gt 1000 ] || fail "requests[4] after no_counters 0"
	[ "$(rx_dur $P 3)" -gt 100000 ] || fail "rx_prio3_pause_duration after no_counters 0"
}

test_counter_reset() {
	setup
	dfs_set $P pause_duration 1
	storm_and_freeze $P
	[ "$(dcb_pfc $P '.indications[3]')" -gt 0 ] || fail "no indications before the reset"
	[ "$(rx_dur $P 3)" -gt 0 ] || fail "no pause duration before the reset"
	dfs_set $P counter_reset 1
	expect_eq "$(dcb_pfc $P .indications)" "[0,0,0,0,0,0,0,0]" "indications after reset"
	expect_eq "$(dcb_pfc $P .requests)" "[0,0,0,0,0,0,0,0]" "requests after reset"
	expect_eq "$(ethtool_arr rx $P)" "[0,0,0,0,0,0,0,0]" "rx_prioP_pause after reset"
	expect_eq "$(ethtool_arr tx $P)" "[0,0,0,0,0,0,0,0]" "tx_prioP_pause after reset"
	expect_eq "$(rx_dur $P 3)" 0 "rx_prio3_pause_duration after reset"
	# The published copy is reset too, and a storm counts from 0.
	dfs_set $P stats_period_ms 60000
	storm_and_freeze $P
	dfs_set $P stats_period_ms 60000	# a copy of the frozen counters
	[ "$(dcb_ind3)" -gt 0 ] || fail "no indications in the copy"
	dfs_set $P counter_reset 1
	expect_eq "$(dcb_pfc $P .indications)" "[0,0,0,0,0,0,0,0]" "copied indications after reset"
	expect_eq "$(rx_dur $P 3)" 0 "copied pause duration after reset"
	dfs_set $P stats_period_ms 0
	expect_eq "$(dcb_pfc $P .indications)" "[0,0,0,0,0,0,0,0]" "live indications after reset"
	dfs_set $P rx_storm 3
	sleep 0.2
	v=$(dcb_ind3)
	[ "$v" -gt 500 ] && [ "$v" -lt 20000 ] || fail "indications after reset and 200 ms: $v"
}

test_pause_duration() {
	setup
	expect_eq "$(rx_dur $P 3)" missing "rx_prio3_pause_duration with pause_duration 0"
	dfs_set $P pause_duration 1
	expect_eq "$(dfs_get $P pause_duration)" 1 "pause_duration"
	names=$(ethtool -S $P | awk -F: 'NR > 1 { gsub(" ", "", $1); print $1 }' |
		grep -c '^rx_prio[0-7]_pause_duration$')
	expect_eq "$names" 8 "rx_prioP_pause_duration counters"
	expect_eq "$(rx_dur $P 3)" 0 "duration when idle"
	# The other drivers' names for the same counter: mlxsw/mlx4, bnxt_en.
	for nv in 2:rx_pause_duration_prio_%d 3:pfc_pri%d_rx_duration_us; do
		dfs_set $P pause_duration ${nv%%:*}
		want=$(printf "${nv#*:}" 3)
		names=$(ethtool -S $P | awk -F: 'NR > 1 { gsub(" ", "", $1); print $1 }')
		expect_eq "$(echo "$names" | grep -c "^$want\$")/$(echo "$names" | grep -c _pause_duration\$)" \
			"1/0" "pause_duration ${nv%%:*}: $want, no mlx5 name"
	done
	dfs_set $P pause_duration 1
	# 3 is lossless, 5 is not: the partner's pause on 5 is ignored.
	dfs_set $P rx_storm 3,5
	sleep 0.2
	t0=$(now_ms)
	d0=$(rx_dur $P 3)
	sleep 1
	t1=$(now_ms)
	d1=$(rx_dur $P 3)
	rate=$(((d1 - d0) * 1000 / (t1 - t0)))
	log "prio 3 paused $((d1 - d0)) us in $((t1 - t0)) ms: $rate us/s"
	[ $rate -ge 700000 ] && [ $rate -le 1300000 ] || fail "duration grows $rate us/s"
	expect_eq "$(rx_dur $P 5)" 0 "duration of prio 5 (not in pfc_en)"
	[ "$(rx_pause $P 5)" -gt 0 ] || fail "prio 5 pause not counted"
	# Idle: it stands still.
	dfs_set $P rx_storm ""
	d2=$(rx_dur $P 3)
	sleep 0.3
	expect_eq "$(rx_dur $P 3)" "$d2" "duration after the storm"
	# PFC off for 3 during a storm: not paused, not growing.
	pfc_set $P 3:off
	dfs_set $P rx_storm 3
	sleep 0.3
	expect_eq "$(rx_dur $P 3)" "$d2" "duration with PFC off on prio 3"
	# Published like the counters.
	pfc_set $P 3:on
	dfs_set $P stats_period_ms 60000
	a=$(rx_dur $P 3)
	sleep 0.3
	expect_eq "$(rx_dur $P 3)" "$a" "copied duration"
	dfs_set $P stats_refresh_on_read 1
	b=$(rx_dur $P 3)
	[ "$b" -gt $((a + 200000)) ] || fail "refreshed duration $b, was $a 300 ms before"
}

# The knobs a profile sets, as "name=value ...".
knob_values() {
	local k v out=()

	for k in $KNOBS; do
		IFS= read -r v < "$PFCSIM_DFS/$1/$k"
		out+=("$k=$v")
	done
	echo "${out[*]}"
}

# Expected knob values of profile $1 (same order as $KNOBS).
profile_want() {
	local v
	case $1 in
	ideal)	v="0 0 0 0 0 0 0 0 0 1 0 0" ;;
	mlx5)	v="0 1 50 0 0 200 0 0 1 1 0 0" ;;
	ixgbe)	v="2000 1 0 0 0 0 1 0 0 0 0 10" ;;
	i40e|ice) v="1000 1 0 0 0 0 0 0 0 1 0 10" ;;
	bnxt)	v="1000 0 100 0 0 0 0 0 3 1 1 10" ;;
	hns3)	v="0 0 100 0 0 100 0 0 0 1 0 0" ;;
	mlxsw)	v="0 0 500 0 0 0 0 0 2 1 0 0" ;;
	qede|cxgb4|octeontx2) v="0 0 0 0 0 0 0 1 0 1 0 0" ;;
	esac
	local -a ks=($KNOBS) vs=($v) out=()
	local i

	for i in "${!ks[@]}"; do
		out+=("${ks[i]}=${vs[i]}")
	done
	echo "${out[*]}"
}

drv() {
	local k v

	while read -r k v; do
		[ "$k" = driver: ] && echo "$v"
	done < <(ethtool -i "$1")
}

test_profiles() {
	setup
	expect_eq "$(dfs_get $P profile)" ideal "initial profile"
	expect_eq "$(knob_values $P)" "$(profile_want ideal)" "initial knobs"
	expect_eq "$(drv $P)" pfcsim "driver with ideal"
	for pd in mlx5:mlx5_core ixgbe:ixgbe i40e:i40e ice:ice bnxt:bnxt_en hns3:hns3 \
		  mlxsw:mlxsw_spectrum qede:qede cxgb4:cxgb4 octeontx2:rvu-nicpf ideal:pfcsim; do
		prof=${pd%%:*}
		# Start from something else, so that every knob must be set.
		dfs_set $P getpfc_fail 7
		dfs_set $P setpfc_fail 7
		dfs_set $P stats_period_ms 123
		dfs_set $P swap 1
		dfs_set $P no_counters 1
		dfs_set $P pause_duration 1
		dfs_set $P stats_refresh_on_read 1
		dfs_set $P stats_jitter_ms 77
		# frame_counters the other way round from the profile's.
		fc=1
		[ $prof = bnxt ] && fc=0
		dfs_set $P frame_counters $fc
		expect_eq "$(dfs_get $P profile)" custom "profile after knob writes"
		printf '%s' $prof > "$(dfs $P profile)" || fail "profile $prof rejected"
		expect_eq "$(dfs_get $P profile)" $prof "profile read back"
		expect_eq "$(knob_values $P)" "$(profile_want $prof)" "knobs of $prof"
		expect_eq "$(drv $P)" "${pd#*:}" "driver name with $prof"
	done
	# A knob changed: custom, and the driver is pfcsim again.
	dfs_set $P profile mlx5
	dfs_set $P getpfc_delay_us 50	# the same value: still mlx5
	expect_eq "$(dfs_get $P profile)" mlx5 "profile after writing the same value"
	dfs_set $P getpfc_delay_us 51
	expect_eq "$(dfs_get $P profile)" custom "profile after a knob change"
	expect_eq "$(drv $P)" pfcsim "driver with custom"
	dfs_set $P profile bnxt
	dfs_set $P frame_counters 1	# the same value: still bnxt
	expect_eq "$(dfs_get $P profile)" bnxt "profile after frame_counters 1 on bnxt"
	dfs_set $P frame_counters 0
	expect_eq "$(dfs_get $P profile)" custom "profile after frame_counters 0 on bnxt"
	dfs_set $P profile ixgbe
	dfs_set $P count_when_disabled 1
	expect_eq "$(dfs_get $P profile)" custom "profile after count_when_disabled"
	dfs_set $P profile bnxt
	dfs_set $P pause_rate 1234	# not a profile knob
	dfs_set $P rx_storm 3
	dfs_set $P counter_reset 1
	expect_eq "$(dfs_get $P profile)" bnxt "profile after non-profile writes"
	# Bad names change nothing.
	before="$(dfs_get $P profile) $(knob_values $P)"
	expect_rejected $P profile "" custom foo MLX5 " mlx5" "mlx5 " $'mlx5\n\n' mlx5x \
		mlx ideal, "$(printf 'x%.0s' $(seq 40))"
	expect_eq "$(dfs_get $P profile) $(knob_values $P)" "$before" "after bad profile names"
}

# Writes each of "${@:3}" to file $2 of port $1, as it is and with a
# trailing newline, in one write(2) each; every write must fail with EINVAL.
expect_rejected() {
	python3 -S - "$(dfs "$1" "$2")" "${@:3}" <<'PY'
import errno, os, sys
path, bad = sys.argv[1], []
for v in sys.argv[2:]:
    for data in (v, v + "\n"):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, data.encode())
            bad.append("%r accepted" % data)
        except OSError as e:
            if e.errno != errno.EINVAL:
                bad.append("%r: %s" % (data, os.strerror(e.errno)))
        finally:
            os.close(fd)
if bad:
    print("%s: %s" % (os.path.basename(path), "; ".join(bad)))
    sys.exit(1)
PY
	[ $? = 0 ] || fail "a bad write to $2 was not rejected with EINVAL"
}

port_state() {
	printf '%s %s prof=%s ind=%s pfc=%s carrier=%s' "$(knob_values $P)" \
		"$(dfs_get $P pause_rate)" "$(dfs_get $P profile)" "$(dcb_pfc $P .indications)" \
		"$(pfc_on $P)" "$(carrier_changes $P)"
}

test_bad_writes() {
	setup
	dfs_set $P rx_storm 3
	sleep 0.1
	dfs_set $P rx_storm ""
	dfs_set $P stats_period_ms 7000
	dfs_set $P getpfc_delay_us 10
	dfs_set $P setpfc_bounce_ms 10
	dfs_set $P swap 1
	dfs_set $P frame_counters 1
	before=$(port_state)
	long=$(printf '0%.0s' $(seq 40))
	common=(-1 +1 " 1" "1 " abc 1e3 0x1 1.5 $'1\n\n' "" "$long" 4294967296)
	expect_rejected $P stats_period_ms 60001 100000 "${common[@]}"
	expect_rejected $P stats_jitter_ms 10001 "${common[@]}"
	expect_rejected $P counter_32bit 2 10 yes "${common[@]}"
	expect_rejected $P counter_preset "${common[@]}"
	expect_rejected $P setpfc_bounce_ms 60001 "${common[@]}"
	expect_rejected $P getpfc_delay_us 1000001 "${common[@]}"
	expect_rejected $P getpfc_fail 4096 65536 "${common[@]}"
	expect_rejected $P setpfc_fail 4096 "${common[@]}"
	for k in stats_refresh_on_read swap no_counters frame_counters; do
		expect_rejected $P $k 2 10 yes "${common[@]}"
	done
	expect_rejected $P pause_duration 4 10 yes mlx5 "${common[@]}"
	expect_rejected $P counter_reset 0 2 01x yes "${common[@]}"
	after=$(port_state)
	expect_eq "$after" "$before" "port state after bad writes"
	expect_eq "$(dfs_get $P profile)" custom "profile after bad writes"
	# The maxima are accepted.
	for kv in stats_period_ms=60000 stats_jitter_ms=10000 setpfc_bounce_ms=60000 getpfc_delay_us=1000000 \
		  getpfc_fail=4095 setpfc_fail=4095 stats_refresh_on_read=1 no_counters=1 \
		  pause_duration=3 frame_counters=1; do
		dfs_set $P ${kv%=*} ${kv#*=}
		expect_eq "$(dfs_get $P ${kv%=*})" ${kv#*=} "${kv%=*} at its maximum"
	done
	dfs_set $P getpfc_delay_us 0
	# The call counters are read-only.
	for f in stats_reads getpfc_calls setpfc_calls published_ns; do
		v=$(dfs_get $P $f)
		echo 0 > "$(dfs $P $f)" 2>/dev/null && fail "write to $f accepted"
		expect_eq "$(dfs_get $P $f)" "$v" "$f after a write"
	done
	return 0
}

# Every ethtool -S statistic of port $1, from one ethtool run, into the
# associative array ES (name -> value).
declare -A ES
es_read() {
	local k v rest

	ES=()
	while read -r k v rest; do
		[[ $k == *: ]] && ES[${k%:}]=$v
	done < <(ethtool -S "$1")
}

# Sets variable $1 to the sum over the priorities of ES's $2_prioP_$3.
es_sum_v() {
	local p s=0

	for p in 0 1 2 3 4 5 6 7; do
		s=$((s + ${ES[$2_prio${p}_$3]:-0}))
	done
	printf -v "$1" %s "$s"
}

# The published values of ES: "rx_total_frames tx_total_frames
# rx_prio3_pause".
es_pub() {
	echo "${ES[rx_total_frames]:-missing} ${ES[tx_total_frames]:-missing}" \
		"${ES[rx_prio3_pause]:-missing}"
}

# Fails unless ES's rx_total_frames is the received packets plus the pause
# frames received, all priorities, as read (exact while the received
# packets stand still, as the pause counters are of the same instant);
# with $2 "tx" too, tx_total_frames likewise (exact only while nothing is
# sent).  $1 names the read.
es_totals_exact() {
	local pk pa

	es_sum_v pk rx packets
	es_sum_v pa rx pause
	expect_eq "${ES[rx_total_frames]}" $((pk + pa)) \
		"$1: rx_total_frames vs rx packets $pk + rx pause $pa"
	[ "${2:-}" = tx ] || return 0
	es_sum_v pk tx packets
	es_sum_v pa tx pause
	expect_eq "${ES[tx_total_frames]}" $((pk + pa)) \
		"$1: tx_total_frames vs tx packets $pk + tx pause $pa"
}

# pktgen sends priority 1 (tagged, PCP 1) out of port $1, a frame a
# millisecond (pktgen then sleeps between frames), until pg1_stop.
pg1_start() {
	local e=$1@1 c

	pgset $PG/kpktgend_0 "add_device $e"
	for c in "count 0" "pkt_size 100" "delay 1000000" "clone_skb 0" \
		 "skb_priority 1" "vlan_id 0" "vlan_p 1" \
		 "dst 198.51.100.2" "dst_mac 02:00:00:00:00:02" \
		 "xmit_mode queue_xmit"; do
		pgset $PG/"$e" "$c"
	done
	# In the background and off the case's output: "start" returns only
	# once pktgen stops, and the runner waits for the output to close.
	(echo start > $PG/pgctrl) > /dev/null 2>&1 &
	PG1_PID=$!
	trap pg1_stop EXIT
}

pg1_stop() {
	echo stop > $PG/pgctrl 2>/dev/null
	wait "$PG1_PID" 2>/dev/null
	echo rem_device_all > $PG/kpktgend_0 2>/dev/null
	trap - EXIT
}

# With bnxt's profile (a copy every 1 s), rx_total_frames and
# tx_total_frames stand still between publications and move, with the
# pause counters, at each; with stats_period_ms 0 they are live.  Traffic:
# 100 frames received before, pktgen sending on priority 1 and the link
# partner pausing priority 3 (rx_storm) during.
test_frame_counters() {
	local t0 t1 i a b c d tp pk es_names want va vc per=1000 prof=bnxt

	setup
	modprobe pktgen || skip "no pktgen in this kernel"
	es_read $P
	expect_eq "$(es_pub)" "missing missing 0" "totals with frame_counters 0"
	dfs_set $P profile bnxt
	expect_eq "$(dfs_get $P frame_counters)" 1 "frame_counters of bnxt"
	# After the per-priority statistics, before the storm prevention's.
	check ethtool --set-tunable $P pfc-prevention-tout 1000
	es_names=$(ethtool -S $P | awk -F: 'NR > 1 { gsub(" ", "", $1); print $1 }' |
		tail -n 5 | xargs)
	want="pfc_pri7_rx_duration_us rx_total_frames tx_total_frames"
	want+=" tx_pause_storm_warning_events tx_pause_storm_error_events"
	expect_eq "$es_names" "$want" \
		"the last ethtool -S names with frame_counters and storm prevention"
	check ethtool --set-tunable $P pfc-prevention-tout 0

	dfs_set $P inject_rx "2 100"
	dfs_set $P rx_storm 3
	pg1_start $P
	sleep 0.2

	# Writing stats_period_ms (the same value: still bnxt) publishes at
	# once and restarts the period: the next copy is due 1 s later.  Two
	# reads 150 ms apart right after it see the same copy, while the
	# packets sent move.  Both must be well inside the period (half of
	# it; they take 250 to 300 ms under TCG): a starved guest tries again.
	# The debug kernel takes 700 to 800 ms for them, and so does a guest
	# with one vCPU beside pktgen (make check's 6.1 lane: 588-710 ms in
	# three tries, 2026-11-29): a 3 s period there (not bnxt's, so the
	# port's profile becomes custom).
	if on_debug_kernel || [ "$(nproc)" -lt 2 ]; then
		per=3000
		prof=custom
	fi
	for i in 1 2 3; do
		t0=$(now_ms)
		dfs_set $P stats_period_ms $per
		es_read $P
		a=$(es_pub)
		tp=${ES[tx_prio1_packets]}
		es_totals_exact "first read after a publication"
		sleep 0.15
		es_read $P
		t1=$(now_ms)
		b=$(es_pub)
		[ $((t1 - t0)) -le $((per / 2)) ] && break
		log "the two reads took $((t1 - t0)) ms: again"
	done
	[ $((t1 - t0)) -le $((per / 2)) ] ||
		fail "no two reads within $((per / 2)) ms of a publication in 3 tries"
	expect_eq "$(dfs_get $P profile)" $prof "profile after writing stats_period_ms $per"
	log "published: $a; $((t1 - t0)) ms later: $b"
	expect_eq "$b" "$a" "totals and rx_prio3_pause within a publication"
	[ "${ES[tx_prio1_packets]}" -gt "$tp" ] ||
		fail "pktgen sent nothing on priority 1: tx_prio1_packets $tp, ${ES[tx_prio1_packets]}"
	es_sum_v pk tx packets

	# The next publication, a period after the write: all three move in
	# the same read; rx_total_frames by exactly the pause frames received
	# (nothing else is received meanwhile), tx_total_frames to what was
	# sent by then (between the sums of the live packet counters before
	# and after).
	for ((i = 0; i < per / 20; i++)); do
		es_read $P
		c=$(es_pub)
		[ "$c" != "$b" ] && break
		sleep 0.05
	done
	t1=$(now_ms)
	log "$((t1 - t0)) ms after the write: $c"
	[ "$c" != "$b" ] || fail "no publication within $((t1 - t0)) ms"
	read -r -a va <<< "$b"
	read -r -a vc <<< "$c"
	[ $((t1 - t0)) -ge $((per - 50)) ] ||
		fail "published $((t1 - t0)) ms after the write, period $per"
	[ "${vc[2]}" -gt "${va[2]}" ] || fail "rx_prio3_pause did not move: $b -> $c"
	expect_eq $((vc[0] - va[0])) $((vc[2] - va[2])) \
		"rx_total_frames' step vs rx_prio3_pause's ($b -> $c)"
	es_totals_exact "read after the next publication"
	[ "${vc[1]}" -gt "${va[1]}" ] && [ "${vc[1]}" -ge "$pk" ] ||
		fail "tx_total_frames ${va[1]} -> ${vc[1]}, $pk packets sent before"
	es_sum_v pk tx packets
	[ "${vc[1]}" -le "$pk" ] || fail "tx_total_frames ${vc[1]} above the $pk packets sent"
	# And stand still again.
	sleep 0.15
	es_read $P
	d=$(es_pub)
	t1=$(now_ms)
	log "$((t1 - t0)) ms after the write: $d"
	[ $((t1 - t0)) -ge $((per * 8 / 5)) ] || expect_eq "$d" "$c" "totals 150 ms after a publication"

	# No copy (bnxt has no stats_refresh_on_read): live.
	dfs_set $P stats_period_ms 0
	expect_eq "$(dfs_get $P stats_refresh_on_read)" 0 "stats_refresh_on_read"
	es_read $P
	a=$(es_pub)
	es_totals_exact "live read"
	sleep 0.1
	es_read $P
	b=$(es_pub)
	es_totals_exact "second live read"
	read -r -a va <<< "$a"
	read -r -a vc <<< "$b"
	log "live: $a, then $b"
	[ "${vc[0]}" -gt "${va[0]}" ] && [ "${vc[1]}" -gt "${va[1]}" ] &&
		[ "${vc[2]}" -gt "${va[2]}" ] || fail "live totals stand still: $a -> $b"
	# Nothing sent or received: both totals exact.
	pg1_stop
	dfs_set $P rx_storm ""
	es_read $P
	es_totals_exact "quiet live read" tx
	# Off: gone from ethtool -S.
	dfs_set $P frame_counters 0
	es_read $P
	expect_eq "${ES[rx_total_frames]:-missing} ${ES[tx_total_frames]:-missing}" \
		"missing missing" "totals with frame_counters 0"
	expect_eq "$(dfs_get $P profile)" custom "profile after frame_counters 0"
}

# A port with a publication and a carrier bounce pending.
pending_everything() {
	dfs_set "$1" stats_period_ms 50
	dfs_set "$1" setpfc_bounce_ms 5000
	dfs_set "$1" rx_storm 3
	pfc_set "$1" 0:on
	[ "$(carrier "$1")" = 0 ] || fail "no bounce on $1"
}

test_del_pending() {
	setup
	pfcsim_new psim1
	pending_everything $P
	pending_everything psim1
	# A slow getpfc in flight as well.
	dfs_set $P getpfc_delay_us 500000
	dcb pfc show dev $P > /dev/null 2>&1 &
	sleep 0.1
	pfcsim_del $P
	wait
	[ -e /sys/class/net/$P ] && fail "$P still exists"
	# The other port still publishes and bounces back.
	a=$(dcb_pfc psim1 '.indications[3]')
	sleep 0.2
	[ "$(dcb_pfc psim1 '.indications[3]')" -gt "$a" ] || fail "psim1 stopped publishing"
	for i in $(seq 5); do
		pfcsim_new psim2
		pending_everything psim2
		pfcsim_del psim2
	done
	pfcsim_new psim2
	pending_everything psim2
	modprobe -r pfcsim || fail "cannot unload pfcsim with works pending"
	[ -e "$PFCSIM_DFS" ] && fail "$PFCSIM_DFS survived unload"
	# Give a work that survived (it must not) the time to run.
	sleep 0.3
	pfcsim_new $P
	expect_eq "$(dfs_get $P profile)" ideal "profile of a new port"
	unload_mod pfcsim
}

TESTS=(
	"test_stats_period	pfcsim: stats_period_ms 500: counters move only at publications"
	"test_stats_jitter	pfcsim: stats_jitter_ms: copies late by 0..J ms on a fixed grid	60"
	"test_counter_32bit	pfcsim: counter_32bit wraps the pause counters at 2^32, counter_preset gets there"
	"test_refresh_on_read	pfcsim: stats_refresh_on_read: ethtool -S refreshes what getpfc sees"
	"test_stale_until_read	pfcsim: period 0 + refresh_on_read: stale until ethtool -S"
	"test_getpfc_delay	pfcsim: getpfc_delay_us slows dcb pfc show"
	"test_get_set_fail	pfcsim: getpfc_fail and setpfc_fail return the errno, change nothing"
	"test_setpfc_bounce	pfcsim: setpfc_bounce_ms bounces the carrier on pfc_en changes"
	"test_swap	pfcsim: swap exchanges requests and indications in getpfc"
	"test_no_counters	pfcsim: no_counters: zero in getpfc, absent from ethtool -S"
	"test_counter_reset	pfcsim: counter_reset zeroes live and published counters"
	"test_pause_duration	pfcsim: rx_prioP_pause_duration grows 1 s/s while paused"
	"test_profiles	pfcsim: profiles set every knob and the driver name; custom; bad names"
	"test_bad_writes	pfcsim: bad knob writes rejected with EINVAL, nothing changed"
	"test_del_pending	pfcsim: del_port and unload with a publication and bounce pending"
	"test_frame_counters	pfcsim: frame_counters: rx/tx_total_frames published with the pause counters	60"
)

tap_main "$@"
