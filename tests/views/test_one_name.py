"""One name per system (issue 46): a page's slug names its engine package ``dynamics/<slug>/``,
its page folder ``views/pages/<slug>/``, its tests
``tests/*/test_<slug>*.py`` and its thumbnail ``assets/thumbnails/<slug>.png``; and the folders
hold nothing else (the top of ``dynamics/``: the system packages and a few shared modules)."""

from __future__ import annotations

import pathlib

import pytest

import dynamics
from views import EXPLORERS

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The shared modules at the top of ``dynamics/`` (tools of every system, no system of their
#: own): a new one is a decision of the house, taken here.
SHARED = {"checks", "claims", "exact", "papers", "sweep"}


def _entries(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    """A folder's modules and packages by name (``__init__``, caches and hidden files aside)."""
    return {path.stem if path.is_file() else path.name: path for path in folder.iterdir()
            if not path.name.startswith((".", "__"))}


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_a_slug_names_its_engine_page_tests_and_thumbnail(slug):
    cls = EXPLORERS[slug]
    assert (ROOT / "dynamics" / slug / "__init__.py").is_file(), f"no engine dynamics/{slug}/"
    assert slug in dynamics.ENGINES
    page = ROOT / "views" / "pages"
    assert (page / f"{slug}.py").is_file() or (page / slug / "__init__.py").is_file(), (
        f"no page views/pages/{slug}.py or views/pages/{slug}/")
    assert cls.__module__ == f"views.pages.{slug}", (
        f"{cls.__qualname__} is defined in {cls.__module__}, not in views.pages.{slug}")
    tests = sorted(ROOT.glob(f"tests/*/test_{slug}*.py"))
    assert tests, f"no tests/*/test_{slug}*.py"
    assert (ROOT / "assets" / "thumbnails" / f"{slug}.png").is_file(), (
        f"no thumbnail: python -m views._thumbnails {slug}")


def test_the_folders_hold_the_registered_systems_and_nothing_else():
    slugs = set(EXPLORERS)
    top = _entries(ROOT / "dynamics")
    packages = {name for name, path in top.items() if path.is_dir()}
    modules = {name for name, path in top.items() if path.suffix == ".py"}
    assert packages == set(dynamics.ENGINES) == slugs, (
        f"engine packages without a page: {sorted(packages - slugs)}; "
        f"pages without an engine package: {sorted(slugs - packages)}")
    assert modules <= SHARED, (f"modules at the top of dynamics/ that are no shared module: "
                               f"{sorted(modules - SHARED)} (a system's code goes in its package)")
    assert set(top) == packages | modules, (
        f"neither module nor package: {sorted(set(top) - packages - modules)}")
    pages = [path for path in (ROOT / "views" / "pages").iterdir()
             if not path.name.startswith((".", "__"))]
    # one folder a page: its module (__init__.py), its runs and its prose inside it
    assert {path.name for path in pages} == slugs, (
        f"in views/pages/, no registered page: {sorted({p.name for p in pages} - slugs)}")
    assert all(path.is_dir() and (path / "__init__.py").is_file() for path in pages), (
        sorted(path.name for path in pages if not path.is_dir()))
    assert {p.stem for p in (ROOT / "assets" / "thumbnails").glob("*.png")} == slugs
