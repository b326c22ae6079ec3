#!/usr/bin/env python3
"""Description: the layering of the Python package act (analysis/act), as
its import statements show it - read with ast, nothing imported; the
Python half of tests/integration/test_layering.py:

- layers: act (the package root: act/__init__.py, act/safefile.py) <
  act.cli < act.logfile < act.latency < act.certify; a module imports
  only modules of its own layer and of the layers below. act.sizing is
  beside them: it imports only act, act.cli and itself, and nothing
  imports it. act.logfile does not import act.cli either: the log reader
  raises its own error, each tool's command line maps it (review 4.2,
  change 1);
- no import cycle between modules (an import inside a function counts:
  it is how a cycle hides), each cycle named;
- no _private name imported from another module (from M import _x, or
  M._x on an imported module M): what modules share is public;
- a name act owns is defined once: VERSION (act), UsageError (act.cli);
- only act.logfile opens a log: every open() / io.open / os.open /
  safefile.open_regular that may read, in act.latency and act.certify,
  is in a function of OPENS_ALLOWED, each a file that is not a log, with
  the reason (writing - a literal mode "w", "a" or "x", os.O_WRONLY - is
  not reading).

KNOWN lists what other branches of issue 26 are fixing now: each such
finding is a note, not a failure - and a KNOWN or OPENS_ALLOWED entry
that nothing needs any more is a failure, so both lists shrink as the
branches merge.

    python3 tests/python/test_layering.py [-v]
"""

import ast
import os
import shutil
import tempfile
import unittest

import support

ACT = os.path.join(support.ANALYSIS, "act")

# Bottom first: a module imports only its own layer and the ones below.
LAYERS = ("act", "act.cli", "act.logfile", "act.latency", "act.certify")
BESIDE = {"act.sizing": {"act", "act.cli", "act.sizing"}}
# Imports the layer order would allow but a rule forbids: (importer's
# layer, imported layer): why.
FORBIDDEN = {
    ("act.logfile", "act.cli"): "the log reader raises its own error "
    "(LogError); each tool's command line maps it to an exit status "
    "(review 4.2, change 1)",
}
# A name defined once, by its owner.
OWNED = {"VERSION": "act", "UsageError": "act.cli"}
# Where opens are looked for (only act.logfile opens a log).
OPENS_CHECKED = ("act.latency", "act.certify")

# The functions of OPENS_CHECKED that may open a file to read it: none is
# a log. "module:function" (a method: "module:Class.method").
OPENS_ALLOWED = {
    "act.certify.devices:_hold_one": "the devices held for the campaign "
    "(file descriptors passed on to the programs, never read)",
    "act.certify.detach:_log_since": "DIR/detach.log, a detached "
    "campaign's output: its error when it ended at once",
    "act.certify.detach:_pid_file_process": "DIR/detach.pid and "
    "/proc/PID/cmdline: whether the detached act_certify still runs",
    "act.certify.detach:_run_detached": "/dev/null, the detached "
    "campaign's stdin",
    "act.certify.detach:lock_holder": "/proc/locks: who holds DIR's lock "
    "(without taking it)",
    "act.certify.detach:read_summary": "summary.json, for --status",
    "act.certify.host:_first_line_with": "/etc/os-release and /proc "
    "files: the host's identity",
    "act.certify.identity:_open_same": "a file or loop backing file the "
    "program identified, opened to read or set its mark (an xattr), "
    "never read",
    "act.certify.layout:read_text": "a base config",
    "act.certify.state:load_state": "state.json",
    "act.certify.state:lock_dir": "DIR/.lock (the campaign's lock file)",
    "act.certify.state:still_running": "/proc/PID/cmdline: whether the "
    "lock's holder is an act_certify",
    "act.certify.watch:PrepProgress.poll": "act_prep's stderr: its "
    "progress line (percent, ETA), not its log",
}

# Findings other branches of issue 26 are fixing now: (rule, subject).
# Each is a note while it is found; an entry no longer found fails the
# test - remove it then.
KNOWN = set()


# -- reading the package -------------------------------------------------

def find_modules(top=ACT):
    """{dotted name: path} of every module of the package under top."""
    found = {}
    base = os.path.dirname(top)
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(root, name), base)[:-3]
            dotted = rel.replace(os.sep, ".")
            if dotted.endswith(".__init__"):
                dotted = dotted[:-len(".__init__")]
            found[dotted] = os.path.join(root, name)
    return found


