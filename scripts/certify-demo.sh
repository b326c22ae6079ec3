#!/usr/bin/env bash
# Description: the certification demo (make certify-demo). Runs a whole
# act_certify campaign - test 1 at 1x, the 2x stress test, then the ceiling
# ladder 2x, 4x - with steps of a few seconds on a temporary 256 MiB
# file-backed device (no spare drive needed, nothing else touched), and
# ends with the path of the report.
#
#   CERTIFY_DEMO_SECONDS=30 make certify-demo   longer steps (default 4)
#   TMPDIR=/mnt/ssd make certify-demo           the device file elsewhere
#
# The campaign directory (configs, logs, report.html, summary.json,
# summary.md) is target/certify-demo, replaced by each run.
set -eu

cd "$(dirname "$0")/.."
bin=target/bin
seconds="${CERTIFY_DEMO_SECONDS:-4}"
out=target/certify-demo
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/act-certify-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT

device="$dir/demo-device"

# Prepare the "drive" as for a real test: act_prep creates the 256 MiB
# file, then cleans and salts it.
"$bin/act_prep" --size 256M "$device" > /dev/null

rm -rf "$out"
echo "certify-demo: act_certify on $device, $seconds s per step"
echo
# Its last line is the path of the report (report.html; summary.json and
# summary.md beside it).
status=0
./analysis/act_certify.py --device "$device" --load 1 --seconds "$seconds" \
	--ceiling --ladder 2,4 --out "$out" || status=$?
exit "$status"
