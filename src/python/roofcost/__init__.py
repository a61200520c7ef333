"""roofcost: capacity planning and price-performance of AI accelerators, in-process.

A binding of libroofcost (src/roofcost.h) with ctypes and nothing else from outside the standard
library. Every call runs the same code as the command-line tool and returns what its
``--format json`` prints, as dicts and lists; ``to_frame`` turns a result's rows into a pandas
DataFrame when pandas happens to be installed. A failure raises ``RoofcostError`` with the tool's
message and exit code (1 data, 2 usage)::

    import roofcost
    r = roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train")
    r["mfu"], r["step_time_s"], r["usd_per_unit"]
    best = roofcost.compare(workload="llama3-70b-serve", system="all")
    [(s["system"], s["usd_per_unit"]) for s in best["systems"][:3]]
    s = roofcost.sweep(workload="llama3-8b-train", system="p5.48xlarge,tpu-v6e", chips="8-64")
    roofcost.list_systems()[0]["system"]

The library is found where ROOFCOST_LIB points, else beside this file (make install puts a copy
here), else on the loader's path. The data (chips, systems, workloads, catalogs) is found in
ROOFCOST_HOME, else where make install put it, else as the tool finds it; prices come from the
store ROOFCOST_DB, else the XDG default, created on first use.
"""

import ctypes
import ctypes.util
import json
import math
import os

__all__ = [
    "RoofcostError", "Roofcost", "open", "eval", "eval_figures", "compare", "sweep", "sweep_merge",
    "list", "list_systems", "list_workloads", "list_chips", "list_networks", "list_frameworks",
    "list_prices", "to_frame", "version",
]

_builtin_list = list


