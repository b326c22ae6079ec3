#!/usr/bin/env python3
"""Generate act's man pages (man-pages(7) form) from their sources.

Description: each page is written once, from three sources:

- the program's --help: SYNOPSIS (its usage lines), OPTIONS (its option
  entries) and the start of DESCRIPTION (its prose); for act_storage and
  act_index also CONFIG ITEMS, from --config-help. So a page never says
  something else than the program's own help.
- man/<page>.sections: the rest of DESCRIPTION, ENVIRONMENT, FILES,
  EXAMPLES and extra SEE ALSO text, written for the page (format below).
- docs/README.md's exit-status table: EXIT STATUS, the rows whose tools
  column names the program - the one table every doc page links to.

tests/integration/test_man_pages.py regenerates the pages and compares
them with man/*.1 (make man after a change), and renders each at 80
columns.

Sections file format: `## NAME` starts a section; paragraphs are separated
by blank lines. A paragraph whose lines all start with 4 spaces is a
literal block (an example); one whose first line is `@ TAG` is a tagged
paragraph (.TP: TAG, then the text); one whose lines start with `- ` is a
bullet list. In text, `code` is set in bold.

Installed names: man/<program>.1 for each program, so `man act_latency.py`
finds act_latency.py.1; act_certify.py.1 is a .so link to act_certify.1
(the program is installed under both names).

Usage:
  man/mkman.py [--bin DIR] [--out DIR]   write man/*.1
  man/mkman.py --check                   exit 1 if a page is out of date
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The date of the pages' .TH line: the last change of their content
# (update it with the sections files or a help text).
DATE = "2026-11-26"

# page name, how to run it (relative to the repository), has
# --config-help, name in docs/README.md's exit-status table, summary
PROGRAMS = [
    ("act_storage", ["{bin}/act_storage"], True, "act_storage",
     "flash storage latency test of the Aerospike Certification Tool"),
    ("act_index", ["{bin}/act_index"], True, "act_index",
     "flash index latency test of the Aerospike Certification Tool"),
    ("act_prep", ["{bin}/act_prep"], False, "act_prep",
     "prepare drives for ACT: clean, then salt every byte"),
    ("act_latency.py", ["analysis/act_latency.py"], False, "act_latency.py",
     "slice an ACT log into latency tables and judge it"),
    ("act_certify", ["analysis/act_certify.py"], False, "act_certify.py",
     "run a whole ACT certification campaign and write its report"),
    ("act_config_helper.py", ["config/act_config_helper.py"], False,
     "act_config_helper.py",
     "write an ACT config from a production cluster's statistics"),
]

# Pages that are only a link to another page: name -> target page.
ALIASES = {"act_certify.py": "act_certify"}

# Options every program has; listed in OPTIONS when its help gives them in
# the usage only.
STANDARD_OPTIONS = [("--help", "print the usage and exit"),
                    ("--version", "print the program's name and act's "
                     "version, and exit")]

SECTION_ORDER = ["DESCRIPTION", "ENVIRONMENT", "FILES", "EXAMPLES",
                 "SEE ALSO"]


def version():
    with open(os.path.join(ROOT, "src", "common", "version.h")) as f:
        m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
    return m.group(1) if m else "unknown"


def help_text(cmd, flag, bin_dir):
    """A program's help output, with the source tree's absolute paths made
    generic (the man page describes an installed act). The programs name
    the act_latency.py beside them where there is one: the zipapp `make`
    builds in bin_dir."""
    p = subprocess.run(cmd + [flag], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       cwd=ROOT, timeout=60, env=dict(os.environ,
                                                      COLUMNS="80"))
    text = p.stdout
    text = text.replace(os.path.join(ROOT, "config") + "/",
                        "PREFIX/share/act/config/")
    text = text.replace(os.path.join(ROOT, "analysis") + "/", "")
    text = text.replace(os.path.realpath(os.path.join(ROOT, bin_dir)) + "/",
                        "")
    return text


# ---------------------------------------------------------------------------
# roff


def esc(text):
    """Text for a roff line: backslashes, hyphens, a leading . or '."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def inline(text):
    """esc(), with `code` in bold."""
    parts = text.split("`")
    out = []
    for i, p in enumerate(parts):
        p = esc(p) if i == 0 or i % 2 == 0 else "\\fB%s\\fR" % esc(p)
        out.append(p)
    s = "".join(out)
    if s.startswith("\\fB") and (s[3:4] in (".", "'")):
        s = "\\&" + s
    return s


def nobreak(text):
    """Keep each [...] group of a synopsis on one line."""
    out, depth = [], 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        out.append("\\ " if ch == " " and depth else ch)
    return "".join(out)


def paragraphs(text):
    paras, cur = [], []
    for line in text.split("\n"):
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


