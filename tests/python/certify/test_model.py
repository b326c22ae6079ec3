#!/usr/bin/env python3
"""Description: act_certify's campaign model (analysis/act/certify/model.py)
on real state.json files: fixtures/*.json are the state.json of trial
campaigns run with act_certify on file devices (paths made neutral) -
finished (1 drive), two-ceiling (2 drives, --ceiling, a rung judged from
the stress run), ladder (--ladder, --no-fail-fast), notjudged (a rung
that fails), failfast (the test shim slowing reads: stopped_early),
ioerrors (failed reads: io_errors), interrupted (SIGINT), resumed (then
--resume --accept-device: old_logs, resumes, device_changes), running
(copied while step 1 ran: its pid), prep-index (--prep --index); and
old-* from the act_certify before --set (steps with their own config
file, no set or config_echo): old-error (every read failing: the
program's error), old-failfast, old-resumed, old-running,
old-no-identities (no identities, fail_fast or device_changes, as an
older one wrote).

- State.from_json then to_json, dumped as save_state dumps, gives each
  file back byte for byte; the records are typed (Campaign, Step,
  OldLog, FailFastStop, Resume, DeviceChange);
- the keys of a record keep a JSON object's order: a key set again stays
  where it was, a new one goes last, a removed one goes, unknown keys are
  kept in place; an absent optional key reads as its absent value (None,
  False, an empty read-only list or mapping) and is not written;
- every damaged copy of the fixtures (tests/python/certify/certstate.py:
  damaged, bounded) is refused with the reason state.json's old
  hand-written check gave (fixtures/damaged.txt) or accepted as it was;
  another format or not an object is NotAState; nesting deeper than 16
  levels is damage; the records inside a step or the state (an old log,
  a resume, a device change, a fail-fast stop) are checked too.

    python3 tests/python/certify/test_model.py [-v]
"""

import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import support  # noqa: E402,F401  (act on sys.path)
from certstate import bounded, damaged  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")

from act.certify import model  # noqa: E402
from act.certify.model import (  # noqa: E402
    Campaign, DeviceChange, FailFastStop, OldLog, Resume, State, Step)


def fixture_names():
    return sorted(n[:-len(".json")] for n in os.listdir(FIXTURES)
                  if n.endswith(".json"))


def fixture_text(name):
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return f.read()


def fixture(name):
    return json.loads(fixture_text(name))


def dumped(state):
    """As state.save_state writes it."""
    return json.dumps(state.to_json(), indent=1) + "\n"


def golden_reasons():
    reasons = {}
    with open(os.path.join(FIXTURES, "damaged.txt")) as f:
        for line in f:
            if not line.startswith("#"):
                case, why = line.rstrip("\n").split("\t")
                reasons[case] = None if why == "-" else why
    return reasons


class RoundTrip(unittest.TestCase):

    def test_fixtures_there(self):
        self.assertGreaterEqual(len(fixture_names()), 15)

    def test_byte_for_byte(self):
        for name in fixture_names():
            with self.subTest(fixture=name):
                text = fixture_text(name)
                state = State.from_json(json.loads(text))
                self.assertEqual(text, dumped(state))
                again = State.from_json(state.to_json())
                self.assertEqual(state, again)
                self.assertEqual(text, dumped(again))

    def test_typed(self):
        st = State.from_json(fixture("resumed"))
        self.assertIsInstance(st.campaign, Campaign)
        self.assertTrue(all(isinstance(s, Step) for s in st.steps))
        self.assertEqual(([1, 2], "finished", "done", "PASS"),
                         ([s.number for s in st.steps], st.status,
                          st.steps[0].status, st.steps[0].result))
        old = st.steps[0].old_logs[0]
        self.assertIsInstance(old, OldLog)
        self.assertEqual(("interrupted", 130), (old.status, old.exit_status))
        self.assertTrue(old.log.endswith(".log.interrupted-1"))
        self.assertIsInstance(st.resumes[0], Resume)
        self.assertEqual("vm", st.resumes[0].host["hostname"])
        ch = st.device_changes[0]
        self.assertIsInstance(ch, DeviceChange)
        self.assertEqual(("/dev/shm/act-trial/d.dev",
                          "/dev/shm/act-trial/d2.dev", 1),
                         (ch.old, ch.new, ch.from_step))
        self.assertEqual(["/dev/shm/act-trial/d2.dev"], st.campaign.devices)
        self.assertIs(True, st.campaign.fail_fast)

        ff = State.from_json(fixture("failfast")).steps[0]
        self.assertIsInstance(ff.stopped_early, FailFastStop)
        rec = ff.stopped_early
        self.assertEqual((3, 10, 2, 6, 20, 14), (
            rec.slice, rec.slices, rec.slice_sec, rec.end_sec,
            rec.planned_sec, rec.saved_sec))
        self.assertEqual([["reads", 50.0, "1 ms", 5.0]], rec.over)
        self.assertEqual(("FAIL", 0), (ff.result, ff.io_errors))

        running = State.from_json(fixture("running")).steps[0]
        self.assertTrue(running.has("pid") and running.pid > 0)
        self.assertFalse(running.has("log_size"))
        self.assertIsNone(running.log_size)

    def test_an_older_state(self):
        """No identities, fail_fast or device_changes: absent values."""
        st = State.from_json(fixture("old-no-identities"))
        c = st.campaign
        self.assertEqual((False, {}, ()), (c.fail_fast, dict(c.identities),
                                           st.device_changes))
        self.assertFalse(c.has("identities") or st.has("device_changes"))
        with self.assertRaises(TypeError):
            c.identities["/d"] = {}         # read-only: set it first
        with self.assertRaises(AttributeError):
            st.device_changes.append(None)
        c.identities = {"/d": {"kind": "file"}}
        st.device_changes = [DeviceChange(at="t", new="/d")]
        doc = st.to_json()
        self.assertEqual("identities", list(doc["campaign"])[-1])
        self.assertEqual(("device_changes", [{"at": "t", "new": "/d"}]),
                         (list(doc)[-1], doc["device_changes"]))


