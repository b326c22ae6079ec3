"""The plan's warning when a load needs more requests per service thread
than one thread can plausibly issue (docs/certify.md, "When the load is
not issued"), on the service-threads the runs get: the program's own
echo of the base config (precheck.base_check: the effective value, the
default 5 x the online CPUs included) - never a reading of the config
text here."""

from act.certify.fmt import fmt_load

# The plan warns when a step asks each service thread for more than this
# many reads per second: a thread does its requests one after another, so
# it then has under 1 ms for each, and every read over 1 ms (the criteria
# allow 5% of them) puts it behind schedule.
MAX_READS_PER_THREAD = 1000


def service_threads(echo):
    """The service-threads of a program's config echo ({name: value}: its
    --print-config, which echoes the effective value as a decimal number),
    or None when it has none."""
    value = echo.get("service-threads", "")
    return int(value) if value.isdigit() and value.isascii() else None


def thread_warnings(steps, threads, index=False):
    """The plan's warning (a list of at most one line): the steps that run
    and ask a service thread for more than MAX_READS_PER_THREAD reads/s
    (act_index: its service threads also read once per write)."""
    if not threads:
        return []

    def reads(s):
        return s.reads_per_sec + (s.writes_per_sec if index else 0)
    busy = [s for s in steps if s.runs_program and
            reads(s) / threads > MAX_READS_PER_THREAD]
    if not busy:
        return []
    top = max(reads(s) for s in busy)
    return ["warning: step%s %s ask%s each of the %d service-threads for "
            "more than %d reads/s (up to %d): the host may not issue the "
            "load, and such a step is NOT JUDGED; set service-threads to "
            "at least %d in the base config" % (
                "" if len(busy) == 1 else "s",
                ", ".join("%d (%s)" % (s.number, fmt_load(s.load))
                          for s in busy), "s" if len(busy) == 1 else "",
                threads, MAX_READS_PER_THREAD, top // threads,
                -(-top // MAX_READS_PER_THREAD))]
