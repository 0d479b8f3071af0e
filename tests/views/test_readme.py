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


#: What CI runs (.ci/run), in order: the install, the fast tier, then the browser and gallery
#: tiers. The README names each command.
CI_COMMANDS = ('pip install -e ".[test,mujoco]"',
               "pytest -n 2 --dist loadfile --durations=20",
               "pytest -n 2 --dist loadfile --durations=20 --browser --gallery")


def test_ci_runs_the_readme_test_commands_fast_tier_first():
    readme_text = (ROOT / "README.md").read_text()
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    assert [line for line in script if line.startswith(("pip ", "pytest"))] == list(CI_COMMANDS)
    for command in CI_COMMANDS:
        assert command in readme_text, command


def test_every_explorer_has_a_thumbnail():
    for slug in EXPLORERS:
        assert (ROOT / "assets" / "thumbnails" / f"{slug}.png").exists(), slug


def test_the_readme_is_a_guide_without_history():
    """A newcomer's guide: at most 200 lines, no dates, loads, commit hashes, issue numbers or
    "this VM" (measurements live in docs/speed.md), the first start's cost said before the
    command that pays it, and a run command that does not reinstall."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"(?s)<!-- begin generated.*?<!-- end generated[^>]*>", "", text)
    assert len(text.splitlines()) <= 200
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", prose)
    assert not re.findall(r"\bissues? \d+", prose, re.I)
    assert not re.findall(r"\bload(?: average)?s? (?:of )?\d", prose, re.I)
    assert not re.findall(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b", prose)
    assert not re.findall(r"this (?:2-core )?VM|this 2-core", prose, re.I)
    serve = text.index("panel serve app --address 127.0.0.1")
    assert text.index("**The first start takes minutes.**") < serve
    assert "pip install" not in text[text.rindex("\n", 0, serve):text.index("\n", serve)]