class KeyOrder(unittest.TestCase):
    """The order of a record's keys is a dict's (what state.json was)."""

    def step(self):
        return Step(number=1, id="01-x", kind="target", test=1, title="t",
                    load=1.0, devices=["/d"], reads_per_sec=2000,
                    writes_per_sec=1000, duration_sec=10, slice_sec=1,
                    judge="criteria", same_run_as=None, status="planned",
                    result=None, exit_status=None, message=None,
                    started_at=None, ended_at=None, old_logs=[],
                    files={"log": "01-x.log"})

    def test_as_a_dict(self):
        s = self.step()
        d = json.loads(json.dumps(s.to_json()))
        self.assertEqual(list(d)[-2:], ["old_logs", "files"])
        for change in (
                lambda x: x.set("pid", 42),
                lambda x: x.set("status", "running"),
                lambda x: x.update(status="ended", exit_status=0),
                lambda x: x.set("stopped_early", FailFastStop(
                    slice=1, slices=10, slice_sec=1, end_sec=1,
                    planned_sec=10, over=[["reads", 9.0, "1 ms", 5.0]])),
                lambda x: x.drop("pid"),
                lambda x: x.set("log_size", 0),
                lambda x: x.set("stop", None),
                lambda x: x.drop("stopped_early"),
                lambda x: x.set("io_errors", 0),
                lambda x: x.set("pid", 7),
                lambda x: x.drop("absent")):
            change(Both(s, d))
            self.assertEqual(json.dumps(d, indent=1),
                             json.dumps(s.to_json(), indent=1))
        self.assertEqual(["old_logs", "files", "log_size", "stop",
                          "io_errors", "pid"], list(s.to_json())[-6:])

    def test_del_and_drop(self):
        s = self.step()
        s.pid = 1
        del s.pid
        self.assertEqual((False, None), (s.has("pid"), s.pid))
        del s.pid                       # not there: nothing
        with self.assertRaises(AttributeError):
            del s.status                # a key every step has
        with self.assertRaises(AttributeError):
            s.update(stauts="done")     # no such field

    def test_copy(self):
        s = self.step()
        s.pid = 1
        t = s.copy(status="done", log_size=0)
        self.assertEqual((["pid", "log_size"], ["pid"]),
                         (list(t.to_json())[-2:], list(s.to_json())[-1:]))
        self.assertEqual(("done", "planned"), (t.status, s.status))
        del t.pid
        self.assertTrue(s.has("pid") and not t.has("pid"))

    def test_unknown_keys_kept_in_place(self):
        d = fixture("finished")
        d["steps"][0] = dict(list(d["steps"][0].items())[:3] + [
            ("from_the_future", {"x": [1]})] +
            list(d["steps"][0].items())[3:])
        d["campaign"]["later"] = 1
        d = {"extra": True, **d}
        st = State.from_json(d)
        self.assertEqual(json.dumps(d, indent=1),
                         json.dumps(st.to_json(), indent=1))


class Both:
    """A change made to a record and to its dict alike."""

    def __init__(self, record, d):
        self.record, self.d = record, d

    def set(self, key, value):
        setattr(self.record, key, value)
        self.d[key] = value.to_json() if isinstance(value, model.Record) \
            else value

    def update(self, **fields):
        self.record.update(**fields)
        self.d.update(fields)

    def drop(self, key):
        if key in model.Step._specs():
            delattr(self.record, key)
        self.d.pop(key, None)


