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
    # the herding page's run of Tables 1.1-1.2 computes with herding_data
    assert readiness.engines_of(EXPLORERS["herding"]) == ["herding", "herding_data"]
    assert readiness.engines_of(EXPLORERS["torus"]) == ["herding", "torus"]
    assert readiness.engines_of(EXPLORERS["doeblin"]) == ["doeblin"]  # a package of modules
    assert readiness.engines_of(EXPLORERS["pct"]) == ["generalized_herding",
                                                       "conditional_herding",
                                                       "conditional_herding_data"]
    for slug, cls in EXPLORERS.items():
        assert readiness.engines_of(cls), f"{slug}: no engine found"


def test_only_a_compiling_start_holds_pages_back(fresh_state):
    doeblin = EXPLORERS["doeblin"]
    assert readiness.waiting_for(doeblin) == []  # nothing begun: a script or a test
    readiness.begin(False)  # every kernel in the disk cache
    assert readiness.waiting_for(doeblin) == []
    readiness.begin(True)
    readiness.doing("compiling doeblin (2 of 11) in a child process")
    assert readiness.waiting_for(doeblin) == ["doeblin"]
    assert readiness.waiting_for(EXPLORERS["torus"]) == ["herding", "torus"]
    readiness.ready(["herding", "neuron", "torus"])
    assert readiness.waiting_for(EXPLORERS["torus"]) == []
    line = readiness.progress()
    assert line.startswith(f"3 of {len(dynamics.ENGINES)} engines ready, ")
    assert line.endswith("now compiling doeblin (2 of 11) in a child process")
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
    assert "embedding_sgd" not in cold  # no Numba kernel of its own
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
    readiness.begin(True)
    readiness.ready(["herding", "neuron", "torus"])
    readiness.doing("compiling doeblin (2 of 11) in a child process")
    page = main.waiting_page("doeblin")
    note, reload = page.objects[0], page.objects[-1]
    assert "compiling its engines" in note.object and "(doeblin)" in note.object
    from dynamics import ENGINES

    assert f"3 of {len(ENGINES)} engines ready" in note.object
    assert "now compiling doeblin (2 of 11)" in note.object
    (tick, period, ticker), = ticks
    assert period == 1000
    readiness.ready(["bifurcation"])
    readiness.doing("compiling pmd (3 of 11) in a child process")
    tick()  # a second later: the line follows the start
    assert f"4 of {len(ENGINES)} engines ready" in note.object and "pmd (3 of 11)" in note.object
    assert reload.value == 0 and not ticker.stopped
    readiness.ready(["doeblin"])
    tick()  # ready: the browser reloads the same address (reload's jscallback)
    assert reload.value == 1 and ticker.stopped
