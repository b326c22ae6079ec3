"""act.latency: the latency analysis of ACT logs, and the one verdict on
them - a library first (the model: CPython's json), act_latency.py its
command line (main.py).

    from act.latency import Spec, analyse_log
    a = analyse_log("output.txt", Spec(slice_sec=3600, check=True))
    a.verdict.result        # "PASS", "FAIL", "INCOMPLETE" or "NOT JUDGED"
    a.verdict.reasons       # why not a PASS
    a.max, a.run, a.load    # the max row, how the run ended, the load

Spec (spec.py) says what is asked: the slice length, the histograms, the
displayed buckets, and whether and how to judge (the criteria, a stress
test). analyse_log(path, spec, sinks) returns an Analysis (analysis.py);
sinks see each batch of slices as it is computed and print them - the
table (text.TextTable), --json (export.JsonWriter), --csv
(export.CsvWriter); the plot (plot.py) and several logs in one table
(compare.py) read the slices back. The Verdict (verdict.py) combines the
criteria (judge.py), how the run ended (act.logfile) and whether the
planned load was issued and taken (load.py). A log that cannot be read
or analysed is an act.logfile.LogError.
"""

PROG = "act_latency.py"
GAP = "  "                        # between column groups

from act.latency.spec import Spec  # noqa: E402
from act.latency.analysis import Analysis, analyse, analyse_log  # noqa
from act.latency.verdict import (FAIL, INCOMPLETE, NOT_JUDGED,  # noqa
                                 PASS, Verdict)

__all__ = ["Spec", "Analysis", "analyse", "analyse_log", "Verdict", "PASS",
           "FAIL", "INCOMPLETE", "NOT_JUDGED", "PROG"]
