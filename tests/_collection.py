"""A pytest plugin for ``tests/test_tiers.py``: writes, as JSON to the file named by
``LDX_COLLECTION_REPORT``, every collected test with its markers, its fixtures and whether the
run kept it (``pytest -p tests._collection --collect-only``)."""

from __future__ import annotations

import json
import os

_DESELECTED: list = []


def pytest_deselected(items):
    _DESELECTED.extend(items)


def _row(item, kept: bool) -> dict:
    module = getattr(item, "module", None)
    return {"nodeid": item.nodeid, "kept": kept,
            "markers": sorted({mark.name for mark in item.iter_markers()}),
            "fixtures": sorted(getattr(item, "fixturenames", ())),
            "file": getattr(module, "__file__", None)}


def pytest_collection_finish(session):
    path = os.environ.get("LDX_COLLECTION_REPORT")
    if not path:
        return
    rows = [_row(item, True) for item in session.items]
    rows += [_row(item, False) for item in _DESELECTED]
    with open(path, "w", encoding="utf-8") as out:
        json.dump(rows, out)
