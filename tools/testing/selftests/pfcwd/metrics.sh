#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The storm gate and the metrics of the pfcwd command against the live
# module: "pfcwd stats --check-storm" exit statuses (0 quiet, 1 stormed or
# latched, 2 error, 3 nothing could see a storm) on pfcsim storms; "pfcwd metrics" checked by promtool
# and by value during and after a storm; "pfcwd exporter" serving the same
# over HTTP, its errors, slow clients, signals and listen addresses.

. "$(dirname "$0")/lib.sh"

[ -x "$PFCWD" ] || { echo "no $PFCWD: run make first"; exit 1; }

# A port of its own, away from the default 9860 a host may be using.
EXP_PORT=19860

sim() {
	echo "$3" > "$PFCSIM_DFS/$1/$2" || fail "cannot write pfcsim $1/$2: $3"
}

qdisc_port() {
	pfcsim_new "$1"
	tc qdisc add dev "$1" root handle 1: pfcwd || fail "tc qdisc add on $1"
}

# Runs "pfcwd ARGS..." expecting exit status $1, stdout exactly $2 and
# stderr matching the extended regex $3 ('^$': nothing).
expect_run() {
	local want=$1 out=$2 err_re=$3 o e rc
	shift 3
	o=$("$PFCWD" "$@" 2>/tmp/metrics.err)
	rc=$?
	e=$(cat /tmp/metrics.err)
	[ "$rc" = "$want" ] || fail "pfcwd $*: exit $rc, wanted $want; stdout '$o' stderr '$e'"
	[ "$o" = "$out" ] || fail "pfcwd $*: stdout '$o', wanted '$out'"
	echo "$e" | grep -qE -- "$err_re" || fail "pfcwd $*: stderr '$e' does not match /$err_re/"
	log "pfcwd $* -> $rc${o:+, stdout: $o}${e:+, stderr: $e}"
}

need_promtool() {
	command -v promtool >/dev/null ||
		skip "no promtool in the VM (Debian package prometheus, scripts/deps.sh)"
	# promtool must really check: a family with two HELP lines and a
	# counter without _total are refused.
	printf '# HELP a_total x\n# HELP a_total x\n# TYPE a_total counter\na_total 1\n' |
		promtool check metrics >/dev/null 2>&1 && fail "promtool accepts two HELP lines"
	printf '# HELP b x\n# TYPE b counter\nb 1\n' |
		promtool check metrics >/dev/null 2>&1 && fail "promtool accepts a counter without _total"
	return 0
}

# promtool check metrics on the text $2; fails with its findings ($1 says
# which text).
promcheck() {
	local out

	out=$(printf '%s\n' "$2" | promtool check metrics 2>&1) ||
		fail "promtool check metrics ($1): $out"
}

# The value of the series $2 (exact text up to the value) in metrics $1.
mval() {
	printf '%s\n' "$1" | S=$2 awk '
		BEGIN { s = ENVIRON["S"] }
		index($0, s " ") == 1 { print substr($0, length(s) + 2) }'
}

