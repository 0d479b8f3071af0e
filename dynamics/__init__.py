"""Engines of Learning Dynamics Explorer: plain NumPy + Numba, no GUI imports.

Each system lives in one module (``dynamics.herding``, ``dynamics.neuron``, ...). Public functions
take arrays first and options keyword-only, validate their inputs, and return frozen dataclasses
of NumPy arrays whose first axis is time. The paper claims that the pages and the gallery judge
are functions beside their engines too (``*_claim``, returning a ``dynamics.claims.Verdict``).
"""

from __future__ import annotations

import importlib
import time

#: Engine modules (``tests/dynamics/test_layering.py`` checks that this is every one), in the
#: order ``warmup`` compiles them when given no names; the served app's start orders them by its
#: pages instead (``views.framework.readiness.start_order``). Each defines ``_warmup()``, which
#: calls every numba kernel of the module once on tiny inputs with the production dtypes.
ENGINES = ("herding", "neuron", "torus", "bifurcation", "doeblin", "pmd", "sbeed", "ising",
           "generalized_herding", "hidden_herding", "herding_classify", "herding_data", "conditional_herding",
           "conditional_herding_data", "online_bayes", "hbm",
           "dsg", "embedding_sgd")

#: Modules of this package that are tools rather than engines (no system, no kernels to warm):
#: ``sweep`` maps a pure function over a parameter grid on any executor; ``claims`` holds the
#: ``Verdict`` that every paper claim's function (beside its engine) returns.
HELPERS = ("sweep", "claims")

__all__ = ["ENGINES", "HELPERS", "warmup"]


def warmup(verbose: bool = False, engines=None) -> dict[str, float]:
    """Compile (or load from the on-disk cache) every numba kernel of the given engine modules
    (names from ``ENGINES``; default: all of them, in that order).

    Returns the seconds spent per engine module. The served app calls this at start so that the
    first slider move does not pay for compilation.
    """
    if engines is not None and (isinstance(engines, str) or not hasattr(engines, "__iter__")):
        raise TypeError(f"engines must be None or a list of names from {ENGINES}, got {engines!r}")
    if not isinstance(verbose, bool):
        raise TypeError(f"verbose must be True or False, got {verbose!r}")
    names = ENGINES if engines is None else tuple(engines)
    unknown = [name for name in names if name not in ENGINES]
    if unknown:
        raise ValueError(f"engines must be names from {ENGINES}, got {unknown}")
    if not all(isinstance(name, str) for name in names):
        raise TypeError(f"engines must be names from {ENGINES}, got {names!r}")
    timings: dict[str, float] = {}
    for name in names:
        start = time.perf_counter()
        importlib.import_module(f"dynamics.{name}")._warmup()
        timings[name] = time.perf_counter() - start
        if verbose:
            print(f"dynamics.{name}: ready in {timings[name]:.2f} s", flush=True)
    return timings
