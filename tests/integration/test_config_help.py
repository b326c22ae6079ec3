"""Description: act_storage --config-help and act_index --config-help.

Each must exit 0 and print on stdout the list of its config items: a first
line "<program> config items (name: value per line, '#' starts a
comment):", a column header ITEM / DEFAULT / VALUES, one line per item
(name, default, values) followed by its indented help text, then the
obsolete ACT 4 items ("obsolete (ACT 4) items, accepted with a warning:",
one per line with the reason).

Checked against the shipped example config (config/act_storage.conf,
config/act_index.conf): every item it names, as "name: value" or commented
"# name: value", is listed with the default the example shows - except the
values to set in its first blocks (before the "#-- rarely change" line:
devices, load, duration) and the items whose default is not a plain value
("5 x online CPUs", "none (required)", "unset"), where the example shows a
sample value; every listed item has help text; nothing is listed but the
example's items and, in the obsolete list, exactly the five ACT 4 items.
Does not touch any device.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

LEGACY = ["num-queues", "threads-per-queue", "use-valloc", "queue-per-device",
          "max-reqs-queued"]
SET_BLOCK_END = "#-- rarely change"
OBSOLETE_HEADING = "obsolete (ACT 4) items, accepted with a warning:"
CONF_ITEM_RE = re.compile(r"^\s*(#\s*)?([a-z][a-z0-9-]*):\s*(.*?)\s*$")


def read_example(path):
    """{name: (value, to_set, line_no)} of the item lines of an example
    config. A commented line is an item only when the name has a dash and
    the value is one word (prose comments such as "# histograms: % of ..."
    are not items)."""
    items = {}
    to_set = True
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if line.startswith(SET_BLOCK_END):
                to_set = False
            m = CONF_ITEM_RE.match(line)
            if m is None:
                continue
            commented, name, value = m.group(1) is not None, m.group(2), \
                m.group(3)
            if commented:
                if "-" not in name or not value or re.search(r"\s", value):
                    continue
            else:
                value = value.split("#")[0].strip()
            items[name] = (value, to_set, no)
    return items, not to_set


class Help:
    def __init__(self):
        self.items = []      # [(name, default, values, [help lines])]
        self.obsolete = []   # [(name, reason)]


def parse_help(c, program, text):
    """Parse the --config-help output; problems go to the checker."""
    h = Help()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    want = ("%s config items (name: value per line, '#' starts a comment):"
            % program)
    if not c.check(lines and lines[0] == want, "%s: first line is not %r"
                   % (program, want), "\n".join(lines[:3])):
        return h
    i = 1
    while i < len(lines) and lines[i] == "":
        i += 1
    if not c.check(i < len(lines) and re.match(r"^ITEM +DEFAULT +VALUES$",
                                               lines[i]),
                   "%s: no 'ITEM  DEFAULT  VALUES' header line" % program,
                   "\n".join(lines[:6])):
        return h
    header = lines[i]
    dcol, vcol = header.index("DEFAULT"), header.index("VALUES")
    i += 1
    while i < len(lines) and lines[i] != "":
        line = lines[i]
        if line.startswith(" "):
            if c.check(h.items, "%s: help text before any item: %r"
                       % (program, line)):
                h.items[-1][3].append(line.strip())
        else:
            name = line[:dcol].strip()
            ok = c.check(re.match(r"^[a-z][a-z0-9-]*$", name) and
                         line[dcol - 1] == " " and
                         (len(line) <= vcol or line[vcol - 1] == " "),
                         "%s: item line not aligned on the header's columns: "
                         "%r" % (program, line))
            if ok:
                h.items.append((name, line[dcol:vcol].strip(),
                                line[vcol:].strip(), []))
        i += 1
    while i < len(lines) and lines[i] == "":
        i += 1
    if i < len(lines):
        c.eq("%s: line after the items" % program, OBSOLETE_HEADING,
             lines[i])
        i += 1
        while i < len(lines) and lines[i] != "":
            parts = lines[i].split(None, 1)
            h.obsolete.append((parts[0], parts[1] if len(parts) > 1 else ""))
            i += 1
        rest = [l for l in lines[i:] if l.strip() != ""]
        c.check(not rest, "%s: text after the obsolete items" % program,
                "\n".join(rest[:5]))
    return h


def is_plain(default, values):
    """A default that is a value one could write in a config: a number,
    yes/no, or one of the item's words - not a description such as
    "5 x online CPUs", "none (required)" or "unset"."""
    words = [w.strip() for w in values.split(",")]
    return re.match(r"^\d+$", default) is not None or \
        default in ("yes", "no") or default in words


def check_program(c, program, conf):
    prog = itest.binary(program)
    r = itest.run([prog, "--config-help"], timeout=10)
    detail = r.describe()
    if not c.eq("%s --config-help: exit status" % program, 0, r.rc, detail):
        return
    c.check("ERROR" not in r.out + r.err, "%s --config-help: ERROR printed"
            % program, detail)
    h = parse_help(c, program, r.out)
    example, has_marker = read_example(conf)
    c.check(has_marker, "%s: no %r line" % (conf, SET_BLOCK_END))
    c.check(example, "%s: no items found" % conf)

    listed = {}
    for name, default, values, helps in h.items:
        c.check(name not in listed, "%s --config-help: %s listed twice"
                % (program, name))
        listed[name] = (default, values)
        c.check(default != "", "%s --config-help: %s has no default"
                % (program, name))
        c.check(values != "", "%s --config-help: %s has no values"
                % (program, name))
        c.check(helps and all(helps), "%s --config-help: %s has no help text"
                % (program, name))

    for name, (value, to_set, no) in sorted(example.items(),
                                           key=lambda kv: kv[1][2]):
        if not c.check(name in listed, "%s --config-help: %s (%s line %d) "
                       "not listed" % (program, name, conf, no), r.out):
            continue
        default, values = listed[name]
        if to_set or not is_plain(default, values):
            continue
        c.eq("%s --config-help: default of %s (as %s line %d shows)"
             % (program, name, conf, no), value, default)

    extra = [n for n in listed if n not in example]
    c.check(not extra, "%s --config-help: listed but not items of %s: %s"
            % (program, conf, extra))
    c.eq("%s --config-help: obsolete items" % program, sorted(LEGACY),
         sorted(n for n, _ in h.obsolete))
    c.check(all(reason for _, reason in h.obsolete), "%s --config-help: an "
            "obsolete item without its reason" % program)
    print("%s --config-help: %d items, %d obsolete" % (program, len(h.items),
                                                       len(h.obsolete)))


def main():
    c = itest.Checker("test_config_help")
    check_program(c, "act_storage",
                  os.path.join(itest.REPO, "config", "act_storage.conf"))
    check_program(c, "act_index",
                  os.path.join(itest.REPO, "config", "act_index.conf"))
    c.finish()


if __name__ == "__main__":
    main()