class RoofcostError(Exception):
    """A call that failed: ``str(e)`` is the tool's message, ``e.code`` its exit code."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def _find_library():
    env = os.environ.get("ROOFCOST_LIB")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libroofcost.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("roofcost")
    if found:
        return found
    raise RoofcostError("libroofcost.so not found: set ROOFCOST_LIB to its path (a build tree: "
                        "ROOFCOST_LIB=build/libroofcost.so), or make install", 1)


def _default_home():
    env = os.environ.get("ROOFCOST_HOME")
    if env:
        return env
    try:
        from . import _install  # written by make install
        if os.path.isdir(os.path.join(_install.HOME, "models")):
            return _install.HOME
    except ImportError:
        pass
    return None


_c = ctypes.c_char_p
_int = ctypes.c_int
_dbl = ctypes.c_double


class _Opts(ctypes.Structure):
    # roofcost_opts, field for field (roofcost.h)
    _fields_ = [
        ("system", _c), ("workload", _c), ("plan", _c), ("chips", _c),
        ("sets", ctypes.POINTER(_c)), ("nsets", _int),
        ("framework", _c), ("pricing", _c), ("as_of", _c),
        ("prices", ctypes.POINTER(_c)), ("nprices", _int),
        ("discount", _c), ("budget", _c), ("deadline", _c),
        ("tp", _c), ("pp", _c), ("vpp", _c), ("cp", _c), ("ep", _c), ("sp", _c), ("mb", _c),
        ("zero", _c), ("recompute", _c),
        ("top", _int), ("threads", _int), ("shard", _c),
    ]


class _Result(ctypes.Structure):
    # roofcost_result (roofcost.h)
    _fields_ = [
        ("feasible", _int), ("reason", ctypes.c_char * 256), ("training", _int),
        ("system", ctypes.c_char * 64), ("workload", ctypes.c_char * 64), ("plan", ctypes.c_char * 128),
        ("chips", _int), ("mem_per_chip_gib", _dbl),
        ("step_time_s", _dbl), ("tokens_per_s", _dbl), ("model_tflops_per_chip", _dbl), ("mfu", _dbl),
        ("hfu", _dbl), ("train_days", _dbl),
        ("ttft_ms", _dbl), ("tpot_ms", _dbl), ("ttft_tail_ms", _dbl), ("tpot_tail_ms", _dbl),
        ("tokens_per_s_per_chip", _dbl),
        ("usd_per_hour", _dbl), ("usd_per_unit", _dbl), ("unit", ctypes.c_char * 32),
    ]


class _Point(ctypes.Structure):
    # roofcost_point (roofcost.h)
    _fields_ = [
        ("front", _int), ("rank", _int),
        ("system", ctypes.c_char * 64), ("pricing", ctypes.c_char * 32), ("recompute", ctypes.c_char * 16),
        ("chips", _int), ("tp", _int), ("pp", _int), ("vpp", _int), ("dp", _int), ("cp", _int), ("ep", _int),
        ("sp", _int), ("micro_batch", _int), ("zero", _int),
        ("step_time_s", _dbl), ("tokens_per_s", _dbl), ("mfu", _dbl), ("mem_per_chip_gib", _dbl),
        ("run_time_s", _dbl), ("goodput", _dbl), ("usd_per_run", _dbl), ("chip_hours", _dbl),
    ]


_POINT_FN = ctypes.CFUNCTYPE(_int, ctypes.c_void_p, ctypes.POINTER(_Point))
_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(_find_library())
    vp = ctypes.c_void_p
    lib.roofcost_version.restype = _c
    lib.roofcost_open.restype = vp
    lib.roofcost_open.argtypes = [_c, _c, ctypes.c_char_p, ctypes.c_size_t]
    lib.roofcost_close.argtypes = [vp]
    lib.roofcost_errmsg.restype = _c
    lib.roofcost_errmsg.argtypes = [vp]
    lib.roofcost_home.restype = _c
    lib.roofcost_home.argtypes = [vp]
    lib.roofcost_store.restype = _c
    lib.roofcost_store.argtypes = [vp]
    for name in ("roofcost_eval_json", "roofcost_compare_json"):
        getattr(lib, name).argtypes = [vp, ctypes.POINTER(_Opts), ctypes.POINTER(vp)]
    lib.roofcost_eval.argtypes = [vp, ctypes.POINTER(_Opts), ctypes.POINTER(_Result)]
    lib.roofcost_sweep.argtypes = [vp, ctypes.POINTER(_Opts), _POINT_FN, vp, ctypes.POINTER(vp)]
    lib.roofcost_sweep_merge.argtypes = [vp, ctypes.POINTER(_c), _int, _int, ctypes.POINTER(vp)]
    lib.roofcost_list_json.argtypes = [vp, _c, ctypes.POINTER(vp)]
    lib.roofcost_validate_json.argtypes = [vp, _c, ctypes.POINTER(vp)]
    lib.roofcost_baseline_check_json.argtypes = [vp, _c, _int, _c, _int, ctypes.POINTER(vp)]
    lib.roofcost_free.argtypes = [vp]
    _lib = lib
    return lib


def version():
    """The library's version."""
    return _load().roofcost_version().decode()


def _b(s):
    return None if s is None else str(s).encode()


def _plan_text(plan):
    if plan is None or isinstance(plan, str):
        return plan
    return ",".join("%s=%s" % (k, v) for k, v in plan.items())


def _pairs(x):
    """A dict {"concurrency": 64} or pairs or "k=v" strings as "k=v" strings."""
    if x is None:
        return []
    if isinstance(x, dict):
        return ["%s=%s" % (k, v) for k, v in x.items()]
    if isinstance(x, str):
        return [x]
    return [i if isinstance(i, str) else "%s=%s" % tuple(i) for i in x]


def _joined(x):
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, dict):
        return ",".join("%s=%s" % (k, v) for k, v in x.items())
    return ",".join(str(i) for i in x)


