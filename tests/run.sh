#!/usr/bin/env bash
# Description: runs every test of act, one line per test with its time, and
# ends with "N passed, N failed, N skipped".
#
#   unit         tests/unit/test_*.c -> target/tests/test_*  (C, one per module)
#   integration  tests/integration/test_*.py    (real binaries, file/loop devices)
#   golden       tests/golden/test_*.py         (act_latency.py's outputs
#                byte for byte: the reference's, the fixture logs')
#   python       tests/python/test_*.py and tests/python/*/test_*.py (the
#                act package, module by module, a folder per subpackage:
#                python/sizing/test_rates.py tests analysis/act/sizing/rates.py)
#
# Usage: tests/run.sh [PATTERN...]
#   With no PATTERN every test runs; otherwise a test runs when its name (as
#   printed: unit/test_cfg, integration/test_signal.py, ...) contains any of
#   the PATTERNs, e.g. `tests/run.sh unit`, `tests/run.sh golden/
#   python/sizing/`, `tests/run.sh python/`.
#
# Each test exits 0 (pass), 77 (skip) or anything else (fail). The output of
# a failed test is shown; every test's output is kept in target/test-logs/.
#
# A unit test runs only when its binary is current: target/tests/<name>
# missing, or older than tests/unit/<name>.c, tests/unit/unit.h or what it
# links (target/lib/libact.a and the two programs' config objects), is a
# FAIL ("not built from current sources - run make unit"); binaries in
# target/tests without a source are not run.
#
# A test that passes without some of its parts (root only, a tool missing)
# says so in lines of its output, as tests/lib/checker.py's skip_part
# prints them: `skipped without root: PART` and `skipped: PART (WHY)`; the
# PASS line names those parts, e.g.
#   PASS  integration/test_x.py   1.2s  (skipped without root: loop device)
#
# Each test gets ACT_TEST_TIMEOUT seconds (default 300). It runs in a
# process group of its own (coreutils timeout); at the timeout the whole
# group gets SIGTERM, then SIGKILL 5 s later if still there, and the test is
# a FAIL "(timeout after Ns)". Processes a test leaves behind in its group
# are killed when it ends. SIGINT/SIGTERM/SIGHUP to the runner are passed on
# to the running test's group, then the runner stops.
#
# ACT_TARGET selects the build under test (default target; make test
# SANITIZE=... sets target/san-*).
#
# Exit status 0 only when no test failed and at least one passed.
set -u

cd "$(dirname "$0")/.." || exit 1

case "${1:-}" in
-h | --help)
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac

timeout_s="${ACT_TEST_TIMEOUT:-300}"
kill_after_s=5
if ! [[ "$timeout_s" =~ ^[0-9]+$ ]] || [ "$((10#$timeout_s))" -le 0 ]; then
	echo "tests/run.sh: ACT_TEST_TIMEOUT must be a whole number of" \
		"seconds > 0, not '$timeout_s'" >&2
	exit 2
