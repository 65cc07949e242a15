#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pfcsim, the simulated lossless NIC: DCB ops (dcb pfc/ets/dcbx), pause
# counters in dcb and ethtool -S, storms (rx_storm, tx_storm, rx_slow) and
# a slow receiver (rx_slow_peer, slow_peer_pct),
# pause_rate, count_when_disabled, inject_rx, bad debugfs writes, and
# deleting ports or unloading the module in the middle of a storm; TX rings
# drained at the link rate (tx_ring, link_mbps), queues per traffic class
# (ethtool -L tx N) and prio_tc layouts.

. "$(dirname "$0")/lib.sh"

P=psim0

cleanup_all() {
	unload_mod pfcsim
}

# A fresh module with one port, up.
setup() {
	cleanup_all
	pfcsim_new $P
}

dfs() { echo "$PFCSIM_DFS/$1/$2"; }

# Writes "$3" plus a newline to the port's debugfs file $2 (port $1).
dfs_set() {
	echo "$3" > "$(dfs "$1" "$2")" || fail "write '$3' to $1/$2 failed"
}

dfs_get() { readf "$PFCSIM_DFS/$1/$2"; }

netstat() { readf "/sys/class/net/$1/statistics/$2"; }

# "dcb -s pfc show" as JSON; field $2 (jq path) of port $1.
dcb_pfc() { dcb -j -s pfc show dev "$1" | jq -c "$2"; }

pfc_set() { check dcb_set pfc set dev "$1" prio-pfc "${@:2}"; }

rx_pause() { ethtool_stat "$1" "rx_prio$2_pause"; }
tx_pause() { ethtool_stat "$1" "tx_prio$2_pause"; }
tx_pkts() { ethtool_stat "$1" "tx_prio$2_packets"; }
rx_pkts() { ethtool_stat "$1" "rx_prio$2_packets"; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

send() {
	"$PFCWD_PKT" send "$@" > /dev/null || fail "pfcwd-pkt send $*"
}

# Fails unless "$@" (a command printing a value) prints $1... within ~5 s.
wait_eq() {
	local want=$1 i v

	shift
	for i in $(seq 50); do
		v=$("$@")
		[ "$v" = "$want" ] && return 0
		sleep 0.1
	done
	fail "$*: expected '$want', still '$v' after 5 s"
}

# Counter $3 ("rx" or "tx" pause) of priority $2 must rise at pause_rate $4
# (+-30%, the VM is emulated) over about one second.
expect_rate() {
	local dev=$1 p=$2 dir=$3 rate=$4 t0 t1 v0 v1 ms got

	t0=$(now_ms)
	v0=$("${dir}_pause" "$dev" "$p")
	sleep 1
	t1=$(now_ms)
	v1=$("${dir}_pause" "$dev" "$p")
	ms=$((t1 - t0))
	got=$(((v1 - v0) * 1000 / ms))
	log "$dir prio $p: $((v1 - v0)) pause frames in $ms ms: $got/s, want $rate/s"
	[ "$got" -ge $((rate * 7 / 10)) ] && [ "$got" -le $((rate * 13 / 10)) ] ||
		fail "$dir prio $p pause rate $got/s, want $rate/s +-30%"
}

# Counter $3 of priority $2 stays where it is for 300 ms.
expect_still() {
	local v0 v1

	v0=$("${3}_pause" "$1" "$2")
	sleep 0.3
	v1=$("${3}_pause" "$1" "$2")
	expect_eq "$v1" "$v0" "$3 pause of prio $2 not rising"
}

test_defaults() {
	setup
	expect_eq "$(dcb_pfc $P .pfc_cap)" 8 "pfc-cap"
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,true,true,false,false,false]" \
		"default prio-pfc"
	dcb pfc show dev $P | grep -q "prio-pfc 0:off 1:off 2:off 3:on 4:on 5:off 6:off 7:off" ||
		fail "dcb pfc show: $(dcb pfc show dev $P)"
	expect_eq "$(dcb_pfc $P .requests)" "[0,0,0,0,0,0,0,0]" "requests"
	expect_eq "$(dcb_pfc $P .indications)" "[0,0,0,0,0,0,0,0]" "indications"
	expect_eq "$(dcb dcbx show dev $P | xargs)" "host ieee" "dcbx mode"
	expect_eq "$(dfs_get $P rx_storm)" "" "rx_storm"
	expect_eq "$(dfs_get $P tx_storm)" "" "tx_storm"
	expect_eq "$(dfs_get $P rx_slow)" "" "rx_slow"
	expect_eq "$(dfs_get $P pause_rate)" 10000 "pause_rate"
	expect_eq "$(dfs_get $P count_when_disabled)" 1 "count_when_disabled"
	ethtool $P | grep -q "Speed: 100000Mb/s" || fail "speed: $(ethtool $P)"
	ethtool $P | grep -q "Duplex: Full" || fail "duplex: $(ethtool $P)"
	expect_eq "$(ethtool -i $P | awk '$1 == "driver:" { print $2 }')" pfcsim "driver"
	# Exactly the mlx5 names, 4 per priority.
	names=$(ethtool -S $P | awk -F: 'NR > 1 { gsub(" ", "", $1); print $1 }' | sort | xargs)
	want=$(for p in 0 1 2 3 4 5 6 7; do
		echo rx_prio${p}_packets rx_prio${p}_pause tx_prio${p}_packets tx_prio${p}_pause
	done | xargs -n1 | sort | xargs)
	expect_eq "$names" "$want" "ethtool -S names"
	expect_eq "$(tc qdisc show dev $P | awk 'NR == 1 { print $2 }')" mq "root qdisc"
	expect_eq "$(ls -d /sys/class/net/$P/queues/tx-* | wc -l)" 8 "TX queues"
	expect_eq "$(cat /sys/class/net/$P/carrier)" 1 "carrier"
	expect_eq "$(dfs_get $P tx_ring)" 0 "tx_ring"
	expect_eq "$(dfs_get $P link_mbps)" 100000 "link_mbps"
	expect_eq "$(dfs_get $P prio_tc)" "0 1 2 3 4 5 6 7" "prio_tc"
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
	expect_eq "$(dfs_get $P tx_ring_depth)" "0 0 0 0 0 0 0 0" "tx_ring_depth"
	expect_eq "$(dfs_get $P tx_lock_errors)" 0 "tx_lock_errors"
	expect_eq "$(dfs_get $P select_pcp)" 1 "select_pcp"
	expect_eq "$(dfs_get $P bql)" 1 "bql"
	expect_eq "$(ethtool -l $P | awk '$1 == "TX:" { print $2 }' | xargs)" "4 1" "ethtool -l TX"
}

