"""The floors: dynamics/ never imports GUI libraries; views/ never imports app/."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUI = {"param", "panel", "holoviews", "bokeh", "datashader", "matplotlib"}


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_dynamics_imports_no_gui_library():
    for path in sorted((ROOT / "dynamics").rglob("*.py")):
        bad = _imports(path) & GUI
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_views_do_not_import_app():
    for path in sorted((ROOT / "views").rglob("*.py")):  # the framework package too
        assert "app" not in _imports(path), f"{path.name} imports app"


def test_every_engine_module_is_warmed_up():
    import dynamics

    modules = {p.stem for p in (ROOT / "dynamics").glob("*.py") if not p.stem.startswith("_")}
    modules |= {p.parent.name for p in (ROOT / "dynamics").glob("*/__init__.py")}  # packages
    assert modules - set(dynamics.HELPERS) == set(dynamics.ENGINES)


def test_warmup_of_chosen_engines():
    import dynamics

    assert set(dynamics.warmup(engines=["neuron", "torus"])) == {"neuron", "torus"}
    with pytest.raises(ValueError, match="engines must be names"):
        dynamics.warmup(engines=["herding", "hopfield"])
