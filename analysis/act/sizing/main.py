"""Write an act_storage config file: the standard Nx load, or a node's
production storage profile.

Usage::

    act_config_helper.py [--interactive] [--force]
    act_config_helper.py [--read-sizes FILE] [--write-sizes FILE]
                         [--defrag-log FILE] [--devices N] [--load-factor X]
                         [--device-names LIST] [--duration-sec N]
                         [--lbr-req-offset P] [--lbw-req-offset P]
                         [--read-size-offset P] [--write-size-offset P]
                         [--output FILE [--force]]
    act_config_helper.py --help | --version

Interactive mode (no arguments, or --interactive) asks the questions of the
"Advanced Flash Device Sizing" paper - devices, test duration, the standard
Nx load (2000 reads/s and 1000 writes/s per device, times N) or custom
rates - and saves actconfig_<load>_<n>d.txt in the current directory, or
prints the config.  The dialogue goes to stderr, so stdout holds only the
config; when stdin is not a terminal each answer is echoed after its
prompt, so a piped session reads like the paper's transcript.

An existing file is never overwritten silently: interactive mode asks
(`file X exists - overwrite? [y/N]`) and keeps it unless the answer is yes
(the config is then printed instead); --output asks too when stdin is a
terminal, and otherwise refuses (exit status 2).  --force overwrites
without asking.

Non-interactive mode turns the paper's production data into a config:

--read-sizes / --write-sizes FILE
    asloglatency output of the {ns}-device-read-size / -device-write-size
    histogram (run with -e 1 and a -n large enough to reach a 0 column).
    The avg row, trimmed after its first 0, becomes storage-read-histogram /
    storage-write-histogram; its ops/sec becomes read-reqs-per-sec /
    write-reqs-per-sec.  A direction without a table gets the standard 1x
    rate (2000 reads/s, 1000 writes/s per device).  record-bytes is 0 when
    every direction with load has its histogram, else 1536.
--defrag-log FILE
    drv_ssd log lines (`grep defrag`, with drv_ssd detail logging on): the
    last `write (N,R)` rate gives total-lbw-per-sec, the last
    `direct-frees (N,R)` rate gives direct-frees (summed over devices when
    the lines name several).  They only enter act_storage as a ratio, so
    they are not scaled.  `defrag-read (N,R)` is reported for information.
--devices N
    drives per namespace per node in production: the rates are divided by N
    (the per-drive load).
--load-factor X
    multiplies the rates (the paper's 2x / 3x step; default 1).
--device-names LIST
    comma-separated devices to test; the rates are for all of them together,
    so the per-drive load is multiplied by their number.  Without it the
    config names /dev/CHANGE-ME, with a comment saying to edit it.

Rates are rounded half up to integers.  Where each number came from is
printed on stderr; the config goes to stdout or --output.

Exit status (docs/README.md): 0 success, 1 nothing written: end of input
at a prompt (stderr says so), an existing --output kept, or stdout closed
by the reader, 2 a user error (bad option, unreadable or malformed input,
an existing --output without --force and no terminal to ask, an output
that cannot be written), 130 interrupted.
"""

import argparse
import math
import re
import sys

from act import (
    CONFIG_COMMENT, DEVICE_SEPARATORS, MAX_DEVICES, MAX_NAME, MAX_U32,
    VERSION)
from act.cli import ArgumentParser, UsageError, run_main
from act.sizing import PROG
from act.sizing.config_file import (
    config_file_name, format_config, may_write, write_file)
from act.sizing.rates import (
    DEFAULT_DURATION_SEC, ONE_X_READS, ONE_X_WRITES, production_config,
    round_half_up, standard_config)
from act.sizing.tables import NUMBER_RE, parse_defrag_log, parse_size_table

