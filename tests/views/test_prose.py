"""Page prose lives in Markdown files beside the page (``views.framework.text.prose``): every
page's text, run texts, timeline captions and section asides are read from such a file, none
is empty, and no file under ``views/pages`` is left unread."""

from __future__ import annotations

from pathlib import Path

import pytest

import views.pages
from views import EXPLORERS
from views.framework.text import prose, prose_files

PAGES = Path(views.pages.__file__).resolve().parent


def _pieces(cls) -> dict[str, str]:
    """Every piece of prose a page shows, by where it is shown."""
    pieces = {"text": cls.text}
    if getattr(cls, "timeline", None) is not None:
        pieces["timeline"] = cls.timeline.caption
    for i, section in enumerate(getattr(cls, "sections", ()) or ()):
        if section.aside:
            pieces[f"section {i} aside"] = section.aside
    for run in cls.runs:
        pieces[f"run {run.key}"] = run.text
        if run.timeline is not None:
            pieces[f"run {run.key} timeline"] = run.timeline.caption
    return pieces


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_every_piece_of_prose_is_non_empty_and_read_from_a_markdown_file(slug):
    read = {path.read_text(encoding="utf-8").strip() for path in prose_files()}
    pieces = _pieces(EXPLORERS[slug])
    assert [where for where, text in pieces.items() if not text.strip()] == []
    assert [where for where, text in pieces.items() if text not in read] == []


def test_no_markdown_file_beside_the_pages_is_unread():
    files = set(PAGES.rglob("*.md"))
    assert files, "no page prose found"
    assert sorted(str(p.relative_to(PAGES)) for p in files - set(prose_files())) == []


def test_prose_is_the_file_without_its_surrounding_blank_space(tmp_path):
    (tmp_path / "page.md").write_text("\n### A page\n\nIts $\\alpha$, *as written*.  \n\n",
                                      encoding="utf-8")
    assert prose(tmp_path / "module.py", "page.md") == "### A page\n\nIts $\\alpha$, *as written*."


def test_a_missing_or_empty_file_or_a_bad_name_raises_naming_it(tmp_path):
    module = tmp_path / "module.py"
    with pytest.raises(FileNotFoundError, match=r"absent\.md"):
        prose(module, "absent.md")
    (tmp_path / "blank.md").write_text(" \n\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"blank\.md.*empty"):
        prose(module, "blank.md")
    for name in ("page.txt", "sub/page.md", "../page.md", ".md"):
        with pytest.raises(ValueError, match="name"):
            prose(module, name)
    with pytest.raises(TypeError, match="name"):
        prose(module, None)