def _finite(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


class Roofcost:
    """A data root and its store (roofcost_open). The module's functions use one opened with the
    defaults; open another with ``roofcost.open(home=..., store=...)``."""

    def __init__(self, home=None, store=None):
        lib = _load()
        err = ctypes.create_string_buffer(1024)
        if home is None:
            home = _default_home()
        self._h = lib.roofcost_open(_b(home), _b(store), err, len(err))
        if not self._h:
            raise RoofcostError(err.value.decode(errors="replace") or "cannot open the data root", 2)

    def close(self):
        if getattr(self, "_h", None):
            _load().roofcost_close(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def home(self):
        return _load().roofcost_home(self._h).decode()

    @property
    def store(self):
        return _load().roofcost_store(self._h).decode()

    def _fail(self, rc):
        msg = _load().roofcost_errmsg(self._h)
        raise RoofcostError(msg.decode(errors="replace") if msg else "failed", rc)

    def _opts(self, system=None, workload=None, plan=None, chips=None, set=None, framework=None,
              pricing=None, as_of=None, price=None, discount=None, budget=None, deadline=None,
              top=0, threads=0, shard=None, **lists):
        o = _Opts()
        keep = []   # what the C strings point into, alive for the call

        def s(v):
            b = _b(v)
            keep.append(b)
            return b

        def arr(items):
            a = (_c * max(len(items), 1))(*[s(i) for i in items])
            keep.append(a)
            return a, len(items)

        o.system = s(_joined(system))
        o.workload = s(workload)
        o.plan = s(_plan_text(plan))
        o.chips = s(_joined(chips))
        o.sets, o.nsets = arr(_pairs(set))
        o.framework = s(framework)
        o.pricing = s(_joined(pricing))
        o.as_of = s(as_of)
        o.prices, o.nprices = arr(_pairs(price))
        o.discount = s(_joined(discount))
        o.budget = s(budget)
        o.deadline = s(deadline)
        for k in ("tp", "pp", "vpp", "cp", "ep", "sp", "mb", "zero", "recompute"):
            setattr(o, k, s(_joined(lists.pop(k, None))))
        if lists:
            raise TypeError("unknown option: %s" % ", ".join(sorted(lists)))
        o.top = int(top or 0)
        o.threads = int(threads or 0)
        o.shard = s(shard)
        return o, keep

    def _json(self, fn, *args):
        out = ctypes.c_void_p()
        rc = fn(self._h, *args, ctypes.byref(out))
        if rc != 0:
            self._fail(rc)
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            _load().roofcost_free(out)

    def eval(self, system, workload, plan=None, set=None, **kw):
        """One evaluation (roofcost eval): the dict of ``eval --format json``."""
        o, keep = self._opts(system=system, workload=workload, plan=plan, set=set, **kw)
        return self._json(_load().roofcost_eval_json, ctypes.byref(o))

    def eval_figures(self, system, workload, plan=None, set=None, **kw):
        """One evaluation's headline figures (roofcost_result) as a dict; None where it has none."""
        o, keep = self._opts(system=system, workload=workload, plan=plan, set=set, **kw)
        r = _Result()
        rc = _load().roofcost_eval(self._h, ctypes.byref(o), ctypes.byref(r))
        if rc != 0:
            self._fail(rc)
        out = {}
        for name, _ in _Result._fields_:
            v = getattr(r, name)
            out[name] = v.decode() if isinstance(v, bytes) else _finite(v)
        out["feasible"] = bool(out["feasible"])
        out["training"] = bool(out["training"])
        return out

    def compare(self, workload, system="all", **kw):
        """Every system at its best layout, ranked (roofcost compare): a dict whose "systems" are
        the rows, best first."""
        o, keep = self._opts(system=system, workload=workload, **kw)
        return self._json(_load().roofcost_compare_json, ctypes.byref(o))

    def sweep(self, workload, system, on_point=None, **kw):
        """A layout search (roofcost sweep): a dict with "summary", "offers", "top" and "pareto".
        on_point (may be None) is called with each point of the result as a dict, the top list
        first ("front": False) then the front; a true return stops the calls."""
        o, keep = self._opts(system=system, workload=workload, **kw)
        err = []

        def cb(ctx, p):
            if on_point is None:
                return 0
            q = p.contents
            d = {}
            for name, _ in _Point._fields_:
                v = getattr(q, name)
                d[name] = v.decode() if isinstance(v, bytes) else _finite(v)
            d["front"] = bool(d["front"])
            try:
                return 1 if on_point(d) else 0
            except BaseException as e:   # not across the C frames: raised after the call
                err.append(e)
                return 1

        fn = _POINT_FN(cb)
        out = ctypes.c_void_p()
        rc = _load().roofcost_sweep(self._h, ctypes.byref(o), fn, None, ctypes.byref(out))
        if err:
            if out.value:
                _load().roofcost_free(out)
            raise err[0]
        if rc != 0:
            self._fail(rc)
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            _load().roofcost_free(out)

    def sweep_merge(self, files, top=10):
        """The JSON outputs of the shards of one sweep (paths) joined: the unsharded result."""
        files = _builtin_list(files)
        a = (_c * max(len(files), 1))(*[_b(f) for f in files])
        return self._json(_load().roofcost_sweep_merge, a, len(files), int(top))

    def list(self, what):
        """What the data root holds (roofcost list WHAT): a list of dicts."""
        return self._json(_load().roofcost_list_json, _b(what))

    def validate(self, cases):
        """Predictions against published measurements (roofcost validate CASES): the dict of
        ``validate --format json``, "cases" and "summary" (in sample, per framework, chip family
        and source, each framework left out) and "out_of_sample" (each source left out)."""
        if not cases:
            raise RoofcostError("validate needs a case file (CASES.csv)", 2)
        return self._json(_load().roofcost_validate_json, _b(str(cases)))

    def baseline_check(self, name=None, frozen=False, as_of=None, fail_any=False):
        """A release record (None: every one) checked again (roofcost baseline check): the dict of
        ``check --format json``, "records" with every figure judged, and "passed", "fell_short"
        and "unreadable". A figure that fell short is in the result ("fell_short" > 0), not an
        exception; a record or store that cannot be read raises."""
        out = ctypes.c_void_p()
        rc = _load().roofcost_baseline_check_json(self._h, _b(name), 1 if frozen else 0, _b(as_of),
                                                   1 if fail_any else 0, ctypes.byref(out))
        try:
            if rc not in (0, 3) or not out.value:
                self._fail(rc)
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            if out.value:
                _load().roofcost_free(out)


_default = None


def _h():
    global _default
    if _default is None:
        _default = Roofcost()
    return _default


def open(home=None, store=None):
    """A Roofcost over the data root `home` and the store `store` (None: the defaults)."""
    return Roofcost(home, store)


def eval(system, workload, plan=None, set=None, **kw):
    """One evaluation: ``roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train",
    plan={"tp": 8}, set={"global_batch": 512})`` -> the dict of ``eval --format json``."""
    return _h().eval(system, workload, plan=plan, set=set, **kw)


def eval_figures(system, workload, plan=None, set=None, **kw):
    """One evaluation's headline figures as a flat dict."""
    return _h().eval_figures(system, workload, plan=plan, set=set, **kw)


def compare(workload, system="all", **kw):
    """Every system (a list, a comma list, or "all") at its best layout, ranked."""
    return _h().compare(workload, system=system, **kw)


def sweep(workload, system, on_point=None, **kw):
    """A layout search: chips="64-1024", tp="1-8", pp=[1, 2, 4], top=10, threads=2, shard="0/4"."""
    return _h().sweep(workload, system, on_point=on_point, **kw)


def sweep_merge(files, top=10):
    """Shard outputs joined into the unsharded answer (a complete set, checked)."""
    return _h().sweep_merge(files, top=top)


def list(what):
    """systems, chips, networks, workloads, frameworks or prices, as a list of dicts."""
    return _h().list(what)


def validate(cases):
    """Every row of a case file predicted: ``roofcost.validate(cases="tests/validation/public.csv")``
    -> the dict of ``validate --format json``."""
    return _h().validate(cases)


def baseline_check(name=None, frozen=False, as_of=None, fail_any=False):
    """A release record of the store (None: every one) checked again: the dict of
    ``baseline check --format json``."""
    return _h().baseline_check(name, frozen=frozen, as_of=as_of, fail_any=fail_any)


def list_systems():
    return list("systems")


def list_workloads():
    return list("workloads")


def list_chips():
    return list("chips")


def list_networks():
    return list("networks")


def list_frameworks():
    return list("frameworks")


def list_prices():
    return list("prices")


def to_frame(result):
    """A result's rows as a pandas DataFrame (compare: its systems; sweep: its top list and front,
    with a "list" column; a list of dicts as it is), or the rows as a list of dicts when pandas
    is not installed."""
    if isinstance(result, dict) and "systems" in result:
        rows = result["systems"]
    elif isinstance(result, dict) and "top" in result and "pareto" in result:
        rows = [dict(p, list="top") for p in result["top"]] + [dict(p, list="pareto") for p in result["pareto"]]
    elif isinstance(result, dict):
        rows = [result]
    else:
        rows = _builtin_list(result)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
