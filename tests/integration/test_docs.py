"""Description: the README and docs/ hold together.

Every relative link in README.md and docs/*.md points at a file that
exists, and its #anchor (when it has one) at a heading of that file
(GitHub's slugs: lower case, punctuation dropped, spaces to '-'). The
README stays a newcomer's path (at most 420 lines) with a "Source layout"
section that links to docs/hacking.md, docs/README.md lists every page of
docs/, and each docs page sends exit statuses to docs/README.md's one
table rather than keeping a table of its own.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    text = re.sub(r"(?ms)^```.*?^```", "", open(path).read())
    return {slug(h) for h in re.findall(r"(?m)^#+ (.+)$", text)}


def main():
    c = itest.Checker("test_docs")
    readme = os.path.join(itest.REPO, "README.md")
    pages = sorted(glob.glob(os.path.join(itest.REPO, "docs", "*.md")))
    for path in [readme] + pages:
        text = re.sub(r"(?ms)^```.*?^```", "", open(path).read())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) \
                if file else path
            rel = os.path.relpath(path, itest.REPO)
            if not c.check(os.path.exists(dest), "%s: link to missing %s" % (
                    rel, target)):
                continue
            if anchor and dest.endswith(".md"):
                c.check(anchor in headings(dest), "%s: link %s: no such "
                        "heading in %s" % (rel, target,
                                           os.path.relpath(dest, itest.REPO)))

    lines = open(readme).read().split("\n")
    c.check(len(lines) <= 420, "README.md has %d lines, more than 420: "
            "reference belongs in docs/" % len(lines))
    text = open(readme).read()
    m = re.search(r"(?ms)^## Source layout\n(.*?)(?=^## |\Z)", text)
    c.check(m and "docs/hacking.md" in m.group(1),
            "README.md: no 'Source layout' section linking to docs/hacking.md")

    index = open(os.path.join(itest.REPO, "docs", "README.md")).read()
    for p in pages:
        name = os.path.basename(p)
        if name != "README.md":
            c.check("(%s)" % name in index, "docs/README.md does not list %s"
                    % name)
    for p in pages:
        if os.path.basename(p) == "README.md":
            continue
        body = open(p).read()
        c.check(not re.search(r"(?m)^\| status \|", body),
                "%s keeps its own exit-status table; link to docs/README.md"
                % os.path.relpath(p, itest.REPO))
    c.finish()


if __name__ == "__main__":
    main()