# Each family has one HELP and one TYPE, right before its samples, and
# every sample belongs to the family last declared.
families_once() {
	printf '%s\n' "$1" | awk '
		/^# HELP / { if (help[$3]++) { print "two HELP: " $3; bad = 1 } fam = $3; next }
		/^# TYPE / { if (type[$3]++ || $3 != fam) { print "TYPE: " $3; bad = 1 } next }
		/^#/ { next }
		{ n = $0; sub(/[{ ].*/, "", n); if (n != fam) { print "stray sample: " $0; bad = 1 } }
		END { exit bad }' || fail "family blocks"
}

test_check_storm() {
	reset_all
	qdisc_port sw1
	qdisc_port sw2
	"$PFCWD" set dev sw1 detect 100 restore 100 action drop || fail "set sw1"
	expect_run 0 "" '^$' stats --check-storm dev sw1
	expect_run 0 "" '^$' stats --check-storm
	expect_run 0 "" '^$' stats dev sw1 --check-storm -v
	expect_run 0 "[]" '^$' -j stats --check-storm

	sim sw1 rx_storm 3
	cli_wait sw1 3 state stormed 5
	expect_eq "$(prio_val sw1 3 action)" drop "the drop action"
	expect_run 1 "" '^$' stats --check-storm dev sw1
	expect_run 1 "" '^$' stats --check-storm
	expect_run 1 "sw1 prio 3: stormed" '^$' stats --check-storm -v
	expect_run 1 "sw1 prio 3: stormed" '^$' stats --check-storm dev sw1 --verbose
	expect_run 1 '[{"ifname":"sw1","prio":3,"state":"stormed","latch":"none"}]' '^$' \
		-j stats --check-storm dev sw1
	# The other port is quiet: dev selects.
	expect_run 0 "" '^$' stats --check-storm dev sw2

	sim sw1 rx_storm ""
	cli_wait sw1 3 state operational 5
	expect_eq "$(prio_val sw1 3 restored)" 1 "restored"
	expect_run 0 "" '^$' stats --check-storm dev sw1
	expect_run 0 "" '^$' stats --check-storm -v
}

test_check_storm_latched() {
	reset_all
	qdisc_port sw1
	"$PFCWD" set dev sw1 detect 50 restore 50 storm-limit 1 || fail "set"
	sim sw1 rx_storm 4
	cli_wait sw1 4 state latched 5
	sim sw1 rx_storm ""
	sleep 0.3
	expect_eq "$(prio_val sw1 4 state)" latched "still latched"
	expect_run 1 "" '^$' stats --check-storm dev sw1
	expect_run 1 "sw1 prio 4: latched (storm-limit)" '^$' stats --check-storm -v
	"$PFCWD" restore dev sw1 prio 4 || fail "restore"
	expect_run 0 "" '^$' stats --check-storm dev sw1
}

# Exit 3: quiet only because nothing could see a storm.  A storm seen
# elsewhere is still 1.
test_check_storm_unknown() {
	reset_all
	expect_run 3 "" 'nothing is watched' stats --check-storm
	qdisc_port sw1
	expect_run 0 "" '^$' stats --check-storm
	"$PFCWD" set dev sw1 off || fail "set off"
	expect_run 3 "" 'nothing is watched' stats --check-storm
	expect_run 3 "[]" 'nothing is watched' -j stats --check-storm dev sw1
	"$PFCWD" set dev sw1 on || fail "set on"
	# A port without any source: an IPIP tunnel (no dcbnl, not Ethernet
	# so no software PFC, one queue without a traffic-class map).  Gone
	# with the case however it ends, so that the module unloads.
	modprobe ipip 2>/dev/null
	trap 'ip link del ptw0 2>/dev/null' EXIT
	ip link add ptw0 type ipip local 192.0.2.1 remote 192.0.2.2 || fail "ipip"
	ip link set ptw0 up
	tc qdisc add dev ptw0 root pfcwd || fail "qdisc on ptw0"
	expect_eq "$("$PFCWD" -j show dev ptw0 | jq -r '.[0].source')" none "ptw0's source"
	expect_run 3 "" '^pfcwd: ptw0: no source of pause information' stats --check-storm dev ptw0
	expect_run 3 "" '^pfcwd: ptw0: no source of pause information' stats --check-storm
	expect_run 0 "" '^$' stats --check-storm dev sw1
	sim sw1 rx_storm 3
	cli_wait sw1 3 state stormed 5
	expect_run 1 "sw1 prio 3: stormed" '^$' stats --check-storm -v
	sim sw1 rx_storm ""
	cli_wait sw1 3 state operational 5
	ip link del ptw0
	expect_run 0 "" '^$' stats --check-storm
}

# The shipped alerting rules: promtool checks them, and its rule tests
# (pfcwd-alerts_test.yml) fire each alert once per storm, latch or blind
# port, with the labels of pfcwd metrics; a port's lever and source as
# the metrics say for an alert-only port and one without a source.
test_alert_rules() {
	local rules=$PFCWD_TOP/tools/pfcwd/dist/pfcwd-alerts.yml m

	need_promtool
	check promtool check rules "$rules"
	(cd "$SELFTEST_DIR" && promtool test rules pfcwd-alerts_test.yml) > /tmp/rules.out 2>&1 ||
		fail "promtool test rules: $(cat /tmp/rules.out)"
	reset_all
	qdisc_port sw1
	"$PFCWD" set dev sw1 action alert || fail "set alert"
	modprobe ipip 2>/dev/null
	trap 'ip link del ptw1 2>/dev/null' EXIT
	ip link add ptw1 type ipip local 192.0.2.3 remote 192.0.2.4 || fail "ipip"
	ip link set ptw1 up
	tc qdisc add dev ptw1 root pfcwd || fail "qdisc on ptw1"
	m=$("$PFCWD" metrics) || fail "metrics"
	promcheck "alert-only and sourceless ports" "$m"
	expect_eq "$(printf '%s\n' "$m" | grep -c '^pfcwd_port_info{')" 2 "one info series per port"
	printf '%s\n' "$m" | grep -q '^pfcwd_port_info{device="sw1",driver="pfcsim",.*,lever="none"} 1$' ||
		fail "sw1 (action alert) not lever none: $(printf '%s\n' "$m" | grep '^pfcwd_port_info')"
	printf '%s\n' "$m" | grep -q '^pfcwd_port_info{device="ptw1",.*,source="none",.*,lever="datapath"} 1$' ||
		fail "ptw1 not source none: $(printf '%s\n' "$m" | grep '^pfcwd_port_info')"
	ip link del ptw1
}

test_check_storm_errors() {
	reset_all
	qdisc_port sw1
	pfcsim_new sw2
	expect_run 2 "" 'cannot find device "nosuch0"' stats --check-storm dev nosuch0
	expect_run 2 "" 'the device is not a pfcwd port' stats --check-storm dev sw2
	expect_run 2 "" 'unknown argument "bogus"' stats --check-storm bogus
	expect_run 2 "" '"dev" needs a value' stats --check-storm dev
	expect_run 2 "" 'bad device name' stats --check-storm dev abcdefghijklmnopq
	# A storm elsewhere does not turn an error into "stormed".
	sim sw1 rx_storm 3
	cli_wait sw1 3 state stormed 5
	expect_run 2 "" 'cannot find device "nosuch0"' stats --check-storm dev nosuch0 -v
	sim sw1 rx_storm ""
	cli_wait sw1 3 state operational 5
	unload_mod pfcsim
	unload_mod pfcwd
	expect_run 2 "" 'is pfcwd.ko loaded' stats --check-storm
	expect_run 1 "" 'is pfcwd.ko loaded' metrics
}

test_metrics_storm() {
	need_promtool
	reset_all
	qdisc_port sw1
	qdisc_port sw2
	"$PFCWD" set dev sw1 detect 100 restore 100 || fail "set"
	"$PFCWD_PKT" send sw1 3 5 >/dev/null || fail "send"
	local m t0 t1 ts s
	# port-get shows the packet counters the poller last read (within a
	# second, plus its load margin).
	cli_wait sw1 3 tx_packets 5 2

	m=$("$PFCWD" metrics) || fail "metrics"
	promcheck quiet "$m"
	families_once "$m"
	expect_eq "$(mval "$m" 'pfcwd_ports')" 2 "two ports"
	expect_eq "$(mval "$m" "pfcwd_build_info{version=\"$(cat "$PFCWD_TOP/VERSION")\"}")" 1 "build info"
	expect_eq "$(mval "$m" 'pfcwd_port_info{device="sw1",driver="pfcsim",profile="generic",source="dcb",device_action="auto",lever="pfc_en"}')" \
		1 "port info: pfcsim, pfc_en"
	expect_eq "$(mval "$m" 'pfcwd_port_detection_time_seconds{device="sw1"}')" 0.100 "T0 in seconds"
	expect_eq "$(mval "$m" 'pfcwd_port_restoration_time_seconds{device="sw1"}')" 0.100 "T1 in seconds"
	t0=$(cat /sys/class/net/sw2/pfcwd/detection_time_ms)
	expect_eq "$(mval "$m" 'pfcwd_port_detection_time_seconds{device="sw2"}')" \
		"$((t0 / 1000)).$(printf %03d $((t0 % 1000)))" "sw2 T0 ($t0 ms)"
	expect_eq "$(mval "$m" 'pfcwd_port_enabled{device="sw1"}')" 1 "enabled"
	expect_eq "$(mval "$m" 'pfcwd_port_action{device="sw1",action="drop"}')/$(mval "$m" 'pfcwd_port_action{device="sw1",action="forward"}')" \
		1/0 "action state set"
	expect_eq "$(mval "$m" 'pfcwd_prio_watched{device="sw1",prio="3"}')/$(mval "$m" 'pfcwd_prio_watched{device="sw1",prio="0"}')" \
		1/0 "watched"
	expect_eq "$(mval "$m" 'pfcwd_tx_packets_total{device="sw1",prio="3"}')" 5 "tx packets"
	expect_eq "$(mval "$m" 'pfcwd_prio_state{device="sw1",prio="3",state="operational"}')" 1 "operational"
	expect_eq "$(mval "$m" 'pfcwd_storms_detected_total{device="sw1",prio="3"}')" 0 "no storm yet"
	# Every per-priority counter of the dump, for all 8 priorities of both.
	for s in storms_detected storms_restored tx_storms slow_receiver_events storm_warnings \
		 rx_pause_frames tx_pause_frames tx_packets rx_packets \
		 tx_dropped_packets rx_dropped_packets tx_forwarded_packets; do
		expect_eq "$(printf '%s\n' "$m" | grep -c "^pfcwd_${s}_total{device=\"sw[12]\",prio=\"[0-7]\"} [0-9]*$")" \
			16 "pfcwd_${s}_total series"
		expect_eq "$(printf '%s\n' "$m" | grep -c "^# TYPE pfcwd_${s}_total counter$")" 1 \
			"pfcwd_${s}_total TYPE"
	done
	expect_eq "$(printf '%s\n' "$m" | grep -c '^pfcwd_prio_state{')" 48 "3 states x 8 prios x 2 ports"

	t0=$(date +%s)
	sim sw1 rx_storm 3
	cli_wait sw1 3 state stormed 5
	m=$("$PFCWD" metrics) || fail "metrics during the storm"
	promcheck storm "$m"
	families_once "$m"
	expect_eq "$(mval "$m" 'pfcwd_storms_detected_total{device="sw1",prio="3"}')" 1 "detected"
	expect_eq "$(mval "$m" 'pfcwd_prio_state{device="sw1",prio="3",state="stormed"}')" 1 "stormed"
	expect_eq "$(mval "$m" 'pfcwd_prio_state{device="sw1",prio="3",state="operational"}')" 0 "not operational"
	expect_eq "$(mval "$m" 'pfcwd_prio_state{device="sw2",prio="3",state="stormed"}')" 0 "sw2 quiet"
	[ "$(mval "$m" 'pfcwd_rx_pause_frames_total{device="sw1",prio="3"}')" -gt 0 ] ||
		fail "no pause frames counted"
	ts=$(mval "$m" 'pfcwd_last_storm_detected_timestamp_seconds{device="sw1",prio="3"}')
	t1=$(date +%s)
	if [ "${ts%.*}" -lt "$t0" ] || [ "${ts%.*}" -gt "$t1" ]; then
		fail "detected at $ts, not within [$t0, $t1]"
	fi

	sim sw1 rx_storm ""
	cli_wait sw1 3 state operational 5
	m=$("$PFCWD" metrics) || fail "metrics after the storm"
	promcheck restored "$m"
	expect_eq "$(mval "$m" 'pfcwd_storms_restored_total{device="sw1",prio="3"}')" 1 "restored"
	expect_eq "$(mval "$m" 'pfcwd_prio_state{device="sw1",prio="3",state="operational"}')" 1 "operational again"
	expect_eq "$(mval "$m" 'pfcwd_rx_pause_frames_total{device="sw1",prio="3"}')" \
		"$(prio_val sw1 3 rx_pause)" "rx pause as pfcwd stats"
	s=$(mval "$m" 'pfcwd_last_storm_duration_seconds{device="sw1",prio="3"}')
	awk -v s="$s" 'BEGIN { exit !(s >= 0.1 && s < 10) }' || fail "storm duration $s s"

	# Label values escaped: quote and backslash are legal in ifnames.
	local name='q"b\x'
	ip link add name "$name" type dummy || fail "dummy $name"
	"$PFCWD" set dev "$name" on || fail "set on $name"
	m=$("$PFCWD" metrics) || fail "metrics with $name"
	promcheck escaping "$m"
	expect_eq "$(mval "$m" 'pfcwd_port_enabled{device="q\"b\\x"}')" 1 "escaped dev label"
	ip link del "$name"
}

