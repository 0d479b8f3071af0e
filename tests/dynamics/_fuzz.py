"""The machinery of ``test_public_inputs.py``: find every public function of ``dynamics``, build
bad values for each of its arguments, and call it in a worker process.

Run as ``python -m tests.dynamics._fuzz NAME ...`` (from the repository root) it is that worker:
it loads the kernels of the engines involved (``_warmup``), then calls each named function once
with its example arguments (the baseline), then once per (argument, bad value), and writes one
JSON line before each call (``{"start": [name, case]}``) and one after (``{"result": ...}``) on
its standard output, so that the parent can tell which call hung when the lines stop.

A call passes when it raises ``ValueError`` or ``TypeError`` whose message names the argument
(for a bad value that changes an array's shape, any argument: the one whose shape no longer
matches may be named instead), or a ``ValueError`` saying that the run diverged (and what to
change), or returns a result with no NaN or infinity where the baseline's result had none;
a value of the wrong type (``MUST_REFUSE``: a bool for a number, text for a number, complex or
object data, ...) must raise, and so must a callable that returns nothing but NaN or inf
(``Spoilt``), unless the function hands its results back (``RETURNED``).
Any other exception type fails (``LinAlgError``, ``ZeroDivisionError``): the values of the right
shape that are hard to compute with (an entry of 1e-99, all zeros, a repeated column, the same
at size 1e8) find those.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import json
import numbers
import os
import pkgutil
import sys
import time
import warnings

import numpy as np

MISSING = "MISSING"  # an argument with no default and no registered example value


def _is_dispatcher(obj) -> bool:
    return type(obj).__module__.startswith("numba") and hasattr(obj, "py_func")


#: The engines' own toolkit: shared modules whose functions an engine calls with the name of
#: the parameter it checks (``check_array("moments", moments)``) or on values already checked;
#: they are not functions a user calls with a user's value, so the fuzz leaves them out (each
#: engine that uses them is fuzzed through its own public functions).
TOOLKIT = ("dynamics.checks", "dynamics.exact")


def engine_modules(package: str = "dynamics") -> list[str]:
    """Every public module of the package (no component starting with ``_``), package first,
    except the ``TOOLKIT``."""
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        if not any(part.startswith("_") for part in info.name.split(".")) \
                and info.name not in TOOLKIT:
            names.append(info.name)
    return names


def public_callables(package: str = "dynamics", *, fallback: bool = False):
    """``(functions, dispatchers, without_all)``: public functions as ``{"module.name": obj}``
    (each object once, under the first module whose ``__all__`` lists it), numba dispatchers
    listed in an ``__all__`` the same way, and the modules that have no ``__all__`` (or whose
    ``__all__`` names something they do not define).

    With ``fallback``, a module without ``__all__`` contributes the public functions it defines
    (used only to measure code that predates the rule)."""
    functions, dispatchers, without_all, seen = {}, {}, [], set()
    for modname in engine_modules(package):
        module = importlib.import_module(modname)
        names = getattr(module, "__all__", None)
        if names is None:
            without_all.append(modname)
            if not fallback:
                continue
            names = [n for n in vars(module) if not n.startswith("_")
                     and getattr(vars(module)[n], "__module__", None) == modname]
        for name in names:
            if not hasattr(module, name):
                without_all.append(f"{modname}.__all__ names {name!r}, which it does not define")
                continue
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            if _is_dispatcher(obj):
                seen.add(id(obj))
                dispatchers[f"{modname}.{name}"] = obj
            elif callable(obj) and not isinstance(obj, type):  # functions, wrapped ones too
                seen.add(id(obj))
                functions[f"{modname}.{name}"] = obj
    return functions, dispatchers, without_all


# --- example (good) arguments ---------------------------------------------------------------


def baseline_arguments(qualname: str, fn) -> dict:
    """Valid example keyword arguments for ``fn``: the registered ones (per function, then per
    module, in ``_public_examples.py``) over the signature's defaults. Arguments that have
    neither are ``MISSING``."""
    from tests.dynamics import _public_examples as examples

    module, _, name = qualname.rpartition(".")
    registered = {}
    for key in _module_keys(module):
        factory = examples.MODULES.get(key)
        if factory is not None:
            registered.update(factory())
    function_factory = examples.FUNCTIONS.get(qualname)
    own = function_factory() if function_factory is not None else {}
    registered.update(own)
    kwargs = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.name in own:
            kwargs[param.name] = own[param.name]
        elif param.name == "seed" and param.default is None:
            kwargs[param.name] = 0  # the same draws in every run: a failure is reproducible
        elif param.default is not param.empty and not _heavy(qualname, param.name):
            kwargs[param.name] = param.default
        elif param.name in registered:
            kwargs[param.name] = registered[param.name]
        else:
            kwargs[param.name] = MISSING
    return kwargs


def _module_keys(module: str) -> list[str]:
    """``dynamics.sbeed.mdp`` -> ["dynamics.sbeed", "dynamics.sbeed.mdp"] (outer first)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts) + 1)]


