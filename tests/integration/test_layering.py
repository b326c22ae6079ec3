"""Description: the source layering, as the #include lines show it.

Every project include names its folder ("common/x.h", "storage/..."), and
the Makefile gives only -Isrc, so the layering can be read - and is
checked here:
- src/common includes only common/ headers;
- a program's folder (storage, index, prep) includes common/ and its own
  folder only - never another program's;
- tests/unit and tests/fuzz include src headers by folder too ("common/...",
  "storage/...", "index/..."), or their own local headers;
- no include cycle among the headers of src;
- each included header exists.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

SRC = os.path.join(itest.REPO, "src")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LOCAL_TEST_HEADERS = {"unit.h", "tiny_cfg.h"}


def includes(path):
    with open(path, errors="replace") as f:
        return INCLUDE.findall(f.read())


def main():
    c = itest.Checker("test_layering")
    graph = {}
    for folder in sorted(os.listdir(SRC)):
        for name in sorted(os.listdir(os.path.join(SRC, folder))):
            if not name.endswith((".c", ".h")):
                continue
            rel = "%s/%s" % (folder, name)
            incs = includes(os.path.join(SRC, rel))
            graph[rel] = [i for i in incs if i.endswith(".h")]
            for inc in incs:
                top = inc.split("/")[0] if "/" in inc else None
                c.check(top is not None, "%s: #include \"%s\" names no "
                        "folder" % (rel, inc))
                c.check(os.path.exists(os.path.join(SRC, inc)),
                        "%s: #include \"%s\": no such header" % (rel, inc))
                allowed = {"common"} if folder == "common" else \
                    {"common", folder}
                c.check(top in allowed, "%s: includes %s - %s/ may include "
                        "only %s/" % (rel, inc, folder,
                                      " and ".join(sorted(allowed))))
    for d in ("tests/unit", "tests/fuzz"):
        for name in sorted(os.listdir(os.path.join(itest.REPO, d))):
            if not name.endswith((".c", ".h")):
                continue
            for inc in includes(os.path.join(itest.REPO, d, name)):
                ok = inc in LOCAL_TEST_HEADERS or (
                    "/" in inc and os.path.exists(os.path.join(SRC, inc)))
                c.check(ok, "%s/%s: #include \"%s\" is neither a src header "
                        "named by folder nor a local one" % (d, name, inc))

    # No cycle among headers (a .c file is never included).
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                cyc = stack[stack.index(nxt):] + [nxt] if nxt in stack \
                    else [node, nxt]
                c.fail("include cycle: %s" % " -> ".join(cyc))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node.endswith(".h") and node not in state:
            visit(node, [node])
    print("%d source files, layering and includes checked" % len(graph))
    c.finish()


if __name__ == "__main__":
    main()
