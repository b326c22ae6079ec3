"""act_certify: runs a whole ACT certification campaign and reports on it.

One concept per module:

  main      options and the three entry points (new, --resume, --report)
  plan      loads, the ceiling ladder, the steps, each step's config
            (the base config and its --set items)
  precheck  the C programs asked: --check --print-config of the base
            config and of each step (its config echo, the devices'
            identity lines); a busy device's reason
  model     the campaign model: state.json's records (State, Campaign,
            Step, ...), read (checked as untrusted) and written back
  state     state.json, the directory lock, resume bookkeeping
  devices   the devices, held exclusively for the whole campaign, and
            checked to be the drives it started on
  identity  which drive a device name stands for (from the program's
            identity lines; recorded, compared)
  replace   a drive replaced (--accept-device), the file devices' marks
  host      the host's identity and the program's version
  runner    the supervised child, signals, the loop over the steps
  watch     the progress line and the reports rewritten while a step runs
  analyse   act.latency on a step's log, in-process: its analysis and
            verdict (PASS, FAIL, INCOMPLETE, NOT JUDGED: act.latency's)
  judge     a step's result (the verdict, INVALID), skips, the
            campaign's verdict and ceiling
  failfast  a running criteria step judged slice by slice: stop it at
            its first slice over a limit, and why; judging its partial
            log
  threads   the plan's service-threads warning, on the program's echo
  trend     each step's hourly share of reads over 1 ms, its Theil-Sen
            slope, the degrading flag (Mann-Kendall: act.latency.
            trend_stats)
  health_report  each step's drive health (start, end, deltas, the
            temperature chart) and the campaign's, for the reports
  summary   the campaign's summary (summary.json's document): the model
            the reports render
  cells     the text summary.md and report.html share (headline, a
            step's name, result, time run, a drive, the progress line)
  markdown  summary.md
  page      what report.html and compare.html share (CSS, escaping)
  html      report.html
  compare   --compare: several campaigns side by side (the document;
            compare_markdown and compare_html render it)
  publish   writes the report files (summary.json, summary.md,
            report.html; compare.json, compare.md, compare.html)
  layout    where the programs and the configs are
            (source tree, installed, zipapp)
  fmt       numbers, loads, durations and signals as text; say and warn


What act_certify shares with the other tools comes from act (VERSION, the
C programs' exit statuses and PROGRAM_STATUS), act.cli (UsageError,
ArgumentParser) and act.logfile (the log readers); its own exit statuses
are below."""

PROG = "act_certify.py"

# act_certify's exit statuses (its --help); 2 is act.EXIT_SETUP, as for
# the C programs.
EXIT_CERTIFIED = 0
EXIT_NOT_CERTIFIED = 1
EXIT_IO_ERRORS = 3                # every test passed, but I/Os failed
                                  # (drive health warnings too)
EXIT_HEALTH = 4                   # every test passed, with drive health
                                  # warnings (and no failed I/O)
EXIT_USAGE = 64                   # sysexits EX_USAGE
EXIT_CONFIG = 78                  # sysexits EX_CONFIG