def render_text(text):
    """A sections-file section body as roff."""
    out = []
    for para in paragraphs(text):
        if all(l.startswith("    ") for l in para):
            out += [".PP", ".RS 4", ".nf"]
            out += [esc(l[4:]) for l in para]
            out += [".fi", ".RE"]
        elif para[0].startswith("@ "):
            out += [".TP", inline(para[0][2:].strip())]
            out += [inline(" ".join(l.strip() for l in para[1:]))]
        elif para[0].startswith("- "):
            items = []
            for l in para:
                if l.startswith("- "):
                    items.append([l[2:].strip()])
                else:
                    items[-1].append(l.strip())
            for item in items:
                out += [".IP \\(bu 2", inline(" ".join(item))]
        else:
            out += [".PP", inline(" ".join(l.strip() for l in para))]
    return out


# ---------------------------------------------------------------------------
# sources


def read_sections(name):
    path = os.path.join(HERE, name + ".sections")
    sections, cur = {}, None
    with open(path) as f:
        for line in f.read().split("\n"):
            m = re.match(r"^## (.+)$", line)
            if m:
                cur = m.group(1).strip()
                if cur not in SECTION_ORDER:
                    raise SystemExit("%s: unknown section %r (one of %s)"
                                     % (path, cur, ", ".join(SECTION_ORDER)))
                sections[cur] = ""
            elif cur:
                sections[cur] += line + "\n"
    return sections