def is_private(name):
    return name.startswith("_") and not name.endswith("__")


class Module:
    """What one module's source says: its imports (edges, with the line),
    the private names it takes from others, the names it defines at its
    top level, and its calls that open a file."""

    def __init__(self, name, path, known):
        self.name = name
        self.package = name if path.endswith("__init__.py") \
            else name.rpartition(".")[0]
        with open(path, encoding="utf-8") as f:
            self.tree = ast.parse(f.read(), path)
        self.known = known
        self.edges = []             # (imported module, line)
        self.private = []           # (text, line)
        self.defines = set()
        self.opens = []             # (function, line)
        self.bound = {}             # local name -> module it stands for
        self._read()

    def _resolve(self, node):
        """The absolute module an ImportFrom names."""
        if not node.level:
            return node.module or ""
        base = self.package.split(".")
        if node.level > 1:
            base = base[:-(node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def _owner(self, dotted):
        """The module of the package that dotted (a module, or a name in
        one) is, or None (not of the package)."""
        while dotted and dotted not in self.known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def _read(self):
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef)):
                self.defines.add(node.name)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.defines.add(t.id)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    mod = self._owner(a.name)
                    if mod is None:
                        continue
                    self.edges.append((mod, node.lineno))
                    if a.asname:
                        self.bound[a.asname] = mod
            elif isinstance(node, ast.ImportFrom):
                src = self._resolve(node)
                if self._owner(src) is None:
                    continue
                for a in node.names:
                    sub = "%s.%s" % (src, a.name)
                    if sub in self.known:
                        self.edges.append((sub, node.lineno))
                        self.bound[a.asname or a.name] = sub
                        continue
                    mod = self._owner(src)
                    self.edges.append((mod, node.lineno))
                    if is_private(a.name) and mod != self.name:
                        self.private.append(("%s imports %s.%s" % (
                            self.name, mod, a.name), node.lineno))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and \
                    isinstance(node.value, ast.Name) and \
                    node.value.id in self.bound and is_private(node.attr) \
                    and self.bound[node.value.id] != self.name:
                self.private.append(("%s imports %s.%s" % (
                    self.name, self.bound[node.value.id], node.attr),
                                     node.lineno))
        self._find_opens(self.tree, [])

    def _find_opens(self, node, where):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef)):
                self._find_opens(child, where + [child.name])
                continue
            if isinstance(child, ast.Call) and reads(child):
                self.opens.append((".".join(where) or "<module>",
                                   child.lineno))
            self._find_opens(child, where)


def _callee(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return "%s.%s" % (f.value.id, f.attr)
    if isinstance(f, ast.Attribute):
        return "?." + f.attr
    return None


def reads(call):
    """Whether call opens a file in a way that may read it: open(),
    io.open(), codecs.open() without a literal write-only mode, os.open()
    without O_WRONLY, safefile.open_regular()."""
    name = _callee(call)
    if name in ("open", "io.open", "codecs.open"):
        mode = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "mode"), None)
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
            return "+" in mode.value or not set("wax") & set(mode.value)
        return True
    if name == "os.open":
        flags = call.args[1] if len(call.args) > 1 else None
        return flags is None or not any(
            isinstance(n, ast.Attribute) and n.attr == "O_WRONLY"
            for n in ast.walk(flags))
    return name is not None and name.split(".")[-1] == "open_regular"


# -- the rules -----------------------------------------------------------

def layer_of(name):
    for layer in reversed(LAYERS[1:]):
        if name == layer or name.startswith(layer + "."):
            return layer
    for layer in BESIDE:
        if name == layer or name.startswith(layer + "."):
            return layer
    return LAYERS[0]