class Damage(unittest.TestCase):

    def refused(self, doc, why, exc=model.Damaged):
        with self.assertRaises(exc) as cm:
            State.from_json(doc)
        self.assertEqual(why, str(cm.exception))

    def test_damaged_copies(self):
        """The old check's reason for each (fixtures/damaged.txt)."""
        reasons = golden_reasons()
        n = 0
        for name in ("finished", "failfast", "resumed", "running",
                     "old-resumed", "old-failfast"):
            for what, doc in damaged(fixture(name)):
                if what.endswith(" format"):
                    continue
                with self.subTest(fixture=name, case=what):
                    self.assertIn(what, reasons)
                    self.assertEqual(reasons[what], model.problem(doc))
                    if reasons[what] is None:
                        State.from_json(doc)
                    else:
                        self.refused(doc, reasons[what])
                    n += 1
        self.assertGreater(n, 800)

    def test_bounds(self):
        reasons = golden_reasons()
        for what, doc, why in bounded(fixture("two-ceiling")):
            with self.subTest(case=what):
                self.assertIn(why, reasons[what])
                self.refused(doc, reasons[what])

    def test_steps_together(self):
        """The checks of a step against the others and its kind."""
        base = fixture("two-ceiling")
        self.assertEqual(4, base["steps"][4]["same_run_as"])
        for k, key, value, why in (
                (4, "same_run_as", 5, "step 5 has a bad 'same_run_as': 5"),
                (4, "same_run_as", 0, "step 5 has a bad 'same_run_as': 0"),
                (4, "same_run_as", None, "step 5 has no 'log' file"),
                (4, "test", 4, "step 5 has a bad 'test': 4"),
                (0, "test", None, "step 1 has a bad 'test': None"),
                (0, "files", {"log": "a", "stderr": "b", "plot": "c",
                              "config": "../d"},
                 "step 1 has a bad 'config' file: '../d'"),
                (0, "files", {"log": "a", "stderr": "b", "plot": "c"},
                 "step 1 has no 'config' file")):
            doc = copy.deepcopy(base)
            doc["steps"][k][key] = value
            if key == "files":
                del doc["steps"][k]["set"]  # as an older act_certify's
            with self.subTest(step=k + 1, key=key, value=value):
                self.refused(doc, why)
        doc = copy.deepcopy(base)
        doc["steps"][0]["files"] = {"log": "a", "stderr": "b", "plot": "c"}
        State.from_json(doc)                # --set: no config file

    def test_not_a_state(self):
        for doc in ([], "x", None, {}, {"format": "act_certify/2"},
                    dict(fixture("finished"), format=None)):
            with self.subTest(doc=repr(doc)[:40]):
                self.refused(doc, "not an act_certify state file "
                             "(act_certify/1)", model.NotAState)

    def test_deep(self):
        doc = fixture("finished")
        deep = doc["host"]
        for _ in range(20):
            deep["x"] = {}
            deep = deep["x"]
        self.refused(doc, "it is nested deeper than 16 levels")

    def test_records_inside(self):
        """What the old check took as any object: an old log, a resume, a
        device change (each key optional, of its type) - and a fail-fast
        stop, refused as a whole, as before."""
        base = fixture("resumed")
        old = base["steps"][0]["old_logs"]
        for where, change, why in (
                ("steps", lambda d: d["steps"][0]["old_logs"][0].update(
                    log=5), "step 1 has a bad 'old_logs': %r" % (
                    [dict(old[0], log=5)],)),
                ("steps", lambda d: d["steps"][0]["old_logs"].append("x"),
                 "step 1 has a bad 'old_logs': %r" % (old + ["x"],)),
                ("resumes", lambda d: d["resumes"][0].update(host="h"),
                 None),
                ("device_changes", lambda d: d["device_changes"][0].update(
                    from_step="1"), None)):
            doc = copy.deepcopy(base)
            change(doc)
            with self.subTest(why=why or where):
                if why is None:
                    why = "the state has a bad %r: %r" % (where, doc[where])
                self.refused(doc, why)
        ok = copy.deepcopy(base)
        ok["resumes"][0] = {}
        ok["device_changes"][0].update(from_step=None, note="kept")
        self.assertEqual(json.dumps(ok, indent=1),
                         json.dumps(State.from_json(ok).to_json(), indent=1))

        ff = fixture("failfast")
        rec = ff["steps"][0]["stopped_early"]
        for bad in (dict(rec, over=[["reads", 1.0, "1 ms"]]),
                    {k: v for k, v in rec.items() if k != "end_sec"},
                    dict(rec, slice=True), []):
            doc = copy.deepcopy(ff)
            doc["steps"][0]["stopped_early"] = bad
            with self.subTest(stopped_early=bad):
                self.refused(doc, "step 1 has a bad 'stopped_early': %r"
                             % (bad,))


if __name__ == "__main__":
    unittest.main()
