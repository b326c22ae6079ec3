"""A campaign's state.json contents for the act_certify tests: the plan
of plan.plan_steps and the campaign keys every state has (state.py's
schema), with the values a test does not care about made up."""

from act.certify import plan, state


def new_state(devices, load=1, duration=10, status="planned"):
    steps = plan.plan_steps(devices, load, 2.0, duration, [], False)
    return {"format": state.STATE_FORMAT, "status": status,
            "command": ["act_certify.py"], "created_at": "x",
            "ended_at": None,
            "campaign": {"program": "act_storage",
                         "program_path": "/bin/act_storage",
                         "program_version": None,
                         "base_config_path": "/c/b.conf",
                         "devices": devices,
                         "device_kinds": {d: "file" for d in devices},
                         "load": load, "stress_factor": 2.0,
                         "duration_sec": duration,
                         "ceiling": False, "ladder": [], "prep": False},
            "host": {"hostname": "h"}, "resumes": [], "steps": steps}
