"""The engines while the server starts (views.framework.readiness, issue 27 item 3): a page
waits only on a start that compiles, only for its own engines, and is told how far it is."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

import dynamics
from views import EXPLORERS
from views.framework import readiness

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture()
def fresh_state():
    saved = {k: (set(v) if isinstance(v, set) else v) for k, v in readiness._STATE.items()}
    yield
    readiness._STATE.update(saved)


def test_each_page_names_the_engines_it_computes_with():
    # a page computes with its own system's package, and with what that package uses in turn
    assert readiness.engines_of(EXPLORERS["herding"]) == ["herding"]
    assert readiness.engines_of(EXPLORERS["torus"]) == ["herding", "torus"]
    assert readiness.engines_of(EXPLORERS["doeblin"]) == ["doeblin"]  # a page package
    assert readiness.engines_of(EXPLORERS["rbm"]) == ["pct", "rbm"]  # rbm uses pct's rate
    for slug, cls in EXPLORERS.items():
        assert slug in readiness.engines_of(cls), f"{slug}: its own engine not found"


def test_only_a_compiling_start_holds_pages_back(fresh_state):
    doeblin = EXPLORERS["doeblin"]
    assert readiness.waiting_for(doeblin) == []  # nothing begun: a script or a test
    readiness.begin([])  # every kernel in the disk cache
    assert readiness.waiting_for(doeblin) == []
    readiness.begin(["herding", "doeblin", "pmd"])  # the engines the log says it compiles
    assert readiness.step("doeblin") == "compiling doeblin (2 of 3)"
    assert readiness.step("torus") == "loading torus"  # in the disk cache
    readiness.doing(f"{readiness.step('doeblin')} in a child process")
    assert readiness.waiting_for(doeblin) == ["doeblin"]
    assert readiness.waiting_for(EXPLORERS["torus"]) == ["herding", "torus"]
    readiness.ready(["herding", "neuron", "torus"])
    assert readiness.waiting_for(EXPLORERS["torus"]) == []
    line = readiness.progress()  # counted as the log counts: among the engines compiled
    assert line.startswith("1 of 3 engines compiled, ")
    assert line.endswith("now compiling doeblin (2 of 3) in a child process")
    readiness.ready(dynamics.ENGINES)
    assert readiness.waiting_for(doeblin) == []
    with pytest.raises(ValueError, match="name"):
        readiness.needs_compiling("nonsense")


_NEEDS = "from views.framework import readiness as r; import json; print(json.dumps([n for n in r.ENGINES if r.needs_compiling(n)]))"


def test_a_start_knows_before_compiling_whether_it_will(tmp_path):
    """With the run's cache (filled before the tests) nothing needs compiling; with an empty
    cache directory every engine with kernels does, and reading that compiles nothing."""
    def needs(env):
        out = subprocess.run([sys.executable, "-c", _NEEDS], cwd=ROOT, env=env, text=True,
                             capture_output=True, check=True, timeout=300).stdout
        return json.loads(out.strip().splitlines()[-1])

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    warm = needs(env)
    cold = needs({**env, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert warm == []
    assert {"herding", "doeblin", "pmd", "sbeed", "hbm"} <= set(cold)
    assert "esgd" not in cold  # no Numba kernel of its own
    assert not any(p.is_file() for p in tmp_path.rglob("*"))  # nothing compiled or written


def test_a_waiting_page_says_what_it_waits_for_and_opens_the_page_once_ready(
        fresh_state, monkeypatch):
    spec = importlib.util.spec_from_file_location("ldx_app_main", ROOT / "app" / "main.py")
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)  # builds the home page, as outside a server
    ticks = []

    class Ticker:
        stopped = False

        def stop(self):
            self.stopped = True

    def periodic(callback, period):
        ticks.append((callback, period, Ticker()))
        return ticks[-1][2]

    monkeypatch.setattr(main.pn.state, "add_periodic_callback", periodic)
    readiness.begin(["herding", "doeblin", "pmd"])
    readiness.ready(["herding", "neuron", "torus"])
    readiness.doing("compiling doeblin (2 of 3) in a child process")
    page = main.waiting_page("doeblin")
    note, reload = page.objects[0], page.objects[-1]
    assert "compiling its engines" in note.object and "(doeblin)" in note.object
    assert "1 of 3 engines compiled" in note.object
    assert "now compiling doeblin (2 of 3)" in note.object
    (tick, period, ticker), = ticks
    assert period == 1000
    readiness.ready(["bifurcation"])
    readiness.doing("compiling pmd (3 of 3) in a child process")
    tick()  # a second later: the line follows the start
    assert "1 of 3 engines compiled" in note.object and "pmd (3 of 3)" in note.object
    assert reload.value == 0 and not ticker.stopped
    readiness.ready(["doeblin"])
    tick()  # ready: the browser reloads the same address (reload's jscallback)
    assert reload.value == 1 and ticker.stopped


#: Import each page's module in a process of its own, with the ``views`` package bare (its
#: ``__init__`` imports every page), and print the engines then in ``sys.modules``: what the
#: page's code imports, directly or through the modules it imports. The shared framework is
#: imported once, then each page in a fork of that process.
_IMPORTS = """
import importlib, json, os, sys, types
root = sys.argv[1]
bare = types.ModuleType("views")
bare.__path__ = [os.path.join(root, "views")]
sys.modules["views"] = bare
import views.framework
from dynamics import ENGINES
for module in sys.argv[2:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        importlib.import_module(module)
        engines = sorted({key.split(".")[1] for key in sys.modules
                          if key.startswith("dynamics.") and key.split(".")[1] in ENGINES})
        os.write(write, json.dumps(engines).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        print(json.dumps([module, json.loads(pipe.read() or "null")]))
    os.waitpid(pid, 0)
"""


def test_every_page_is_warmed_with_the_engines_its_code_imports():
    """The engines a page's module imports (in a fresh process) are all among ``engines_of``:
    the ones a compiling start makes the page wait for, and, for the first page, the group the
    server loads before any other (``app/app_hooks.py``'s ``engine_groups``). A page that
    imports an engine this misses fails here."""
    modules = {cls.__module__: slug for slug, cls in EXPLORERS.items()}
    done = subprocess.run([sys.executable, "-c", _IMPORTS, str(ROOT), *modules], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = dict(json.loads(line) for line in done.stdout.splitlines() if line.startswith("["))
    assert set(imported) == set(modules)
    spec = importlib.util.spec_from_file_location("ldx_hooks_order", ROOT / "app" / "app_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    first, rest = hooks.engine_groups()
    assert sorted(first + rest) == sorted(dynamics.ENGINES)
    first_page = next(iter(EXPLORERS.values()))
    assert imported[first_page.__module__], "the first page imports no engine?"
    assert set(imported[first_page.__module__]) <= set(first), (
        f"the first page imports {imported[first_page.__module__]}, the start loads {first} "
        "first")
    for module, slug in modules.items():
        assert imported[module] is not None, f"{slug}: its module did not import"
        assert set(imported[module]) <= set(readiness.engines_of(EXPLORERS[slug])), (
            f"{slug} imports {imported[module]}, engines_of says "
            f"{readiness.engines_of(EXPLORERS[slug])}")
    # then the menu's order: each page's engines not loaded for an earlier page, in a block
    order, seen = first + rest, set()
    for slug, cls in EXPLORERS.items():
        own = [name for name in readiness.engines_of(cls) if name not in seen]
        assert order[len(seen):len(seen) + len(own)] == own, f"{slug}: {own} in {order}"
        seen.update(own)