fi
timeout_s=$((10#$timeout_s))
if ! command -v timeout >/dev/null 2>&1; then
	echo "tests/run.sh: needs timeout (GNU coreutils)" >&2
	exit 2
fi

# ACT_TARGET: the build to test (make test sets it: target, or
# target/san-* for a sanitized build).
target="${ACT_TARGET:-target}"
export ACT_BIN="${ACT_BIN:-$PWD/$target/bin}"
logs=$target/test-logs
mkdir -p "$logs" || exit 1

patterns=("$@")
passed=0
failed=0
skipped=0
failed_names=()
cur_pid=
cur_name=

# Whether the test named $1 (as printed) contains one of the PATTERNs.
wanted() {
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}

summary() {
	if [ $failed -ne 0 ]; then
		echo "failed: ${failed_names[*]}"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
}

# A signal to the runner: pass it on to the running test (timeout forwards
# it to the test's process group, and SIGKILLs it kill_after_s later), wait
# for it, and stop.
on_signal() {
	trap - INT TERM HUP
	if [ -n "$cur_pid" ]; then
		kill -s "$1" "$cur_pid" 2>/dev/null
		wait "$cur_pid" 2>/dev/null
		kill -s KILL -- "-$cur_pid" 2>/dev/null
	fi
	echo "tests/run.sh: interrupted by SIG$1${cur_pid:+ during $cur_name}"
	summary
	exit "$2"
}
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
trap 'on_signal HUP 129' HUP

# Whether process group $1 has a process that is not a zombie (one killed
# with its parent is a zombie until init reaps it).
group_alive() {
	local f line st ppid pgrp rest
	kill -0 -- "-$1" 2>/dev/null || return 1
	[ -d /proc/self ] || return 0
	for f in /proc/[0-9]*/stat; do
		read -r line <"$f" 2>/dev/null || continue
		read -r st ppid pgrp rest <<<"${line##*) }"
		[ "$pgrp" = "$1" ] && [ "$st" != Z ] && return 0
	done
	return 1
}

fail_line() { # name secs why
	printf 'FAIL  %-44s %6ss  (%s)\n' "$1" "$2" "$3"
	failed=$((failed + 1))
	failed_names+=("$1")
}

show_log() {
	sed 's/^/      | /' "$1" | tail -n 40
}

# The parts a passing test skipped, from the lines of log $1: "skipped
# without root: A, B; skipped: C" (empty when none).
skipped_parts() {
	awk '
	function add(list, part) { return list (list == "" ? "" : ", ") part }
	sub(/^skipped without root: /, "") { root = add(root, $0); next }
	sub(/^skipped: /, "") { sub(/ \(.*$/, ""); other = add(other, $0) }
	END {
		if (root != "") out = "skipped without root: " root
		if (other != "") out = out (out == "" ? "" : "; ") "skipped: " other
		print out
	}' "$1"
}

# What every unit binary is built from besides its own source (the
# Makefile's $(TBIN)/% rule): one missing here is not checked.
unit_deps=(tests/unit/unit.h "$target/lib/libact.a"
	"$target/obj/storage/storage_cfg.o" "$target/obj/index/index_cfg.o")

# tests: "name<TAB>path"; unit tests are listed from their sources.
tests=()
for src in tests/unit/test_*.c; do
	[ -f "$src" ] || continue
	base=$(basename "$src" .c)
	tests+=("unit/$base	$target/tests/$base")
done
for t in tests/integration/test_*.py tests/golden/test_*.py \
	tests/python/test_*.py tests/python/*/test_*.py; do
	[ -f "$t" ] && tests+=("${t#tests/}	$t")
done

echo "tests/run.sh: timeout ${timeout_s}s per test (ACT_TEST_TIMEOUT)," \
	"logs in $logs/"

for entry in "${tests[@]}"; do
	name=${entry%%	*}
	t=${entry#*	}
	wanted "$name" || continue

	log="$logs/$(echo "$name" | tr '/' '_').log"

	case "$name" in
	unit/*)
		why=
		if [ ! -e "$t" ]; then
			why="$t does not exist"
		elif [ ! -x "$t" ]; then
			why="$t is not executable"
		else
			for dep in "tests/unit/${name#unit/}.c" "${unit_deps[@]}"; do
				if [ -e "$dep" ] && [ "$t" -ot "$dep" ]; then
					why="$t is older than $dep"
					break
				fi
			done
		fi
		if [ -n "$why" ]; then
			printf '%s: not built from current sources - run make unit\n' \
				"$why" >"$log"
			fail_line "$name" "0.0" \
				"not built from current sources - run make unit"
			show_log "$log"
			continue
		fi
		cmd=("$t")
		;;
	*) cmd=(python3 "$t") ;;
	esac

	start=$(date +%s%N)
	# Not --foreground: timeout puts itself and the test in a new process
	# group and signals the whole group, so the test's children go too. In
	# the background so that a signal to the runner is handled at once
	# (timeout resets SIGINT/SIGQUIT, ignored in background jobs, for the
	# test).
	timeout -k "$kill_after_s" "$timeout_s" "${cmd[@]}" >"$log" 2>&1 \
		</dev/null &
	cur_pid=$!
	cur_name=$name
	# (2>/dev/null: no "Killed" notice from bash when timeout SIGKILLs.)
	wait "$cur_pid" 2>/dev/null
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	# Anything still in the test's process group (e.g. a child that
	# ignored SIGTERM after the test itself died) is killed.
	leftover=
	if group_alive "$cur_pid"; then
		kill -s KILL -- "-$cur_pid" 2>/dev/null
		leftover="tests/run.sh: killed processes the test left running"
		echo "$leftover" >>"$log"
	fi
	cur_pid=
	secs=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))

	if [ $rc -eq 0 ]; then
		parts=$(skipped_parts "$log")
		printf 'PASS  %-44s %6ss%s\n' "$name" "$secs" "${parts:+  ($parts)}"
		passed=$((passed + 1))
		[ -z "$leftover" ] || echo "      | $leftover"
	elif [ $rc -eq 77 ]; then
		printf 'SKIP  %-44s %6ss  (%s)\n' "$name" "$secs" \
			"$(grep -v '^tests/run.sh: ' "$log" | tail -n 1 | cut -c1-60)"
		skipped=$((skipped + 1))
		[ -z "$leftover" ] || echo "      | $leftover"
	elif { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } &&
		[ $ms -ge $((timeout_s * 1000)) ]; then
		# 124: timed out, ended by SIGTERM; 137: timeout's own SIGKILL.
		echo "tests/run.sh: timeout after ${timeout_s}s" >>"$log"
		fail_line "$name" "$secs" "timeout after ${timeout_s}s"
		show_log "$log"
	else
		fail_line "$name" "$secs" "exit $rc"
		show_log "$log"
	fi
done

summary
[ $failed -eq 0 ] && [ $passed -gt 0 ]
