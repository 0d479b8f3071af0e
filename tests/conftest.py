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


# --- the longest test files first ------------------------------------------------------------
#: The test files that take longest, longest first (as a full run on two cores found them).
#: ``--dist loadfile`` hands the
#: files to the two workers in collection order: the quick gallery (tests/views, collected
#: late) started when the other worker had little left, which then waited for it. Longest
#: first, the two workers end closer together.
LONGEST_FILES = (
    "tests/views/test_figures.py", "tests/app/test_browser.py", "tests/app/test_injection.py",
    "tests/views/test_live_equals_fresh.py", "tests/app/test_server_lifecycle.py",
    "tests/app/test_links_and_layout.py", "tests/views/test_explorers.py",
    "tests/views/test_every_run_in_a_worker.py", "tests/app/test_export_offline.py",
)


def pytest_collection_modifyitems(config, items):
    """Run ``LONGEST_FILES`` first, in that order; every other file keeps its place (a stable
    sort: each worker collects the same order, as xdist requires)."""
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
