"""Every public function of ``dynamics`` refuses bad input by name (issue 25 item 2).

The functions are those listed in the ``__all__`` of every public module of the package, so a
function is covered as soon as it is exported. Each is called with valid example arguments
(registered in ``_public_examples.py``), then with one argument at a time replaced by a bad
value (NaN, infinities, -1, 0, 10**12, a string, None, an object, a bool for a number and a
number for a bool, complex, object, misshapen and NaN-holding arrays; and values of the right
shape that are hard to compute with: an entry of 1e-99, all zeros, a matrix with a repeated
column (singular), the same at size 1e8, and a callable that returns NaN or inf, at once or
after its first call: ``_fuzz.bad_values``). A
call passes when it raises ``ValueError`` or ``TypeError`` whose message names the argument (or
says that the run diverged), or returns a result with no NaN or infinity where the baseline's
result had none; any other exception (``LinAlgError``, ``ZeroDivisionError``) fails, and so does
a call that accepts a callable returning nothing but NaN or inf (the rules in full:
``_fuzz.judge`` and ``_fuzz.try_case``). The calls run in
worker processes (``python -m tests.dynamics._fuzz``); a call that does not answer within
``CALL_LIMIT`` seconds is a hang and fails its function.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.dynamics import _fuzz

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a single call may take before it counts as a hang: generous, because on a fresh
#: machine under load a call may first compile a kernel its module's ``_warmup`` did not cover.
CALL_LIMIT = 60.0
#: Seconds the worker may take to load or compile an engine's kernels (a fresh numba cache).
WARMUP_LIMIT = 300.0
#: Worker processes run at once (the machine has two cores).
WORKERS = 2

#: Functions that still fail, while their modules are being fixed: xfail(strict=True), so that
#: a fixed function turns the test red until it is taken off this list.
#: herding_data's two: on data with a repeated column the pseudo-likelihood (PL) machine's
#: coupling grows large (about 4.5), its Gibbs chain stays in one mode, its sampled P(k) misses
#: counts the data holds, and the KL of P(k) is +inf (the exact machine's is finite, about 1e-8):
#: an honest value of the sampled estimate, which the fuzz's "no infinity where the example had
#: none" rule flags. Open: a smoothed or exact PL column, or a rule that accepts a documented inf.
KNOWN_FAILURES: set[str] = {"dynamics.herding.data.kl_table",
                            "dynamics.herding.data.pairs_against_pl"}

FUNCTIONS, DISPATCHERS, WITHOUT_ALL = _fuzz.public_callables(
    fallback=bool(os.environ.get("FUZZ_FALLBACK_ALL")))  # only to measure code without __all__


def _run_batch(names: list[str], *, package: str = "dynamics", call_limit: float = CALL_LIMIT,
               pythonpath: str = "") -> tuple[dict, dict]:
    """Run the worker over ``names`` (public functions of ``package``); restart it after a hang.
    Returns (per-function list of failures, per-function baseline problems)."""
    failures: dict[str, list[str]] = {name: [] for name in names}
    baseline: dict[str, str] = {}
    todo, resume = list(names), 0
    functions = FUNCTIONS if package == "dynamics" else _fuzz.public_callables(package)[0]
    paths = [str(ROOT), pythonpath, os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p),
               FUZZ_PACKAGE=package)
    while todo:
        args = [sys.executable, "-m", "tests.dynamics._fuzz", f"--resume={resume}", *todo]
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)],
                         daemon=True).start()
        current, finished, limit = None, False, WARMUP_LIMIT
        while True:
            try:
                line = lines.get(timeout=limit)
            except queue.Empty:
                line = "HANG"
            if line is None or line == "HANG":
                break
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            limit = WARMUP_LIMIT if "warming" in record else call_limit
            if "start" in record:
                current = record["start"]
            elif "baseline" in record and "error" in record:
                baseline[record["baseline"]] = record["error"]
            elif "result" in record:
                name, case, param, kind, problem = record["result"]
                if problem:
                    failures[name].append(f"{param}={kind}: {problem}")
            elif record.get("done"):
                finished = True
        proc.kill()
        proc.wait()
        if finished:
            break
        if current is None:  # died before its first call
            for name in todo:
                baseline.setdefault(name, "the worker process died on import")
            break
        name, case = current
        what = "its example arguments" if case < 0 else "case %d" % case
        if case >= 0:
            param, kind = _fuzz.cases_of(name, functions[name])[case]
            what = f"{param}={kind}"
        why = f"no answer within {call_limit:g} s (a hang)" if line == "HANG" else \
            "the worker process died"
        failures[name].append(f"{what}: {why}")
        if case < 0:
            baseline.setdefault(name, "its example call hung or crashed the worker")
        todo = todo[todo.index(name):]
        resume = case + 1
        if case < 0:
            todo, resume = todo[1:], 0
    return failures, baseline


def _batches(names: list[str], count: int) -> list[list[str]]:
    """``count`` batches of consecutive names (a module's functions share imports)."""
    size = -(-len(names) // count)
    return [names[i:i + size] for i in range(0, len(names), size)]


@pytest.fixture(scope="module")
def outcomes():
    names = list(FUNCTIONS)
    start = time.perf_counter()
    failures, baseline = {}, {}
    with ThreadPoolExecutor(WORKERS) as pool:
        for batch_failures, batch_baseline in pool.map(_run_batch, _batches(names, 2 * WORKERS)):
            failures.update(batch_failures)
            baseline.update(batch_baseline)
    failing = {name: problems for name, problems in failures.items() if problems}
    print(f"\n{len(names)} public functions, {sum(map(len, failing.values()))} failing calls "
          f"in {len(failing)} functions, {len(baseline)} without working examples, "
          f"{time.perf_counter() - start:.1f} s")
    return failures, baseline


def _param(name):
    marks = [pytest.mark.xfail(strict=True, reason="known failure, being fixed")] \
        if name in KNOWN_FAILURES else []
    return pytest.param(name, id=name, marks=marks)


def test_every_public_module_has_all():
    assert not WITHOUT_ALL, (
        f"every public module of dynamics lists its public names in __all__: {WITHOUT_ALL}")


def test_no_numba_dispatcher_is_public():
    assert not DISPATCHERS, (
        "numba dispatchers must be private (_name) behind a checked Python function, "
        f"got {sorted(DISPATCHERS)} in __all__")


def test_enumeration_finds_the_engines():
    """The enumeration itself works: a known function of each kind is found."""
    for name in ("dynamics.herding.herd", "dynamics.bifurcation.tempered_trajectory",
                 "dynamics.sweep.sweep", "dynamics.warmup"):
        assert name in FUNCTIONS
    assert len(FUNCTIONS) > 150


@pytest.mark.parametrize("name", [_param(name) for name in FUNCTIONS])
def test_refuses_bad_input_by_name(outcomes, name):
    failures, baseline = outcomes
    if name in baseline:
        pytest.fail(f"{name}: {baseline[name]}. Register valid example arguments for it in "
                    f"tests/dynamics/_public_examples.py (FUNCTIONS or MODULES).")
    problems = failures[name]
    assert not problems, (f"{name}: {len(problems)} bad calls\n  " + "\n  ".join(problems[:40]))


def _sloppy(x, *, steps: int = 3):
    """What the test must catch: no checks at all."""
    return float(np.asarray(x, dtype=float).sum() * steps)


def _careful(x, *, steps: int = 3):
    from dynamics.checks import check_array, check_count

    x = check_array("x", x, ndim=1, max_abs=1e100)
    return float(x.sum() * check_count("steps", steps, high=10**6))


def test_the_judge_catches_a_sloppy_function_and_passes_a_careful_one():
    def failures(fn):
        kwargs = {"x": np.array([1.0, 2.0]), "steps": 3}
        return [(param, kind) for param, kind, bad in _fuzz.case_list(fn, kwargs)
                if _fuzz.judge(param, _fuzz._run(fn, dict(kwargs, **{param: bad}), set()),
                               kind, tuple(kwargs), _fuzz.must_refuse(kind, kwargs[param]))]

    sloppy = failures(_sloppy)
    for case in [("x", "NaN inside"), ("x", "None"), ("x", "complex array"), ("steps", "nan"),
                 ("steps", "str"), ("steps", "True")]:
        assert case in sloppy
    assert failures(_careful) == []


def _sloppy_ridge(X):
    """A ridge solve that forms X^T X + 1e-4 I and solves it: singular in doubles when a column
    repeats at size 1e8 (LinAlgError)."""
    X = np.asarray(X, dtype=float)
    return np.linalg.solve(X.T @ X / len(X) + 1e-4 * np.eye(X.shape[1]), X.sum(0))


def _careful_ridge(X):
    from dynamics.checks import check_array

    X = check_array("X", X, ndim=2, max_abs=1e100)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have rows and columns, got shape {X.shape}")
    values, vectors = np.linalg.eigh(X.T @ X / len(X))
    return vectors @ ((vectors.T @ X.sum(0)) / (np.maximum(values, 0.0) + 1e-4))


def _sloppy_widths(widths):
    """Accepts widths down to 1e-100, where widths^4 underflows to 0 (an inf result)."""
    from dynamics.checks import check_array

    widths = check_array("widths", widths, ndim=1, max_abs=1e100)
    if np.any(widths < 1e-100):
        raise ValueError("widths must be at least 1e-100")
    return float(np.sum(1.0 / widths**4))


def _careful_widths(widths):
    from dynamics.checks import check_array

    widths = check_array("widths", widths, ndim=1, max_abs=1e50)
    if np.any(widths < 1e-50):
        raise ValueError("widths must be in [1e-50, 1e50]")
    return float(np.sum(1.0 / widths**4))


def _sloppy_chain(log_density, start):
    """A sampler that starts wherever it is put: a NaN log-density leaves it where it is."""
    w = np.asarray(start, dtype=float).copy()
    logp = log_density(w)
    for step in range(5):
        prop = w + 0.1 * (step + 1)
        new = log_density(prop)
        take = np.log(0.5) < new - logp
        w[take], logp[take] = prop[take], new[take]
    return w


def _careful_chain(log_density, start):
    if not callable(log_density):
        raise TypeError("log_density must be callable")
    w = np.asarray(start, dtype=float).copy()
    logp = np.asarray(log_density(w), dtype=float)
    if not np.all(np.isfinite(logp)):
        raise ValueError("log_density must be finite at the start")
    return _sloppy_chain(log_density, w)


def test_the_judge_catches_each_failure_of_issue_45():
    """Singular-but-shaped matrices, tiny widths and NaN-returning callables are among the bad
    values, and the judge fails what the four functions of issue 45 did with them."""
    def failures(fn, kwargs):
        return {(param, kind) for param, kind, bad in _fuzz.case_list(fn, kwargs)
                if _fuzz.try_case(fn, kwargs, param, kind, bad)}

    X = np.random.default_rng(0).normal(size=(6, 3))
    assert ("X", "repeated column x 1e8") in failures(_sloppy_ridge, {"X": X})
    assert failures(_careful_ridge, {"X": X}) == set()
    assert ("widths", "1e-99 inside") in failures(_sloppy_widths, {"widths": np.ones(2)})
    assert failures(_careful_widths, {"widths": np.ones(2)}) == set()
    chain = {"log_density": lambda w: -0.5 * w * w, "start": np.zeros(2)}
    sloppy = failures(_sloppy_chain, chain)
    assert {("log_density", "returns NaN"), ("log_density", "returns inf")} <= sloppy
    assert {case for case in failures(_careful_chain, chain) if case[0] == "log_density"} \
        == set()  # (its start is not checked: not what this test is about)


def _estimate(*, samples: int = 20, seed=0):
    """A sampled estimate, -log of the share of draws in category 2 of 3: infinite for draws
    that miss it, as a KL of a sampled distribution is. Seed 0's draws are the only ones known
    to hit it: any other seed, and fresh entropy, stand for "other draws" and miss it here."""
    from dynamics.checks import as_generator, check_count

    samples = check_count("samples", samples, high=10**6)
    draws = as_generator(seed).integers(0, 3, samples)
    if seed != 0:
        draws = np.minimum(draws, 1)  # the unlucky draws, made certain
    with np.errstate(divide="ignore"):
        return float(-np.log(np.mean(draws == 2)))


def _fragile_estimate(*, samples: int = 20, seed=0):
    if seed is None:
        raise KeyError("seed")  # None is every engine's documented fresh entropy
    return _estimate(samples=samples, seed=seed)


def test_a_fresh_seed_is_judged_for_its_exceptions_not_its_draws():
    """``seed=None`` (fresh entropy) may draw what makes an estimate legitimately infinite where
    seed 0 did not: that outcome depends on the draws, so it is not judged; a wrong exception
    for None still fails, and so does an infinity from any other argument."""
    kwargs = {"samples": 20, "seed": 0}
    assert np.isfinite(_estimate(**kwargs)) and np.isinf(_estimate(samples=20, seed=None))
    assert _fuzz.try_case(_estimate, kwargs, "seed", "None", None) is None
    assert "KeyError" in _fuzz.try_case(_fragile_estimate, kwargs, "seed", "None", None)
    assert "inf" in _fuzz.try_case(_estimate, kwargs, "seed", "1", 1)


def test_shared_checks_refuse_types_sizes_and_divergence_by_name():
    from dynamics import checks as c

    with pytest.raises(TypeError, match="weights must be a real array"):
        c.check_array("weights", np.ones(3) * (1 + 1j))  # was cast silently to its real part
    with pytest.raises(TypeError, match="weights"):
        c.check_array("weights", np.array([1.0, None], dtype=object))
    with pytest.raises(ValueError, match="counts must have integer entries"):
        c.check_array("counts", [1.5], dtype=np.int64)  # was truncated to 1
    with pytest.raises(ValueError, match=r"checkpoints must be an integer in \[1, 100000000\]"):
        c.check_count("checkpoints", 10**12)
    with pytest.raises(TypeError, match="sharp must be True or False"):
        c.check_flag("sharp", 1)
    with pytest.raises(ValueError, match="eta must be a real number"):
        c.check_positive("eta", True)
    with pytest.raises(TypeError, match="mdp must be a dict"):
        c.check_instance("mdp", [], dict)
    with pytest.raises(ValueError, match="p and q must have the same shape"):
        c.kl_divergence([0.5, 0.5], [1.0])  # was an IndexError
    with pytest.raises(ValueError, match="diverged.*use a smaller eta"):
        c.check_finite_result("weights", np.array([1.0, np.inf]), "use a smaller eta")
    assert c.kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(
        0.5 * np.log(2) + 0.5 * np.log(2 / 3))


_FAKE_ENGINES = '''
import time

from dynamics.checks import check_count

__all__ = ["sleepy", "careful", "unregistered"]


def sleepy(n: int = 1):
    if n == 10**12:
        time.sleep(120)  # what the test must report as a hang, and then carry on
    return check_count("n", n, high=10**9)


def careful(n: int = 1):
    return check_count("n", n, high=10**9)


def unregistered(thing):
    return thing
'''


def test_a_hang_fails_its_function_by_name_and_the_run_goes_on(tmp_path, monkeypatch):
    """And a function without example arguments is reported as such (the test then asks for
    them to be registered)."""
    (tmp_path / "fuzzfake").mkdir()
    (tmp_path / "fuzzfake" / "__init__.py").write_text(_FAKE_ENGINES)
    monkeypatch.syspath_prepend(str(tmp_path))
    failures, baseline = _run_batch(["fuzzfake.sleepy", "fuzzfake.careful",
                                     "fuzzfake.unregistered"], package="fuzzfake",
                                    call_limit=3.0, pythonpath=str(tmp_path))
    assert baseline == {"fuzzfake.unregistered": "no example value for ['thing']"}
    assert failures["fuzzfake.sleepy"] == ["n=10**12: no answer within 3 s (a hang)"]
    assert failures["fuzzfake.careful"] == []