# Starts "pfcwd exporter ARGS..." in the background, stderr to
# /tmp/exp.err, and makes sure it dies with the case (else it would hold
# the case's output open and the run would wait for it).
EXP_PID=
start_exporter() {
	# The VM boots with lo down.
	ip link set dev lo up || fail "lo up"
	"$PFCWD" exporter "$@" >/dev/null 2>/tmp/exp.err &
	EXP_PID=$!
	trap 'kill -KILL $EXP_PID 2>/dev/null' EXIT
}

# Waits for the exporter started with stderr to $1 to listen.
wait_listening() {
	local i

	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$1" && return 0
		sleep 0.05
	done
	fail "exporter not listening: $(cat "$1")"
}

# "STATUS\nCONTENT-TYPE\nBODY" of METHOD ($4, default GET) PATH $3 from
# HOST $1 PORT $2.
http() {
	python3 -S - "$@" <<'EOF'
import http.client, sys
host, port, path = sys.argv[1:4]
method = sys.argv[4] if len(sys.argv) > 4 else "GET"
c = http.client.HTTPConnection(host, int(port), timeout=15)
c.request(method, path)
r = c.getresponse()
print(r.status)
print(r.getheader("Content-Type"))
sys.stdout.write(r.read().decode())
EOF
}

# The series of metrics text $1, without values nor the moving ones.
series_of() {
	printf '%s\n' "$1" | grep -v '^#' | sed 's/ [^ ]*$//' |
		grep -vE '^pfcwd_(device_reads_total|device_forced_reads_total|port_detection_granularity_seconds)' |
		sort
}

