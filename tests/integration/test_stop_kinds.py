"""Description: the kinds of stop agree between C and Python.

src/common/stop.h defines each kind of stop once for the C programs: a
token (host-limit, drive-limit, hung-io, io-errors, signal,
request) and the exact
phrase its log line carries (STOP_KIND_TABLE, on the STOP_PHRASE_* macros).
analysis/act/logfile/stops.py holds the same table for Python
(STOP_KINDS = {token: phrase}). This test reads both and checks they are
the same tokens with the same phrases - so rewording a log line in C
cannot silently change what the analysis recognises.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

STOP_H = os.path.join(itest.REPO, "src", "common", "stop.h")


def c_table(c):
    """{token: phrase} from stop.h."""
    with open(STOP_H) as f:
        text = f.read()
    phrases = dict(re.findall(r'^#define (STOP_PHRASE_\w+) "((?:[^"\\]|\\.)*)"$',
                              text, re.M))
    body = re.search(r"^#define STOP_KIND_TABLE \\\n((?:.*\\\n)*.*\n)", text,
                     re.M)
    if not c.check(body is not None, "stop.h: no STOP_KIND_TABLE"):
        return {}
    table = {}
    for token, macro in re.findall(r'\{ "([a-z-]+)", (STOP_PHRASE_\w+) \}',
                                   body.group(1)):
        c.check(macro in phrases, "stop.h: %s: %s is not defined"
                % (token, macro))
        c.check(token not in table, "stop.h: token %s twice" % token)
        table[token] = phrases.get(macro, "").replace('\\"', '"')
    c.check(len(table) == body.group(1).count("{"), "stop.h: an entry of "
            "STOP_KIND_TABLE is not in the { \"token\", STOP_PHRASE_X } form")
    return table


def main():
    c = itest.Checker("test_stop_kinds")
    table = c_table(c)
    c.check(set(table) == {"host-limit", "drive-limit", "hung-io",
                           "io-errors", "signal", "request"},
            "stop.h: unexpected tokens %s" % sorted(table))
    sys.path.insert(0, os.path.join(itest.REPO, "analysis"))
    from act.logfile import stops as mod
    py = getattr(mod, "STOP_KINDS", None)
    if c.check(isinstance(py, dict), "stops.py: no STOP_KINDS dict"):
        for token in sorted(set(table) | set(py)):
            c.eq("kind %s: phrase (C, Python)" % token, table.get(token),
                 py.get(token))
    c.finish()


if __name__ == "__main__":
    main()
