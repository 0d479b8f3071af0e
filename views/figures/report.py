"""The paper gallery's report: ``REPORT.md`` (the paper's statement beside ours, with the
verdict of the entry's claim) and ``index.html`` (the gallery), written whole or not at all."""

from __future__ import annotations

import html
import pathlib

from views.figures.files import put

__all__ = ["write_report"]


def write_report(out: pathlib.Path, results: list[dict], entries: dict, *, quick: bool) -> None:
    """``REPORT.md`` (the paper's statement beside ours, with verdicts) and ``index.html`` (the
    gallery) for ``results`` (``views.figures.builder.build``'s); ``entries`` maps an id to its
    ``views.figures.entry.Entry``."""
    size = ("**Quick sizes** (tests and CI): smaller than the paper's, so a verdict here is "
            "about this size." if quick else "The paper's sizes where the entry gives them.")
    lines = ["# Paper figures: the paper's statement beside ours", "", size, "",
             "| figure | the paper | ours | verdict |", "| --- | --- | --- | --- |"]
    for r in results:
        e = entries[r["id"]]
        power = r.get("power", "").replace("|", "\\|")  # the rule and its power, beside it
        lines.append(f"| [{e.title}]({r['id']}.png) | {r['statement']} | {r['ours']} | "
                     f"**{r['verdict']}**" + (f" ({power})" if power else "") + " |")
    for r in results:
        if r.get("details"):
            lines += ["", f"## {entries[r['id']].title}: where we differ from the paper", "",
                      r["details"]]
    lines += ["", "Times (seconds, on the worker that built each entry): "
              + ", ".join(f"{r['id']} {r['seconds']:.1f}" for r in results) + "."]
    put(out / "REPORT.md", "\n".join(lines) + "\n")
    cards = []
    for r in results:
        e = entries[r["id"]]
        key = html.escape(r["id"])  # ids and file names are ours, escaped all the same
        csvs = " ".join(f'<a href="{key}/{html.escape(name)}">{html.escape(name)}</a>'
                        for name in sorted(r["tables"]))
        cards.append(
            f'<section id="{key}"><h2>{html.escape(e.title)}</h2>'
            f'<a href="{key}.pdf"><img src="{key}.png" alt="{html.escape(e.title)}"></a>'
            f'<p><b>The paper:</b> {html.escape(r["statement"])}</p>'
            f'<p><b>Ours:</b> {html.escape(r["ours"])}</p>'
            f'<p><b>Verdict:</b> {html.escape(r["verdict"])}</p>'
            + (f'<p><b>Rule and power:</b> {html.escape(r["power"])}</p>' if r.get("power")
               else "")
            + (f'<p><b>Where we differ from the paper, and what was tried:</b> '
               f'<a href="{key}/DIFFERENCES.md">{key}/DIFFERENCES.md</a> (also in '
               'REPORT.md)</p>' if r.get("details") else "")
            + f'<p class="files">PDF: <a href="{key}.pdf">{key}.pdf</a>; numbers: {csvs}'
            f'</p></section>')
    put(out / "index.html",
        "<!doctype html><html><head><meta charset='utf-8'><title>Learning Dynamics Explorer: "
        "paper figures</title><style>body{font-family:sans-serif;max-width:1100px;margin:auto;"
        "padding:1em}section{border-top:1px solid #ccc;padding:1em 0}img{max-width:100%}"
        ".files{font-size:small}table.contents{border-collapse:collapse;font-size:small}"
        ".contents td,.contents th{border-bottom:1px solid #ddd;padding:3px 8px;"
        "text-align:left;vertical-align:top}</style></head><body><h1>Paper figures</h1>"
        f"<p>{html.escape(size.replace('**', ''))} The same as a table, with what differs from "
        "the papers: <a href=\"REPORT.md\">REPORT.md</a>.</p>"
        + contents(results, entries) + "".join(cards) + "</body></html>\n")


def contents(results: list[dict], entries: dict) -> str:
    """The gallery's table of contents: each entry (a link to its section), its paper and its
    verdict."""
    from views import EXPLORERS

    rows = "".join(
        f'<tr><td><a href="#{html.escape(r["id"])}">'
        f'{html.escape(entries[r["id"]].title)}</a></td>'
        f'<td>{html.escape(EXPLORERS[entries[r["id"]].slug].paper.citation)}</td>'
        f'<td>{html.escape(r["verdict"])}</td></tr>' for r in results)
    return ('<h2 id="contents">Contents</h2><table class="contents"><tr><th>figure</th>'
            f"<th>paper</th><th>verdict</th></tr>{rows}</table>")