test_dcb_set() {
	setup
	pfc_set $P 0:on 3:off 7:on
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[true,false,false,false,true,false,false,true]" \
		"prio-pfc after set"
	dcb pfc show dev $P | grep -q "prio-pfc 0:on 1:off 2:off 3:off 4:on 5:off 6:off 7:on" ||
		fail "dcb pfc show: $(dcb pfc show dev $P)"
	check dcb_set pfc set dev $P delay 4096
	expect_eq "$(dcb_pfc $P .delay)" 4096 "delay"
	pfc_set $P all:off
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,false,false,false,false,false]" \
		"prio-pfc all off"
	pfc_set $P 3:on 4:on
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,true,true,false,false,false]" \
		"prio-pfc back to 3,4"
	expect_eq "$(dcb_pfc $P .pfc_cap)" 8 "pfc-cap after sets"

	# ETS: defaults, a round trip, a bad configuration rejected.
	dcb ets show dev $P > /dev/null || fail "dcb ets show failed"
	expect_eq "$(dcb -j ets show dev $P | jq -c .ets_cap)" 8 "ets-cap"
	expect_eq "$(dcb -j ets show dev $P | jq -c .prio_tc)" "[0,1,2,3,4,5,6,7]" "prio-tc"
	expect_eq "$(dcb -j ets show dev $P | jq -c .tc_tsa | tr -d '"')" \
		"[strict,strict,strict,strict,strict,strict,strict,strict]" "tc-tsa"
	check dcb_set ets set dev $P tc-tsa 0:ets 1:ets tc-bw 0:60 1:40 prio-tc 1:0
	expect_eq "$(dcb -j ets show dev $P | jq -c '[.tc_tsa[0], .tc_tsa[1], .tc_tsa[2], .tc_bw[0], .tc_bw[1], .prio_tc[1]]' | tr -d '"')" \
		"[ets,ets,strict,60,40,0]" "ETS after set"
	dcb_set ets set dev $P tc-bw 0:50 1:40 >/dev/null && fail "ETS bandwidth summing to 90 accepted"
	expect_eq "$(dcb -j ets show dev $P | jq -c '[.tc_bw[0], .tc_bw[1]]')" "[60,40]" \
		"ETS after a rejected set"

	# DCBX: host-managed IEEE only.
	check dcb_set dcbx set dev $P host ieee
	dcb_set dcbx set dev $P lld-managed ieee >/dev/null && fail "lld-managed DCBX accepted"
	dcb_set dcbx set dev $P host cee >/dev/null && fail "CEE DCBX accepted"
	expect_eq "$(dcb dcbx show dev $P | xargs)" "host ieee" "dcbx mode after sets"
}

# fw_pfc_en changes pfc_en as the NIC's firmware does: dcb sees it, the
# pause model follows it, and no ieee_setpfc call is made.
test_fw_pfc_en() {
	local calls lists long

	setup
	expect_eq "$(dfs_get $P fw_pfc_en)" "3,4" "fw_pfc_en reads the default pfc_en"
	pfc_set $P 5:on
	expect_eq "$(dfs_get $P fw_pfc_en)" "3,4,5" "fw_pfc_en reads a dcb change"
	calls=$(dfs_get $P setpfc_calls)
	dfs_set $P fw_pfc_en 3,7
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,true,false,false,false,true]" \
		"dcb sees the firmware's pfc_en"
	expect_eq "$(dfs_get $P setpfc_calls)" "$calls" "no ieee_setpfc call"
	# Pause counts only while in pfc_en (count_when_disabled 0).
	dfs_set $P count_when_disabled 0
	dfs_set $P rx_storm 4
	expect_still $P 4 rx
	dfs_set $P fw_pfc_en 4
	expect_rate $P 4 rx 10000
	dfs_set $P rx_storm ""
	long=$(printf '0%.0s' $(seq 40))
	lists=("8" "3," "3,,4" "3 4" "4-2" "3,3" "a" "0x3" $'3\n\n' "$long")
	expect_rejected $P fw_pfc_en "${lists[@]}"
	expect_eq "$(dfs_get $P fw_pfc_en)" 4 "pfc_en after bad writes"
	dfs_set $P fw_pfc_en ""
	expect_eq "$(dcb_pfc $P .prio_pfc)" "[false,false,false,false,false,false,false,false]" \
		"an empty list clears pfc_en"
	expect_eq "$(dfs_get $P setpfc_calls)" "$calls" "still no ieee_setpfc call"
}

test_dcb_matches_ethtool() {
	setup
	dfs_set $P rx_storm 3,5
	dfs_set $P count_when_disabled 1
	dfs_set $P tx_storm 4
	dfs_set $P rx_slow 3
	sleep 0.5
	# Freeze the counters so that both tools must show the same numbers.
	dfs_set $P rx_storm ""
	dfs_set $P tx_storm ""
	dfs_set $P rx_slow ""
	req=$(dcb_pfc $P .requests)
	ind=$(dcb_pfc $P .indications)
	log "requests $req indications $ind"
	ereq=$(for p in 0 1 2 3 4 5 6 7; do tx_pause $P $p; done | paste -sd, | sed 's/.*/[&]/')
	eind=$(for p in 0 1 2 3 4 5 6 7; do rx_pause $P $p; done | paste -sd, | sed 's/.*/[&]/')
	expect_eq "$ereq" "$req" "ethtool tx_prioP_pause vs dcb requests"
	expect_eq "$eind" "$ind" "ethtool rx_prioP_pause vs dcb indications"
	# Priority 5 is not lossless but counted (count_when_disabled 1).
	for p in 3 4 5; do
		[ "$(echo "$ind$req" | jq -s ".[0][$p] + .[1][$p]")" -gt 0 ] ||
			fail "no pause counted for prio $p"
	done
	expect_eq "$(echo "$req" | jq -c '[.[0,1,2,5,6,7]]')" "[0,0,0,0,0,0]" "requests of others"
	expect_eq "$(echo "$ind" | jq -c '[.[0,1,2,4,6,7]]')" "[0,0,0,0,0,0]" \
		"indications of others"
	# The text output carries the same numbers.
	expect_eq "$(dcb -s pfc show dev $P | awk '$1 == "indications" { print $5 }')" \
		"3:$(echo "$ind" | jq '.[3]')" "dcb -s text indications"
	expect_eq "$(dcb -s pfc show dev $P | awk '$1 == "requests" { print $6 }')" \
		"4:$(echo "$req" | jq '.[4]')" "dcb -s text requests"
}

test_rx_storm_rate() {
	setup
	dfs_set $P rx_storm 3
	expect_eq "$(dfs_get $P rx_storm)" 3 "rx_storm read back"
	expect_rate $P 3 rx 10000
	for p in 0 1 2 4 5 6 7; do
		expect_eq "$(rx_pause $P $p)" 0 "rx pause of non-stormed prio $p"
	done
	for p in 0 1 2 3 4 5 6 7; do
		expect_eq "$(tx_pause $P $p)" 0 "tx pause of prio $p during rx storm"
	done
	# A rate change applies from then on.
	dfs_set $P pause_rate 2000
	expect_rate $P 3 rx 2000
	dfs_set $P pause_rate 500000
	expect_rate $P 3 rx 500000
	# Two priorities, one of them added while the other storms.
	dfs_set $P pause_rate 10000
	dfs_set $P rx_storm 3-4
	expect_eq "$(dfs_get $P rx_storm)" 3,4 "rx_storm read back"
	expect_rate $P 4 rx 10000
	# An empty line ends the storm; the counters keep their value.
	dfs_set $P rx_storm ""
	expect_eq "$(dfs_get $P rx_storm)" "" "rx_storm after end"
	v=$(rx_pause $P 3)
	[ "$v" -gt 10000 ] || fail "prio 3 counted only $v"
	expect_still $P 3 rx
	expect_still $P 4 rx
}

test_count_when_disabled() {
	setup
	dfs_set $P rx_storm 3
	expect_rate $P 3 rx 10000
	# Still counted without PFC on priority 3 (the default).
	pfc_set $P 3:off
	expect_rate $P 3 rx 10000
	dfs_set $P count_when_disabled 0
	expect_eq "$(dfs_get $P count_when_disabled)" 0 "count_when_disabled"
	expect_still $P 3 rx
	# Counting again once the priority is lossless again, even with 0.
	pfc_set $P 3:on
	expect_rate $P 3 rx 10000
	# And the same for a storm starting while PFC is off.
	pfc_set $P 3:off
	dfs_set $P rx_storm 3,5
	expect_still $P 5 rx
	expect_still $P 3 rx
	dfs_set $P count_when_disabled 1
	expect_rate $P 5 rx 10000
}

