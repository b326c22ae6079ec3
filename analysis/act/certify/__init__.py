"""act_certify: runs a whole ACT certification campaign and reports on it.

One concept per module: plan (loads, ladder, steps, step configs), state
(state.json, lock, resume bookkeeping), devices (held for the whole
campaign), host (identity), runner (supervised child, signals, progress),
analyse (act_latency.py on a log), judge (results and verdict), report
(summary.json, summary.md), html (report.html), layout (finding programs
and configs), main (options and the entry points); shared and logs are
act_certify's own copies of what act/ and act.logfile will hold."""