def _heavy(qualname: str, param: str) -> bool:
    """Whether the module registry overrides this argument's default (big default sizes)."""
    from tests.dynamics import _public_examples as examples

    module = qualname.rpartition(".")[0]
    return any(param in examples.SMALL.get(key, ()) for key in _module_keys(module))


# --- bad values -----------------------------------------------------------------------------


class _Opaque:
    """An object of no expected type."""

    def __repr__(self):
        return "<opaque object>"


def bad_values(good) -> list[tuple[str, object]]:
    """(kind, value) pairs to try in place of the good example value ``good``."""
    cases = [("None", None), ("str", "x"), ("object()", _Opaque()), ("dict", {"a": 1})]
    if isinstance(good, (bool, np.bool_)):
        return cases + [("int for a flag", 1), ("str for a flag", "False")]
    if isinstance(good, numbers.Integral):
        return cases + [("nan", float("nan")), ("inf", float("inf")), ("-1", -1), ("0", 0),
                        ("10**12", 10**12), ("-10**12", -10**12), ("2**63", 2**63),
                        ("1.5", 1.5), ("True", True), ("complex", 1 + 1j),
                        ("numpy -1", np.int64(-1)), ("numeric str", "3")]
    if isinstance(good, numbers.Real):
        return cases + [("nan", float("nan")), ("inf", float("inf")), ("-inf", float("-inf")),
                        ("-1", -1.0), ("0", 0.0), ("1e12", 1e12), ("-1e12", -1e12),
                        ("1e308", 1e308), ("1e-300", 1e-300), ("True", True),
                        ("complex", 1 + 1j), ("numpy nan", np.float64("nan")),
                        ("numeric str", "0.5")]
    if isinstance(good, str):
        return cases + [("unknown name", "no-such-choice"), ("empty str", ""),
                        ("int for a name", 3)]
    if good is None:
        return [("str", "x"), ("object()", _Opaque()), ("nan", float("nan")), ("-1", -1),
                ("10**12", 10**12), ("True", True), ("complex array", np.ones(3, complex)),
                ("object array", np.array([1, None], dtype=object))]
    array = _numeric_array(good)
    if array is not None:
        out = cases + [("complex array", array.astype(complex) + 1j),
                       ("object array", array.astype(object)),
                       ("ragged list", [[1.0], [1.0, 2.0]]),
                       ("list of str", ["a"] * max(array.size, 1)),
                       ("extra axis", array[None]),
                       ("empty", np.zeros((0,) + array.shape[1:]))]
        if array.ndim >= 1 and array.shape[-1] > 1:
            out.append(("one entry short", array[..., :-1]))
        if array.ndim >= 1 and array.size:
            out.append(("scalar", array.reshape(-1)[0].item()))
        if array.size:
            for kind, x in (("NaN inside", np.nan), ("inf inside", np.inf),
                            ("1e308 inside", 1e308), ("-1 inside", -1.0),
                            ("1e-99 inside", 1e-99)):  # tiny, above the usual 1e-100 floor
                spoilt = array.astype(float)
                spoilt.reshape(-1)[-1] = x
                out.append((kind, spoilt))
            out.append(("zeros", np.zeros_like(array)))
        if array.ndim == 2 and array.shape[0] > 1 and array.shape[1] > 1:
            # the right shape, but singular: a column repeated (X^T X has a zero eigenvalue),
            # and the same at a scale where a small ridge (+ 1e-4 I) is lost in rounding
            twin = array.astype(float)
            twin[:, -1] = twin[:, 0]
            out += [("repeated column", twin), ("repeated column x 1e8", twin * 1e8)]
        return out
    if callable(good) and not isinstance(good, type):
        return cases + [("not callable", 3), ("returns NaN", Spoilt(good, np.nan)),
                        ("returns inf", Spoilt(good, np.inf)),
                        ("NaN after its first call", Spoilt(good, np.nan, after=1))]
    # a model object (MDP, SequenceModel, ...), a Generator, a tuple of things, ...
    return cases + [("int", 3), ("array", np.ones(3))]


