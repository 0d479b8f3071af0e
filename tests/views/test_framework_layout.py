"""The house's shape, checked from the source: the framework package (``views/framework/``) has
no file over 600 lines and no other module over 800, and no module imports, at module level, a
module that imports it back (directly or through others), and every module compiles without
a warning."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("app", "views", "dynamics")
#: Files over the limit today, each with the issue that splits it; the test fails once one of
#: them is short enough, so that the list stays true.
KNOWN_LONG: dict[str, str] = {}


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: pathlib.Path, modules: dict) -> set[str]:
    """The project modules that ``name`` imports at module level (not inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules and t != name)
    return out


def test_no_file_is_too_long():
    long, fixed = [], []
    for name, path in _modules().items():
        limit = 600 if name.startswith("views.framework") else 800
        lines = len(path.read_text(encoding="utf-8").splitlines())
        where = path.relative_to(ROOT).as_posix()
        if lines > limit and where not in KNOWN_LONG:
            long.append(f"{where}: {lines} lines (at most {limit})")
        if lines <= limit and where in KNOWN_LONG:
            fixed.append(where)
    assert long == []
    assert fixed == [], f"no longer over the limit, take them off KNOWN_LONG: {fixed}"


def test_the_framework_has_no_import_circle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    # a module's package is imported before it; an edge to one's own package is not a circle
    graph = {name: {t for t in targets if not name.startswith(t + ".")}
             for name, targets in graph.items()}
    circles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for name in sorted(graph):
        if name.startswith("views.framework") and name not in state:
            visit(name, [name])
    assert circles == [], "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_every_module_compiles_without_a_warning():
    """An invalid escape such as ``"\\D"`` in a string of browser code compiles with a warning
    (a SyntaxWarning from Python 3.12) and means a backslash the reader did not write."""
    import warnings
    warned = []
    for path in _modules().values():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        warned += [f"{path.relative_to(ROOT).as_posix()}: {w.message}" for w in caught]
    assert warned == []
