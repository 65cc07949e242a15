#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real traffic through the pfcwd qdisc: per-band counters, strict priority
# order, per-band limits with drops counted, backlog reset.

. "$(dirname "$0")/lib.sh"

TC_NL=$SELFTEST_DIR/tc-nl.py

setup_veth() {
	load_mod pfcwd
	ip link del pt0 2>/dev/null
	ip link add pt0 type veth peer name pt1 || fail "veth"
	[ -n "${1:-}" ] && ip link set pt0 txqueuelen "$1"
	ip link set pt0 up && ip link set pt1 up || fail "veth up"
}

# A slow token bucket in front of pfcwd so that packets queue in its bands.
slow_root() {
	tc qdisc add dev pt0 root handle 1: tbf rate "$1" burst 1600 limit 10000000 ||
		fail "tbf"
	tc qdisc add dev pt0 parent 1:1 handle 10: pfcwd || fail "pfcwd under tbf"
}

send() {
	"$PFCWD_PKT" send "$@" || fail "pfcwd-pkt send $*"
}

test_counts_pfcsim() {
	load_mod pfcwd
	[ -e /sys/class/net/psim0 ] && pfcsim_del psim0
	pfcsim_new psim0
	tc qdisc add dev psim0 root handle 1: pfcwd || fail "add"
	for p in 0 1 2 3 4 5 6 7; do
		expect_eq "$(send psim0 $p $((10 * p + 5)))" $((10 * p + 5)) "accepted, prio $p"
	done
	for p in 0 1 2 3 4 5 6 7; do
		want=$((10 * p + 5))
		read -r sent drop bl <<< "$(class_stats psim0 1:$((p + 1)))"
		expect_eq "$sent/$drop/$bl" "$want/0/0" "class 1:$((p + 1)) sent/dropped/backlog"
		# priority P -> traffic class P -> TX queue P
		expect_eq "$(ethtool_stat psim0 tx_prio${p}_packets)" "$want" "pfcsim tx_prio${p}_packets"
	done
	total=$(tc -s qdisc show dev psim0 | awk '$1 == "Sent" { print $4; exit }')
	expect_eq "$total" 320 "qdisc total packets"
	pfcsim_del psim0
}

# A VLAN-tagged frame is classified by its PCP and steered to the TX queue
# of that priority's traffic class, whatever skb->priority says.
test_vlan_pcp() {
	load_mod pfcwd
	[ -e /sys/class/net/psim0 ] && pfcsim_del psim0
	pfcsim_new psim0
	tc qdisc add dev psim0 root handle 1: pfcwd || fail "add"
	expect_eq "$(send psim0 0 12 64 5)" 12 "accepted, skb prio 0, PCP 5"
	expect_eq "$(send psim0 6 7 64 2)" 7 "accepted, skb prio 6, PCP 2"
	expect_eq "$(class_stats psim0 1:6)" "12 0 0" "band 5 (class 1:6)"
	expect_eq "$(class_stats psim0 1:3)" "7 0 0" "band 2 (class 1:3)"
	expect_eq "$(class_stats psim0 1:1)/$(class_stats psim0 1:7)" "0 0 0/0 0 0" \
		"bands of skb->priority"
	expect_eq "$(ethtool_stat psim0 tx_prio5_packets)/$(ethtool_stat psim0 tx_prio2_packets)" \
		"12/7" "TX queues of the PCPs' traffic classes"
	expect_eq "$(ethtool_stat psim0 tx_prio0_packets)/$(ethtool_stat psim0 tx_prio6_packets)" \
		"0/0" "TX queues of skb->priority"
	pfcsim_del psim0
}