def layering(mods):
    """{(rule, subject): message} of the imports across layers."""
    found = {}
    for m in mods.values():
        for dep, line in m.edges:
            a, b = layer_of(m.name), layer_of(dep)
            where = "%s:%d" % (m.name, line)
            if a in BESIDE:
                ok = b in BESIDE[a]
                why = "%s imports only %s" % (a, ", ".join(sorted(
                    BESIDE[a])))
            elif b in BESIDE:
                ok = False
                why = "nothing imports %s (it is beside the layers)" % b
            else:
                ok = LAYERS.index(b) <= LAYERS.index(a)
                why = "%s is above %s (layers: %s)" % (b, a,
                                                       " < ".join(LAYERS))
            if not ok:
                found[("layer", "%s -> %s" % (m.name, dep))] = \
                    "%s: imports %s - %s" % (where, dep, why)
            elif (a, b) in FORBIDDEN:
                found[("forbidden", "%s -> %s" % (m.name, dep))] = \
                    "%s: imports %s - %s" % (where, dep, FORBIDDEN[(a, b)])
    return found


def cycles(mods):
    """{(rule, subject): message} of the import cycles: the strongly
    connected parts (Tarjan) of the graph of imports, each named by one
    cycle through it."""
    graph = {n: sorted({d for d, _ in m.edges if d != n})
             for n, m in mods.items()}
    index, low, stack, on, parts = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    found = {}
    for part in parts:
        found[("cycle", ", ".join(part))] = "import cycle: %s" % \
            " -> ".join(one_cycle(graph, part))
    return found


