"""The README stays true: its explorer table lists every page, and CI runs its test command."""

import pathlib
import re

from views import EXPLORERS

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_table_lists_every_explorer():
    readme = (ROOT / "README.md").read_text()
    for cls in EXPLORERS.values():
        assert f"\n| {cls.title} |" in readme, cls.title


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = 'pip install -e ".[test]" && pytest -n 2 --dist loadfile --durations=30'
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text()


def test_every_explorer_has_a_thumbnail():
    for slug in EXPLORERS:
        assert (ROOT / "assets" / "thumbnails" / f"{slug}.png").exists(), slug


def test_readme_table_links_every_explorer_to_its_gallery_entries():
    from views.figures import ENTRIES

    readme = (ROOT / "README.md").read_text()
    rows = {line.split(" | ")[0][2:]: line for line in readme.splitlines()
            if line.startswith("| ")}
    for slug, cls in EXPLORERS.items():
        ids = [e.id for e in ENTRIES.values() if e.slug == slug]
        assert ids, f"{slug} has no entry in views.figures"
        for entry_id in ids:
            assert f"(figures/index.html#{entry_id})" in rows[cls.title], (slug, entry_id)


def test_the_source_papers_list_names_every_page_under_its_paper():
    """The README's list of source papers names every page in its paper's item, and nothing is
    left "to come" (issue 30: the list still announced papers whose pages existed)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("The source papers"):]
    section = re.split(r"\n#{2,3} ", section)[0]  # up to the next heading
    assert "to come" not in section.lower()
    items = [" ".join(item.split()) for item in section.split("\n- ")[1:]]
    for cls in EXPLORERS.values():
        author = cls.paper.surnames[0]
        item = [i for i in items if author in i.split(",")[0]]
        assert len(item) == 1, (cls.title, author)
        name = cls.title.split(":")[0]  # "Bias and variance: HBM against RBM" -> Bias and variance
        assert name in item[0].split("*", 2)[2], (cls.title, item[0])  # after the paper's title