class Spoilt:
    """A callable that returns what ``good`` returns with every float replaced by ``value``
    (NaN, inf), from its call number ``after`` on (0: from the first). ``altered`` says whether
    it has returned such a value (a ``progress`` callable returns None: nothing to spoil)."""

    def __init__(self, good, value: float, after: int = 0):
        self.good, self.value, self.after = good, value, after
        self.calls, self.altered = 0, False

    def __call__(self, *args, **kwargs):
        out = self.good(*args, **kwargs)
        self.calls += 1
        if self.calls <= self.after:
            return out
        spoilt = self._spoil(out)
        self.altered = self.altered or nonfinite_paths(spoilt) != nonfinite_paths(out)
        return spoilt

    def _spoil(self, out):
        if isinstance(out, np.ndarray) and out.dtype.kind == "f":
            return np.full_like(out, self.value)
        if isinstance(out, (float, np.floating)):
            return type(out)(self.value)
        if isinstance(out, (tuple, list)):
            return type(out)(self._spoil(item) for item in out)
        return out

    def __repr__(self):
        return f"<a callable returning {self.value}>"


def _numeric_array(value):
    if isinstance(value, (str, bytes, dict)) or value is None:
        return None
    if not isinstance(value, (np.ndarray, list, tuple)):
        return None
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return array if array.dtype.kind in "biuf" else None


def case_list(fn, kwargs: dict) -> list[tuple[str, str, object]]:
    """(argument, kind, bad value) in the order the worker tries them. ``None`` is not tried
    for an argument whose default is None (it is the documented default)."""
    params = inspect.signature(fn).parameters
    out = []
    for name, good in kwargs.items():
        default_none = params[name].default is None
        for kind, bad in bad_values(good):
            if not (default_none and bad is None):
                out.append((name, kind, bad))
    return out


def cases_of(qualname: str, fn) -> list[tuple[str, str]]:
    """The (argument, kind) list the worker runs for ``fn`` (for naming a case by its index)."""
    return [(name, kind) for name, kind, _ in case_list(fn, baseline_arguments(qualname, fn))]


# --- judging a result ----------------------------------------------------------------------


