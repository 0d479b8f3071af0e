"""Page prose is read from Markdown files (``views.framework.text.prose``)."""

from __future__ import annotations

import pytest

from views.framework.text import prose


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
