"""The test tiers (tests/conftest.py): a plain ``pytest`` runs the fast tier, and holds no
browser, gallery or bench test; ``--browser``, ``--gallery`` and ``--bench`` run theirs.

The default run's collection is read from a real ``pytest --collect-only`` of the whole suite,
and judged by what each test is, independently of the markers the tiers set: its folder, the
fixtures it uses (Playwright's ``browser`` and ``page``), whether its module imports Playwright
or builds every entry of the gallery (``python -m views.figures --quick``)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

from tests import conftest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: A module that imports Playwright, or one that runs the command building the whole gallery.
PLAYWRIGHT = re.compile(r"^\s*(?:from|import)\s+playwright\b", re.M)
WHOLE_GALLERY = re.compile(r'"views\.figures",\s*"--quick",\s*"--out"')


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    """Every test of the suite, as a plain ``pytest`` collects it: kept or deselected."""
    report = tmp_path_factory.mktemp("collection") / "tests.json"
    env = {**os.environ, "LDX_COLLECTION_REPORT": str(report)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests._collection",
                           "-p", "no:cacheprovider", "--collect-only", "-q", "tests"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(report.read_text(encoding="utf-8"))


def _sources(rows) -> dict[str, str]:
    return {row["file"]: pathlib.Path(row["file"]).read_text(encoding="utf-8")
            for row in rows if row["file"]}


def test_the_default_run_holds_no_browser_gallery_or_bench_test(default_run):
    kept = [row for row in default_run if row["kept"]]
    left = [row for row in default_run if not row["kept"]]
    assert len(kept) > 1000 and left, (len(kept), len(left))
    sources = _sources(default_run)
    for row in kept:
        where = row["nodeid"]
        assert not where.startswith(("tests/app/", "tests/bench/")), where
        assert not {"browser", "page"} & set(row["fixtures"]), where  # Playwright's
        assert not {"browser", "gallery", "bench"} & set(row["markers"]), where
        source = sources.get(row["file"], "")
        assert not PLAYWRIGHT.search(source), f"{where}: its module uses Playwright"
        assert not WHOLE_GALLERY.search(source), f"{where}: its module builds the gallery"
    # and what it leaves out is the tiers' tests, each one marked
    for row in left:
        assert {"browser", "gallery", "bench"} & set(row["markers"]), row["nodeid"]
    assert any(row["nodeid"].startswith("tests/app/") for row in left)
    assert all(not row["kept"] for row in default_run
               if row["nodeid"].startswith("tests/app/") or "bench" in row["markers"])


def _config(markexpr="", **options):
    values = {"markexpr": markexpr, "all_tiers": False, "fast": False,
              **{tier: False for tier in conftest.TIERS}, **options}
    return types.SimpleNamespace(getoption=lambda name, default=None: values.get(name, default))


def test_the_options_choose_the_tiers():
    assert conftest.asked_tiers(_config()) == {"fast"}
    assert conftest.asked_tiers(_config(browser=True)) == {"browser"}
    assert conftest.asked_tiers(_config(browser=True, gallery=True)) == {"browser", "gallery"}
    assert conftest.asked_tiers(_config(bench=True, fast=True)) == {"bench", "fast"}
    assert conftest.asked_tiers(_config(all_tiers=True)) == {"fast", *conftest.TIERS}
    # a -m expression that names a tier selects by itself (pytest -m bench tests/bench)
    assert conftest.asked_tiers(_config(markexpr="bench")) is None
    assert conftest.asked_tiers(_config(markexpr="not browser")) is None
    assert conftest.asked_tiers(_config(markexpr="slow")) == {"fast"}


class _Item:
    def __init__(self, nodeid, markers=()):
        self.nodeid, self.fixturenames, self._markers = nodeid, (), list(markers)

    def add_marker(self, name):
        self._markers.append(name)

    def iter_markers(self):
        return (types.SimpleNamespace(name=name) for name in self._markers)


def _select(nodeids, **options):
    items = [_Item(nodeid) for nodeid in nodeids]
    left = []
    hook = types.SimpleNamespace(pytest_deselected=lambda items: left.extend(items))
    config = _config(**options)
    config.hook = hook
    conftest.pytest_collection_modifyitems(config, items)
    return [item.nodeid for item in items]


def test_naming_only_a_tiers_files_runs_them_and_a_mixed_run_keeps_the_fast_tier():
    app, bench = "tests/app/test_opening.py::test_x", "tests/bench/test_bench_x.py::test_y"
    fast = "tests/views/test_cache.py::test_z"
    assert _select([app]) == [app]                       # pytest tests/app/test_opening.py
    assert _select([app, bench]) == [app, bench]
    assert _select([app, bench, fast]) == [fast]          # a plain pytest
    assert _select([app, fast], browser=True) == [app]
    assert _select([app], fast=True) == []               # --fast asks for the fast tier only