def nonfinite_paths(value, path: str = "result", depth: int = 0) -> set[str]:
    """The places in a result (fields, items, keys) holding a NaN or an infinity."""
    if depth > 6:
        return set()
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and value.size and not np.all(np.isfinite(value)):
            return {path}
        if value.dtype.kind == "O":
            found = set()
            for i, item in enumerate(value.reshape(-1)[:1000]):
                found |= nonfinite_paths(item, f"{path}[{i}]", depth + 1)
            return found
        return set()
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return set() if np.isfinite(value) else {path}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found = set()
        for field in dataclasses.fields(value):
            found |= nonfinite_paths(getattr(value, field.name), f"{path}.{field.name}", depth + 1)
        return found
    if isinstance(value, dict):
        found = set()
        for key, item in list(value.items())[:1000]:
            found |= nonfinite_paths(item, f"{path}[{key!r}]", depth + 1)
        return found
    if isinstance(value, (list, tuple)):
        found = set()
        for i, item in enumerate(value[:1000]):
            found |= nonfinite_paths(item, f"{path}[{i}]", depth + 1)
        return found
    return set()


#: Bad values that change an array's shape: the refusal may name the argument whose shape no
#: longer matches (``moments`` for ``features`` one column short), any argument of the call.
SHAPE_KINDS = {"extra axis", "empty", "one entry short", "scalar"}


#: Bad values that no function may accept, whatever it does with them: the wrong type for a
#: flag, a number, a name or an array (a bool for a number, text for a number, complex or object
#: data, ...). Others (None, 0, 10**12, ...) may be legitimate values of some arguments.
MUST_REFUSE = {"int for a flag", "str for a flag", "True", "str", "numeric str", "object()",
               "dict", "complex", "complex array", "object array", "list of str", "ragged list",
               "int for a name"}


def must_refuse(bad_kind: str, good) -> bool:
    """Whether ``bad_kind`` in place of the example value ``good`` must raise."""
    if bad_kind not in MUST_REFUSE:
        return False
    if bad_kind == "dict" and isinstance(good, dict):
        return False
    return not (bad_kind in ("str", "numeric str") and isinstance(good, str))


def judge(param: str, outcome, bad_kind: str = "", params=(), must: bool = False) -> str | None:
    """None when the call behaved, else a sentence saying what went wrong."""
    kind, payload = outcome
    if kind == "returned" and must:
        return f"accepted {bad_kind} (returned without an error)"
    if kind == "raised":
        exc_type, message = payload
        if exc_type not in ("ValueError", "TypeError"):
            return f"raised {exc_type}: {message[:160]}"
        if bad_kind in SHAPE_KINDS and any(name in message for name in params):
            return None
        if exc_type == "ValueError" and ("diverged" in message or "overflow" in message):
            return None  # a run that diverged says so and what to change (issue 25)
        if param not in message:
            return f"raised {exc_type} not naming {param!r}: {message[:160]}"
        return None
    if kind == "returned":
        return f"returned NaN or inf in {sorted(payload)[:3]}" if payload else None
    return kind


# --- the worker ----------------------------------------------------------------------------


#: Callable arguments whose results the function returns as its own (a map over tasks): a NaN
#: they return may come back, where any other function must refuse a callable that returns
#: nothing but NaN or inf (``Spoilt``).
RETURNED = {"dynamics.sweep.sweep": ("fn",)}


def _returned(qualname: str) -> set[str]:
    """The callable arguments whose results ``qualname`` hands back as its own (``RETURNED``)."""
    return set(RETURNED.get(qualname, ()))


def _call(fn, kwargs):
    positional, keywords = [], {}
    for param in inspect.signature(fn).parameters.values():
        if param.name not in kwargs:
            continue
        if param.kind == param.POSITIONAL_ONLY:
            positional.append(kwargs[param.name])
        else:
            keywords[param.name] = kwargs[param.name]
    return fn(*positional, **keywords)


def _run(fn, kwargs, baseline_bad: set[str]):
    from dynamics.checks import Cancelled

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a complex value cast to its real part is a silent acceptance: make it an error
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            result = _call(fn, kwargs)
    except Cancelled:  # a long function stopped by its example ``progress``: accepted
        return "returned", []
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to judge
        return "raised", (type(exc).__name__, str(exc))
    return "returned", sorted(nonfinite_paths(result) - baseline_bad)


