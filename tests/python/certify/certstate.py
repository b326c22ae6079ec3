"""A campaign's state (model.State) for the act_certify tests: the plan
of plan.plan_steps and the campaign keys every state has, with the
values a test does not care about made up; and the damaged copies of a
state.json every reader must refuse (damaged, bounded)."""

import json

from act.certify import plan
from act.certify.model import STATE_FORMAT, Campaign, State


def new_state(devices, load=1, duration=10, status="planned", ladder=(),
              prep=False):
    steps = plan.plan_steps(devices, load, 2.0, duration, list(ladder),
                            prep)
    return State(
        format=STATE_FORMAT, status=status, command=["act_certify.py"],
        created_at="x", ended_at=None,
        campaign=Campaign(
            program="act_storage", program_path="/bin/act_storage",
            program_version=None, base_config_path="/c/b.conf",
            devices=devices, device_kinds={d: "file" for d in devices},
            load=load, stress_factor=2.0, duration_sec=duration,
            ceiling=bool(ladder), ladder=list(ladder), prep=prep),
        host={"hostname": "h"}, resumes=[], steps=steps)


def make_step(**fields):
    """A Step with the fields given, the others a planned test 1's (1x
    on /d/a for 10 s)."""
    step = plan.plan_steps(["/d/a"], 1, 2.0, 10, [], False)[0]
    step.update(**fields)
    return step


def as_json(st):
    """A state.json's document: st itself, or a State's."""
    return st.to_json() if isinstance(st, State) else st


def damaged(st):
    """(what, state) for every key act_certify reads removed, and set to a
    string, a list and null; and the steps' cross-references broken."""
    st = as_json(st)
    def variants(d, path):
        for key in list(d):
            for what, value in (("without", None), ("a string for", "x"),
                                ("a list for", []), ("null for", "null")):
                copy = json.loads(json.dumps(st))
                target = copy
                for p in path:
                    target = target[p]
                if what == "without":
                    del target[key]
                elif value == "null":
                    target[key] = None
                else:
                    target[key] = value
                yield "%s %s" % (what, "/".join(map(str, path + [key]))), copy
    yield from variants(st, [])
    yield from variants(st["campaign"], ["campaign"])
    for i in range(len(st["steps"])):
        yield from variants(st["steps"][i], ["steps", i])
    for what, change in (("step 2 same_run_as 9", ("same_run_as", 9)),
                         ("step 2 numbered 7", ("number", 7)),
                         ("step 2 a NaN load", ("load", float("nan")))):
        copy = json.loads(json.dumps(st))
        copy["steps"][1][change[0]] = change[1]
        yield what, copy


def bounded(st):
    """(what, state, reason) for a state.json nested too deep, or holding
    a number past the limits the command line has (docs/certify.md,
    "Options"): every one is damage, never a traceback."""
    st = as_json(st)
    def changed(what, change, why):
        copy = json.loads(json.dumps(st))
        change(copy)
        return what, copy, why
    deep = {}
    cur = deep
    for _ in range(30):
        cur["x"] = {}
        cur = cur["x"]
    yield changed("a host nested 31 deep", lambda x: x.update(host=deep),
                  "it is nested deeper than 16 levels")
    yield changed("load 1e308", lambda x: x["campaign"].update(load=1e308),
                  "the campaign has a bad 'load': 1e+308")
    yield changed("load 3e6 (6e9 reads/s)",
                  lambda x: x["campaign"].update(load=3e6),
                  "the campaign has a bad 'load': 3000000.0")
    yield changed("stress factor 1e308",
                  lambda x: x["campaign"].update(stress_factor=1e308),
                  "the campaign has a bad 'stress_factor': 1e+308")
    yield changed("stress load past the reads/s on 2 devices",
                  lambda x: x["campaign"].update(load=7e5),
                  "the campaign's stress load 1400000.0 is more than act "
                  "can run on 2 devices (4294967295 reads/s)")
    yield changed("a ladder load 1e308",
                  lambda x: x["campaign"].update(ladder=[1e308]),
                  "the campaign has a bad 'ladder': [1e+308]")
    yield changed("duration 2**40",
                  lambda x: x["campaign"].update(duration_sec=2 ** 40),
                  "the campaign has a bad 'duration_sec': 1099511627776")
    yield changed("step 1 load 1e308",
                  lambda x: x["steps"][0].update(load=1e308),
                  "step 1 has a bad 'load': 1e+308")
    yield changed("step 3 load 2e6 on 2 devices",
                  lambda x: x["steps"][2].update(load=2e6),
                  "step 3 has a bad 'load': 2000000.0")
    yield changed("step 1 reads/s 2**40",
                  lambda x: x["steps"][0].update(reads_per_sec=2 ** 40),
                  "step 1 has a bad 'reads_per_sec': 1099511627776")
    yield changed("step 1 slice 2**33",
                  lambda x: x["steps"][0].update(slice_sec=2 ** 33),
                  "step 1 has a bad 'slice_sec': 8589934592")
    yield changed("step 1 log size -1",
                  lambda x: x["steps"][0].update(log_size=-1),
                  "step 1 has a bad 'log_size': -1")
