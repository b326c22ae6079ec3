"""act_latency.py: the latency analysis of ACT logs (main.py is the
program; see its docstring)."""

PROG = "act_latency.py"
GAP = "  "                        # between column groups