MAX_DEVICE_NAME = MAX_NAME - 1    # characters, the C string's NUL aside
# What a device name can't hold: the config's separators between names,
# its comment character, or other white space (a line break would end the
# config line).
NAME_BREAKER_RE = re.compile("[%s%s\\s]" % (re.escape(DEVICE_SEPARATORS),
                                             re.escape(CONFIG_COMMENT)))


USAGE = """%(prog)s [--interactive] [--force]
       %(prog)s [--read-sizes FILE] [--write-sizes FILE]
           [--defrag-log FILE] [--devices N] [--load-factor X]
           [--device-names LIST] [--duration-sec N]
           [--lbr-req-offset P] [--lbw-req-offset P]
           [--read-size-offset P] [--write-size-offset P]
           [--output FILE [--force]]
       %(prog)s --help | --version"""


def read_text(path, what):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise UsageError("cannot read %s %s: %s"
                         % (what, path, e.strerror or e))


def check_device_names(names):
    """Return an error text for a bad device list, or None."""
    if not names:
        return "no device name"
    if len(names) > MAX_DEVICES:
        return "%d devices, at most %d" % (len(names), MAX_DEVICES)
    for name in names:
        if not name:
            return "an empty device name"
        if NAME_BREAKER_RE.search(name):
            return "device name %r contains a space, ',', ';' or '#'" % name
        if len(name) > MAX_DEVICE_NAME:
            return "device name %r is longer than %d characters" % (
                name, MAX_DEVICE_NAME)
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        return "device %s is named twice" % dups[0]
    return None


class Dialogue:
    """Prompts on stderr, answers from stdin (echoed when not a terminal)."""

    def __init__(self, inp, err):
        self.inp, self.err = inp, err
        try:
            self.echo = not inp.isatty()
        except (AttributeError, ValueError):
            self.echo = True

    def say(self, text):
        self.err.write(text + "\n")
        self.err.flush()

    def ask(self, prompt):
        self.err.write(prompt)
        self.err.flush()
        line = self.inp.readline()
        if not line:
            raise EOFError
        answer = line.rstrip("\r\n")
        if self.echo:
            self.err.write(answer + "\n")
            self.err.flush()
        return answer.strip()

    def ask_yes_no(self, prompt):
        while True:
            answer = self.ask(prompt).lower()
            if answer in ("", "n", "no"):
                return False
            if answer in ("y", "yes"):
                return True
            self.say("Please answer y or n.")

    def ask_number(self, prompt, parse, hint, before=None):
        """Re-ask until parse(answer) returns a value (None = invalid);
        an empty answer is re-asked silently, as in the paper."""
        while True:
            if before:
                self.say(before)
            answer = self.ask(prompt)
            if not answer:
                continue
            value = parse(answer)
            if value is not None:
                return value
            self.say("%r is not valid: %s." % (answer, hint))


def parse_int_answer(lo, hi):
    def parse(text):
        if not text.isdigit():
            return None
        v = int(text)
        return v if lo <= v <= hi else None
    return parse


def parse_positive_answer(text):
    if not NUMBER_RE.match(text):
        return None
    v = float(text)
    return v if v > 0 and math.isfinite(v) else None


