"""One cache of computed results for every page, with a byte budget.

A page caches its computation per parameter set (``@results_cache`` on a module-level pure
function of hashable arguments, in place of ``functools.lru_cache``), and the jobs cache their
finished runs (``views.framework.jobs``). A count of entries alone does not bound a server's memory: one
herding result at a million steps weighs hundreds of times what it does at the default, and a
class of sessions that each move a slider to a new value fills every page's cache. So all of
them share one least-recently-used store (``cachetools.LRUCache``) whose size is the bytes its
results hold (``nbytes``): at most ``BUDGET`` bytes across pages and sessions, the least
recently used results going first; a result larger than the whole budget is not kept.

``LDX_CACHE_MB`` (environment) sets the budget in MiB (default ``DEFAULT_MB``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import threading

import numpy as np
from cachetools import LRUCache, cached
from cachetools.keys import hashkey

__all__ = ["BUDGET", "DEFAULT_MB", "LOCK", "STORE", "results_cache", "nbytes"]

#: Default budget of the results cache, in MiB.
DEFAULT_MB = 128


def _budget() -> int:
    text = os.environ.get("LDX_CACHE_MB", "")
    try:
        mib = float(text) if text else DEFAULT_MB
    except ValueError:
        raise ValueError(f"LDX_CACHE_MB must be a number of MiB, got {text!r}") from None
    if not mib > 0:
        raise ValueError(f"LDX_CACHE_MB must be positive, got {text!r}")
    return int(mib * 2**20)


#: Bytes of results kept, all pages and jobs together.
BUDGET = _budget()
#: Objects whose parts ``nbytes`` counts at most (a bound on its own cost).
_MAX_PARTS = 100_000


def nbytes(value) -> int:
    """The bytes a result holds: its NumPy arrays' buffers, and the sizes of the containers,
    dataclasses and plain objects around them (each object counted once)."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack and len(seen) < _MAX_PARTS:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += obj.nbytes + sys.getsizeof(obj) - (obj.nbytes if obj.base is None
                                                         and obj.flags.owndata else 0)
            if obj.dtype == object:
                stack.extend(obj.ravel().tolist())
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, (str, bytes, int, float, complex, bool, type(None), np.generic)):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
            stack.extend(vars(obj).values())
    return total


#: The one store: key -> result, sized in bytes.
STORE = LRUCache(maxsize=BUDGET, getsizeof=nbytes)
#: Held around every use of ``STORE`` (an LRUCache is not thread-safe).
LOCK = threading.RLock()


def results_cache(function):
    """Cache ``function``'s results per argument set in ``STORE`` (like
    ``functools.lru_cache``, bounded by bytes across every page instead of by a count per
    function). Arguments must be hashable. ``cache_clear()`` empties the whole store."""
    name = f"{function.__module__}.{function.__qualname__}"
    return cached(STORE, key=functools.partial(hashkey, name), lock=LOCK)(function)