test_exporter() {
	need_promtool
	reset_all
	qdisc_port sw1
	"$PFCWD" set dev sw1 detect 100 restore 100 || fail "set"
	start_exporter listen 127.0.0.1:$EXP_PORT
	local pid=$EXP_PID r body m i
	wait_listening /tmp/exp.err
	log "exporter $pid listening"

	sim sw1 rx_storm 3
	cli_wait sw1 3 state stormed 5
	r=$(http 127.0.0.1 $EXP_PORT /metrics) || fail "GET /metrics: $r"
	log "GET /metrics: $(echo "$r" | head -n 4)"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "status"
	expect_eq "$(echo "$r" | sed -n 2p)" "text/plain; version=0.0.4" "Content-Type"
	body=$(echo "$r" | tail -n +3)
	promcheck http "$body"
	families_once "$body"
	expect_eq "$(mval "$body" 'pfcwd_prio_state{device="sw1",prio="3",state="stormed"}')" 1 \
		"stormed, over HTTP"
	expect_eq "$(mval "$body" 'pfcwd_storms_detected_total{device="sw1",prio="3"}')" 1 \
		"detected, over HTTP"
	m=$("$PFCWD" metrics) || fail "metrics"
	expect_eq "$(series_of "$body")" "$(series_of "$m")" "the series of pfcwd metrics"
	[ "$(series_of "$body" | wc -l)" -gt 100 ] || fail "too few series: $body"
	sim sw1 rx_storm ""

	r=$(http 127.0.0.1 $EXP_PORT '/metrics?x=1') || fail "GET /metrics?x=1"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "query string ignored"
	r=$(http 127.0.0.1 $EXP_PORT /metrics HEAD) || fail "HEAD /metrics"
	expect_eq "$(echo "$r" | sed -n 1p)/$(echo "$r" | wc -l)" 200/2 "HEAD: no body"
	r=$(http 127.0.0.1 $EXP_PORT /) || fail "GET /"
	expect_eq "$(echo "$r" | sed -n 1p)" 404 "/ is not found"
	r=$(http 127.0.0.1 $EXP_PORT /metricsx) || fail "GET /metricsx"
	expect_eq "$(echo "$r" | sed -n 1p)" 404 "/metricsx is not found"
	r=$(http 127.0.0.1 $EXP_PORT /metrics POST) || fail "POST"
	expect_eq "$(echo "$r" | sed -n 1p)" 405 "POST refused"

	# Garbage, an endless head, and a silent client: answered or dropped
	# in bounded time, and the exporter serves the next one.
	log "raw clients"
	r=$(python3 -S - $EXP_PORT <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
def talk(data):
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    s.sendall(data)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            return out
        out += b
print(talk(b"hello\r\n\r\n").split(b"\r\n")[0].decode())
print(talk(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 20000).split(b"\r\n")[0].decode())
t = time.monotonic()
s = socket.create_connection(("127.0.0.1", port), timeout=15)
s.sendall(b"GET /met")
print(s.recv(100), round(time.monotonic() - t, 1))
EOF
) || fail "raw clients: $r"
	log "$r"
	expect_eq "$(echo "$r" | sed -n 1p)" "HTTP/1.1 400 Bad Request" "garbage"
	expect_eq "$(echo "$r" | sed -n 2p)" "HTTP/1.1 431 Request Header Fields Too Large" "endless head"
	echo "$r" | sed -n 3p | awk '$1 == "b'"''"'" && $2 >= 4.9 && $2 < 7 { ok = 1 } END { exit !ok }' ||
		fail "silent client not dropped after 5 s: $(echo "$r" | sed -n 3p)"
	r=$(http 127.0.0.1 $EXP_PORT /metrics) || fail "GET /metrics after them"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "still serving"

	# The address is taken: refused.
	timeout 10 "$PFCWD" exporter listen 127.0.0.1:$EXP_PORT >/dev/null 2>/tmp/exp2.err
	expect_eq "$?" 1 "second exporter on the same port"
	grep -q 'cannot listen on 127.0.0.1:19860: Address already in use' /tmp/exp2.err ||
		fail "address in use: $(cat /tmp/exp2.err)"

	log "no module"
	# No module: 500, and the exporter goes on.
	unload_mod pfcsim
	unload_mod pfcwd
	r=$(http 127.0.0.1 $EXP_PORT /metrics) || fail "GET /metrics without pfcwd.ko"
	expect_eq "$(echo "$r" | sed -n 1p)" 500 "no module: 500"
	grep -q 'is pfcwd.ko loaded' /tmp/exp.err || fail "no reason logged: $(cat /tmp/exp.err)"
	load_mod pfcwd
	r=$(http 127.0.0.1 $EXP_PORT /metrics) || fail "GET /metrics, module back"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "module back: 200"
	expect_eq "$(mval "$(echo "$r" | tail -n +3)" pfcwd_ports)" 0 "no port"

	kill -TERM $pid
	for ((i = 0; i < 40; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
	kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "SIGTERM did not stop it"; }
	wait $pid
	expect_eq "$?" 0 "exit status after SIGTERM"
	grep -q 'exporter stopped' /tmp/exp.err || fail "no stop message"
	rm -f /tmp/exp.err /tmp/exp2.err
}

test_exporter_listen() {
	reset_all
	local a pid i r

	for a in 127.0.0.1 127.0.0.1:0 127.0.0.1:65536 127.0.0.1:80x ::1:9860 '[::1]' \
		 '[::1]:' localhost:9860 '[zz]:9860' :9860 '127.0.0.1:+80' '1.2.3:80'; do
		expect_run 2 "" "bad listen address" exporter listen "$a"
	done
	expect_run 2 "" '"listen" needs a value' exporter listen
	expect_run 2 "" 'exporter: unknown argument "bogus"' exporter bogus

	# The default address, then IPv6, each stopped by SIGINT.
	start_exporter
	pid=$EXP_PID
	wait_listening /tmp/exp.err
	grep -q 'listening on 127.0.0.1:9860' /tmp/exp.err || fail "default: $(cat /tmp/exp.err)"
	r=$(http 127.0.0.1 9860 /metrics) || fail "GET on the default address"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "default address serves"
	kill -INT $pid
	wait $pid
	expect_eq "$?" 0 "exit status after SIGINT"

	# The selftests disable IPv6; lo gets it back for this.
	sysctl -qw net.ipv6.conf.lo.disable_ipv6=0 || fail "IPv6 on lo"
	for ((i = 0; i < 40; i++)); do
		ip -6 addr show dev lo | grep -q '::1/128' && break
		sleep 0.05
	done
	start_exporter listen "[::1]:$EXP_PORT"
	pid=$EXP_PID
	wait_listening /tmp/exp.err
	r=$(http ::1 $EXP_PORT /metrics) || fail "GET over IPv6"
	expect_eq "$(echo "$r" | sed -n 1p)" 200 "IPv6 serves"
	r=$(http 127.0.0.1 $EXP_PORT /metrics 2>&1) && fail "[::1] answered on IPv4: $r"
	kill -TERM $pid
	wait $pid
	expect_eq "$?" 0 "exit status after SIGTERM"
	sysctl -qw net.ipv6.conf.lo.disable_ipv6=1
	rm -f /tmp/exp.err
}

TESTS=(
	"test_check_storm	check-storm: 0 quiet, 1 during a storm (drop), 0 after; dev, -v, -j"
	"test_check_storm_latched	check-storm: 1 while latched (storm limit), 0 after restore"
	"test_check_storm_unknown	check-storm: 3 when nothing is watched or a port has no source; a storm is still 1"
	"test_check_storm_errors	check-storm: 2 for unknown devices, non-ports, bad usage, no module"
	"test_metrics_storm	metrics: promtool-clean, every counter, storm and restoration by value, escaping"
	"test_alert_rules	metrics: the shipped alert rules pass promtool check and test rules (once per storm); port info"
	"test_exporter	exporter: the metrics over HTTP, 404/405/400/431, slow clients, 500 without module, SIGTERM"
	"test_exporter_listen	exporter: listen addresses refused, default address, IPv6, SIGINT"
)

tap_main "$@"