def interactive(dialogue, out, force=False):
    """Run the paper's dialogue; returns the exit status.  An existing
    config file is overwritten only if the user says so (or with force);
    kept, the config is printed instead."""
    n = dialogue.ask_number(
        "Enter the number of devices you want to create config for: ",
        parse_int_answer(1, MAX_DEVICES),
        "enter a whole number from 1 to %d" % MAX_DEVICES)
    dialogue.say("Enter either raw device if over-provisioned using hdparm "
                 "or partition if over-provisioned using fdisk:")
    devices = []
    for i in range(1, n + 1):
        while True:
            name = dialogue.ask("Enter device name #%d (e.g. /dev/sdb or "
                                "/dev/sdb1): " % i)
            if not name:
                continue
            problem = check_device_names(devices + [name])
            if problem is None:
                devices.append(name)
                break
            dialogue.say("Not valid: %s." % problem)
    duration = DEFAULT_DURATION_SEC
    if dialogue.ask_yes_no("Change test duration default of 24 hours? "
                           "(y/N): "):
        def parse_hours(text):
            h = parse_positive_answer(text)
            if h is None or not 1 <= round_half_up(h * 3600) <= MAX_U32:
                return None
            return h
        hours = dialogue.ask_number("Enter the test duration in hours: ",
                                    parse_hours,
                                    "enter a number of hours greater than 0")
        duration = round_half_up(hours * 3600)
    if dialogue.ask_yes_no("Use non-standard configuration? (y/N): "):
        rate = parse_int_answer(0, MAX_U32)
        while True:
            read = dialogue.ask_number(
                "Enter read-reqs-per-sec (all devices together): ", rate,
                "enter a whole number, 0 or more")
            write = dialogue.ask_number(
                "Enter write-reqs-per-sec (all devices together): ", rate,
                "enter a whole number, 0 or more")
            if read or write:
                break
            dialogue.say("read-reqs-per-sec and write-reqs-per-sec can't "
                         "both be 0.")
        cfg = standard_config(devices, 1, duration, read, write)
    else:
        def parse_factor(text):
            f = parse_positive_answer(text)
            if f is None or f * ONE_X_READS * n > MAX_U32:
                return None
            return f
        factor = dialogue.ask_number(
            "Enter the load factor (e.g. enter 1 for 1x test): ",
            parse_factor, "enter a number greater than 0",
            before='"1x" load is  %d reads per second and %d writes per '
                   'second.' % (ONE_X_READS, ONE_X_WRITES))
        cfg = standard_config(devices, factor, duration)
    text = format_config(cfg)
    if dialogue.ask_yes_no("Do you want to save this config to a file? "
                           "(y/N): "):
        name = config_file_name(cfg)
        if may_write(name, dialogue, force):
            write_file(name, text)
            dialogue.say("Config file %s successfully created." % name)
            return 0
        dialogue.say("Kept the existing %s; the config follows on stdout."
                     % name)
    out.write(text)
    out.flush()
    return 0


def _int_in(lo, hi, what):
    def conv(text):
        if not re.match(r"^[0-9]+$", text):
            raise argparse.ArgumentTypeError(
                "%s must be a whole number, not %r" % (what, text))
        v = int(text, 10)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                "%s must be within %d..%d, not %s" % (what, lo, hi, text))
        return v
    return conv


def _load_factor(text):
    if not NUMBER_RE.match(text) or float(text) <= 0:
        raise argparse.ArgumentTypeError(
            "the load factor must be a number greater than 0, not %r" % text)
    return float(text)


def _device_list(text):
    names = text.split(",")
    problem = check_device_names(names)
    if problem:
        raise argparse.ArgumentTypeError("bad --device-names: %s" % problem)
    return names


