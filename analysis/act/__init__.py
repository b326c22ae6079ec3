"""act's Python tools as one package (standard library only).

    act.cli        what the tools share on the command line
    act.logfile    the one reader of the ACT log format
    act.latency    the analysis and the verdict (a library: Spec,
                   analyse_log), act_latency.py: tables, --check,
                   --json/--csv, --plot
    act.certify    act_certify.py: certification campaigns
    act.sizing     act_config_helper.py: writes an act_storage config

The entry scripts (analysis/act_latency.py, ...) are a few lines each;
`make` also builds each as a single-file zipapp in target/bin.
"""

VERSION = "6.7"                   # act's version (src/common/version.h)

# The C programs' config grammar and limits, the one Python copy (checked
# against the C sources by tests/python/test_cli.py):
DEVICE_SEPARATORS = ",; \t"      # between device-names (src/common/cfg.c)
CONFIG_COMMENT = "#"              # starts a comment in a config line
MAX_DEVICES = 128                 # devices in a config (src/common/limits.h)
MAX_NAME = 128                    # bytes of a name, with the C string's NUL
MAX_U32 = 0xFFFFFFFF              # the largest number item (CFG_U32, cfg.c)

# The exit statuses of the C programs act_storage, act_index and act_prep
# (src/common/run.h): the one Python copy.
EXIT_OK = 0
EXIT_USAGE = 1                    # usage or config error; nothing was done
EXIT_SETUP = 2                    # device or setup error
EXIT_LAG = 3                      # load not kept up, or a hung I/O
EXIT_IO = 4                       # stopped by I/O errors (io-error-limit)
EXIT_LOG = 5                      # the log could not be written
EXIT_SIGNAL = 128                 # + the signal's number

# The exit statuses of act_latency.py (the one table: docs/README.md,
# "Exit status"; 2 a user error, 130 interrupted, as every tool):
LATENCY_OK = 0                    # success; with --check: PASS
LATENCY_NOT_PASSED = 1            # --check: FAIL or INCOMPLETE
LATENCY_NOT_JUDGED = 3            # --check: NOT JUDGED (the host could not
                                  # issue the load)
LATENCY_HEALTH = 4                # --check: PASS with drive health warnings

# A C program's exit status -> what it means, in words.
PROGRAM_STATUS = {
    EXIT_OK: "ran to completion",
    EXIT_USAGE: "usage or config error",
    EXIT_SETUP: "device or setup error",
    EXIT_LAG: "stopped: load not kept up or a hung I/O",
    EXIT_IO: "stopped by I/O errors",
    EXIT_LOG: "the log could not be written",
}
