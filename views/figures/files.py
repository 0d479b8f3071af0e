"""The paper gallery's files (``python -m views.figures``), each written whole or not at all.

Per entry: ``<id>.png``, ``<id>.pdf`` and the numbers in ``<id>/`` (``write_entry``), then its
cache record ``.cache/<id>-<key>.pickle`` (``store``), last: an entry counts as finished only
once its record is there, so a run killed in the middle and started again rebuilds exactly the
entries that had no record and reuses the others. For the whole run: ``REPORT.md`` and
``index.html`` (``views.figures.report``). Every file goes through
``views.framework.files.atomic_path``; what a killed run left half-written is a hidden
temporary, which ``remove_partials`` deletes.
"""

from __future__ import annotations

import pathlib
import pickle

from views.framework.files import PARTIAL_GLOB, atomic_path

__all__ = ["put", "remove_partials", "store", "write_entry"]


def put(path: pathlib.Path, data: str | bytes) -> None:
    """``data`` at ``path``, atomically; a file that already holds it is left as it is."""
    data = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return
    with atomic_path(path) as partial:
        partial.write_bytes(data)


def remove_partials(out: pathlib.Path) -> list[pathlib.Path]:
    """Delete the temporaries a killed run left in ``out``, its entry folders and its cache."""
    found = [p for folder in (out, *[d for d in out.iterdir() if d.is_dir()])
             for p in folder.glob(PARTIAL_GLOB) if p.is_file()]
    for path in found:
        path.unlink(missing_ok=True)
    return found


def write_entry(out: pathlib.Path, result: dict) -> None:
    """One entry's figure (PNG, PDF) and numbers (CSV, netCDF, the verdict's JSON and
    DIFFERENCES.md in ``<id>/``); files of an earlier build that this one no longer has are
    removed after the new ones are in place."""
    entry_id = result["id"]
    put(out / f"{entry_id}.png", result["png"])
    put(out / f"{entry_id}.pdf", result["pdf"])
    folder = out / entry_id
    for name, data in result["tables"].items():
        put(folder / name, data)
    for old in [*folder.glob("[!.]*.csv"), *folder.glob("[!.]*.nc"), *folder.glob("[!.]*.md"),
                *folder.glob("[!.]*.json")]:
        if old.name not in result["tables"]:
            old.unlink()


def store(cache: pathlib.Path, entry_id: str, key: str, result: dict) -> None:
    """The entry's cache record, written after its files: from now on it counts as finished."""
    record = cache / f"{entry_id}-{key}.pickle"
    put(record, pickle.dumps(result))
    for stale in cache.glob(f"{entry_id}-*.pickle"):
        if stale != record:
            stale.unlink()
