#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module load/unload, qdisc autoload, pfcsim port lifecycle.

. "$(dirname "$0")/lib.sh"

cleanup_all() {
	ip link del pfd0 2>/dev/null
	for i in 0 1 2 3; do ip link del "pfd$i" 2>/dev/null; done
	unload_mod pfcsim
	unload_mod pfcwd
}

test_load_unload() {
	cleanup_all
	load_mod pfcwd
	mod_loaded pfcwd || fail "pfcwd not in /proc/modules after modprobe"
	modprobe -r pfcwd || fail "modprobe -r pfcwd failed"
	mod_loaded pfcwd && fail "pfcwd still loaded after modprobe -r"
	for i in $(seq 20); do
		modprobe pfcwd && modprobe -r pfcwd || fail "load/unload cycle $i failed"
	done
	return 0
}

test_autoload() {
	cleanup_all
	ip link add pfd0 type dummy || fail "cannot create dummy"
	tc qdisc add dev pfd0 root handle 1: pfcwd || fail "tc qdisc add did not autoload pfcwd"
	mod_loaded pfcwd || fail "pfcwd not loaded after tc qdisc add"
	tc qdisc show dev pfd0 | grep -q "^qdisc pfcwd 1: root" ||
		fail "qdisc not shown: $(tc qdisc show dev pfd0)"
	# In use: the module must not go while a qdisc of its kind exists.
	modprobe -r pfcwd 2>/dev/null && fail "pfcwd unloaded with a qdisc attached"
	mod_loaded pfcwd || fail "pfcwd vanished"
	tc qdisc del dev pfd0 root || fail "tc qdisc del failed"
	modprobe -r pfcwd || fail "cannot unload after qdisc delete"
	ip link del pfd0
}

test_unload_after_device_delete() {
	cleanup_all
	for i in 0 1 2 3; do
		ip link add "pfd$i" type dummy && ip link set "pfd$i" up &&
			tc qdisc add dev "pfd$i" root pfcwd || fail "setup pfd$i"
	done
	check "$PFCWD_PKT" send pfd0 3 100 >/dev/null
	for i in 0 1 2 3; do ip link del "pfd$i"; done
	modprobe -r pfcwd || fail "cannot unload after devices deleted"
}

test_pfcsim_ports() {
	cleanup_all
	load_mod pfcsim
	[ -w $PFCSIM_DFS/new_port ] || fail "no $PFCSIM_DFS/new_port"
	pfcsim_new psim0
	pfcsim_new psim1
	n=$(ls -d /sys/class/net/psim0/queues/tx-* | wc -l)
	expect_eq "$n" 8 "TX queues of psim0"
	expect_eq "$(cat /sys/class/net/psim0/carrier)" 1 "carrier of psim0"
	pfcsim_del psim1
	[ -e /sys/class/net/psim1 ] && fail "psim1 still exists after del_port"
	# Unloading with a port present removes it.
	modprobe -r pfcsim || fail "cannot unload pfcsim with a port present"
	[ -e /sys/class/net/psim0 ] && fail "psim0 survived module unload"
	return 0
}

test_pfcsim_bad_input() {
	cleanup_all
	load_mod pfcsim
	pfcsim_new psim0
	echo psim0 > $PFCSIM_DFS/new_port 2>/dev/null && fail "duplicate name accepted"
	echo "bad/name" > $PFCSIM_DFS/new_port 2>/dev/null && fail "name with / accepted"
	echo "" > $PFCSIM_DFS/new_port 2>/dev/null && fail "empty name accepted"
	echo "0123456789abcdefXYZ" > $PFCSIM_DFS/new_port 2>/dev/null &&
		fail "over-long name accepted"
	echo nosuch > $PFCSIM_DFS/del_port 2>/dev/null && fail "unknown port deleted"
	n=$(ls /sys/class/net | grep -c '^psim')
	expect_eq "$n" 1 "pfcsim ports after bad writes"
	modprobe -r pfcsim || fail "cannot unload pfcsim"
}

# The deleters: $3 ip processes on CPU 0, started now, each reading its
# share of the deletions of devices ud0..ud<$2 - 1> from a FIFO of prefix
# $1, and one writer that gives them their lines once the module is going
# (its exit has begun).  Running already, an ip process waits for nothing
# but RTNL; and only the writer polls, so the unload keeps the CPU.
# Adds their PIDs to the caller's array del.
start_deleters() {
	local b=$1 n=$2 dels=$3 k

	for ((k = 0; k < dels; k++)); do
		rm -f "$b.fifo$k"
		mkfifo "$b.fifo$k" || fail "mkfifo"
		taskset -c 0 ip -force -batch "$b.fifo$k" > /dev/null 2>&1 &
		del+=($!)
	done
	feed_when_going "$b" "$n" "$dels" &
	del+=($!)
}

feed_when_going() {
	local b=$1 n=$2 dels=$3 st k i
	local -a fd

	for ((k = 0; k < dels; k++)); do
		exec {fd[k]}> "$b.fifo$k"
	done
	while read -r st < /sys/module/pfcwd/initstate; do
		[ "$st" = going ] && break
		sleep 0.001
	done 2>/dev/null
	for ((k = 0; k < dels; k++)); do
		for ((i = k; i < n; i += dels)); do
			echo "link del ud$i"
		done >&"${fd[k]}"
		exec {fd[k]}>&-
	done
}

