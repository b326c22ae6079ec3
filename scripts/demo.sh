#!/usr/bin/env bash
# Description: the ready-to-run demo (make demo). Runs act_storage for about
# 20 seconds at the 1x load on a temporary 256 MiB file-backed device - no
# spare drive needed, nothing else touched - then shows the latency table.
#
#   DEMO_SECONDS=60 make demo      a longer run
#   TMPDIR=/mnt/ssd make demo      put the device file on another file system
set -eu

cd "$(dirname "$0")/.."
bin=target/bin
seconds="${DEMO_SECONDS:-20}"
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/act-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT

device="$dir/demo-device"
config="$dir/demo.conf"
log=target/demo.log

# Prepare the "drive" as for a real test: act_prep creates the 256 MiB file,
# then cleans and salts it, so reads hit real data instead of holes.
"$bin/act_prep" --size 256M "$device" > /dev/null

cat > "$config" <<CONF
# act demo: 1x load (2000 reads/s, 1000 writes/s) on a 256 MiB file.
device-names: $device
service-threads: 4
test-duration-sec: $seconds
read-reqs-per-sec: 2000
write-reqs-per-sec: 1000
CONF

echo "demo: act_storage on $device for $seconds s (log: $log)"
"$bin/act_storage" "$config" > "$log"
echo

if [ -x analysis/act_latency.py ]; then
	./analysis/act_latency.py -l "$log" -t 5 -x -h reads -h large-block-writes
else
	tail -n 30 "$log"
fi
