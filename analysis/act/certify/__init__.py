"""act_certify: runs a whole ACT certification campaign and reports on it.

One concept per module:

  main      options and the three entry points (new, --resume, --report)
  plan      loads, the ceiling ladder, the steps, each step's config
  state     state.json, the directory lock, resume bookkeeping
  devices   the devices, held exclusively for the whole campaign
  host      the host's identity and the program's version
  runner    the supervised child, signals, the progress line, the steps
  analyse   act_latency.py on a step's log (for now as a program)
  judge     a step's result, skips, the campaign's verdict and ceiling
  report    summary.json and summary.md (write_reports writes all three)
  html      report.html
  layout    where the programs, act_latency.py and the configs are
            (source tree, installed, zipapp)
  fmt       numbers, loads, durations and signals as text; say and warn

and two modules of act_certify's own copies, to be replaced by the shared
package once merged (branch pylat): shared (VERSION, exit statuses,
UserError, ArgumentParser -> act, act.cli) and logs (the log readers ->
act.logfile)."""
