"""Shared test configuration.

Hypothesis runs without a per-example deadline: the first example of a test may pay for loading
numba kernels from the on-disk cache, which says nothing about the property under test.
"""

import os
import pathlib
import re

# Two test workers share two cores: a multithreaded BLAS in each oversubscribes them (a 20-state
# L-BFGS solve measured 2.5 s instead of 0.04 s while another process ran). Set before NumPy
# loads; served apps started by the browser tests inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ldx",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
# CI draws the same examples on every run (still 60 per property), so a red CI always points
# at a reproducible example; developers' runs keep exploring new ones.
settings.register_profile("ci", parent=settings.get_profile("ldx"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "ldx")


# --- one compilation of the engines before the test workers start ------------------------------
def _kernels(name: str) -> int:
    """How many Numba kernels engine ``name``'s package defines (its ``@njit`` decorators, read
    from the source, nothing imported): the weight that shares the engines out over
    ``PRECOMPILERS`` processes (compile time grows with it; doeblin, bifurcation and pmd have
    the most)."""
    folder = pathlib.Path(__file__).resolve().parents[1] / "dynamics" / name
    return sum(len(re.findall(r"^\s*@(?:numba\.)?njit\b", path.read_text(), flags=re.M))
               for path in folder.rglob("*.py"))


PRECOMPILERS = 2


def _precompile_engines() -> None:
    """Fill Numba's on-disk cache for every engine, in ``PRECOMPILERS`` processes at once,
    before the test workers start.

    On a fresh clone nothing is cached, and every process of the run compiled what it needed
    at the moment it needed it: both test workers, each served app at its start (and its child
    compiler), the gallery's dask workers, the fuzz's worker processes. They did it side by side,
    the same kernels many times over (89 s of CPU for all the engines once, in one process). Done
    once here, every later process loads the kernels in about 2 s. With a warm cache this costs
    about 3 s. A failure only means the processes compile for themselves, as before."""
    import subprocess
    import sys
    import time

    import dynamics

    root = pathlib.Path(__file__).resolve().parents[1]
    groups: list[list[str]] = [[] for _ in range(PRECOMPILERS)]
    loads = [0.0] * PRECOMPILERS
    weights = {name: _kernels(name) + 0.5 for name in dynamics.ENGINES}
    for name in sorted(dynamics.ENGINES, key=lambda n: -weights[n]):
        i = loads.index(min(loads))
        groups[i].append(name)
        loads[i] += weights[name]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c",
                               f"import dynamics; dynamics.warmup(engines={group!r})"],
                              cwd=root, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for group in groups]
    failed = []
    for proc in procs:
        try:
            _, err = proc.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            proc.kill()
            err = "timed out after 600 s"
        if proc.returncode:
            failed.append(err.strip().splitlines()[-1] if err.strip() else str(proc.returncode))
    if not failed:  # the workers' "first start" happened here (tests/dynamics/test_numba_cache)
        os.environ["LDX_PRECOMPILED"] = "1"
    print(f"engines compiled or loaded from Numba's cache in {time.perf_counter() - start:.1f} s"
          + (f" (failed: {'; '.join(failed)}; the tests compile what they need)" if failed
             else ""), flush=True)


#: BLAS threads per process in a run on several workers, unless the environment says otherwise.
BLAS_THREADS = "1"


def pytest_configure(config):
    """A run on several workers (``-n 2``, the README's command) compiles the engines once
    first (``_precompile_engines``); ``LDX_PRECOMPILE=0`` skips it. Its processes (the
    workers, the apps they serve, the gallery's dask workers, the runs' worker processes) use
    one BLAS thread each unless ``OPENBLAS_NUM_THREADS`` is set: on two cores that two test
    workers already keep busy, OpenBLAS's second thread only contends (the quick gallery's
    SBEED ablation beside a busy core took 2.5 times the CPU with two threads as with one).
    Benchmarks (one process, ``-m bench``) keep the default."""
    if (os.environ.get("PYTEST_XDIST_WORKER") or hasattr(config, "workerinput")
            or not getattr(config.option, "numprocesses", None)):
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)  # before the workers start
    if os.environ.get("LDX_PRECOMPILE") == "0":
        return
    _precompile_engines()


