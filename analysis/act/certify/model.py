"""The campaign model: state.json as typed records.

    State         the file: the campaign's status, command, times, host,
                  resumes, steps, device changes
    Campaign      its settings (state.json's "campaign"): the program, the
                  devices and their identities, the loads, the ladder
    Step          one step of the plan, and what became of it
    OldLog        the files of a step's run that was interrupted, kept
    FailFastStop  where fail fast stopped a step (its "stopped_early")
    Resume        one --resume: when, and on which host
    DeviceChange  a drive replaced with --accept-device

Each record has from_json and to_json. state.json is read as something
that may come from anyone (State.from_json): every key act_certify reads
is checked - its type, numbers bounded as the command line bounds them,
the file's depth - so a damaged file is refused with its reason, never a
traceback. The checks are the fields' own (field(check)): problem()
reports the first one that fails, in the words state.json's readers
print ("step 2 has a bad 'load': 1e+308").

to_json gives back the same keys in the same order as the file had (keys
act_certify does not know included), and a record made here has its keys
in the order act_certify always wrote them: a key that is set stays where
it was, a key set anew goes last, a key removed (del record.key) goes -
as in the dicts state.json was written from. So state.json stays byte
for byte what json.dumps(..., indent=1) of those dicts wrote.

An optional key that is absent reads as its "absent" value (None, False,
an empty read-only list or mapping): set it to have it in the file."""

import copy
import dataclasses

from act import MAX_U32


ONE_X_READS = 2000              # per device: the README's "1x" (a load in
ONE_X_WRITES = 1000             # x per device: N x these, per second)
STATE_FORMAT = "act_certify/1"
MAX_DEPTH = 16                  # nesting of a state.json (ours: 6 levels)

STATE_STATUSES = ("planned", "running", "interrupted", "error", "finished")
STEP_KINDS = ("prep", "target", "stress", "ceiling")
STEP_STATUSES = ("planned", "running", "ended", "done", "interrupted",
                 "error", "skipped")


class StateError(ValueError):
    """A document that is not a usable state: its reason is str(e)."""


class NotAState(StateError):
    """Not an act_certify state file (not an object, another format)."""


class Damaged(StateError):
    """A state file whose contents are damaged (state.json "is damaged:
    " and the reason)."""


# ---------------------------------------------------------------------------
# The checks a field's value must pass (the fields' types, bounded).

def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        v == v and abs(v) != float("inf")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_u32(v):
    """A count or length the C programs take: 0 to MAX_U32."""
    return is_int(v) and 0 <= v <= MAX_U32


def is_load(v):
    """A load in x per device: more than 0 and at most what one device's
    read-reqs-per-sec takes (the devices of each step: problem())."""
    return is_num(v) and 0 < v <= MAX_U32 / ONE_X_READS


def is_str(v):
    return isinstance(v, str)


def is_bool(v):
    return isinstance(v, bool)


def is_dict(v):
    return isinstance(v, dict)


def one_of(*values):
    return lambda v: v in values


def optional(check):
    """check, or null."""
    return lambda v: v is None or check(v)


def list_of(check):
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def dict_of(check):
    """An object whose every value passes check."""
    return lambda v: isinstance(v, dict) and all(check(x)
                                                 for x in v.values())


def record_of(cls):
    """An object that is a good cls (its field checks); a bad one is bad
    as a whole: its parent names it ("a bad 'stopped_early': {...}")."""
    return lambda v: isinstance(v, dict) and cls.bad(v, "") is None


def field(check, record=None, many=False):
    """A key every such object has: check(value) must hold. record: the
    Record class its value is read as (many: a list of them)."""
    return dataclasses.field(metadata={"check": check, "record": record,
                                       "many": many})


class _Absent:
    """The value of an optional field that is not in the object."""

    def __repr__(self):
        return "ABSENT"

    def __bool__(self):
        return False


