"""The served app's engines while it starts (issue 27 item 3): which are ready, and whether this
start compiles them.

The engines are Numba kernels, cached on disk after a clone's first start. On that first start
the server compiles them in the background (``app/app_hooks.py``): 2-3 minutes on a 2-core
machine. A page opened meanwhile used to wait on the compiler behind a blank screen (Doeblin:
30.8 s), or compile its kernels a second time in the server's own process. Now the warm-up says
here what it does (``begin``, ``doing``, ``ready``), and a page whose engines are still being
compiled is served as a waiting page that says so, shows how far the start is, and opens the
page itself once they are ready (``waiting_for``, ``progress``; ``app/main.py``).

A start whose kernels are all in the disk cache (every start after the first) is not a
compiling start: its pages never wait here, they load their kernels as they need them (about
1-2 s). Outside a served app (scripts, tests) nothing was begun, and nothing waits."""

from __future__ import annotations

import importlib
import sys
import time

from dynamics import ENGINES

__all__ = ["begin", "doing", "ready", "needs_compiling", "engines_of", "start_order",
           "waiting_for", "progress", "step"]

_STATE: dict = {"compiling": False, "started": None, "ready": set(), "doing": "",
                "to_compile": ()}


def _modules(name: str) -> list:
    """An engine's modules: the module, or the package and its loaded submodules."""
    importlib.import_module(f"dynamics.{name}")
    prefix = f"dynamics.{name}"
    return [m for key, m in list(sys.modules.items())
            if key == prefix or key.startswith(prefix + ".")]


def needs_compiling(name: str) -> bool:
    """Whether loading engine ``name`` will compile Numba kernels: some module of it has
    kernels cached on disk (``cache=True``) and none of them has a usable entry in the cache (no
    index file, or one written for another version of the module's source: Numba's stamp is per
    source file, so a module is cached whole or not at all). Kernels only ever compiled inside
    others (inlined helpers) have no entry of their own and do not count. Reads the cache's
    index files (Numba's own ``_load_index``), compiles nothing."""
    if name not in ENGINES:
        raise ValueError(f"name must be one of {ENGINES}, got {name!r}")
    from numba.core.caching import FunctionCache
    from numba.core.dispatcher import Dispatcher

    for module in _modules(name):
        caches = [kernel._cache for kernel in vars(module).values()
                  if isinstance(kernel, Dispatcher) and isinstance(kernel._cache, FunctionCache)]
        try:
            if caches and not any(cache._cache_file._load_index() for cache in caches):
                return True
        except (AttributeError, OSError, EOFError, ValueError):
            return False  # an unknown Numba layout: do not hold pages back
    return False


def begin(compiling) -> None:
    """The server's warm-up starts; ``compiling``: the engines it will compile (a first start;
    the names the server's log lists), empty when every kernel is in the disk cache."""
    names = tuple(compiling)
    _STATE.update(compiling=bool(names), started=time.monotonic(), ready=set(), doing="",
                  to_compile=names)


def step(name: str) -> str:
    """What readying engine ``name`` is, counted as the server's log counts: "compiling pmd
    (4 of 11)" among the engines this start compiles, or "loading torus" (from the disk
    cache)."""
    names = _STATE["to_compile"]
    if name in names:
        return f"compiling {name} ({names.index(name) + 1} of {len(names)})"
    return f"loading {name}"


def doing(text: str) -> None:
    """What the warm-up does now, in words for the waiting page."""
    _STATE["doing"] = str(text)


def ready(names) -> None:
    """These engines' kernels are loaded in the server's process."""
    _STATE["ready"].update(names)
    if _STATE["ready"] >= set(ENGINES):
        _STATE["compiling"] = False


def engines_of(cls) -> list[str]:
    """The engines an explorer's page computes with: those its module (and, for a package, its
    submodules) imports from ``dynamics``, and those that these engines' modules import in
    turn, in ``ENGINES`` order. Read from the loaded modules' names (functions, classes and
    modules imported), so a page's new import is followed with no list to keep."""
    base = cls.__module__
    package = hasattr(sys.modules[base], "__path__")  # a page with its runs beside it
    todo = [m for key, m in list(sys.modules.items())
            if key == base or (package and key.startswith(base + "."))]
    used, seen = set(), {id(m) for m in todo}
    while todo:
        for value in list(vars(todo.pop()).values()):
            where = value.__name__ if isinstance(value, type(sys)) else getattr(
                value, "__module__", None)
            if not (isinstance(where, str) and where.startswith("dynamics.")):
                continue
            used.add(where.split(".")[1])
            module = sys.modules.get(where)
            if module is not None and id(module) not in seen:  # what the engine uses in turn
                seen.add(id(module))
                todo.append(module)
    return [name for name in ENGINES if name in used]


def start_order(classes) -> list[str]:
    """Every engine, in the order a start loads them: the engines of each page in ``classes``
    (the menu's order) not loaded for an earlier page, then those no page computes with."""
    order: list[str] = []
    for cls in classes:
        order += [name for name in engines_of(cls) if name not in order]
    return order + [name for name in ENGINES if name not in order]


def waiting_for(cls) -> list[str]:
    """The engines of ``cls``'s page that a compiling start has not readied yet ([] once they
    are, on a start that compiles nothing, and outside a served app)."""
    if not _STATE["compiling"]:
        return []
    return [name for name in engines_of(cls) if name not in _STATE["ready"]]


def progress() -> str:
    """How far the start is, in one line: the engines compiled of those this start compiles
    (the count the server's log gives), seconds since it began, and what the warm-up does
    now."""
    started = _STATE["started"]
    seconds = 0.0 if started is None else time.monotonic() - started
    names = _STATE["to_compile"]
    line = (f"{len(_STATE['ready'] & set(names))} of {len(names)} engines compiled, "
            f"{seconds:.0f} s since the server started")
    return f"{line}; now {_STATE['doing']}" if _STATE["doing"] else line