# --- tiers -----------------------------------------------------------------------------------
#: The opt-in tiers, as Panel keeps its browser tests behind ``--ui``: each is a marker and an
#: option. A plain ``pytest`` runs the fast tier, every test with none of these markers: the
#: engines, the in-process views and the generic checks.
TIERS = {
    "browser": "the served app: tests/app (a `panel serve` process, Playwright and Chromium)",
    "gallery": "builds of the paper gallery (python -m views.figures)",
    "bench": "benchmarks against NumPy references and floors, printed as ratios",
}
#: Where a tier's marker is set by the test's place, not written in each file.
TIER_FOLDERS = {"browser": "tests/app/", "bench": "tests/bench/"}
#: Fixtures that put a test in a tier wherever it is (Playwright's browser is the browser tier).
TIER_FIXTURES = {"browser": "browser"}


def pytest_addoption(parser):
    group = parser.getgroup("tiers", "test tiers (a plain pytest runs the fast tier)")
    for tier, what in TIERS.items():
        group.addoption(f"--{tier}", action="store_true", default=False,
                        help=f"run the {tier} tier instead of the fast one: {what}")
    group.addoption("--fast", action="store_true", default=False,
                    help="run the fast tier too, beside the tiers asked for")
    group.addoption("--all-tiers", action="store_true", default=False,
                    help="run every tier, the fast one included")


def tier_of(item) -> str:
    """The one tier ``item`` belongs to: ``bench`` over ``browser`` over ``gallery`` (a
    benchmark that drives Chromium is a benchmark), ``fast`` when none. Sets the markers that
    the test's folder or fixtures imply, so ``-m browser`` sees them too."""
    path = item.nodeid.split("::")[0]
    for tier, folder in TIER_FOLDERS.items():
        if path.startswith(folder):
            item.add_marker(tier)
    for tier, fixture in TIER_FIXTURES.items():
        if fixture in getattr(item, "fixturenames", ()):
            item.add_marker(tier)
    marked = {mark.name for mark in item.iter_markers()}
    return next((tier for tier in ("bench", "browser", "gallery") if tier in marked), "fast")


def asked_tiers(config) -> set[str] | None:
    """The tiers the command line asks for (``fast`` for a plain run), or None when a ``-m``
    expression names a tier's marker: then that expression alone selects."""
    expression = config.getoption("markexpr", "") or ""
    if any(re.search(rf"\b{tier}\b", expression) for tier in TIERS):
        return None
    if config.getoption("all_tiers"):
        return {"fast", *TIERS}
    asked = {tier for tier in TIERS if config.getoption(tier)}
    if config.getoption("fast") or not asked:
        asked.add("fast")
    return asked


# --- MuJoCo, an optional extra ----------------------------------------------------------------
def needs_mujoco(item) -> bool:
    """Whether ``item`` runs gymnasium's Swimmer (the only user of MuJoCo): its module, its
    name or its case names the Swimmer ("swimmer", as every Swimmer run, entry, block and
    function is named)."""
    return "swimmer" in item.nodeid.lower()


def _skip_without_mujoco(items) -> None:
    """Where MuJoCo is not installed (``pip install -e .`` without the ``mujoco`` extra), the
    Swimmer's tests skip, saying how to enable them."""
    from dynamics.sbeed import swimmer

    if swimmer.installed():
        return
    skip = pytest.mark.skip(reason=swimmer.MISSING)
    for item in items:
        if needs_mujoco(item):
            item.add_marker(skip)


def pytest_collection_modifyitems(config, items):
    """Keep the tests of the tiers asked for (``asked_tiers``); deselect the others, so that
    ``pytest`` says how many it left out. A run that asks for no tier and names only a tier's
    tests runs them. Skip the Swimmer's where MuJoCo is missing."""
    _skip_without_mujoco(items)
    asked = asked_tiers(config)
    tiers = {item.nodeid: tier_of(item) for item in items}
    if asked is None:
        return
    if asked == {"fast"} and not config.getoption("fast") and "fast" not in tiers.values():
        # no tier asked for, and the paths named hold none of the fast tier's tests
        # (pytest tests/app/test_opening.py): run what was named
        asked = set(tiers.values())
    kept = [item for item in items if tiers[item.nodeid] in asked]
    if len(kept) < len(items):
        config.hook.pytest_deselected(
            items=[item for item in items if tiers[item.nodeid] not in asked])
        items[:] = kept