class _EmptyMap(dict):
    """The value of an absent optional mapping: empty, and read-only (set
    the field to change it: a change made here would be lost)."""

    def _read_only(self, *_args, **_kwargs):
        raise TypeError("an absent field: set it first")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = \
        clear = _read_only

    def __copy__(self):
        return self

    def __deepcopy__(self, _memo):
        return self


ABSENT = _Absent()
EMPTY_LIST = ()
EMPTY_MAP = _EmptyMap()


def optional_field(check, absent=None, record=None, many=False):
    """A key an object may lack; when it has it, check(value) must hold.
    Absent, it reads as absent (and to_json leaves it out)."""
    return dataclasses.field(default=ABSENT, metadata={
        "check": check, "record": record, "many": many, "optional": True,
        "absent": absent})


# ---------------------------------------------------------------------------
# A record: a dataclass whose keys keep the order of a JSON object.

class Record:
    """The base of the records: the order of the keys present (_keys, as
    a dict inserts them), the keys it does not know (_extra), from_json,
    to_json and the checks of its fields."""

    _specs_cache = None

    @classmethod
    def _specs(cls):
        if cls.__dict__.get("_specs_cache") is None:
            cls._specs_cache = {f.name: f.metadata
                                for f in dataclasses.fields(cls)}
        return cls._specs_cache

    def __setattr__(self, name, value):
        spec = self._specs().get(name)
        if spec is not None:
            keys = self.__dict__.setdefault("_keys", [])
            if value is ABSENT:
                if name in keys:
                    keys.remove(name)
                value = spec["absent"]
            elif name not in keys:
                keys.append(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        """del record.key: an optional key removed (nothing when it is
        not there, as dict.pop(key, None))."""
        if name not in self._specs():
            object.__delattr__(self, name)
        elif not self._specs()[name].get("optional"):
            raise AttributeError("%s.%s is not optional"
                                 % (type(self).__name__, name))
        else:
            setattr(self, name, ABSENT)

    def has(self, name):
        """Whether the key is in the object (an optional field set)."""
        return name in self.__dict__.get("_keys", ())

    def update(self, **fields):
        """Sets several fields at once."""
        for name, value in fields.items():
            if name not in self._specs():
                raise AttributeError("%s has no field %r"
                                     % (type(self).__name__, name))
            setattr(self, name, value)

    def copy(self, **changes):
        """A copy with changes (the values shared, as dict(d, **changes)
        would share them)."""
        new = copy.copy(self)
        object.__setattr__(new, "_keys", list(self.__dict__.get("_keys",
                                                                ())))
        object.__setattr__(new, "_extra", dict(self.__dict__.get("_extra",
                                                                 {})))
        new.update(**changes)
        return new

    @classmethod
    def bad(cls, d, where):
        """The first key of the object d that is missing or fails its
        check, as "WHERE has no 'KEY'" / "WHERE has a bad 'KEY': VALUE";
        or None. The required keys first, in the order of CHECK_ORDER
        (default: the fields'), then the optional ones."""
        specs = cls._specs()
        names = getattr(cls, "CHECK_ORDER", None) or [
            n for n, s in specs.items() if not s.get("optional")]
        for name in names:
            if name not in d:
                return "%s has no %r" % (where, name)
            if not specs[name]["check"](d[name]):
                return "%s has a bad %r: %r" % (where, name, d[name])
        for name, s in specs.items():
            if s.get("optional") and name in d and not s["check"](d[name]):
                return "%s has a bad %r: %r" % (where, name, d[name])
        return None

    @classmethod
    def from_json(cls, d):
        """The record of the object d, checked already (State.from_json
        checks a whole state); its keys in d's order, unknown ones kept."""
        specs = cls._specs()
        kwargs = {}
        for name, s in specs.items():
            if name not in d:
                continue
            v = d[name]
            rec = s["record"]
            if rec is not None and v is not None:
                v = [rec.from_json(x) for x in v] if s["many"] else \
                    rec.from_json(v)
            kwargs[name] = v
        obj = cls(**kwargs)
        object.__setattr__(obj, "_keys", list(d))
        object.__setattr__(obj, "_extra", {k: v for k, v in d.items()
                                           if k not in specs})
        return obj

    def to_json(self):
        """The object state.json holds: the keys in their order."""
        extra = self.__dict__.get("_extra", {})
        return {k: extra[k] if k in extra else _to_json(getattr(self, k))
                for k in self.__dict__.get("_keys", ())}


def _to_json(v):
    if isinstance(v, Record):
        return v.to_json()
    if isinstance(v, (list, tuple)):
        return [_to_json(x) for x in v]
    return v


# ---------------------------------------------------------------------------
# The records.

def is_over(x):
    """One limit a fail-fast slice was over: [histogram, percent over,
    threshold, limit percent]."""
    return isinstance(x, list) and len(x) == 4 and is_str(x[0]) and \
        is_num(x[1]) and is_str(x[2]) and is_num(x[3])


@dataclasses.dataclass(eq=True)
class FailFastStop(Record):
    """Where fail fast stopped a step (failfast.stop_record): slice K of
    N slices of slice_sec, the run's end and planned seconds, and the
    limits that slice was over."""
    slice: int = field(is_int)
    slices: int = field(is_int)
    slice_sec: int = field(is_int)
    end_sec: int = field(is_int)
    planned_sec: int = field(is_int)
    over: list = field(list_of(is_over))

    @property
    def saved_sec(self):
        """The seconds the stop saved (planned minus run)."""
        return max(0, self.planned_sec - self.end_sec)


@dataclasses.dataclass(eq=True)
class OldLog(Record):
    """An interrupted run's files, renamed <name>.interrupted-K, and the
    step's status and exit status then (state.rename_old_log)."""
    log: str = optional_field(optional(is_str))
    stderr: str = optional_field(optional(is_str))
    status: str = optional_field(optional(is_str))
    exit_status: int = optional_field(optional(is_int))


@dataclasses.dataclass(eq=True)
class Resume(Record):
    """One --resume: when, and the host's identity then."""
    at: str = optional_field(optional(is_str))
    host: dict = optional_field(optional(is_dict))


@dataclasses.dataclass(eq=True)
class DeviceChange(Record):
    """A drive accepted with --accept-device NEW=OLD: when, the names,
    the first step it runs, its identity before and now (as text)."""
    at: str = optional_field(optional(is_str))
    old: str = optional_field(optional(is_str))
    new: str = optional_field(optional(is_str))
    from_step: int = optional_field(optional(is_int))
    was: str = optional_field(optional(is_str))
    now: str = optional_field(optional(is_str))


@dataclasses.dataclass(eq=True)
class Campaign(Record):
    """The campaign's settings. identities: {device: its identity
    (identity.py)}, absent in a state from an older act_certify;
    fail_fast absent: off."""
    program: str = field(one_of("act_storage", "act_index"))
    program_path: str = field(is_str)
    program_version: str = field(optional(is_str))
    base_config_path: str = field(is_str)
    devices: list = field(list_of(is_str))
    device_kinds: dict = field(is_dict)
    load: float = field(is_load)
    stress_factor: float = field(lambda v: is_num(v) and 1 < v <= MAX_U32)
    duration_sec: int = field(lambda v: is_u32(v) and v >= 1)
    ceiling: bool = field(is_bool)
    ladder: list = field(list_of(is_load))
    prep: bool = field(is_bool)
    identities: dict = optional_field(dict_of(is_dict), absent=EMPTY_MAP)
    fail_fast: bool = optional_field(is_bool, absent=False)

    def recorded_identities(self):
        """identities, to change: set (empty) first in a state from an
        older act_certify, which has none."""
        if not self.has("identities"):
            self.identities = {}
        return self.identities


@dataclasses.dataclass(eq=True)
class Step(Record):
    """One step: the plan (plan.plan_steps: its number, id, kind, test
    number, load, devices, rates, duration, slice, how it is judged, the
    step whose run it is judged from, its files, the --set items it runs
    the base config with; precheck: the config its program echoes) and
    what became of it (status, result, exit status, message, times, old
    logs; while its program runs its pid; once it ended its log's size,
    the kind of its stop, its failed I/Os, and where fail fast stopped
    it)."""
    number: int = field(is_int)
    id: str = field(is_str)
    kind: str = field(one_of(*STEP_KINDS))
    test: int = field(optional(is_int))
    title: str = field(is_str)
    load: float = field(optional(is_load))
    devices: list = field(list_of(is_str))
    reads_per_sec: int = field(is_u32)
    writes_per_sec: int = field(is_u32)
    duration_sec: int = field(is_u32)
    slice_sec: int = field(lambda v: is_u32(v) and v >= 1)
    judge: str = field(optional(is_str))
    same_run_as: int = field(optional(is_int))
    status: str = field(one_of(*STEP_STATUSES))
    result: str = field(optional(is_str))
    exit_status: int = field(optional(is_int))
    message: str = field(optional(is_str))
    started_at: str = field(optional(is_str))
    ended_at: str = field(optional(is_str))
    old_logs: list = field(list_of(record_of(OldLog)), OldLog, many=True)
    files: dict = field(dict_of(is_str))
    pid: int = optional_field(optional(is_int))
    # the step's --set items, and the config the program echoes for them
    # (--print-config; plan.py, precheck.py); a step planned by an older
    # act_certify has neither (it runs its own config file)
    set: list = optional_field(list_of(is_str))
    config_echo: dict = optional_field(lambda v: is_dict(v) and all(
        is_str(k) and is_str(x) for k, x in v.items()))
    log_size: int = optional_field(optional(lambda v: is_int(v) and v >= 0))
    stop: str = optional_field(optional(is_str))
    io_errors: int = optional_field(optional(is_int))
    # the verdict's drive health problems ("DEVICE: 1 new media error (0
    # -> 1)"): a PASS with them is never a plain PASS; absent: none (or a
    # step an older act_certify judged)
    health_warnings: list = optional_field(list_of(is_str),
                                           absent=EMPTY_LIST)
    stopped_early: FailFastStop = optional_field(
        optional(record_of(FailFastStop)), record=FailFastStop)

    @property
    def runs_program(self):
        """Whether the step runs the campaign's program (its config
        checked, its run's echo compared): not act_prep, not a step judged
        from another's run."""
        return self.kind != "prep" and not self.same_run_as

    @property
    def analysable(self):
        """A step whose run has a log to analyse (or will have: it runs):
        not act_prep, neither planned nor skipped."""
        return self.kind != "prep" and self.status not in ("planned",
                                                           "skipped")

    @property
    def to_do(self):
        """Neither done nor skipped: a campaign still has it to run (or
        to judge)."""
        return self.status not in ("done", "skipped")


@dataclasses.dataclass(eq=True)
class State(Record):
    """state.json: the campaign and its steps. host is None until the
    campaign is set up (a file always has it)."""
    format: str = field(one_of(STATE_FORMAT))
    status: str = field(one_of(*STATE_STATUSES))
    command: list = field(list_of(is_str))
    created_at: str = field(optional(is_str))
    ended_at: str = field(optional(is_str))
    campaign: Campaign = field(is_dict, Campaign)
    host: dict = field(is_dict)
    resumes: list = field(list_of(record_of(Resume)), Resume, many=True)
    steps: list = field(list_of(is_dict), Step, many=True)
    device_changes: list = optional_field(
        list_of(record_of(DeviceChange)), absent=EMPTY_LIST,
        record=DeviceChange, many=True)

    # format is checked first, on its own (NotAState); campaign and the
    # steps are checked as objects here, their keys after
    CHECK_ORDER = ("status", "command", "created_at", "ended_at", "host",
                   "resumes", "steps", "campaign")

    @classmethod
    def from_json(cls, doc):
        """The State of a decoded state.json; raises NotAState (not an
        object of STATE_FORMAT) or Damaged (problem(doc))."""
        if not isinstance(doc, dict) or doc.get("format") != STATE_FORMAT:
            raise NotAState("not an act_certify state file (%s)"
                            % STATE_FORMAT)
        why = problem(doc)
        if why:
            raise Damaged(why)
        return super().from_json(doc)

    def next_step(self):
        """The first step still to do (Step.to_do), or None."""
        return next((s for s in self.steps if s.to_do), None)

    def add_device_change(self, change):
        """A DeviceChange kept (device_changes set first in a state from
        an older act_certify, which has none)."""
        if not self.has("device_changes"):
            self.device_changes = []
        self.device_changes.append(change)

    def fail_fast_stops(self):
        """The finished steps fail fast stopped early."""
        return [s for s in self.steps if s.stopped_early and
                s.status == "done"]

    def run_of(self, step):
        """The step whose run a step's log is: itself, or the step it is
        judged from (same_run_as)."""
        return self.steps[step.same_run_as - 1] if step.same_run_as \
            else step


def problem(doc):
    """What is wrong with a state file's contents (a key missing, a value
    of the wrong type), or None: every key act_certify reads is checked,
    so a damaged file is refused, not a traceback. Numbers are bounded as
    the command line bounds them (docs/certify.md, "Options"): a load
    whose reads/s on its devices act could not take is damage too."""
    if depth(doc) > MAX_DEPTH:
        return "it is nested deeper than %d levels" % MAX_DEPTH
    why = State.bad(doc, "the state") or \
        Campaign.bad(doc["campaign"], "the campaign")
    if why:
        return why
    c = doc["campaign"]
    n = max(1, len(c["devices"]))
    for what, load in [("load", c["load"]), ("stress load", c["load"] *
                                             c["stress_factor"])] + \
            [("ladder load", x) for x in c["ladder"]]:
        if not load * ONE_X_READS * n <= MAX_U32:
            return "the campaign's %s %r is more than act can run on %d " \
                "device%s (%d reads/s)" % (what, load, n,
                                           "" if n == 1 else "s", MAX_U32)
    if not doc["steps"]:
        return "the state has no step"
    for i, s in enumerate(doc["steps"]):
        why = _step_problem(s, i + 1)
        if why:
            return why
    return None


def _step_problem(s, number):
    """What is wrong with step number (from 1) of a state file, or None:
    its keys, then its load on its devices, its test number for its
    kind, its number, the step whose run it is judged from (an earlier
    one) and the files it must have (plain names in DIR)."""
    where = "step %d" % number
    why = Step.bad(s, where)
    if why:
        return why
    if s["load"] is not None and not s["load"] * ONE_X_READS * max(
            1, len(s["devices"])) <= MAX_U32:
        return "%s has a bad 'load': %r" % (where, s["load"])
    if (s["test"] is None) != (s["kind"] in ("prep", "ceiling")):
        return "%s has a bad 'test': %r" % (where, s["test"])
    if s["number"] != number:
        return "%s is numbered %d" % (where, s["number"])
    if s["same_run_as"] is not None and \
            not 1 <= s["same_run_as"] <= number - 1:
        return "%s has a bad 'same_run_as': %r" % (where, s["same_run_as"])
    need = ("log", "stderr") if s["same_run_as"] is None else ()
    need += ("plot",) if s["kind"] != "prep" else ()
    need += ("config",) if s["kind"] != "prep" and \
        s["same_run_as"] is None and "set" not in s else ()
    for key in need:
        if key not in s["files"]:
            return "%s has no %r file" % (where, key)
        if "/" in s["files"][key] or s["files"][key] in ("", ".", ".."):
            return "%s has a bad %r file: %r" % (where, key,
                                                 s["files"][key])
    return None


def depth(doc):
    """How deeply doc nests (a scalar: 0), counted without recursion."""
    deepest = 0
    todo = [(doc, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, dict):
            x = list(x.values())
        elif not isinstance(x, list):
            continue
        deepest = max(deepest, d)
        if d <= MAX_DEPTH:
            todo += [(y, d + 1) for y in x]
    return deepest
