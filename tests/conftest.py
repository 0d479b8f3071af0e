"""Shared test configuration.

Hypothesis runs without a per-example deadline: the first example of a test may pay for loading
numba kernels from the on-disk cache, which says nothing about the property under test.
"""

import os

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