def one_cycle(graph, part):
    """A cycle through the first module of part, inside part: the path
    back to it, breadth first (the shortest)."""
    start = part[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in graph[v]:
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in part and w not in prev:
                prev[w] = v
                queue.append(w)
    return part


def privates(mods):
    found = {}
    for m in mods.values():
        for text, line in m.private:
            found[("private", text)] = "%s:%d: %s - a name shared across " \
                "modules is public" % (m.name, line, text)
    return found


def owned(mods):
    found = {}
    for m in mods.values():
        for name, owner in OWNED.items():
            if name in m.defines and m.name != owner:
                found[("owned", "%s defines %s" % (m.name, name))] = \
                    "%s defines %s - it is %s's (use that one)" % (
                        m.name, name, owner)
    return found


def opens(mods, allowed=OPENS_ALLOWED):
    """({(rule, subject): message} of the opens that may read outside
    allowed, the allowed entries used)."""
    lines, used = {}, set()
    for m in mods.values():
        if not any(m.name == p or m.name.startswith(p + ".")
                   for p in OPENS_CHECKED):
            continue
        for func, line in m.opens:
            key = "%s:%s" % (m.name, func)
            if key in allowed:
                used.add(key)
            else:
                lines.setdefault(key, []).append(line)
    return {("open", key): "%s (line %s): opens a file to read it - only "
            "act.logfile opens a log; a file that is not a log goes in "
            "OPENS_ALLOWED with its reason" % (key, ", ".join(map(str, ls)))
            for key, ls in lines.items()}, used


def check(mods, known=KNOWN, allowed=OPENS_ALLOWED):
    """Every rule on mods: (notes, failures) - a finding in known is a
    note, any other a failure; a known or allowed entry not needed is a
    failure."""
    found = {}
    for rule in (layering, cycles, privates, owned):
        found.update(rule(mods))
    open_found, used = opens(mods, allowed)
    found.update(open_found)
    notes, failures = [], []
    for key in sorted(found):
        if key in known:
            notes.append(found[key])
        else:
            failures.append(found[key])
    for key in sorted(set(known) - set(found)):
        failures.append("KNOWN entry %r is no longer found: remove it from "
                        "KNOWN in %s" % (key, os.path.basename(__file__)))
    for key in sorted(set(allowed) - used):
        failures.append("OPENS_ALLOWED entry %r opens nothing any more: "
                        "remove it" % key)
    return notes, failures


# -- the rules on small made-up packages: each finds what it must --------

def made_up(files):
    """{name: Module} of a package written from {relative path: source}
    in a temporary directory named act."""
    td = tempfile.mkdtemp()
    top = os.path.join(td, "act")
    for rel, text in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    paths = find_modules(top)
    mods = {n: Module(n, p, paths) for n, p in paths.items()}
    shutil.rmtree(td)
    return mods


class Rules(unittest.TestCase):
    """Each rule on a made-up package that breaks it, and one that does
    not."""

    PKG = {"__init__.py": "VERSION = '1'\n", "cli.py": "import act\n",
           "safefile.py": "", "logfile/__init__.py": "",
           "latency/__init__.py": "", "certify/__init__.py": "",
           "sizing/__init__.py": ""}

    def test_a_clean_package(self):
        clean = made_up(dict(self.PKG, **{
            "latency/a.py": "from act.logfile import header\n"
                            "from act.cli import UsageError\n",
            "logfile/header.py": "from act.safefile import open_regular\n"
                                 "def read(p):\n    return open(p, 'rb')\n",
            "certify/b.py": "from act.latency import a\nimport os\n"
                            "def w(p):\n    open(p, 'w')\n"
                            "    os.open(p, os.O_WRONLY | os.O_CREAT)\n",
            "sizing/s.py": "from act.cli import UsageError\nimport act\n"}))
        for rule in (layering, cycles, privates, owned):
            with self.subTest(rule=rule.__name__):
                self.assertEqual({}, rule(clean),
                                 "a clean package: %s" % rule.__name__)
        self.assertEqual(({}, set()), opens(clean),
                         "a clean package: opens")

    def test_a_bad_package(self):
        bad = made_up(dict(self.PKG, **{
            "logfile/header.py": "from act.latency import a\n"
                                 "from act.cli import UsageError\n",
            "latency/a.py": "def f():\n    from act.latency import b\n",
            "latency/b.py": "from act.latency.a import f, _g\n"
                            "from act.latency import a as aa\n"
                            "x = aa._h\n",
            "certify/c.py": "import io\nfrom act.safefile import "
                            "open_regular\nclass K:\n    def m(self, p):\n"
                            "        return io.open(p)\n"
                            "def g(p):\n    open_regular(p)\n"
                            "    open(p, 'r+b')\n",
            "cli.py": "from act.sizing import s\nclass UsageError(Exception):"
                      "\n    pass\n",
            "sizing/s.py": "from act.logfile import header\nVERSION = '2'\n"}))
        self.assertEqual({
            ("layer", "act.logfile.header -> act.latency.a"),
            ("forbidden", "act.logfile.header -> act.cli"),
            ("layer", "act.cli -> act.sizing.s"),
            ("layer", "act.sizing.s -> act.logfile.header")},
            set(layering(bad)), "layering of a bad package")
        cyc = cycles(bad)
        self.assertEqual({("cycle", "act.latency.a, act.latency.b"),
                          ("cycle", "act.cli, act.logfile.header, "
                           "act.sizing.s")}, set(cyc), "the cycles found")
        self.assertTrue(any("act.latency.a -> act.latency.b -> "
                            "act.latency.a" in v for v in cyc.values()),
                        "the cycle named: %r" % cyc)
        self.assertEqual({
            ("private", "act.latency.b imports act.latency.a._g"),
            ("private", "act.latency.b imports act.latency.a._h")},
            set(privates(bad)), "private imports found")
        self.assertEqual({("owned", "act.sizing.s defines VERSION")},
                         set(owned(bad)), "owned names found")
        found, _ = opens(bad)
        self.assertEqual({("open", "act.certify.c:K.m"),
                          ("open", "act.certify.c:g")}, set(found),
                         "opens found")
        self.assertIn("line 7, 8", found.get(("open", "act.certify.c:g"), ""),
                      "both opens of g named by line: %r" % found)

    def test_known_and_allowed(self):
        probe = made_up(dict(self.PKG, **{"certify/d.py": "def h(p):\n"
                                          "    return open(p)\n"}))
        notes, failures = check(probe, known={("open", "act.certify.d:h"),
                                              ("cycle", "act.x, act.y")},
                                allowed={"act.certify.d:gone": "-"})
        self.assertEqual(1, len(notes), "a KNOWN finding is a note")
        self.assertEqual(2, len(failures), "a KNOWN entry not found and an "
                         "allowance not used fail")


class Package(unittest.TestCase):
    """The rules on the package act itself."""

    def test_the_package(self):
        paths = find_modules()
        mods = {n: Module(n, p, paths) for n, p in paths.items()}
        self.assertGreater(len(mods), 30,
                           "the package read: %d modules" % len(mods))
        notes, failures = check(mods)
        for msg in failures:
            with self.subTest(finding=msg[:60]):
                self.fail(msg)
        for n in notes:
            print("known (issue 26): " + n)
        print("%d modules, %d imports checked; %d known findings" % (
            len(mods), sum(len(m.edges) for m in mods.values()), len(notes)))


if __name__ == "__main__":
    unittest.main()
