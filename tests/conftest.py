"""Shared test configuration.

Hypothesis runs without a per-example deadline: the first example of a test may pay for loading
numba kernels from the on-disk cache, which says nothing about the property under test.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ldx",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ldx")