# A kprobe counting calls of pfcwd_action_forget(), which undoes a port's
# state when its device moves to another netns (and on nothing an unload
# does): "forget_probe on" arms it, "forget_probe off" prints its hits and
# removes it.  The hits outlive the module.
forget_probe() {
	local t=/sys/kernel/tracing ev=pfcwd_test/pfcwd_exit_forget

	[ -e $t/kprobe_events ] || mount -t tracefs nodev $t 2>/dev/null
	if [ "$1" = on ]; then
		echo "p:$ev pfcwd:pfcwd_action_forget" >> $t/kprobe_events ||
			fail "cannot set a kprobe on pfcwd_action_forget"
		echo 1 > $t/events/$ev/enable || fail "cannot enable the kprobe"
		return
	fi
	awk '$1 == "pfcwd_exit_forget" { print $2 }' $t/kprobe_profile
	echo 0 > $t/events/$ev/enable
	echo "-:$ev" >> $t/kprobe_events
}

# Held ports whose devices are deleted while the module unloads.  The
# deleters are given their devices once the module is "going" and queue
# for RTNL behind the exit, so a deletion runs whenever the exit lets RTNL
# go: the exit meets devices unregistered between any two of its RTNL
# sections.  Two
# pfcsim ports in a storm, whose pfc_en bit each RTNL section of the exit
# puts back through a getpfc slowed to 40 ms, keep RTNL long enough for
# the deleters to queue up behind it.
# A round raced when deletions landed during the unload and some were
# still to come when it ended: the deleters ran through the whole exit.
test_unload_races_device_delete() {
	local n=96 dels=6 rounds=6 r i s d left raced=0 del pid
	local batch=/tmp/unload_del.$$

	# Each held port is polled under RTNL: on the debug kernel's single
	# vCPU 96 of them leave the unload and the deleters hardly any CPU;
	# its rounds take several times as long.
	on_debug_kernel && n=24 rounds=3
	cleanup_all
	for s in us0 us1; do
		pfcsim_new $s
		dcb_set pfc set dev $s prio-pfc 3:on || fail "dcb $s"
		echo 3 > $PFCSIM_DFS/$s/rx_storm || fail "rx_storm $s"
	done
	for ((r = 1; r <= rounds; r++)); do
		load_mod pfcwd
		for ((i = 0; i < n; i++)); do
			echo "link add ud$i type dummy"
			echo "link set ud$i up"
		done > $batch.add
		check ip -batch $batch.add
		for ((i = 0; i < n; i++)); do
			echo "set ud$i enabled=1"
		done | python3 -S "$SELFTEST_DIR/genl.py" batch ||
			fail "round $r: cannot enable the ports"
		expect_eq "$(ls -d /sys/class/net/ud*/pfcwd | wc -l)" $n "round $r: held ports"
		for s in us0 us1; do
			echo "set $s enabled=1 detect_ms=50"
		done | python3 -S "$SELFTEST_DIR/genl.py" batch ||
			fail "round $r: cannot enable us0, us1"
		for s in us0 us1; do
			for ((i = 0; i < 100; i++)); do
				[ "$(cat /sys/class/net/$s/pfcwd/stormed)" = 3 ] && break
				sleep 0.05
			done
			expect_eq "$(cat /sys/class/net/$s/pfcwd/stormed)" 3 "round $r: $s stormed"
			echo 40000 > $PFCSIM_DFS/$s/getpfc_delay_us || fail "getpfc_delay_us"
		done
		[ $r = 1 ] && forget_probe on
		del=()
		start_deleters $batch $n $dels
		(
			modprobe -r pfcwd || exit 1
			left=(/sys/class/net/ud*)
			[ -e "${left[0]}" ] || left=()
			echo ${#left[@]} > $batch.left
		) &
		pid=$!
		wait $pid || fail "round $r: modprobe -r pfcwd failed"
		wait "${del[@]}"
		mod_loaded pfcwd && fail "round $r: pfcwd still loaded"
		left=$(cat $batch.left)
		log "round $r: $((n - left)) of $n deletions landed during the unload, $left after it"
		[ "$left" -gt 0 ] && [ "$left" -lt $n ] && raced=$((raced + 1))
		for d in /sys/class/net/ud*; do
			[ -e "$d" ] && echo "link del ${d##*/}"
		done > $batch.rest
		ip -force -batch $batch.rest 2>/dev/null
		for s in us0 us1; do echo 0 > $PFCSIM_DFS/$s/getpfc_delay_us; done
	done
	rm -f $batch.*
	unload_mod pfcsim
	log "$raced of $rounds rounds raced"
	[ $raced -gt 0 ] || fail "no round's deletions straddled the unload's end"
	n=$(forget_probe off)
	# The exit's own (replayed) unregister events are no netns moves.
	expect_eq "$n" 0 "ports forgotten as if moved to another netns during the unloads"
}

TESTS=(
	"test_load_unload	module: load and unload, 20 cycles"
	"test_autoload	module: tc qdisc add autoloads pfcwd; in use while attached"
	"test_unload_after_device_delete	module: unload after devices with qdiscs are deleted"
	"test_unload_races_device_delete	module: held ports' devices deleted while the module unloads	150"
	"test_pfcsim_ports	pfcsim: ports created, deleted, removed on unload"
	"test_pfcsim_bad_input	pfcsim: bad debugfs writes rejected"
)

tap_main "$@"
