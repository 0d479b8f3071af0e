"""``docs/claims.md``: every paper claim's thresholds, one table (``python -m views.claims_table``
writes it; ``tests/views/test_thresholds.py`` fails while it is stale).

The thresholds are the ``dynamics.claims.Threshold`` constants of the claim modules, registered
when ``dynamics`` is imported: the table is made from them, so it states the values the rules
use, fixed before any result. Claims whose rules do not yet name their thresholds this way are
listed after it.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import pkgutil

import dynamics
from dynamics.claims import STATED, THRESHOLDS

__all__ = ["markdown", "claim_functions", "main"]

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "claims.md"


def _import_all() -> None:
    """Import every module of ``dynamics`` (each registers its thresholds)."""
    for info in pkgutil.walk_packages(dynamics.__path__, "dynamics."):
        importlib.import_module(info.name)


def claim_functions() -> list[str]:
    """Every function of ``dynamics`` whose name ends in ``_claim`` (module.name), read from
    the source."""
    names = []
    for path in sorted((ROOT / "dynamics").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_claim"):
                names.append(f"{module}.{node.name}")
    return names


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown() -> str:
    """The table: claim, the paper's statement, the rule, the threshold (name = value) and why
    that value; then the claims without named thresholds."""
    _import_all()
    lines = ["# Claims: the rules' thresholds, fixed before any result", "",
             "Every paper claim the project judges returns one of three outcomes: **reproduced**, "
             "**differs** or **not decided** (the difference is inside the measurement's own "
             "noise, or the run cannot judge it), with the effect tested, the rule, the "
             "thresholds below and the rule's power (the smallest difference it detects at the "
             "run's size), printed beside the verdict on the page and in the gallery's "
             "REPORT.md (`dynamics/claims.py`).",
             "",
             "Each threshold is a module-level constant (a `dynamics.claims.Threshold`) of the "
             "claim's module, made at import: no rule computes one from the results it judges "
             "(`tests/views/test_thresholds.py` checks every verdict's thresholds against these "
             "constants, and this table against them). Written by `python -m "
             "views.claims_table`.", "",
             "| claim | statement | rule | threshold | why this value |",
             "| --- | --- | --- | --- | --- |"]
    for t in sorted(THRESHOLDS, key=lambda t: (t.claim, t.name)):
        lines.append(f"| `{t.claim}` | {_cell(t.statement)} | {_cell(t.rule)} | "
                     f"`{t.name}` = {float(t):g} | {_cell(t.why)} |")
    missing = [c for c in claim_functions() if c not in STATED]
    lines += ["", "The claims that state their rule, thresholds and power this way: "
              + ", ".join(f"`{c}`" for c in sorted(STATED)) + "."]
    if missing:
        lines += ["", "## Claims whose thresholds are not yet named here", "",
                  "Their rules still hold their thresholds as plain module constants or "
                  "literals and their verdicts do not yet state a rule and power; each is to "
                  "be brought into the table above:", ""]
        lines += [f"- `{c}`" for c in missing]
    else:
        lines += ["", "Every claim function of the engines is among them."]
    return "\n".join(lines) + "\n"


def main() -> int:
    DOC.write_text(markdown())
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