def exit_status_rows(tool):
    """The rows of docs/README.md's exit-status table for tool:
    [(status, meaning)]."""
    path = os.path.join(ROOT, "docs", "README.md")
    rows, in_table = [], False
    with open(path) as f:
        lines = f.read().split("\n")
    for line in lines:
        if line.startswith("| status | tools | meaning |"):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith("|"):
            if rows:
                break
            continue
        if line.startswith("|---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) != 3:
            raise SystemExit("%s: bad exit-status row: %s" % (path, line))
        tools = [t.strip() for t in cells[1].split(",")]
        if tool in tools:
            rows.append((cells[0], cells[2].replace("\\|", "|")))
    if not rows:
        raise SystemExit("%s: no exit-status row for %s" % (path, tool))
    return rows


def split_help(text):
    """--help as (usage lines, prose paragraphs, options [(tag, text)]).

    The usage: the first paragraph, "usage: " removed. Options: argparse's
    "options:" block, or (C programs) a paragraph of "  -x  text" lines.
    Prose: the other paragraphs, without the exit-status lines (EXIT STATUS
    comes from docs/README.md)."""
    paras = paragraphs(text)
    usage = []
    indent = 0
    for l in paras[0]:
        if l.startswith("usage: "):
            indent = len("usage: ")
            usage.append(l[indent:].strip())
        elif l[:indent].strip() == "" and l[indent:indent + 1] == " ":
            usage[-1] += " " + l.strip()     # a continuation
        else:
            usage.append(l.strip())
    prose, options = [], []
    for para in paras[1:]:
        if para[0].strip() in ("options:", "optional arguments:"):
            para = para[1:]
        elif not para[0].startswith("  "):
            keep = []
            for l in para:
                if re.match(r"(?i)^exit status:", l):
                    break
                keep.append(l)
            text = drop_exit_status(" ".join(l.strip() for l in keep))
            if text:
                prose.append(text)
            continue
        options += parse_options(para)
    return usage, prose, options


def drop_exit_status(text):
    """text without its sentence "Exit status: ..." (up to the first ". "
    outside parentheses that a capital letter follows)."""
    start = text.find("Exit status: ")
    if start < 0:
        return text
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0 and (
                i + 1 == len(text) or
                (text[i + 1] == " " and text[i + 2:i + 3].isupper())):
            return (text[:start] + text[i + 2:]).strip()
    return text[:start].strip()


def parse_options(lines):
    """Indented option lines: a tag at indent 2, its text after two or
    more spaces or on the lines below (deeper indent)."""
    opts = []
    for l in lines:
        m = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", l)
        if m and not l.startswith("   "):
            opts.append([m.group(1).strip(), m.group(2) or ""])
        elif opts:
            opts[-1][1] = (opts[-1][1] + " " + l.strip()).strip()
    return [(t, d) for t, d in opts]


def parse_config_help(text):
    """--config-help as (intro, [(name, default, values, meaning)],
    obsolete heading, [(name, text)])."""
    lines = text.rstrip("\n").split("\n")
    intro = lines[0]
    hdr = next(i for i, l in enumerate(lines) if l.startswith("ITEM "))
    c_def = lines[hdr].index("DEFAULT")
    c_val = lines[hdr].index("VALUES")
    items, obsolete, obs_head, i = [], [], None, hdr + 1
    while i < len(lines):
        l = lines[i]
        if not l.strip():
            i += 1
            continue
        if l.startswith("    ") and items and obs_head is None:
            items[-1][3] = (items[-1][3] + " " + l.strip()).strip()
        elif obs_head is None and l.rstrip().endswith(":") and \
                not l.startswith(" "):
            obs_head = l.strip()
        elif obs_head is not None:
            m = re.match(r"^(\S+)\s+(.*)$", l)
            obsolete.append((m.group(1), m.group(2).strip()))
        else:
            items.append([l[:c_def].strip(), l[c_def:c_val].strip(),
                          l[c_val:].strip(), ""])
        i += 1
    return intro, items, obs_head, obsolete


# ---------------------------------------------------------------------------
# a page


def page(name, summary, tool, help_txt, config_help, sections, ver):
    usage, prose, options = split_help(help_txt)
    out = ['.\\" Generated by man/mkman.py from %s --help, man/%s.sections '
           'and docs/README.md: do not edit.' % (name, name),
           '.TH %s 1 %s "act %s" "act manual"' % (
               esc(name.upper()), DATE, ver),
           ".SH NAME", "%s \\- %s" % (", ".join(
               esc(n) for n in [name] + [a for a, t in ALIASES.items()
                                         if t == name]), esc(summary)),
           ".SH SYNOPSIS", ".ad l", ".nh"]
    for u in usage:
        prog, _, rest = u.partition(" ")
        out += [".PP", "\\fB%s\\fR %s" % (esc(prog), nobreak(esc(rest)))]
    out += [".ad", ".hy"]
    out += [".SH DESCRIPTION"]
    for p in prose:
        out += [".PP", esc(p)]
    out += render_text(sections.get("DESCRIPTION", ""))
    out += [".SH OPTIONS"]
    tags = " ".join(t for t, _ in options)
    for opt, text in STANDARD_OPTIONS:
        if opt in " ".join(usage) and opt not in tags:
            options = options + [(opt, text)]
    for tag, text in options:
        out += [".TP", "\\fB%s\\fR" % esc(tag), esc(text)]
    if config_help:
        intro, items, obs_head, obsolete = parse_config_help(config_help)
        out += [".SH CONFIG ITEMS", ".PP", esc(intro)]
        for n, d, v, m in items:
            out += [".TP", "\\fB%s\\fR \\(em default: %s; values: %s" % (
                esc(n), esc(d), esc(v)), esc(m)]
        if obs_head:
            out += [".PP", esc(obs_head)]
            for n, t in obsolete:
                out += [".TP", "\\fB%s\\fR" % esc(n), esc(t)]
    out += [".SH EXIT STATUS"]
    for status, meaning in exit_status_rows(tool):
        out += [".TP", "\\fB%s\\fR" % esc(status), inline(meaning)]
    out += [".PP", "The exit statuses of every act tool are in one table "
            "in docs/README.md."]
    for sec in ("ENVIRONMENT", "FILES", "EXAMPLES"):
        if sections.get(sec, "").strip():
            out += [".SH " + sec] + render_text(sections[sec])
    out += [".SH SEE ALSO", ".ad l", ".nh",
            ", ".join("\\fB%s\\fR(1)" % esc(p[0]) for p in PROGRAMS
                      if p[0] != name)]
    out += render_text(sections.get("SEE ALSO", ""))
    return "\n".join(out) + "\n"


def alias(target):
    return ('.\\" Generated by man/mkman.py: the page of %s.\n'
            '.so man1/%s.1\n' % (target, target))


def build(bin_dir):
    ver = version()
    pages = {}
    for name, cmd, has_config, tool, summary in PROGRAMS:
        cmd = [c.format(bin=bin_dir) for c in cmd]
        if not os.path.exists(os.path.join(ROOT, cmd[0])):
            continue
        if cmd[0].endswith(".py"):
            cmd = [sys.executable] + cmd
        config_help = (help_text(cmd, "--config-help", bin_dir)
                       if has_config else None)
        pages[name + ".1"] = page(name, summary, tool,
                                  help_text(cmd, "--help", bin_dir),
                                  config_help, read_sections(name), ver)
    for name, target in ALIASES.items():
        if target + ".1" in pages:
            pages[name + ".1"] = alias(target)
    return pages


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="target/bin",
                    help="where the built programs are (default target/bin)")
    ap.add_argument("--out", default=HERE, help="output folder (default man/)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the pages in --out instead of writing")
    args = ap.parse_args(argv)
    pages = build(args.bin)
    stale = []
    for fname, text in sorted(pages.items()):
        path = os.path.join(args.out, fname)
        if args.check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(fname)
        else:
            with open(path, "w") as f:
                f.write(text)
            print("wrote %s" % os.path.relpath(path))
    if args.check and len(pages) == len(PROGRAMS) + len(ALIASES):
        extra = sorted(f for f in os.listdir(args.out)
                       if f.endswith(".1") and f not in pages)
        if extra:
            print("not generated by mkman.py (remove them): %s"
                  % ", ".join(extra))
            return 1
    if stale:
        print("out of date (run make man): %s" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
