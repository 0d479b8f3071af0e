"""The README stays true: its generated parts (the explorer table and the source papers,
``python -m views.readme``) are fresh, what they are written from is complete, and CI runs its
test command. No test reads the README's hand-written prose for the pages' names."""

import pathlib

import pytest

from dynamics.papers import PAPERS
from views import EXPLORERS, readme

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_generated_parts_are_fresh():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.render(text) == text, "README.md is stale: run python -m views.readme"


def test_the_command_checks_and_rewrites_only_the_generated_parts(tmp_path, monkeypatch, capsys):
    fresh = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = readme._markers("explorers")
    stale = fresh.replace(fresh[fresh.index(begin):fresh.index(end)], f"{begin}\n| old |\n")
    assert stale != fresh
    copy = tmp_path / "README.md"
    copy.write_text(stale, encoding="utf-8")
    monkeypatch.setattr(readme, "README", copy)
    assert readme.main(["--check"]) == 1 and copy.read_text(encoding="utf-8") == stale
    assert "stale" in capsys.readouterr().out
    assert readme.main([]) == 0 and copy.read_text(encoding="utf-8") == fresh
    assert readme.main(["--check"]) == 0


@pytest.mark.parametrize("name", sorted(readme.PARTS))
def test_missing_or_repeated_markers_are_refused(name):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = readme._markers(name)
    for broken in (text.replace(begin, ""), text.replace(end, ""), text + begin):
        with pytest.raises(ValueError, match=name):
            readme.render(broken)


def test_the_table_has_one_row_per_page_in_the_apps_order_with_its_gallery_entries():
    from views.figures import ENTRIES

    rows = readme.explorer_table().splitlines()[2:]
    assert len(rows) == len(EXPLORERS)
    for row, (slug, cls) in zip(rows, EXPLORERS.items()):
        assert row.startswith(f"| {readme._text(cls.title)} | ") and row.endswith(" |")
        assert readme._text(cls.paper.short) in row
        for entry in (e for e in ENTRIES.values() if e.slug == slug):
            assert f"(figures/index.html#{entry.id})" in row


def test_table_cells_keep_their_text_literal():
    assert readme._text("E[y | x], V*_λ and `code`") == r"E\[y \| x\], V\*\_λ and \`code\`"
    assert readme._text("two\n  lines") == "two lines"


def test_every_page_has_gallery_entries_and_every_paper_a_page_and_a_gallery_module():
    from views.figures import ENTRIES

    for slug, cls in EXPLORERS.items():
        assert cls.paper in PAPERS, slug
        assert any(e.slug == slug for e in ENTRIES.values()), f"{slug} has no gallery entry"
    for paper in PAPERS:
        assert any(cls.paper == paper for cls in EXPLORERS.values()), paper.key
        assert (ROOT / "views" / "figures" / f"{paper.key}.py").exists(), paper.key
    listed = readme.paper_list()
    assert [line for line in listed.splitlines() if line.startswith("- ")] == [
        line for p in PAPERS for line in listed.splitlines() if line.startswith(f"- {p.reference}")]


def test_ci_runs_the_readme_test_command():
    readme_text = (ROOT / "README.md").read_text()
    command = 'pip install -e ".[test]" && pytest -n 2 --dist loadfile --durations=30'
    assert command in readme_text
    assert command in (ROOT / ".ci" / "run").read_text()


def test_every_explorer_has_a_thumbnail():
    for slug in EXPLORERS:
        assert (ROOT / "assets" / "thumbnails" / f"{slug}.png").exists(), slug
