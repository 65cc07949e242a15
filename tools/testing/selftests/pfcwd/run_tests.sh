#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs pfcwd's selftests (inside the VM, as root) and prints one TAP stream
# per script, indented as subtests, with a top-level result per script.
#
#   run_tests.sh [SCRIPT...]     default: every *.sh here except lib.sh
#
# Each script's output is also saved to $PFCWD_RESULTS/<kernel>/<script>.tap
# when PFCWD_RESULTS is set.

dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir" || exit 1

if [ $# -gt 0 ]; then
	scripts=("$@")
else
	mapfile -t scripts < <(ls ./*.sh | grep -v -e '/lib\.sh$' -e '/run_tests\.sh$' | sort)
fi

out=
if [ -n "${PFCWD_RESULTS:-}" ]; then
	out=$PFCWD_RESULTS/$(uname -r)
	mkdir -p "$out"
fi

echo "TAP version 13"
echo "1..${#scripts[@]}"
n=0 rc=0
for s in "${scripts[@]}"; do
	n=$((n + 1))
	name=$(basename "$s" .sh)
	echo "# selftest: $name"
	if [ -n "$out" ]; then
		"./$(basename "$s")" 2>&1 | tee "$out/$name.tap" | sed 's/^/  /'
		r=${PIPESTATUS[0]}
	else
		"./$(basename "$s")" 2>&1 | sed 's/^/  /'
		r=${PIPESTATUS[0]}
	fi
	if [ "$r" = 0 ]; then
		echo "ok $n selftests: $name"
	else
		echo "not ok $n selftests: $name"
		rc=1
	fi
done
exit $rc
