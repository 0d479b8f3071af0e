"""The paper gallery's files (``python -m views.figures``), each written whole or not at all.

Per entry: ``<id>.png``, ``<id>.pdf`` and the numbers in ``<id>/`` (``write_entry``), then its
cache record ``.cache/<id>-<key>.pickle`` (``store``), last: an entry counts as finished only
once its record is there, so a run killed in the middle and started again rebuilds exactly the
entries that had no record and reuses the others. For the whole run: ``REPORT.md`` and
``index.html`` (``write_report``). Every file goes through ``views.framework.files.atomic_path``; what a
killed run left half-written is a hidden temporary, which ``remove_partials`` deletes.
"""

from __future__ import annotations

import html
import pathlib
import pickle

from views.framework.files import PARTIAL_GLOB, atomic_path

__all__ = ["remove_partials", "store", "write_entry", "write_report"]


def _put(path: pathlib.Path, data: str | bytes) -> None:
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
    """One entry's figure (PNG, PDF) and numbers (CSV, netCDF, DIFFERENCES.md in ``<id>/``);
    files of an earlier build that this one no longer has are removed after the new ones are in
    place."""
    entry_id = result["id"]
    _put(out / f"{entry_id}.png", result["png"])
    _put(out / f"{entry_id}.pdf", result["pdf"])
    folder = out / entry_id
    for name, data in result["tables"].items():
        _put(folder / name, data)
    for old in [*folder.glob("[!.]*.csv"), *folder.glob("[!.]*.nc"), *folder.glob("[!.]*.md")]:
        if old.name not in result["tables"]:
            old.unlink()


def store(cache: pathlib.Path, entry_id: str, key: str, result: dict) -> None:
    """The entry's cache record, written after its files: from now on it counts as finished."""
    record = cache / f"{entry_id}-{key}.pickle"
    _put(record, pickle.dumps(result))
    for stale in cache.glob(f"{entry_id}-*.pickle"):
        if stale != record:
            stale.unlink()


def write_report(out: pathlib.Path, results: list[dict], entries: dict, *, quick: bool) -> None:
    """``REPORT.md`` (the paper's statement beside ours, with verdicts) and ``index.html`` (the
    gallery) for ``results``; ``entries`` maps an id to its ``views.figures.Entry``."""
    size = ("**Quick sizes** (tests and CI): smaller than the paper's, so a verdict here is "
            "about this size." if quick else "The paper's sizes where the entry gives them.")
    lines = ["# Paper figures: the paper's statement beside ours", "", size, "",
             "| figure | the paper | ours | verdict |", "| --- | --- | --- | --- |"]
    for r in results:
        e = entries[r["id"]]
        lines.append(f"| [{e.title}]({r['id']}.png) | {e.paper} | {r['ours']} | "
                     f"**{r['verdict']}** |")
    for r in results:
        if r.get("details"):
            lines += ["", f"## {entries[r['id']].title}: where we differ from the paper", "",
                      r["details"]]
    lines += ["", "Times (seconds, on the worker that built each entry): "
              + ", ".join(f"{r['id']} {r['seconds']:.1f}" for r in results) + "."]
    _put(out / "REPORT.md", "\n".join(lines) + "\n")
    cards = []
    for r in results:
        e = entries[r["id"]]
        csvs = " ".join(f'<a href="{r["id"]}/{name}">{name}</a>'
                        for name in sorted(r["tables"]))
        cards.append(
            f'<section id="{r["id"]}"><h2>{html.escape(e.title)}</h2>'
            f'<a href="{r["id"]}.pdf"><img src="{r["id"]}.png" alt="{html.escape(e.title)}"></a>'
            f'<p><b>The paper:</b> {html.escape(e.paper)}</p>'
            f'<p><b>Ours:</b> {html.escape(r["ours"])}</p>'
            f'<p><b>Verdict:</b> {html.escape(r["verdict"])}</p>'
            + (f'<p><b>Where we differ from the paper, and what was tried:</b> '
               f'<a href="{r["id"]}/DIFFERENCES.md">{r["id"]}/DIFFERENCES.md</a> (also in '
               'REPORT.md)</p>' if r.get("details") else "")
            + f'<p class="files">PDF: <a href="{r["id"]}.pdf">{r["id"]}.pdf</a>; numbers: {csvs}'
            f'</p></section>')
    _put(out / "index.html",
         "<!doctype html><html><head><meta charset='utf-8'><title>Learning Dynamics Explorer: "
         "paper figures</title><style>body{font-family:sans-serif;max-width:1100px;margin:auto;"
         "padding:1em}section{border-top:1px solid #ccc;padding:1em 0}img{max-width:100%}"
         ".files{font-size:small}</style></head><body><h1>Paper figures</h1>"
         f"<p>{html.escape(size.replace('**', ''))} See REPORT.md for the table.</p>"
         + "".join(cards) + "</body></html>\n")
