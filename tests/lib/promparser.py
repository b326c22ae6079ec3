"""The real Prometheus text parser for the tests of act_certify's metrics
file (docs/metrics.md): prometheus_client's
parser.text_string_to_metric_families, run in a venv of its own - a
test-only dependency, never one of act's programs.

The venv is $ACT_PROM_VENV, else target/venv-prometheus in the
repository; made (python3 -m venv, pip install prometheus-client from the
package registry) the first time a test needs it, then reused, so `make
test` pays for it once. Where it can't be made or imported, parser()
returns None and the reason, and the test skips saying it (the reason
kept in target/venv-prometheus.failed: not tried again for an hour, so
a machine without the registry does not wait for it in every test).

    p, why = parser()
    families = p.parse(text)    # [(name, type, [(sample, labels, value)])]
                                # or ValueError: the parser's complaint
    series = check_text(text)   # the format's rules, checked here
                                # (AssertionError), and the series
    series, problems = validate(text, p)    # all of them at once
    problems = promtool_check(text)  # `promtool check metrics`'s lint:
                                # None when clean (promtool() is its
                                # path: $ACT_PROMTOOL, on PATH, or
                                # Debian's prometheus package fetched
                                # into target/promtool; None where it
                                # can't be: promtool_why())
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VENV = os.environ.get("ACT_PROM_VENV") or os.path.join(
    REPO, "target", "venv-prometheus")
PACKAGE = "prometheus-client"
FAILED = VENV + ".failed"      # why the last install failed

# what the venv's Python runs: the text on stdin, the families on stdout
PARSE = r"""
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = sys.stdin.read()
try:
    out = [[f.name, f.type, [[s.name, dict(s.labels), s.value]
                             for s in f.samples]]
           for f in text_string_to_metric_families(text)]
except Exception as e:
    print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
else:
    print(json.dumps({"families": out}))
