"""The paper gallery's files (``python -m views.figures``), each written whole or not at all.

Per entry: ``<id>.png``, ``<id>.pdf`` and the numbers in ``<id>/`` (``write_entry``), then its
cache record ``.cache/<id>-<key>.json`` (``store``), last: an entry counts as finished only
once its record is there, so a run killed in the middle and started again rebuilds exactly the
entries that had no record and reuses the others.

A record is data, never code: JSON (``RECORD_FORMAT``) of the build's words and numbers, its
files' bytes in base64 (the figure's PNG and PDF, its tables, netCDF grids included: the arrays
of a result are already files there). ``load`` checks every field's type, the entry and the key
before it reuses a record; anything else in the cache (garbage, a record of another key or
schema, a pickle of an older version or planted there) is ignored and the entry rebuilt, and
nothing in the folder is ever unpickled or run. For the whole run: ``REPORT.md`` and
``index.html`` (``views.figures.report``). Every file goes through
``views.framework.files.atomic_path``; what a killed run left half-written is a hidden
temporary, which ``remove_partials`` deletes.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import pathlib
import re
import stat

from views.framework.files import PARTIAL_GLOB, atomic_path

__all__ = ["RECORD_FORMAT", "load", "put", "record_path", "remove_partials", "store",
           "write_entry"]

#: What a cache record says it is; a record of another format (an older schema) is rebuilt.
RECORD_FORMAT = "ldx-figures-record/2"
#: The largest cache record ``load`` reads (bytes); a larger file is not a record.
MAX_RECORD_BYTES = 256 * 2**20
#: A build's fields and their types in a record (``views.figures.builder.build``'s result);
#: ``png``, ``pdf`` and the tables that are bytes are base64 text.
_WORDS = ("id", "claim", "statement", "ours", "verdict", "power", "details")
#: A table's file name in the entry's folder (``write_entry``): no separator, not hidden.
_TABLE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


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
    removed after the new ones are in place. ``ValueError`` if ``<id>`` is there and is not a
    folder (a symbolic link included)."""
    entry_id = result["id"]
    folder = out / entry_id
    if folder.is_symlink() or folder.exists() and not folder.is_dir():
        # through a link, its files (and the removal of stale ones) would land elsewhere
        raise ValueError(f"--out {str(out)!r}: {str(folder)!r} is there and is not a folder")
    put(out / f"{entry_id}.png", result["png"])
    put(out / f"{entry_id}.pdf", result["pdf"])
    for name, data in result["tables"].items():
        put(folder / name, data)
    for old in [*folder.glob("[!.]*.csv"), *folder.glob("[!.]*.nc"), *folder.glob("[!.]*.md"),
                *folder.glob("[!.]*.json")]:
        if old.name not in result["tables"] and not old.is_dir():
            old.unlink()


def record_path(cache: pathlib.Path, entry_id: str, key: str) -> pathlib.Path:
    """Where the record of ``entry_id`` built under ``key`` is kept."""
    return cache / f"{entry_id}-{key}.json"


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def store(cache: pathlib.Path, entry_id: str, key: str, result: dict) -> None:
    """The entry's cache record, written after its files: from now on it counts as finished.
    Records of the entry under other keys (and an older version's pickles, which are never
    read) are removed."""
    record = record_path(cache, entry_id, key)
    tables = {name: {"text": data} if isinstance(data, str) else {"base64": _encode(data)}
              for name, data in result["tables"].items()}
    data = {"format": RECORD_FORMAT, "key": key,
            **{name: result[name] for name in _WORDS}, "settings": result["settings"],
            "seconds": float(result["seconds"]), "png": _encode(result["png"]),
            "pdf": _encode(result["pdf"]), "tables": tables}
    put(record, json.dumps(data, ensure_ascii=False, allow_nan=False, indent=0) + "\n")
    own = re.compile(rf"{re.escape(entry_id)}-[0-9a-f]+\.(json|pickle)")
    for stale in cache.iterdir():
        if stale != record and own.fullmatch(stale.name) and not stale.is_dir():
            stale.unlink()


def load(cache: pathlib.Path, entry_id: str, key: str) -> dict | None:
    """The build ``store`` kept for ``entry_id`` under ``key``, or None when there is no such
    record or the file there is not one (not a regular file, too large, not JSON, another
    format, entry or key, a field missing or of another type): the caller rebuilds the entry.
    The file is only ever parsed as JSON."""
    path = record_path(cache, entry_id, key)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) or path.stat().st_size > MAX_RECORD_BYTES:
            return None
        data = json.loads(path.read_bytes())
        return _result(data, entry_id, key)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, binascii.Error):
        return None  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors


def _decode(text) -> bytes:
    if not isinstance(text, str):
        raise TypeError("not base64 text")
    return base64.b64decode(text.encode("ascii"), validate=True)


def _result(data, entry_id: str, key: str) -> dict | None:
    """The build a record's JSON holds, every field checked (``TypeError``/``KeyError`` or
    None for anything else)."""
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT \
            or data.get("key") != key or data.get("id") != entry_id:
        return None
    result = {name: data[name] for name in _WORDS}
    if not all(isinstance(value, str) for value in result.values()):
        return None
    settings, seconds, tables = data["settings"], data["seconds"], data["tables"]
    if not isinstance(settings, dict) or not isinstance(seconds, (int, float)) \
            or isinstance(seconds, bool) or not isinstance(tables, dict):
        return None
    files = {}
    for name, table in tables.items():
        if not isinstance(table, dict) or len(table) != 1 or not _TABLE_NAME.fullmatch(name):
            return None  # a name such as "../x" would write outside the entry's folder
        if "text" in table and isinstance(table["text"], str):
            files[name] = table["text"]
        else:
            files[name] = _decode(table["base64"])
    return dict(result, settings=settings, seconds=float(seconds), png=_decode(data["png"]),
                pdf=_decode(data["pdf"]), tables=files)