test_rx_storm_stops_queue() {
	setup
	dfs_set $P rx_storm 3,6	# 3 lossless: paused; 6 not: not paused
	sleep 0.1
	for p in 0 3 4 6; do eval "t$p=$(tx_pkts $P $p)"; done
	send $P 3 20
	send $P 0 10
	send $P 4 7
	send $P 6 5
	sleep 0.3
	expect_eq "$(tx_pkts $P 3)" "$t3" "tx_prio3_packets while paused"
	expect_eq "$(tx_pkts $P 0)" $((t0 + 10)) "tx_prio0_packets"
	expect_eq "$(tx_pkts $P 4)" $((t4 + 7)) "tx_prio4_packets (lossless, not stormed)"
	expect_eq "$(tx_pkts $P 6)" $((t6 + 5)) "tx_prio6_packets (stormed, not lossless)"
	# The frames wait in the default qdisc: mq, class :4 for TX queue 3.
	bl=$(tc -s qdisc show dev $P | awk '$1 == "qdisc" { on = ($5 == ":4") }
		on && $1 == "backlog" { sub("p", "", $3); print $3 }')
	expect_eq "$bl" 20 "backlog of TX queue 3"
	# Down and up: still paused.
	check ip link set $P down
	check ip link set $P up
	send $P 3 20
	sleep 0.3
	expect_eq "$(tx_pkts $P 3)" "$t3" "tx_prio3_packets paused after down/up"
	# PFC off for priority 3: the partner's pause is ignored, the queue drains.
	pfc_set $P 3:off
	wait_eq $((t3 + 20)) tx_pkts $P 3
	# PFC on again, storm still on: paused again.
	pfc_set $P 3:on
	send $P 3 15
	sleep 0.3
	expect_eq "$(tx_pkts $P 3)" $((t3 + 20)) "tx_prio3_packets paused again"
	expect_eq "$(tx_pkts $P 4)" $((t4 + 7)) "tx_prio4_packets unchanged"
	# The storm ends: drained.
	dfs_set $P rx_storm ""
	wait_eq $((t3 + 35)) tx_pkts $P 3
	send $P 3 5
	wait_eq $((t3 + 40)) tx_pkts $P 3
}

test_tx_storm() {
	setup
	dfs_set $P tx_storm 4
	expect_eq "$(dfs_get $P tx_storm)" 4 "tx_storm read back"
	expect_rate $P 4 tx 10000
	for p in 0 1 2 3 5 6 7; do
		expect_eq "$(tx_pause $P $p)" 0 "tx pause of non-stormed prio $p"
	done
	for p in 0 1 2 3 4 5 6 7; do
		expect_eq "$(rx_pause $P $p)" 0 "rx pause of prio $p during tx storm"
	done
	# The receive path is stalled.
	rxp=$(netstat $P rx_packets)
	rxd=$(netstat $P rx_dropped)
	r4=$(rx_pkts $P 4)
	r0=$(rx_pkts $P 0)
	dfs_set $P inject_rx "4 100"
	dfs_set $P inject_rx "0 50"
	expect_eq "$(rx_pkts $P 4)" "$r4" "rx_prio4_packets during tx storm"
	expect_eq "$(rx_pkts $P 0)" "$r0" "rx_prio0_packets during tx storm"
	expect_eq "$(netstat $P rx_packets)" "$rxp" "rx_packets during tx storm"
	expect_eq "$(netstat $P rx_dropped)" $((rxd + 150)) "rx_dropped during tx storm"
	# Without PFC a NIC cannot send pause: requests stop rising.
	pfc_set $P 4:off
	expect_still $P 4 tx
	# A storm on a priority without PFC sends nothing.
	dfs_set $P tx_storm 0,4
	expect_still $P 0 tx
	expect_eq "$(tx_pause $P 0)" 0 "tx pause of prio 0 (not lossless)"
	pfc_set $P 4:on
	expect_rate $P 4 tx 10000
	# The storm ends: receiving again.
	dfs_set $P tx_storm ""
	expect_still $P 4 tx
	dfs_set $P inject_rx "4 100"
	expect_eq "$(rx_pkts $P 4)" $((r4 + 100)) "rx_prio4_packets after tx storm"
	expect_eq "$(netstat $P rx_packets)" $((rxp + 100)) "rx_packets after tx storm"
}

test_rx_slow() {
	setup
	dfs_set $P rx_slow 3,5	# 5 is not lossless: no pause for it
	expect_eq "$(dfs_get $P rx_slow)" 3,5 "rx_slow read back"
	dfs_set $P pause_rate 3000
	expect_rate $P 3 tx 3000
	expect_eq "$(tx_pause $P 5)" 0 "tx pause of prio 5 (not lossless)"
	expect_eq "$(rx_pause $P 3)" 0 "rx pause of prio 3"
	# Receiving still works, and the frames reach the stack.
	"$PFCWD_PKT" recv $P 50 3000 > /tmp/recv.txt &
	rpid=$!
	sleep 0.5
	r3=$(rx_pkts $P 3)
	rxd=$(netstat $P rx_dropped)
	dfs_set $P inject_rx "3 50"
	wait $rpid
	expect_eq "$(rx_pkts $P 3)" $((r3 + 50)) "rx_prio3_packets during rx_slow"
	expect_eq "$(netstat $P rx_dropped)" "$rxd" "rx_dropped during rx_slow"
	expect_eq "$(awk '$1 == 3' /tmp/recv.txt | wc -l)" 50 "frames received by a socket"
	dfs_set $P rx_slow ""
	expect_still $P 3 tx
}

# Injects one frame of priority $2 into port $1 and receives it with its
# VLAN tag (PACKET_AUXDATA); prints "dst ethertype length tpid tci".
inject_tagged() {
	python3 -S - "$1" "$(dfs "$1" inject_rx)" "$2" <<'PY'
import socket, struct, sys
# ETH_P_ALL: a socket of the frame's own type would see it after the stack
# dropped the priority tag (VID 0).
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
s.setsockopt(263, 8, 1)  # SOL_PACKET, PACKET_AUXDATA
s.settimeout(5)
with open(sys.argv[2], "w") as f:
    f.write("%s 1\n" % sys.argv[3])
while True:
    data, anc, _, _ = s.recvmsg(2048, 64)
    if data[12:14] == b"\x88\xb5":
        break
tci = tpid = -1
for level, kind, val in anc:
    if level == 263 and kind == 8:
        status, _, _, _, _, t, p = struct.unpack("IIIHHHH", val[:20])
        if status & 0x10:  # TP_STATUS_VLAN_VALID
            tci, tpid = t, p
print("%s %04x %d %04x %04x" % (data[0:6].hex(":"), struct.unpack("!H", data[12:14])[0],
                                len(data), tpid, tci))
PY
}

test_inject_rx() {
	setup
	"$PFCWD_PKT" recv $P 92 3000 > /tmp/recv.txt &
	rpid=$!
	sleep 0.5
	rxp=$(netstat $P rx_packets)
	rxb=$(netstat $P rx_bytes)
	rxd=$(netstat $P rx_dropped)
	for p in 0 1 2 3 4 5 6 7; do
		dfs_set $P inject_rx "$p $((3 * p + 1))"
	done
	wait $rpid
	for p in 0 1 2 3 4 5 6 7; do
		n=$((3 * p + 1))
		expect_eq "$(rx_pkts $P $p)" $n "rx_prio${p}_packets"
		expect_eq "$(awk -v p=$p '$1 == p { print $2 }' /tmp/recv.txt | xargs)" \
			"$(seq 0 $((n - 1)) | xargs)" "sequence numbers received for prio $p"
		expect_eq "$(tx_pkts $P $p)" 0 "tx_prio${p}_packets"
	done
	expect_eq "$(netstat $P rx_packets)" $((rxp + 92)) "rx_packets"
	expect_eq "$(netstat $P rx_bytes)" $((rxb + 92 * 64)) "rx_bytes"
	expect_eq "$(netstat $P rx_dropped)" "$rxd" "rx_dropped"
	# The frame: to our address, priority-tagged (VID 0, PCP 5), 0x88b5.
	mac=$(cat /sys/class/net/$P/address)
	got=$(inject_tagged $P 5) || fail "no tagged frame received"
	expect_eq "$got" "$mac 88b5 60 8100 a000" "injected frame, prio 5"
	got=$(inject_tagged $P 0) || fail "no tagged frame received"
	expect_eq "$got" "$mac 88b5 60 8100 0000" "injected frame, prio 0"
	# A large count, in batches.
	dfs_set $P inject_rx "7 200000"
	expect_eq "$(rx_pkts $P 7)" $((22 + 200000)) "rx_prio7_packets after 200000"
	expect_eq "$(rx_pkts $P 5)" $((16 + 1)) "rx_prio5_packets"
	expect_eq "$(rx_pkts $P 0)" $((1 + 1)) "rx_prio0_packets"
	# A port that is down receives nothing.
	check ip link set $P down
	echo "1 1" > "$(dfs $P inject_rx)" 2>/dev/null && fail "inject_rx accepted while down"
	expect_eq "$(rx_pkts $P 1)" 4 "rx_prio1_packets after inject while down"
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

# Everything the bad writes could have changed, as one line.
port_state() {
	local f

	for f in rx_storm tx_storm rx_slow pause_rate count_when_disabled; do
		printf '%s=%s ' $f "$(dfs_get $P $f)"
	done
	printf 'rx=%s drop=%s pfc=%s' "$(netstat $P rx_packets)" "$(netstat $P rx_dropped)" \
		"$(dcb_pfc $P .prio_pfc)"
}

test_bad_writes() {
	setup
	dfs_set $P rx_storm 2
	dfs_set $P tx_storm 6
	dfs_set $P rx_slow 1
	dfs_set $P pause_rate 1234
	dfs_set $P count_when_disabled 0
	before=$(port_state)
	long=$(printf '0%.0s' $(seq 40))
	lists=("8" "9" "3," ",3" "3,,4" "3 4" " 3" "3 " "3-3" "4-2" "3,3" "1-3,2" "0-8"
	       "a" "3;4" "-1" "3-" "-3" "3--4" "3-4-5" "0x3" $'3\n\n' $'\n3' $'3\t' "$long")
	for f in rx_storm tx_storm rx_slow; do
		expect_rejected $P $f "${lists[@]}"
	done
	expect_rejected $P pause_rate 0 10000001 4294967296 -5 +5 " 5" "5 " abc 1e3 0x10 \
		5.5 $'5\n\n' "" "$long"
	expect_rejected $P count_when_disabled 2 -1 +1 " 1" "1 " yes y on 0x1 10 "" $'1\n\n'
	expect_rejected $P inject_rx "" "3" "8 1" "9 1" "3 0" "3 1000001" "3  1" " 3 1" \
		"3 -1" "3 +1" "31" "3 1 1" "x 1" "3 1x" "-1 5" "3,1" "3	1" "03 1" \
		"3 99999999999999999999" "$long"
	after=$(port_state)
	expect_eq "$after" "$before" "port state after bad writes"
	for p in 0 1 2 3 4 5 6 7; do
		expect_eq "$(rx_pkts $P $p)" 0 "rx_prio${p}_packets after bad inject_rx"
	done
	# Good writes in all their forms are still accepted.
	dfs_set $P rx_storm 0-2,5
	expect_eq "$(dfs_get $P rx_storm)" 0,1,2,5 "range list"
	printf '0-7' > "$(dfs $P tx_storm)" || fail "list without newline rejected"
	expect_eq "$(dfs_get $P tx_storm)" 0,1,2,3,4,5,6,7 "full range"
	dfs_set $P rx_slow ""
	expect_eq "$(dfs_get $P rx_slow)" "" "empty list"
	dfs_set $P pause_rate 1
	dfs_set $P pause_rate 10000000
	expect_eq "$(dfs_get $P pause_rate)" 10000000 "pause_rate max"
	dfs_set $P count_when_disabled 1
	dfs_set $P tx_storm ""
	if on_debug_kernel; then
		# A million frames take the debug kernel over eight minutes
		# (0.5 ms each): the largest count is accepted and injecting
		# when a signal ends the write.
		local w n7
		(printf '7 1000000' > "$(dfs $P inject_rx)") 2>/dev/null &
		w=$!
		for _ in $(seq 100); do
			[ "$(rx_pkts $P 7)" -gt 0 ] && break
			sleep 0.1
		done
		kill -TERM $w
		wait $w
		n7=$(rx_pkts $P 7)
		log "inject_rx max count: $n7 frames before the signal ended the write"
		[ "$n7" -gt 0 ] && [ "$n7" -lt 1000000 ] ||
			fail "rx_prio7_packets $n7 after an interrupted max inject"
	else
		printf '7 1000000' > "$(dfs $P inject_rx)" || fail "inject_rx max count rejected"
		expect_eq "$(rx_pkts $P 7)" 1000000 "rx_prio7_packets after max inject"
	fi
	# Unknown port names for del_port; the port survives.
	echo nosuch > $PFCSIM_DFS/del_port 2>/dev/null && fail "unknown port deleted"
	[ -d "$PFCSIM_DFS/$P" ] || fail "port directory vanished"
}

test_rename() {
	setup
	check ip link set $P down
	check ip link set $P name psimx
	check ip link set psimx up
	[ -d "$PFCSIM_DFS/$P" ] || fail "directory not kept under the creation name"
	dfs_set $P rx_storm 3
	sleep 0.2
	[ "$(rx_pause psimx 3)" -gt 0 ] || fail "storm on the renamed port not counted"
	# The creation name is taken by the directory: a new port of that name fails.
	echo $P > $PFCSIM_DFS/new_port 2>/dev/null && fail "new port with a used directory name"
	[ -e /sys/class/net/$P ] && fail "failed new_port left $P behind"
	echo $P > $PFCSIM_DFS/del_port 2>/dev/null && fail "del_port by the old name"
	pfcsim_del psimx
	[ -e /sys/class/net/psimx ] && fail "psimx still exists"
	[ -e "$PFCSIM_DFS/$P" ] && fail "directory $P survived del_port"
	pfcsim_new $P
	[ -d "$PFCSIM_DFS/$P" ] || fail "no directory for the new $P"
	return 0
}

# A port in every kind of storm (but tx_storm with "$2" = notx), with
# frames waiting in a paused queue.
storm_everything() {
	dfs_set "$1" rx_storm 3,4
	[ "${2:-}" = notx ] || dfs_set "$1" tx_storm 3
	dfs_set "$1" rx_slow 4
	send "$1" 3 50
	send "$1" 4 50
}

test_del_mid_storm() {
	setup
	pfcsim_new psim1
	storm_everything $P notx	# a stalled receive path would be quick
	storm_everything psim1
	# A long inject_rx still running when the port goes.
	echo "3 1000000" > "$(dfs $P inject_rx)" 2>/dev/null &
	ipid=$!
	sleep 0.3
	pfcsim_del $P
	wait $ipid
	log "inject_rx interrupted by del_port: exit status $?"
	[ -e /sys/class/net/$P ] && fail "$P still exists"
	[ -e "$PFCSIM_DFS/$P" ] && fail "directory $P survived"
	# The other port is untouched and still storming.
	[ -d "$PFCSIM_DFS/psim1" ] || fail "psim1 lost its directory"
	expect_eq "$(dfs_get psim1 rx_storm)" 3,4 "psim1 rx_storm"
	v=$(rx_pause psim1 3)
	sleep 0.2
	[ "$(rx_pause psim1 3)" -gt "$v" ] || fail "psim1 storm stopped"
	# Many ports created and deleted mid-storm.
	for i in $(seq 10); do
		pfcsim_new psim2
		storm_everything psim2
		pfcsim_del psim2
	done
	[ -e "$PFCSIM_DFS/psim2" ] && fail "directory psim2 survived"
	# Module unload mid-storm removes everything.
	modprobe -r pfcsim || fail "cannot unload pfcsim mid-storm"
	[ -e /sys/class/net/psim1 ] && fail "psim1 survived unload"
	[ -e "$PFCSIM_DFS" ] && fail "$PFCSIM_DFS survived unload"
	# And it comes back clean.
	pfcsim_new $P
	expect_eq "$(dfs_get $P rx_storm)" "" "rx_storm of a new port"
	expect_eq "$(rx_pause $P 3)" 0 "rx pause of a new port"
	unload_mod pfcsim
}

# --- TX rings, link rate, queue layouts -------------------------------------

# Field $2 (0-based queue) of tx_ring_depth of port $1.
depth() { dfs_get "$1" tx_ring_depth | awk -v q="$2" '{ print $(q + 1) }'; }

# Backlog (packets) of the mq class of TX queue $2 (0-based) of port $1.
mq_backlog() {
	tc -s qdisc show dev "$1" | awk -v c=":$(printf '%x' $(($2 + 1)))" '
		$1 == "qdisc" { on = ($5 == c) }
		on && $1 == "backlog" { sub("p", "", $3); print $3; exit }'
}

# Drops of the mq class of TX queue $2 (0-based) of port $1.
mq_dropped() {
	tc -s qdisc show dev "$1" | awk -v c=":$(printf '%x' $(($2 + 1)))" '
		$1 == "qdisc" { on = ($5 == c) }
		on && $1 == "Sent" { d = $7; sub(",", "", d); print d; exit }'
}

# Frames per second of a $1-byte frame at $2 Mb/s: (len + 24) * 8 bits each.
frame_rate() { echo $(($2 * 1000000 / (($1 + 24) * 8))); }

# A fresh port whose mq children are pfifo_fast (fq_codel, the default,
# drops frames that waited past its target behind a paused queue), and
# large socket send buffers, so that pfcwd-pkt never blocks on frames
# waiting in the qdisc.  Both sysctls are restored when the case ends.
fifo_setup() {
	local q w m

	q=$(sysctl -n net.core.default_qdisc)
	w=$(sysctl -n net.core.wmem_default)
	m=$(sysctl -n net.core.wmem_max)
	trap "sysctl -qw net.core.default_qdisc=$q net.core.wmem_default=$w net.core.wmem_max=$m" EXIT
	check sysctl -qw net.core.default_qdisc=pfifo_fast
	check sysctl -qw net.core.wmem_max=67108864 net.core.wmem_default=67108864
	setup
}

# No byte queue limits on port $1 (pfcsim's bql 0): the stack then stops
# a queue only when its ring is full, which the ring cases count on (with
# BQL a paused queue that has completed nothing yet stops after a frame).
bql_off() { dfs_set "$1" bql 0; }

# A port (fifo_setup) with rings of $1 descriptors on a $2 Mb/s link,
# without BQL (bql_off).
ring_setup() {
	fifo_setup
	bql_off $P
	dfs_set $P link_mbps "$2"
	dfs_set $P tx_ring "$1"
	expect_eq "$(dfs_get $P tx_ring)" "$1" "tx_ring"
	expect_eq "$(dfs_get $P link_mbps)" "$2" "link_mbps"
	ethtool $P | grep -q "Speed: $2Mb/s" || fail "speed: $(ethtool $P | grep Speed)"
}

test_tx_ring_pause() {
	ring_setup 64 10
	dfs_set $P rx_storm 3		# lossless: its ring stops draining
	# 200 frames: 64 fill ring 3, which stops the queue; 136 wait in mq.
	send $P 3 200 1000
	wait_eq 64 depth $P 3
	wait_eq 136 mq_backlog $P 3
	# Other classes still drain meanwhile (50 frames: ~41 ms at 10 Mb/s).
	send $P 0 50 1000
	send $P 5 30 1000
	wait_eq 50 tx_pkts $P 0
	wait_eq 30 tx_pkts $P 5
	sleep 0.3
	expect_eq "$(tx_pkts $P 3)" 0 "tx_prio3_packets while paused"
	expect_eq "$(depth $P 3)" 64 "ring 3 while paused"
	expect_eq "$(mq_backlog $P 3)" 136 "backlog of queue 3 while paused"
	expect_eq "$(netstat $P tx_packets)" 80 "tx_packets: only frames that left"
	# The storm ends: the ring drains, the queue wakes, all 200 leave.
	dfs_set $P rx_storm ""
	wait_eq 200 tx_pkts $P 3
	wait_eq 0 depth $P 3
	expect_eq "$(mq_backlog $P 3)" 0 "backlog of queue 3 after the storm"
	expect_eq "$(netstat $P tx_packets)" 280 "tx_packets after the storm"
	expect_eq "$(netstat $P tx_bytes)" $((280 * 1000)) "tx_bytes after the storm"
	# Without PFC on 3 the partner's pause is ignored: rings drain.
	pfc_set $P 3:off
	dfs_set $P rx_storm 3
	send $P 3 100 1000
	wait_eq 300 tx_pkts $P 3
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
}

# "MS TOTAL A B": the time in ms and the port's tx_packets, read together
# without forking (a precise pair), then tx_prio$2_packets and
# tx_prio$3_packets from one ethtool -S (slower: for shares only).
tx_sample() {
	local t n st

	t=$EPOCHREALTIME
	read -r n < "/sys/class/net/$1/statistics/tx_packets"
	st=$(ethtool -S "$1")
	echo "$((${t%.*} * 1000 + 10#${t#*.} / 1000))" "$n" \
		"$(echo "$st" | awk -v k="tx_prio$2_packets:" '$1 == k { print $2 }')" \
		"$(echo "$st" | awk -v k="tx_prio$3_packets:" '$1 == k { print $2 }')"
}

# Frames leaving over ~1 s must match the link rate: at least 60 % (the
# drain timer may run late on a loaded emulated host; a tick more than
# 50 ms late loses the time beyond) and at most 110 % (the link cannot send
# more; 10 % for a late tick catching up just before the second sample).
# The rate is measured on the port's tx_packets, read with the time.
test_tx_ring_rate() {
	local rate t0 t1 n0 n1 a0 a1 b0 b1 ms got ga gb d6 n=4000

	# The debug kernel takes seconds more between the two measurements
	# than 8000 frames last: three times the frames there.
	on_debug_kernel && n=12000
	ring_setup 256 10
	check ip link set $P txqueuelen $((n + 1000))
	rate=$(frame_rate 1500 10)		# 820 frames/s
	# 2n frames: ~9.8 s of traffic (n 4000), more than the two measurements take.
	send $P 0 $n 1500
	send $P 6 $n 1500
	sleep 0.3
	# Woken at half full, the queues refill the rings from the qdisc.
	[ "$(depth $P 0)" -ge 128 ] && [ "$(depth $P 6)" -ge 128 ] ||
		fail "rings not filled: $(dfs_get $P tx_ring_depth)"
	# Two backlogged rings share the link: together the link rate, each
	# at least 30 % of the frames (round robin, equal frames: half each).
	read -r t0 n0 a0 b0 <<< "$(tx_sample $P 0 6)"
	sleep 1
	read -r t1 n1 a1 b1 <<< "$(tx_sample $P 0 6)"
	ms=$((t1 - t0))
	got=$(((n1 - n0) * 1000 / ms))
	ga=$((a1 - a0))
	gb=$((b1 - b0))
	log "two rings: $((n1 - n0)) frames in $ms ms: $got/s, link $rate/s; shares $ga and $gb"
	[ "$got" -ge $((rate * 6 / 10)) ] && [ "$got" -le $((rate * 11 / 10)) ] ||
		fail "drain rate of two rings $got/s, link $rate/s"
	[ "$ga" -ge $(((ga + gb) * 3 / 10)) ] && [ "$gb" -ge $(((ga + gb) * 3 / 10)) ] ||
		fail "unfair shares: $ga and $gb frames"
	# TC 6 paused: its ring keeps its frames, ring 0 gets the whole link.
	pfc_set $P 6:on
	dfs_set $P rx_storm 6
	sleep 0.3
	d6=$(depth $P 6)
	read -r t0 n0 a0 b0 <<< "$(tx_sample $P 0 6)"
	sleep 1
	read -r t1 n1 a1 b1 <<< "$(tx_sample $P 0 6)"
	ms=$((t1 - t0))
	got=$(((n1 - n0) * 1000 / ms))
	log "one ring: $((n1 - n0)) frames in $ms ms: $got/s, link $rate/s; paused: $((b1 - b0))"
	[ "$got" -ge $((rate * 6 / 10)) ] && [ "$got" -le $((rate * 11 / 10)) ] ||
		fail "drain rate $got/s, link $rate/s"
	expect_eq "$b1" "$b0" "tx_prio6_packets while paused"
	# Stopped (it had been full) and not drained: it keeps its frames.
	expect_eq "$(depth $P 6)" "$d6" "paused ring 6"
	[ "$d6" -gt 128 ] || fail "paused ring 6 holds $d6 frames"
	# A faster link and the end of the storm drain the rest quickly.
	dfs_set $P link_mbps 1000
	dfs_set $P rx_storm ""
	wait_eq "$n" tx_pkts $P 0
	wait_eq "$n" tx_pkts $P 6
	expect_eq "$(dfs_get $P tx_ring_depth)" "0 0 0 0 0 0 0 0" "rings empty"
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
}

# Frames per second port $1 sends over ~1 s (its tx_packets, read with
# the time); $2 names the measurement in the log.
tx_rate() {
	local t0 t1 n0 n1 a b

	read -r t0 n0 a b <<< "$(tx_sample "$1" 0 0)"
	sleep 1
	read -r t1 n1 a b <<< "$(tx_sample "$1" 0 0)"
	echo $(((n1 - n0) * 1000 / (t1 - t0)))
}

# The slow receiver (rx_slow_peer) of a lossless priority pauses it at
# pause_rate but never for long: ring 3 keeps draining, at slow_peer_pct
# of the link.  The bounds are those of test_tx_ring_rate (60 % for late
# ticks, 110 % at most), around that share; the paused share of the time
# counts in the pause duration.  Each rate is the drain's only while ring 3
# still has frames at its end: 4000 queued last more than 5 s at 50 % (410
# frames/s) after the 25 % part, however long a loaded guest stretches the
# 1 s windows.
test_rx_slow_peer_ring() {
	local rate got i v0 v1 d0 d1 t0 t1 n=4000

	ring_setup 256 10
	check ip link set $P txqueuelen $((n + 1000))
	dfs_set $P pause_duration 1
	dfs_set $P rx_slow_peer 3
	expect_eq "$(dfs_get $P rx_slow_peer)" 3 "rx_slow_peer read back"
	expect_eq "$(dfs_get $P slow_peer_pct)" 25 "slow_peer_pct default"
	[ "$(changed_at $P rx_slow_peer)" -gt 0 ] ||
		fail "no rx_slow_peer time in changed_ns"
	expect_rate $P 3 rx 10000
	rate=$(frame_rate 1500 10)		# 820 frames/s, 205 at 25 %
	send $P 3 $n 1500
	sleep 0.3
	[ "$(depth $P 3)" -ge 128 ] || fail "ring 3 not filled: $(dfs_get $P tx_ring_depth)"
	# Sent all along: every 200 ms some frames leave.
	v0=$(tx_pkts $P 3)
	for i in 1 2 3; do
		sleep 0.2
		v1=$(tx_pkts $P 3)
		[ "$v1" -gt "$v0" ] || fail "tx_prio3_packets stuck at $v1"
		v0=$v1
	done
	t0=$(now_ms)
	d0=$(ethtool_stat $P rx_prio3_pause_duration)
	got=$(tx_rate $P)
	d1=$(ethtool_stat $P rx_prio3_pause_duration)
	t1=$(now_ms)
	log "slow peer 25 %: $got frames/s, link $rate/s; paused $((d1 - d0)) us of $((t1 - t0)) ms"
	[ "$(depth $P 3)" -gt 0 ] || fail "ring 3 ran dry: the sender, not the drain, was measured"
	[ "$got" -ge $((rate * 25 * 6 / 1000)) ] && [ "$got" -le $((rate * 25 * 11 / 1000)) ] ||
		fail "slow peer drain $got/s, want 25 % of $rate/s"
	# 75 % of the time paused: the two reads lie inside [t0, t1] and at
	# least the 1 s of tx_rate apart (the counters are live).
	[ $((d1 - d0)) -ge 700000 ] && [ $((d1 - d0)) -le $(((t1 - t0) * 800)) ] ||
		fail "pause duration $((d1 - d0)) us in $((t1 - t0)) ms, want 75 %"
	# A new share applies from then on: 50 %.
	dfs_set $P slow_peer_pct 50
	expect_eq "$(dfs_get $P slow_peer_pct)" 50 "slow_peer_pct read back"
	got=$(tx_rate $P)
	log "slow peer 50 %: $got frames/s, link $rate/s"
	[ "$(depth $P 3)" -gt 0 ] || fail "ring 3 ran dry: the sender, not the drain, was measured"
	[ "$got" -ge $((rate * 50 * 6 / 1000)) ] && [ "$got" -le $((rate * 50 * 11 / 1000)) ] ||
		fail "slow peer drain $got/s, want 50 % of $rate/s"
	# The end of it: the rest leaves at the link rate.
	dfs_set $P link_mbps 1000
	dfs_set $P rx_slow_peer ""
	wait_eq "$n" tx_pkts $P 3
	expect_still $P 3 rx
	# Without rings the queue is never stopped: frames leave at once.
	dfs_set $P tx_ring 0
	dfs_set $P rx_slow_peer 3
	send $P 3 20 1000
	wait_eq $((n + 20)) tx_pkts $P 3
	expect_eq "$(mq_backlog $P 3)" 0 "backlog of queue 3 without rings"
	expect_rate $P 3 rx 10000
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
}

# rx_storm on a priority of rx_slow_peer wins: the ring stops draining,
# indications rise once at pause_rate, not twice; the storm's end gives
# the slow receiver's pace back.
test_rx_slow_peer_storm() {
	local v d n=600 rate

	ring_setup 256 10
	check ip link set $P txqueuelen $((n + 1000))
	dfs_set $P rx_slow_peer 3
	send $P 3 $n 1500
	sleep 0.3
	[ "$(tx_pkts $P 3)" -gt 0 ] || fail "nothing left ring 3 before the storm"
	dfs_set $P rx_storm 3
	sleep 0.1
	v=$(tx_pkts $P 3)
	d=$(depth $P 3)
	sleep 0.5
	expect_eq "$(tx_pkts $P 3)" "$v" "tx_prio3_packets in the storm"
	expect_eq "$(depth $P 3)" "$d" "ring 3 in the storm"
	expect_rate $P 3 rx 10000
	# Back at 25 % of the link: well below what the link alone sends.
	rate=$(frame_rate 1500 10)
	dfs_set $P rx_storm ""
	sleep 0.5
	d=$(($(tx_pkts $P 3) - v))
	log "after the storm: $d frames in 0.5 s, link $rate/s"
	[ "$d" -gt 0 ] || fail "ring 3 not draining after the storm"
	[ "$d" -lt $((rate * 6 / 20)) ] || fail "ring 3 sent $d frames in 0.5 s after the storm"
	expect_rate $P 3 rx 10000
	# Without rings, the storm's pause stops the queue.
	dfs_set $P tx_ring 0
	dfs_set $P rx_storm 3
	v=$(tx_pkts $P 3)
	send $P 3 10 1000
	sleep 0.3
	expect_eq "$(tx_pkts $P 3)" "$v" "tx_prio3_packets in the storm without rings"
	dfs_set $P rx_storm ""
	wait_eq $((v + 10)) tx_pkts $P 3
}

# Bad slow_peer_pct and rx_slow_peer writes are refused, nothing changes.
test_rx_slow_peer_bad() {
	setup
	dfs_set $P slow_peer_pct 40
	dfs_set $P rx_slow_peer 2,5
	expect_rejected $P slow_peer_pct 0 100 101 -1 +5 " 5" 5x abc "" 99999999999
	expect_rejected $P rx_slow_peer 8 x 1-9 "3 4"
	expect_eq "$(dfs_get $P slow_peer_pct)/$(dfs_get $P rx_slow_peer)" "40/2,5" \
		"after bad writes"
	dfs_set $P slow_peer_pct 1
	dfs_set $P slow_peer_pct 99
	expect_eq "$(dfs_get $P slow_peer_pct)" 99 "slow_peer_pct 99"
	dfs_set $P profile mlx5
	expect_eq "$(dfs_get $P slow_peer_pct)" 99 "slow_peer_pct after profile"
}

test_tx_ring_change() {
	ring_setup 16 10
	dfs_set $P rx_storm 4
	send $P 4 40 1000
	wait_eq 16 depth $P 4
	# A new size empties the rings (nothing counted) and wakes the queue:
	# the qdisc's 24 frames fill the new ring, which stays paused.
	dfs_set $P tx_ring 8
	wait_eq 8 depth $P 4
	wait_eq 16 mq_backlog $P 4
	expect_eq "$(tx_pkts $P 4)" 0 "tx_prio4_packets after emptying"
	# Back to no ring while paused: the queue is stopped by the pause, as
	# before rings existed; nothing leaves until the storm ends.
	dfs_set $P tx_ring 0
	expect_eq "$(dfs_get $P tx_ring_depth)" "0 0 0 0 0 0 0 0" "rings after tx_ring 0"
	send $P 4 5 1000
	sleep 0.3
	expect_eq "$(tx_pkts $P 4)" 0 "tx_prio4_packets paused without rings"
	expect_eq "$(mq_backlog $P 4)" 21 "backlog of queue 4 without rings"
	dfs_set $P rx_storm ""
	wait_eq 21 tx_pkts $P 4
	# Bad values change nothing; profiles do not touch the new knobs.
	dfs_set $P tx_ring 32
	expect_rejected $P tx_ring 4097 -1 +1 " 1" 1x "" 99999999999
	expect_rejected $P link_mbps 0 9 400001 -1 +10 " 10" abc ""
	expect_eq "$(dfs_get $P tx_ring)/$(dfs_get $P link_mbps)" "32/10" "after bad writes"
	dfs_set $P link_mbps 400000
	check ethtool -L $P tx 2
	dfs_set $P prio_tc "0 0 1 1 2 2 3 3"
	dfs_set $P profile mlx5
	expect_eq "$(dfs_get $P tx_ring)/$(dfs_get $P link_mbps)/$(dfs_get $P prio_tc)" \
		"32/400000/0 0 1 1 2 2 3 3" "ring knobs after profile"
	expect_eq "$(ethtool -l $P | awk '$1 == "TX:" { print $2 }' | xargs)" "4 2" "channels after profile"
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
}

# The system's default qdisc (mq with fq_codel children here) honours the
# queue stopped by a full ring: xmit never meets a full ring.
test_tx_ring_default_qdisc() {
	setup
	dfs_set $P link_mbps 10
	dfs_set $P tx_ring 32
	kind=$(tc qdisc show dev $P | awk '$5 == ":1" { print $2 }')
	log "default qdisc of queue 0: $kind"
	# 300 frames of 1000 bytes: ~0.25 s at 10 Mb/s; send blocks meanwhile
	# on its socket buffer, as the frames wait in the qdisc.  fq_codel may
	# drop a few that waited past its target: sent + dropped = all.
	send $P 0 300 1000
	send $P 7 100 1000
	wait_eq 300 eval 'echo $(($(tx_pkts $P 0) + $(mq_dropped $P 0)))'
	wait_eq 100 eval 'echo $(($(tx_pkts $P 7) + $(mq_dropped $P 7)))'
	log "sent $(tx_pkts $P 0) and $(tx_pkts $P 7); dropped by the qdisc:" \
		"$(mq_dropped $P 0) and $(mq_dropped $P 7)"
	[ "$(tx_pkts $P 0)" -ge 200 ] || fail "only $(tx_pkts $P 0) of 300 sent"
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
	expect_eq "$(dfs_get $P tx_ring_depth)" "0 0 0 0 0 0 0 0" "rings empty"
}

# Deleting a port, or unloading the module, with rings draining.
test_tx_ring_del() {
	local n=3000 sp

	# Deleting a port takes seconds on the debug kernel, and psim1's
	# ring must still be draining after it: four times the frames there
	# (the 4096-frame ring, the rest in the qdisc).
	on_debug_kernel && n=12000
	ring_setup 64 10
	pfcsim_new psim1
	bql_off psim1
	check ip link set psim1 txqueuelen 10000
	dfs_set psim1 link_mbps 10
	dfs_set psim1 tx_ring 4096
	dfs_set psim1 rx_storm 3
	send $P 0 500 1000
	send psim1 3 500 1000
	# psim1's priority 0 from a sender in the background, 3.7 s at
	# 10 Mb/s (15 s for 12000): the delete comes while the sender or the
	# ring is busy.  (Sent in the foreground, the frames were all on the
	# wire before the delete on a loaded debug kernel, where the sender,
	# at about 1 ms a frame, is slower than the link.)
	"$PFCWD_PKT" send psim1 0 $n 1000 > /dev/null &
	sp=$!
	sleep 0.2
	t=$SECONDS
	log "before deleting $P: psim1 sent $(tx_pkts psim1 0) of $n, rings $(dfs_get psim1 tx_ring_depth)"
	pfcsim_del $P
	[ -e /sys/class/net/$P ] && fail "$P still exists"
	v=$(tx_pkts psim1 0)
	log "$P deleted in about $((SECONDS - t)) s: psim1 sent $v of $n, rings $(dfs_get psim1 tx_ring_depth)"
	sleep 0.2
	[ "$(tx_pkts psim1 0)" -gt "$v" ] || fail "psim1 stopped draining"
	wait $sp || fail "the sender to psim1 failed"
	expect_eq "$(depth psim1 3)" 500 "psim1 paused ring"
	for i in $(seq 5); do
		pfcsim_new psim2
		dfs_set psim2 link_mbps 10
		dfs_set psim2 tx_ring 32
		send psim2 1 100 1000
		check ip link set psim2 down
		check ip link set psim2 up
		send psim2 1 100 1000
		pfcsim_del psim2
	done
	modprobe -r pfcsim || fail "cannot unload pfcsim while draining"
	[ -e /sys/class/net/psim1 ] && fail "psim1 survived unload"
	return 0
}

# Queue numbers and traffic classes, as sysfs shows them.
queue_tcs() {
	local q

	for q in $(ls /sys/class/net/$1/queues | sed -n 's/^tx-//p' | sort -n); do
		cat /sys/class/net/$1/queues/tx-$q/traffic_class
	done | xargs
}

# How many per-queue qdiscs mq has (one per real TX queue).
mq_children() { tc qdisc show dev "$1" | grep -c ' parent :'; }

test_channels() {
	fifo_setup
	check ethtool -L $P tx 2
	expect_eq "$(ethtool -l $P | awk '$1 == "TX:" { print $2 }' | xargs)" "4 2" "ethtool -l TX"
	expect_eq "$(ls -d /sys/class/net/$P/queues/tx-* | wc -l)" 16 "TX queues"
	expect_eq "$(queue_tcs $P)" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "traffic_class of queues"
	expect_eq "$(mq_children $P)" 16 "mq children"
	expect_eq "$(dfs_get $P tx_ring_depth | wc -w)" 16 "tx_ring_depth fields"
	ethtool -L $P tx 5 2>/dev/null && fail "tx 5 accepted"
	ethtool -L $P tx 0 2>/dev/null && fail "tx 0 accepted"
	ethtool -L $P rx 2 2>/dev/null && fail "rx 2 accepted"
	expect_eq "$(ls -d /sys/class/net/$P/queues/tx-* | wc -l)" 16 "TX queues after bad -L"
	# Priority 3 uses TC 3's queues, 6 or 7; without rings pause stops both.
	send $P 3 10
	send $P 2 10
	expect_eq "$(tx_pkts $P 3)/$(tx_pkts $P 2)" "10/10" "tx packets with 2 queues per TC"
	dfs_set $P rx_storm 3
	send $P 3 10
	sleep 0.2
	expect_eq "$(tx_pkts $P 3)" 10 "tx_prio3_packets while paused"
	expect_eq "$(($(mq_backlog $P 6) + $(mq_backlog $P 7)))" 10 "backlog of TC 3's queues"
	# With rings, TC 3's rings hold the frames; the others drain.
	bql_off $P
	dfs_set $P link_mbps 10
	dfs_set $P tx_ring 4
	wait_eq 10 eval 'echo $(($(depth $P 6) + $(depth $P 7) + $(mq_backlog $P 6) + $(mq_backlog $P 7)))'
	[ $(($(depth $P 6) + $(depth $P 7))) -ge 4 ] || fail "TC 3's rings: $(dfs_get $P tx_ring_depth)"
	send $P 1 10 1000
	wait_eq 10 tx_pkts $P 1
	dfs_set $P rx_storm ""
	wait_eq 20 tx_pkts $P 3
	# Four queues per TC, then back to one.
	check ethtool -L $P tx 4
	expect_eq "$(ls -d /sys/class/net/$P/queues/tx-* | wc -l)" 32 "TX queues with tx 4"
	check ethtool -L $P tx 1
	expect_eq "$(ls -d /sys/class/net/$P/queues/tx-* | wc -l)" 8 "TX queues with tx 1"
	expect_eq "$(queue_tcs $P)" "0 1 2 3 4 5 6 7" "traffic_class of queues with tx 1"
	expect_eq "$(mq_children $P)" 8 "mq children with tx 1"
	expect_eq "$(dfs_get $P tx_busy)" 0 "tx_busy"
}

test_prio_tc() {
	fifo_setup
	dfs_set $P prio_tc "0 0 1 1 2 2 3 3"
	expect_eq "$(dfs_get $P prio_tc)" "0 0 1 1 2 2 3 3" "prio_tc read back"
	expect_eq "$(queue_tcs $P)" "0 1 2 3" "traffic_class of queues"
	expect_eq "$(mq_children $P)" 4 "mq children"
	expect_eq "$(dfs_get $P tx_ring_depth)" "0 0 0 0" "tx_ring_depth"
	# Untagged: counted as the lowest priority of the TC; tagged: its PCP.
	send $P 5 7
	send $P 5 3 64 5
	expect_eq "$(tx_pkts $P 4)/$(tx_pkts $P 5)" "7/3" "tx_prio4/5_packets"
	# Pause of priority 3 (TC 1) stops queue 1: priority 2 waits too.
	dfs_set $P rx_storm 3
	send $P 2 6
	send $P 0 4
	sleep 0.2
	expect_eq "$(tx_pkts $P 2)/$(tx_pkts $P 0)" "0/4" "TC 1 paused, TC 0 not"
	expect_eq "$(mq_backlog $P 1)" 6 "backlog of queue 1"
	dfs_set $P rx_storm ""
	wait_eq 6 tx_pkts $P 2
	# With two queues per TC: 8 queues.
	check ethtool -L $P tx 2
	expect_eq "$(queue_tcs $P)" "0 0 1 1 2 2 3 3" "traffic_class with tx 2"
	# Bad maps fail with EINVAL and change nothing.
	before="$(dfs_get $P prio_tc)|$(queue_tcs $P)|$(mq_children $P)"
	expect_rejected $P prio_tc "0 0 1 1 2 2 3 5" "1 1 1 1 1 1 1 1" "0 1 2 3 4 5 6 8" \
		"0 1 2 3 4 5 6" "0 1 2 3 4 5 6 7 0" "0  1 2 3 4 5 6 7" " 0 1 2 3 4 5 6 7" \
		"0,1,2,3,4,5,6,7" "01234567" "0 1 2 3 4 5 6 a" "0 1 2 3 4 5 6 -1" "" \
		$'0 1 2 3 4 5 6 7\n\n' "0 1 2 3 4 5 6 7 " "0 1 2 3 4 5 6 10"
	expect_eq "$(dfs_get $P prio_tc)|$(queue_tcs $P)|$(mq_children $P)" "$before" \
		"layout after bad writes"
	# One TC for all.
	dfs_set $P prio_tc "0 0 0 0 0 0 0 0"
	expect_eq "$(queue_tcs $P)" "0 0" "one TC, two queues"
	dfs_set $P prio_tc "0 1 2 3 4 5 6 7"
	check ethtool -L $P tx 1
	expect_eq "$(queue_tcs $P)" "0 1 2 3 4 5 6 7" "identity again"
}

TESTS=(
	"test_defaults	pfcsim: defaults (pfc-cap 8, pfc-en 3,4, 100G, ethtool names)"
	"test_dcb_set	pfcsim: dcb pfc set round trip, dcb ets show/set, dcbx"
	"test_fw_pfc_en	pfcsim: fw_pfc_en changes pfc_en behind dcbnl's back, bad writes refused"
	"test_dcb_matches_ethtool	pfcsim: dcb -s requests/indications match ethtool -S"
	"test_rx_storm_rate	pfcsim: rx_storm raises indications at pause_rate, only there"
	"test_count_when_disabled	pfcsim: count_when_disabled 1 and 0 with pfc_en off"
	"test_rx_storm_stops_queue	pfcsim: rx_storm stops the lossless TX queue, drains after"
	"test_tx_storm	pfcsim: tx_storm raises requests, stalls receive, needs pfc_en"
	"test_rx_slow	pfcsim: rx_slow raises requests, receive keeps working	stock"
	"test_inject_rx	pfcsim: inject_rx counted per priority, tagged frames delivered"
	"test_bad_writes	pfcsim: every bad debugfs write rejected, nothing changed"
	"test_rename	pfcsim: renamed port keeps its directory, deleted by new name"
	"test_del_mid_storm	pfcsim: del_port and module unload mid-storm leave nothing"
	"test_tx_ring_pause	pfcsim: tx_ring fills and stops a paused TC's queue, others drain, wakes after"
	"test_tx_ring_rate	pfcsim: rings drain at link_mbps, two rings share the link	stock"
	"test_rx_slow_peer_ring	pfcsim: rx_slow_peer paces ring 3 at slow_peer_pct, never stops the queue	stock"
	"test_rx_slow_peer_storm	pfcsim: rx_storm overrides rx_slow_peer: the ring stops draining"
	"test_rx_slow_peer_bad	pfcsim: bad slow_peer_pct and rx_slow_peer writes refused, nothing changed"
	"test_tx_ring_change	pfcsim: tx_ring writes empty the rings; tx_ring 0 as before; bad writes"
	"test_tx_ring_default_qdisc	pfcsim: tx_ring with the default qdisc: all sent, tx_busy 0"
	"test_tx_ring_del	pfcsim: del_port, down/up and unload with rings draining"
	"test_channels	pfcsim: ethtool -L tx N: queues per TC, tc layout, pause of every queue"
	"test_prio_tc	pfcsim: prio_tc layouts, tx priority of frames, bad maps rejected"
)

tap_main "$@"