"""


class Parser:
    def __init__(self, python):
        self.python = python

    def parse(self, text):
        """The families of text, as the real parser reads them; a
        ValueError with its complaint when it refuses the text."""
        p = subprocess.run([self.python, "-c", PARSE], input=text,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError("the parser did not run: %s" % p.stderr)
        got = json.loads(p.stdout)
        if "error" in got:
            raise ValueError(got["error"])
        return [(n, t, [(s, lab, v) for s, lab, v in samples])
                for n, t, samples in got["families"]]


_cached = None


PROMTOOL_DIR = os.path.join(REPO, "target", "promtool")
PROMTOOL_FAILED = PROMTOOL_DIR + ".failed"   # why the last fetch failed
_promtool = None


def promtool():
    """promtool's path: $ACT_PROMTOOL, on PATH, else Debian's prometheus
    package unpacked in target/promtool - fetched with apt-get download
    the first time (a test-only tool; where it can't be, not tried again
    for an hour, promtool_why() says why) - or None."""
    global _promtool
    given = os.environ.get("ACT_PROMTOOL") or shutil.which("promtool")
    if given:
        return given
    if _promtool is None:
        _promtool = _fetch_promtool()
    return _promtool or None


def promtool_why():
    """Why there is no promtool (after promtool() returned None)."""
    try:
        with open(PROMTOOL_FAILED) as f:
            return f.read().strip()
    except OSError:
        return "no promtool (Debian's prometheus package; or set " \
            "ACT_PROMTOOL)"


def _fetch_promtool():
    exe = os.path.join(PROMTOOL_DIR, "usr", "bin", "promtool")
    if os.access(exe, os.X_OK):
        return exe
    try:
        with open(PROMTOOL_FAILED) as f:
            if time.time() - os.fstat(f.fileno()).st_mtime < 3600:
                return ""
    except OSError:
        pass
    why = None
    if not (shutil.which("apt-get") and shutil.which("dpkg")):
        why = "no promtool, and no apt-get/dpkg to fetch Debian's " \
            "prometheus package"
    else:
        work = PROMTOOL_DIR + ".download"
        shutil.rmtree(work, ignore_errors=True)
        try:
            os.makedirs(work)
            subprocess.run(["apt-get", "download", "-q", "prometheus"],
                           cwd=work, capture_output=True, check=True,
                           timeout=300)
            debs = [n for n in os.listdir(work) if n.endswith(".deb")]
            if len(debs) != 1:
                raise OSError("apt-get download gave %r" % debs)
            subprocess.run(["dpkg", "-x", os.path.join(work, debs[0]),
                            os.path.join(work, "x")], capture_output=True,
                           check=True, timeout=300)
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            os.replace(os.path.join(work, "x", "usr", "bin", "promtool"),
                       exe)     # the rest (the server) is not kept
            subprocess.run([exe, "--version"], capture_output=True,
                           check=True, timeout=60)
        except subprocess.CalledProcessError as e:
            err = (e.stderr or b"").decode("utf-8", "replace").strip()
            why = "can't fetch promtool (%s: %s)" % (
                " ".join(e.cmd[:2]), err.splitlines()[-1] if err else e)
        except (OSError, subprocess.SubprocessError) as e:
            why = "can't fetch promtool: %s" % e
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if why is None:
        return exe
    shutil.rmtree(PROMTOOL_DIR, ignore_errors=True)
    try:
        with open(PROMTOOL_FAILED, "w") as f:
            f.write(why + "\n")
    except OSError:
        pass
    return ""


def promtool_check(text):
    """`promtool check metrics` on text: None when it finds nothing, else
    what it says."""
    p = subprocess.run([promtool(), "check", "metrics"], input=text,
                       capture_output=True, text=True, timeout=60)
    out = (p.stdout + p.stderr).strip()
    return None if p.returncode == 0 and not out else \
        out or "exit status %d" % p.returncode


def parser():
    """(Parser, None), or (None, why) when prometheus_client can't be had
    here (no venv module, no network to the registry...)."""
    global _cached
    if _cached is None:
        _cached = _make()
    return _cached


def _importable(python):
    try:
        return subprocess.run([python, "-c", "import prometheus_client."
                               "parser"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _make():
    python = os.path.join(VENV, "bin", "python")
    if os.path.exists(python) and _importable(python):
        return Parser(python), None
    try:                            # a failure of the last hour: not again
        with open(FAILED) as f:
            if time.time() - os.fstat(f.fileno()).st_mtime < 3600:
                return None, f.read().strip() + " (not retried for an hour)"
    except OSError:
        pass
    parser_, why = _install(python)
    if why is not None:
        try:
            with open(FAILED, "w") as f:
                f.write(why + "\n")
        except OSError:
            pass
    return parser_, why


def _install(python):
    """(Parser, None) after making the venv and installing the package,
    or (None, why)."""
    try:
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", VENV],
                           capture_output=True, check=True, timeout=120)
        subprocess.run([python, "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", "--timeout", "10",
                        "--retries", "1", PACKAGE],
                       capture_output=True, check=True, timeout=300)
    except subprocess.CalledProcessError as e:
        why = (e.stderr or b"").decode("utf-8", "replace").strip()
        return None, "can't install %s in %s: %s" % (
            PACKAGE, VENV, why.splitlines()[-1] if why else e)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "can't install %s in %s: %s" % (PACKAGE, VENV, e)
    if not _importable(python):
        return None, "prometheus_client.parser does not import in %s" % VENV
    return Parser(python), None


NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(%s)\{((?:%s)(?:,%s)*)?\} (\S+)$" % (NAME, LABEL,
                                                          LABEL))
LABELS = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|'
                    r'\\n)*)"')


def unescape(v):
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1),
                                                      m.group(1)), v)


def check_text(text):
    """{(name, sorted labels tuple): value} of a metrics file after
    checking it against the text format's rules, stricter than the
    parser: every line a HELP, a TYPE (gauge: act writes nothing else) or
    a sample; a family's HELP and TYPE once, before its samples, which
    are together; label values escaped; no series twice. An
    AssertionError naming the line otherwise."""
    out = {}
    helps, types, done = {}, {}, set()
    current = None
    assert text.endswith("\n"), "no final line feed"
    for line in text.split("\n")[:-1]:
        m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % NAME, line)
        if m:
            kind, name, rest = m.groups()
            book = helps if kind == "HELP" else types
            assert name not in book, "a second %s for %s" % (kind, name)
            assert name not in done, "%s for %s after its samples" % (
                kind, name)
            book[name] = rest
            if kind == "TYPE":
                assert rest == "gauge", line
            current = name
            continue
        m = SAMPLE.match(line)
        assert m, "not a sample line: %r" % line
        name, labels, value = m.groups()
        assert name == current and name in helps and name in types, \
            "%s: a sample out of its family (HELP and TYPE first, " \
            "samples together)" % name
        done.add(name)
        key = (name, tuple(sorted((k, unescape(v)) for k, v in
                                  LABELS.findall(labels or ""))))
        assert key not in out, "a series twice: %r" % (key,)
        out[key] = float(value)
    return out


def validate(text, parser):
    """(series, problems) of a metrics file: check_text's series, and
    what the format's rules, the real parser (parser: parser()'s, or
    None) and promtool (where it is) find wrong - [] when nothing."""
    try:
        series = check_text(text)
    except AssertionError as e:
        return {}, ["the format's rules: %s" % e]
    problems = []
    if parser is not None:
        try:
            theirs = {(s, tuple(sorted(lab.items()))): v
                      for _, _, samples in parser.parse(text)
                      for s, lab, v in samples}
        except ValueError as e:
            problems.append("the real parser refuses it: %s" % e)
        else:
            if theirs != series:
                problems.append("the real parser's samples differ: %r "
                                "against the rules' %r" % (theirs, series))
    if promtool() is not None:
        lint = promtool_check(text)
        if lint is not None:
            problems.append("promtool check metrics: %s" % lint)
    return series, problems


def value(series, name, **labels):
    """The value of the one series of check_text's series named name
    with those labels (among others), or None when there is none or
    several."""
    got = [v for (n, lab), v in series.items() if n == name and
           all(dict(lab).get(k) == w for k, w in labels.items())]
    return got[0] if len(got) == 1 else None