def try_case(fn, kwargs: dict, param: str, bad_kind: str, bad, baseline_bad=frozenset(),
             returned=()) -> str | None:
    """Call ``fn`` with ``kwargs`` but ``param`` = ``bad``, and judge the outcome (None: it
    behaved). A callable that returned nothing but NaN or inf where its example returned
    numbers must be refused, unless ``param`` is in ``returned`` (the function hands back the
    callable's results: NaN may come back)."""
    trial = copy.deepcopy(kwargs)
    trial[param] = bad
    outcome = _run(fn, trial, set(baseline_bad))
    must = must_refuse(bad_kind, kwargs[param])
    if param == "seed" and bad is None and outcome[0] == "returned":
        # None is every engine's documented "fresh entropy" (``as_generator``): other draws than
        # the example's seed 0, so a sampled estimate may be legitimately infinite (a KL whose
        # estimate never drew a value the data holds) where seed 0's was finite. Judged for
        # its exceptions only, so that the outcome does not depend on the draws.
        outcome = ("returned", [])
    if isinstance(bad, Spoilt) and bad.altered:
        if param in returned:
            outcome = ("returned", []) if outcome[0] == "returned" else outcome
        elif bad.after == 0:  # no finite value to start from, ever
            must = True
    return judge(param, outcome, bad_kind, tuple(kwargs), must)


def worker(names: list[str], resume: int = 0, out=None) -> None:
    """Run the cases of each function in ``names`` (the first from case ``resume``)."""
    out = out or sys.stdout
    warnings.simplefilter("ignore")
    functions, _, _ = public_callables(os.environ.get("FUZZ_PACKAGE", "dynamics"),
                                       fallback=bool(os.environ.get("FUZZ_FALLBACK_ALL")))

    def emit(record):
        out.write(json.dumps(record) + "\n")
        out.flush()

    import dynamics

    # Compile (or load) the engines' kernels first, outside the per-call time limit: on a fresh
    # machine the numba cache is empty and compiling a module can take longer than a call may.
    for engine in dict.fromkeys(name.split(".")[1] for name in names):
        if names[0].startswith("dynamics.") and engine in dynamics.ENGINES:
            emit({"warming": engine})
            importlib.import_module(f"dynamics.{engine}")._warmup()
    for index, qualname in enumerate(names):
        fn = functions[qualname]
        emit({"start": [qualname, -1]})
        start = time.perf_counter()
        try:
            kwargs = baseline_arguments(qualname, fn)
        except Exception as exc:  # noqa: BLE001 - a broken registry entry is reported
            emit({"baseline": qualname, "error": f"example arguments failed: {exc!r}"})
            continue
        missing = [name for name, value in kwargs.items() if value is MISSING]
        if missing:
            emit({"baseline": qualname, "error": f"no example value for {missing}"})
            continue
        kind, payload = _run(fn, copy.deepcopy(kwargs), set())
        if kind == "raised":
            emit({"baseline": qualname, "error": f"raised {payload[0]}: {payload[1][:300]}"})
            continue
        baseline_bad = set(payload)
        emit({"baseline": qualname, "seconds": time.perf_counter() - start})
        for case, (param, bad_kind, bad) in enumerate(case_list(fn, kwargs)):
            if index == 0 and case < resume:
                continue
            emit({"start": [qualname, case]})
            problem = try_case(fn, kwargs, param, bad_kind, bad, baseline_bad,
                               _returned(qualname))
            emit({"result": [qualname, case, param, bad_kind, problem]})
    emit({"done": True})


if __name__ == "__main__":
    # The protocol gets its own copy of the standard output; whatever the engines print, from
    # Python or from C, goes to the standard error instead.
    _stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _args = sys.argv[1:]
    _resume = 0
    if _args and _args[0].startswith("--resume="):
        _resume = int(_args.pop(0).split("=", 1)[1])
    worker(_args, _resume, _stdout)