def build_parser():
    p = ArgumentParser(
        prog=PROG, usage=USAGE,
        description="Write an act_storage config: interactively (no "
                    "arguments) for the standard Nx load, or from a "
                    "production node's asloglatency size histograms and "
                    "drv_ssd log lines.",
        epilog="Rates are for all test devices together: per drive, "
               "production ops/sec / --devices x --load-factor, times the "
               "number of --device-names.")
    p.add_argument("-V", "--version", action="version",
                   version="%s %s" % (PROG, VERSION),
                   help="print the version and exit")
    p.add_argument("--interactive", action="store_true",
                   help="ask the questions (the default without arguments)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing --output file (or, with "
                        "--interactive, config file) without asking; "
                        "without it the helper asks, or refuses when it "
                        "cannot ask")
    p.add_argument("--read-sizes", metavar="FILE",
                   help="asloglatency output of {ns}-device-read-size")
    p.add_argument("--write-sizes", metavar="FILE",
                   help="asloglatency output of {ns}-device-write-size")
    p.add_argument("--defrag-log", metavar="FILE",
                   help="server log lines with write (...) and "
                        "direct-frees (...)")
    p.add_argument("--devices", metavar="N", default=1,
                   type=_int_in(1, MAX_DEVICES, "--devices"),
                   help="drives per namespace per node (divides the rates; "
                        "default 1)")
    p.add_argument("--load-factor", metavar="X", default=1.0,
                   type=_load_factor,
                   help="multiplies the rates (default 1)")
    p.add_argument("--device-names", metavar="LIST", type=_device_list,
                   help="comma-separated devices to test (default: a "
                        "placeholder to edit)")
    p.add_argument("--duration-sec", metavar="N",
                   default=DEFAULT_DURATION_SEC,
                   type=_int_in(1, MAX_U32, "--duration-sec"),
                   help="test-duration-sec (default 86400)")
    for item, lo in (("lbr-req-offset", 0), ("lbw-req-offset", 0),
                     ("read-size-offset", 1), ("write-size-offset", 1)):
        p.add_argument("--" + item, metavar="P",
                       type=_int_in(lo, 1000, "--" + item),
                       help="%s, percent %d..1000 (default: not written)"
                            % (item, lo))
    p.add_argument("--output", metavar="FILE",
                   help="write the config here (default stdout)")
    return p


def run_non_interactive(opts, out, err, dialogue=None):
    read_table = write_table = defrag = None
    if opts.read_sizes:
        read_table = parse_size_table(
            read_text(opts.read_sizes, "--read-sizes"), opts.read_sizes,
            "read")
    if opts.write_sizes:
        write_table = parse_size_table(
            read_text(opts.write_sizes, "--write-sizes"), opts.write_sizes,
            "write")
    if opts.defrag_log:
        defrag = parse_defrag_log(
            read_text(opts.defrag_log, "--defrag-log"), opts.defrag_log)
    cfg, report = production_config(opts, read_table, write_table, defrag)
    text = format_config(cfg)
    if opts.output and not may_write(opts.output, dialogue, opts.force):
        err.write("Kept the existing %s: nothing written.\n" % opts.output)
        return 1
    for line in report:
        err.write(line + "\n")
    if opts.output:
        write_file(opts.output, text)
        err.write("Config file %s successfully created.\n" % opts.output)
    else:
        out.write(text)
    return 0


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _interactive_options_only(argv):
    """Whether argv holds only --interactive and --force (or
    abbreviations of them, as argparse accepts)."""
    for token in argv:
        name = token.split("=", 1)[0]
        if not (len(name) > 2 and ("--interactive".startswith(name) or
                                   "--force".startswith(name))):
            return False
    return True


def run(argv):
    try:
        opts = build_parser().parse_args(argv)
        if not argv or opts.interactive:
            if not _interactive_options_only(argv):
                raise UsageError("--interactive takes no other option than "
                                 "--force")
            status = interactive(Dialogue(sys.stdin, sys.stderr), sys.stdout,
                                 opts.force)
        else:
            if opts.force and not opts.output:
                raise UsageError("--force applies to --output FILE (or to "
                                 "--interactive)")
            dialogue = Dialogue(sys.stdin, sys.stderr) \
                if _is_terminal(sys.stdin) else None
            status = run_non_interactive(opts, sys.stdout, sys.stderr,
                                         dialogue)
        return status
    except EOFError:
        # End of input at a prompt: end the prompt's line, and say so.
        sys.stderr.write("\n%s: end of input - nothing written\n" % PROG)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\n")    # ends the prompt's line
        raise


def main(argv=None):
    """The exit status of the command line argv (default: sys.argv[1:]);
    the entry script and the zipapp exit with it: act.cli's exit ladder,
    where a closed output pipe means nothing was written (1)."""
    return run_main(PROG, run, sys.argv[1:] if argv is None else argv,
                    closed_pipe_status=1)


if __name__ == "__main__":
    main()
