#!/usr/bin/env python3
"""Write the generated fixture logs of tests/golden/fixtures.

    python3 tests/golden/make_fixtures.py

The logs are deterministic (seeded), small, and follow
docs/log-format.md; each exercises one thing (see FIXTURES).  They
are checked in: run this only to change them, then review the expected
outputs in fixtures/expected (the tests print a diff).
example_storage.log and the latency_*.txt files are copies of the reference
examples and are not generated.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import synthlog  # noqa: E402  (tests/lib/synthlog.py)

# A reference 6.x act_index echo (num-queues x threads-per-queue), not
# today's.
INDEX_ITEMS = [
    ("num-devices", None), ("num-queues", "4"), ("threads-per-queue", "4"),
    ("test-duration-sec", None), ("report-interval-sec", None),
    ("microsecond-histograms", None), ("read-reqs-per-sec", "1000"),
    ("write-reqs-per-sec", "1000"), ("replication-factor", "1"),
    ("defrag-lwm-pct", "50"), ("disable-odsync", "no"),
    ("max-lag-sec", "10"),
]
INDEX_DERIVED = [
    ("read-req-threads", "16"),
    ("cache-thread-reads-and-writes-per-sec", "1200.00"),
]
DEVICE_BYTES = 2147483648


def make_log(program, devices, duration, interval, scale, hists, seed,
             commit=False, version="6.6", extra=None, ran=None, end=(),
             issued=False):
    """A whole log.  hists: (name, ops per second, bucket shares) in
    order; extra: {t: {name: lines}}, lines after a histogram of the
    report at t.  Reports come every interval up to ran (default: the
    whole test-duration-sec, with a last report at duration when the
    interval does not divide it); the lines of end follow the last one (a
    stop line, ERROR lines).

    The derived configuration plans 2000 reads/s (act_storage), whatever
    hists do; issued: it plans half of hists' rates instead - what the
    histograms' counts, each at least half of its rate, always do: a log
    whose load was issued (act_latency.md, "The load")."""
    rnd = random.Random(seed)
    if program == synthlog.STORAGE:
        items = synthlog.config_items(
            program, devices, service_threads=8, test_duration_sec=duration,
            report_interval_sec=interval, microsecond_histograms=scale,
            commit_to_device="yes" if commit else "no")
        derived = issued_plan(hists, commit) if issued else \
            synthlog.storage_derived(2000, 1000 if commit else 0, "23.53",
                                     "23.53")
    else:
        values = {"num-devices": str(len(devices)),
                  "test-duration-sec": str(duration),
                  "report-interval-sec": str(interval),
                  "microsecond-histograms": scale}
        items = [("device-names", " ".join(devices))] + [
            (k, values.get(k, v)) for k, v in INDEX_ITEMS]
        derived = INDEX_DERIVED
    out = synthlog.header(
        program, items, derived,
        [synthlog.device_line(program, d, DEVICE_BYTES) for d in devices],
        [name for name, _, _ in hists], version=version,
        notice="Fixture log written by tests/golden/make_fixtures.py")
    times = list(range(interval, (ran or duration) + 1, interval))
    if ran is None and duration % interval:
        times.append(duration)              # the last report, at the end
    slices = []
    for _ in times:
        now = []
        for name, rate, shares in hists:
            n = rate * interval
            counts = {}
            for b, share in shares.items():
                x = n * share * (0.5 + rnd.random())
                k = int(x)
                if rnd.random() < x - k:
                    k += 1
                counts[b] = k
            now.append((name, counts))
        slices.append(now)
    out += synthlog.reports(slices, times=times, extra=extra)
    out.extend(end)
    return synthlog.text(out)


def issued_plan(hists, commit):
    """act_storage's derived configuration planning half of each stream's
    rate in hists."""
    rate = {name: r / 2 for name, r, _ in hists}
    return synthlog.storage_derived(
        "%g" % rate["reads"], "%g" % (rate.get("writes", 0) if commit else 0),
        "%.2f" % rate.get("large-block-reads", 0),
        "%.2f" % rate.get("large-block-writes", 0))


READS = {0: 0.97, 1: 0.02, 2: 0.006, 3: 0.003, 5: 0.0008, 7: 0.0002}
FAST = {0: 0.995, 1: 0.004, 2: 0.001}
LARGE = {0: 0.9, 1: 0.07, 2: 0.02, 4: 0.01}
US = {6: 0.3, 7: 0.4, 8: 0.2, 9: 0.06, 10: 0.03, 11: 0.008, 13: 0.002}
SLOW = {0: 0.9, 1: 0.05, 3: 0.03, 4: 0.01, 6: 0.008, 7: 0.002}


def storage_long_names():
    devs = ["/dev/very-long-device-name", "/dev/sdc"]
    hists = [("reads", 2000, READS)]
    hists += [(d + "-reads", 1000, READS) for d in devs]
    hists += [("large-block-reads", 24, LARGE), ("large-block-writes", 24,
                                                 LARGE)]
    hists += [("writes", 1000, FAST)] + [(d + "-writes", 500, FAST)
                                         for d in devs]
    return make_log("storage", devs, 8, 1, "no", hists, 1, commit=True)


def index_us():
    devs = ["/dev/nvme0n1", "/dev/nvme1n1"]
    hists = [("reads", 1000, US)] + [(d + "-reads", 500, US) for d in devs]
    hists += [("writes", 1200, US)] + [(d + "-writes", 600, US)
                                       for d in devs]
    return make_log("index", devs, 6, 1, "yes", hists, 2)


def interval2():
    hists = [("reads", 2000, READS), ("/dev/sdb-reads", 2000, READS),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    return make_log("storage", ["/dev/sdb"], 12, 2, "no", hists, 3)


def messy():
    """ERROR/WARNING lines in and between reports, a stop line at the end."""
    extra = {2: {"reads": ["ERROR: read /dev/sdb offset 4096 size 1536: "
                           "errno 5 (Input/output error)"]},
             3: {"large-block-reads": ["WARNING: large-block reads are 2 "
                                       "sec behind"]}}
    hists = [("reads", 2000, READS), ("/dev/sdb-reads", 2000, READS),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    text = make_log("storage", ["/dev/sdb"], 5, 1, "no", hists, 4,
                    extra=extra)
    text = text.replace("\nafter 4 sec:\n",
                        "\nERROR: drive /dev/sdb stalled 1200 ms on a read"
                        "\nafter 4 sec:\n")
    return text + synthlog.text([synthlog.stop_signal(5)])


def live():
    """A log still being written: the last report is cut within a line."""
    hists = [("reads", 2000, READS), ("/dev/sdb-reads", 2000, READS),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    text = make_log("storage", ["/dev/sdb"], 7, 1, "no", hists, 5)
    cut = text.index("after 7 sec:")
    cut = text.index("\n (", cut) + 20          # within reads' first line
    return text[:cut]


def no_scale():
    """An older 6.0 log without the microsecond-histograms line."""
    hists = [("reads", 2000, READS), ("/dev/sdb-reads", 2000, READS),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    text = make_log("storage", ["/dev/sdb"], 4, 1, "no", hists, 6,
                    version="6.0")
    return text.replace("microsecond-histograms: no\n", "")


def high_buckets():
    """Latencies in the highest buckets, up to 64."""
    shares = {0: 0.5, 20: 0.2, 40: 0.1, 58: 0.1, 63: 0.05, 64: 0.05}
    hists = [("reads", 2000, shares), ("/dev/sdb-reads", 2000, shares)]
    return make_log("storage", ["/dev/sdb"], 4, 1, "no", hists, 7)


def slow():
    """A device that fails the standard criteria (and has a >64 ms tail),
    at the load it was given."""
    hists = [("reads", 2000, SLOW), ("/dev/sdb-reads", 2000, SLOW),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    return make_log("storage", ["/dev/sdb"], 6, 1, "no", hists, 8,
                    issued=True)


def fast():
    """A device that passes the standard criteria, at the load it was
    given."""
    hists = [("reads", 2000, FAST), ("/dev/sdb-reads", 2000, FAST),
             ("large-block-reads", 24, FAST),
             ("large-block-writes", 24, FAST)]
    return make_log("storage", ["/dev/sdb"], 6, 1, "no", hists, 9,
                    issued=True)


PERFECT = {0: 1.0}
DAY = 86400
STORAGE_HISTS = [("reads", 2000, PERFECT), ("/dev/sdb-reads", 2000, PERFECT),
                 ("large-block-reads", 24, PERFECT),
                 ("large-block-writes", 24, PERFECT)]


def stopped_sigint():
    """A 24-hour test stopped by Ctrl-C after 8 sec: perfect latencies."""
    return make_log("storage", ["/dev/sdb"], DAY, 1, "no", STORAGE_HISTS, 10,
                    ran=8, end=[synthlog.stop_signal(8)])


def stopped_lag():
    """A 24-hour test stopped for lag after 6 sec (exit status 3)."""
    return make_log("storage", ["/dev/sdb"], DAY, 1, "no", STORAGE_HISTS, 11,
                    ran=6, end=[
                        "ERROR: service threads can't keep up: 10.204 sec "
                        "behind schedule, more than max-lag-sec (10)",
                        "ERROR: ACT can't do the requested load - test "
                        "stopped - try configuring more service-threads"])


def stopped_io():
    """A 24-hour test stopped by I/O errors after 5 sec (exit status 4);
    one I/O error below io-error-limit came earlier, between reports."""
    text = make_log("storage", ["/dev/sdb"], DAY, 1, "no", STORAGE_HISTS,
                    12, ran=5, end=[io_error(2)])
    text = text.replace("\nafter 4 sec:\n", "\n%s\nafter 4 sec:\n"
                        % io_error(1))
    return text.replace("max-lag-sec: 10\n",
                        "max-lag-sec: 10\nio-error-limit: 1\n")


def io_error(n):
    return synthlog.io_error("/dev/sdb", 123456512, 1536, failed=n, limit=1)


def watchdog():
    """A run that reached its end, then the watchdog found a hung I/O."""
    return make_log("storage", ["/dev/sdb"], 6, 1, "no", STORAGE_HISTS, 13,
                    end=["ERROR: device /dev/sdb: a 1536-byte read at offset "
                         "4096 has been outstanding for 11.002 sec, more "
                         "than max-lag-sec (10)"])


def cut_short():
    """A 24-hour test whose log ends after 8 sec without a stop line (cut
    short, or still being written)."""
    return make_log("storage", ["/dev/sdb"], DAY, 1, "no", STORAGE_HISTS, 14,
                    ran=8)


def odd_end():
    """test-duration-sec 7, interval 2: reports at 2, 4, 6 and 7; an I/O
    error below io-error-limit between reports 4 and 6 (no stop)."""
    hists = [("reads", 2000, READS), ("/dev/sdb-reads", 2000, READS)]
    text = make_log("storage", ["/dev/sdb"], 7, 2, "no", hists, 15)
    return text.replace("\nafter 6 sec:\n", "\n%s\nafter 6 sec:\n"
                        % io_error(1))


def hour():
    """A complete one-hour test, reports every 10 minutes."""
    return make_log("storage", ["/dev/sdb"], 3600, 600, "no", STORAGE_HISTS,
                    16, issued=True)


def day():
    """A complete 24-hour test, one report an hour."""
    hists = [("reads", 1, FAST), ("/dev/sdb-reads", 1, FAST),
             ("large-block-reads", 1, SLOW), ("large-block-writes", 1, SLOW)]
    return make_log("storage", ["/dev/sdb"], DAY, 3600, "no", hists, 17,
                    issued=True)


NODE_OK = {0: 0.985, 1: 0.01, 2: 0.004, 3: 0.001}
NODE_BAD = {0: 0.93, 1: 0.03, 2: 0.02, 3: 0.013, 4: 0.005, 6: 0.002}


def node(shares, seed, ran=None, end=()):
    """One node of a three-node cluster, for comparisons (-l node1.log
    -l node2.log -l node3.log): the same 8-second config on each."""
    hists = [("reads", 2000, shares), ("/dev/sdb-reads", 2000, shares),
             ("large-block-reads", 24, LARGE),
             ("large-block-writes", 24, LARGE)]
    return make_log("storage", ["/dev/sdb"], 8, 1, "no", hists, seed,
                    ran=ran, end=end, issued=True)


def node1():
    """A good node."""
    return node(NODE_OK, 18)


def node2():
    """A good node whose test was stopped after 6 of 8 sec."""
    return node(NODE_OK, 19, ran=6,
                end=[synthlog.stop_signal(6)])


def node3():
    """The slow node: about 3x the others over 1 ms."""
    return node(NODE_BAD, 20)


LOGS = {
    "storage_long_names.log": storage_long_names,
    "index_us.log": index_us,
    "interval2.log": interval2,
    "messy.log": messy,
    "live.log": live,
    "no_scale.log": no_scale,
    "high_buckets.log": high_buckets,
    "slow.log": slow,
    "fast.log": fast,
    "stopped_sigint.log": stopped_sigint,
    "stopped_lag.log": stopped_lag,
    "stopped_io.log": stopped_io,
    "watchdog.log": watchdog,
    "cut_short.log": cut_short,
    "odd_end.log": odd_end,
    "hour.log": hour,
    "day.log": day,
    "node1.log": node1,
    "node2.log": node2,
    "node3.log": node3,
}


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    for name, make in LOGS.items():
        with open(os.path.join(FIXTURES, name), "w") as f:
            f.write(make())
        print("wrote", os.path.join("fixtures", name))


if __name__ == "__main__":
    main()
