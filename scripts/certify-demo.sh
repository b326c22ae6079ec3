#!/usr/bin/env bash
# Description: the certification demo (make certify-demo). Runs a whole
# act_certify campaign - test 1 at 1x, the 2x stress test, then the ceiling
# ladder 2x, 4x - with 10-second steps on a temporary 256 MiB file (no
# spare drive needed, nothing else touched), and ends with the path of the
# report. It is a demo of the process, not of a drive: the file is in RAM
# (/dev/shm) when it can be, so that a busy 2-CPU machine still carries
# the load, and a verdict that is not "certified" still ends the demo
# with status 0 (it is shown, not hidden).
#
#   CERTIFY_DEMO_SECONDS=30 make certify-demo   longer steps (default 10)
#   TMPDIR=/mnt/ssd make certify-demo           the device file there
#                                               (reads of a real disk)
#
# The campaign directory (configs, logs, report.html, summary.json,
# summary.md) is target/certify-demo, replaced by each run. After Ctrl-C
# the device file is kept, so the --resume act_certify suggests works; the
# next make certify-demo removes it (its path is in
# target/certify-demo.device).
set -eu

cd "$(dirname "$0")/.."
bin=target/bin
seconds="${CERTIFY_DEMO_SECONDS:-10}"
out=target/certify-demo
keep=target/certify-demo.device

# A device file left by an interrupted demo: removed now.
if [ -f "$keep" ]; then
	old=$(cat "$keep")
	case "$old" in
	*/act-certify-demo.*) rm -rf "$old" ;;
	esac
	rm -f "$keep"
fi

# Where the file goes: $TMPDIR when set; else /dev/shm (tmpfs: RAM-speed
# reads, whatever else the machine does) when it has room; else /var/tmp.
root="${TMPDIR:-}"
if [ -z "$root" ]; then
	root=/var/tmp
	if [ -d /dev/shm ] && [ -w /dev/shm ] &&
			[ "$(df -Pk /dev/shm 2>/dev/null |
				awk 'NR == 2 { print $4 }')" -gt 524288 ] 2>/dev/null; then
		root=/dev/shm
	fi
fi
dir=$(mktemp -d "$root/act-certify-demo.XXXXXX")
keep_device=no
cleanup() {
	if [ "$keep_device" = no ]; then
		rm -rf "$dir"
	fi
}
trap cleanup EXIT

device="$dir/demo-device"

# Prepare the "drive" as for a real test: a 256 MiB file (act never
# creates files under /dev, so it is made here), cleaned and salted by
# act_prep.
: > "$device"
truncate -s 256M "$device"
"$bin/act_prep" "$device" > /dev/null

rm -rf "$out"
echo "certify-demo: a DEMO of act_certify - $seconds-second steps on a" \
	"256 MiB file"
echo "  ($device): not a certification, and nothing about any drive"
echo

# Its last line is the path of the report (report.html; summary.json and
# summary.md beside it).
status=0
./analysis/act_certify.py --device "$device" --load 1 --seconds "$seconds" \
	--ceiling --ladder 2,4 --out "$out" || status=$?
echo
case "$status" in
0)
	echo "certify-demo: done (a demo: its report says TRIAL)" ;;
1)
	echo "certify-demo: done - the demo's verdict is not \"certified\":" \
		"the machine was too busy"
	echo "  for this file's reads, see the report (a demo; it is not" \
		"a failure of make)"
	status=0 ;;
*)
	if [ "$status" -ge 128 ]; then
		# act_certify suggested --resume: keep its device until then
		keep_device=yes
		echo "$dir" > "$keep"
		echo "certify-demo: interrupted - the demo's device file is kept" \
			"for --resume:"
		echo "  $device (the next make certify-demo removes it)"
	fi ;;
esac
exit "$status"