# Only an Ethernet frame carries a VLAN tag in its data.  On an IPIP
# tunnel a packet starts with its IPv4 header, whose bytes 12-15 are the
# source address: from 129.0.160.0/20 they read as TPID 0x8100 with PCP 5.
# Such packets keep their skb->priority's band (0).
test_pcp_not_ethernet() {
	load_mod pfcwd
	modprobe ipip 2>/dev/null
	ip link del ptip0 2>/dev/null
	ip link add ptip0 type ipip local 192.0.2.1 remote 192.0.2.2 ||
		{ skip "no ipip tunnels in this kernel"; return; }
	ip link set ptip0 up || fail "ptip0 up"
	tc qdisc add dev ptip0 root handle 1: pfcwd || fail "add on ipip"
	python3 -S - <<'EOF' || fail "send on ptip0"
import socket, struct
def csum(b):
    s = sum(struct.unpack("!10H", b))
    s = (s & 0xffff) + (s >> 16)
    return (~((s & 0xffff) + (s >> 16))) & 0xffff
src, dst = socket.inet_aton("129.0.160.7"), socket.inet_aton("10.9.9.9")
payload = b"pfcwd" * 8
h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, 253, 0, src, dst)
h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
assert h[12:14] == b"\x81\x00" and h[14] >> 5 == 5
s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM)
for _ in range(9):
    s.sendto(h + payload, ("ptip0", 0x0800))
EOF
	expect_eq "$(class_stats ptip0 1:1)" "9 0 0" "ipip: band 0 (skb->priority 0)"
	expect_eq "$(class_stats ptip0 1:6)" "0 0 0" "ipip: band 5 (the source address is no PCP)"
	ip link del ptip0
}

test_counts_veth() {
	setup_veth
	tc qdisc add dev pt0 root handle 1: pfcwd || fail "add"
	"$PFCWD_PKT" recv pt1 80 2000 > /tmp/recv.txt &
	rpid=$!
	sleep 0.5
	for p in 0 1 2 3 4 5 6 7; do send pt0 $p 10 >/dev/null; done
	wait $rpid
	for p in 0 1 2 3 4 5 6 7; do
		expect_eq "$(class_stats pt0 1:$((p + 1)))" "10 0 0" "class 1:$((p + 1))"
		expect_eq "$(awk -v p=$p '$1 == p' /tmp/recv.txt | wc -l)" 10 "received prio $p"
	done
	ip link del pt0
}

test_strict_priority() {
	setup_veth
	slow_root 50kbit
	"$PFCWD_PKT" recv pt1 320 4000 > /tmp/recv.txt &
	rpid=$!
	sleep 0.5
	# Lowest priority first: a FIFO would deliver them first, too.  One
	# process queues the whole burst: with a process per priority, the
	# 50 kbit/s link drained most of it on the debug kernel before
	# priority 7 came.
	send pt0 0-7 40 >/dev/null
	wait $rpid
	expect_eq "$(wc -l < /tmp/recv.txt)" 320 "frames received"
	# Frames that left while the burst was still being queued come first;
	# from the first priority-7 frame on, priorities never rise and each
	# priority's frames keep their order.  A FIFO would send nothing but
	# priority 7 after the first priority-7 frame: require at least a
	# band's worth of lower-priority frames overtaken.
	awk '
		!seen7 && $1 != 7 { early++; next }
		{ seen7 = 1 }
		$1 < 7 { overtaken++ }
		last != "" && $1 > last { bad = "priority " $1 " after " last " at line " NR }
		$1 == last && $2 <= lastseq { bad = "reordered within " $1 " at line " NR }
		{ last = $1; lastseq = $2 }
		END {
			print early " frames left early, " overtaken " overtaken by priority 7"
			if (bad) { print bad; exit 1 }
			if (overtaken < 40) exit 1
		}' /tmp/recv.txt || fail "not strict priority order: $(tr '\n' ' ' < /tmp/recv.txt | cut -c1-400)"
	ip link del pt0
}

