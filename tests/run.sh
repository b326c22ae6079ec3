#!/usr/bin/env bash
# Description: runs every test of act, one line per test with its time, and
# ends with "N passed, N failed, N skipped".
#
#   unit         target/tests/test_*            (C, one program per module)
#   integration  tests/integration/test_*.py    (real binaries, file/loop devices)
#   analysis     tests/analysis/test_*.py       (act_latency.py)
#   helper       tests/helper/test_*.py         (act_config_helper.py)
#
# Each test exits 0 (pass), 77 (skip) or anything else (fail). The output of
# a failed test is shown; others' output is kept in target/test-logs/.
# Usage: tests/run.sh [PATTERN]   (only tests whose path contains PATTERN)
set -u

cd "$(dirname "$0")/.." || exit 1

export ACT_BIN="${ACT_BIN:-$PWD/target/bin}"
logs=target/test-logs
mkdir -p "$logs"

pattern="${1:-}"
passed=0
failed=0
skipped=0
failed_names=()

tests=()
for t in target/tests/test_*; do [ -x "$t" ] && tests+=("$t"); done
for t in tests/integration/test_*.py tests/analysis/test_*.py \
		tests/helper/test_*.py; do
	[ -f "$t" ] && tests+=("$t")
done

for t in "${tests[@]}"; do
	case "$t" in *"$pattern"*) ;; *) continue ;; esac

	name=${t/#target\/tests\//unit/}
	name=${name#tests/}
	log="$logs/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s%N)

	case "$t" in
	*.py) python3 "$t" >"$log" 2>&1 </dev/null ;;
	*) "$t" >"$log" 2>&1 </dev/null ;;
	esac
	rc=$?

	ms=$((($(date +%s%N) - start) / 1000000))
	secs=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))

	if [ $rc -eq 0 ]; then
		printf 'PASS  %-44s %6ss\n' "$name" "$secs"
		passed=$((passed + 1))
	elif [ $rc -eq 77 ]; then
		printf 'SKIP  %-44s %6ss  (%s)\n' "$name" "$secs" \
			"$(tail -n 1 "$log" | cut -c1-60)"
		skipped=$((skipped + 1))
	else
		printf 'FAIL  %-44s %6ss  (exit %d)\n' "$name" "$secs" "$rc"
		sed 's/^/      | /' "$log" | tail -n 40
		failed=$((failed + 1))
		failed_names+=("$name")
	fi
done

if [ $failed -ne 0 ]; then
	echo "failed: ${failed_names[*]}"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
