"""Engines of Learning Dynamics Explorer: plain NumPy + Numba, no GUI imports.

Each system lives in one package named by its page's slug (``dynamics.herding``,
``dynamics.neuron``, ..., ``dynamics.esgd``). Public functions take arrays first and options
keyword-only, validate their inputs, and return frozen dataclasses of NumPy arrays whose first
axis is time. The paper claims that the pages and the gallery judge are functions beside their
engines too (``*_claim``, returning a ``dynamics.claims.Verdict``). Beside the system packages
stand a few shared modules: ``checks`` (input checks), ``claims`` (the ``Verdict``), ``exact``
(exact tie rules for argmaxes), ``papers`` (the source papers) and ``sweep`` (a pure function
mapped over a parameter grid on any executor).
"""

from __future__ import annotations

import importlib
import pkgutil
import time

_LISTING = sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)

#: The system packages, one per page and named by its slug, found in this folder (so a new
#: system is an engine by being here), in the order ``warmup`` compiles them when given no
#: names; the served app's start orders them by its pages instead
#: (``views.framework.readiness.start_order``). Each defines ``_warmup()``, which calls every
#: numba kernel of the package once on tiny inputs with the production dtypes.
ENGINES = tuple(info.name for info in _LISTING if info.ispkg)

#: The shared modules beside them: tools rather than systems (no kernels to warm).
HELPERS = tuple(info.name for info in _LISTING if not info.ispkg)

__all__ = ["ENGINES", "HELPERS", "warmup"]


def warmup(verbose: bool = False, engines=None) -> dict[str, float]:
    """Compile (or load from the on-disk cache) every numba kernel of the given engine packages
    (names from ``ENGINES``; default: all of them, in that order).

    Returns the seconds spent per engine package. The served app calls this at start so that the
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