test_limit_drops() {
	setup_veth 20
	slow_root 100kbit
	"$PFCWD_PKT" recv pt1 1000 3000 > /tmp/recv.txt &
	rpid=$!
	sleep 0.5
	ok3=$(send pt0 3 100)
	ok5=$(send pt0 5 100)
	wait $rpid
	read -r sent3 drop3 _ <<< "$(class_stats pt0 10:4)"
	read -r sent5 drop5 _ <<< "$(class_stats pt0 10:6)"
	log "prio 3: accepted $ok3 dropped $drop3; prio 5: accepted $ok5 dropped $drop5"
	[ "$ok3" -ge 20 ] && [ "$ok3" -lt 100 ] || fail "prio 3 accepted $ok3 of 100 with limit 20"
	[ "$ok5" -ge 20 ] && [ "$ok5" -lt 100 ] || fail "prio 5 accepted $ok5 of 100 with limit 20"
	expect_eq "$drop3" $((100 - ok3)) "prio 3 drops"
	expect_eq "$drop5" $((100 - ok5)) "prio 5 drops"
	expect_eq "$sent3" "$ok3" "prio 3 sent"
	expect_eq "$sent5" "$ok5" "prio 5 sent"
	expect_eq "$(awk '$1 == 3' /tmp/recv.txt | wc -l)" "$ok3" "prio 3 received"
	expect_eq "$(awk '$1 == 5' /tmp/recv.txt | wc -l)" "$ok5" "prio 5 received"
	qdrop=$(tc -s qdisc show dev pt0 | awk '/pfcwd/ { on = 1 } on && $1 == "Sent" { d = $7; sub(",", "", d); print d; exit }')
	expect_eq "$qdrop" $((200 - ok3 - ok5)) "qdisc drops"
	ip link del pt0
}

test_backlog_reset() {
	setup_veth
	slow_root 8bit  # after the initial burst, one frame a minute: a still queue
	send pt0 2 200 >/dev/null
	send pt0 6 200 >/dev/null
	read -r _ _ bl2 <<< "$(class_stats pt0 10:3)"
	read -r _ _ bl6 <<< "$(class_stats pt0 10:7)"
	log "backlog: band 2 $bl2, band 6 $bl6"
	[ "$bl2" -gt 100 ] && [ "$bl6" -gt 100 ] || fail "no backlog built up"
	# Band 6 is served first, so band 2 does not move until it is empty.
	before2=$bl2
	# Lowering the limit drops the excess from the head of each band.
	python3 -S "$TC_NL" change pt0 handle 10 parent 1:1 limit 50 || fail "change limit"
	read -r _ d2 bl2 <<< "$(class_stats pt0 10:3)"
	read -r _ d6 bl6 <<< "$(class_stats pt0 10:7)"
	expect_eq "$bl2" 50 "band 2 backlog after trim"
	expect_eq "$d2" $((before2 - 50)) "band 2 drops after trim"
	[ "$bl6" -le 50 ] || fail "band 6 backlog over limit: $bl6"
	# The parent was told: its backlog is the sum of the bands' backlogs.
	sum=0
	for c in 1 2 3 4 5 6 7 8; do
		read -r _ _ bl <<< "$(class_stats pt0 10:$c)"
		sum=$((sum + bl))
	done
	qbl=$(tc -s qdisc show dev pt0 | awk '/tbf/ { on = 1 } on && $1 == "backlog" { sub("p", "", $3); print $3; exit }')
	log "after trim: band 2 $bl2, band 6 $bl6, all bands $sum, parent $qbl"
	expect_eq "$qbl" "$sum" "parent backlog after trim"
	# Deleting the qdisc with packets queued frees them.
	tc qdisc del dev pt0 root || fail "delete with backlog"
	ip link del pt0
}

TESTS=(
	"test_counts_pfcsim	traffic: per-band and per-TX-queue counters on pfcsim"
	"test_vlan_pcp	traffic: VLAN PCP classifies and steers tagged frames"
	"test_pcp_not_ethernet	traffic: no VLAN tag read from the data of a non-Ethernet device"
	"test_counts_veth	traffic: per-band counters on veth, every frame delivered"
	"test_strict_priority	traffic: strict priority order, FIFO within a band"
	"test_limit_drops	traffic: per-band limit honoured, drops counted exactly"
	"test_backlog_reset	traffic: limit change trims backlog, delete with backlog"
)

tap_main "$@"
