"""``python -m views.figures``: every paper figure from one command (issue 17), a package of
one module per paper whose cache key covers every source file (issue 28 item 2)."""

from __future__ import annotations

import html
import os
import subprocess
import sys
import time

import pytest

from views import figures
from views.figures import ENTRIES, command

pytestmark = pytest.mark.gallery  # the gallery tier: pytest --gallery


def test_quick_gallery_on_a_local_dask_cluster_produces_every_entry(tmp_path):
    """The command as CI runs it (``--quick``, a local dask.distributed cluster): every entry's
    PNG, PDF and tables, the report with a verdict per entry and the gallery; and one entry
    built again in this process gives the same tables (pure tasks)."""
    pytest.importorskip("distributed")
    out = tmp_path / "figures"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "views.figures", "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONWARNINGS="ignore"))
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-3000:]
    # a normal run ends without warnings (issue 30: the nanny killed workers slow to exit)
    assert [line for line in done.stderr.splitlines() if " - WARNING - " in line] == []
    print(f"\nviews.figures --quick: {seconds:.0f} s; {done.stdout.strip()}")
    report = (out / "REPORT.md").read_text()
    gallery = (out / "index.html").read_text()
    for entry_id in ENTRIES:
        assert (out / f"{entry_id}.png").stat().st_size > 10_000
        assert (out / f"{entry_id}.pdf").read_bytes().startswith(b"%PDF")
        assert list((out / entry_id).glob("*.csv")) + list((out / entry_id).glob("*.nc")), \
            entry_id
        assert f"({entry_id}.png)" in report and f'id="{entry_id}"' in gallery
    assert (report.count("| **reproduced**") + report.count("| **differs: ")
            + report.count("| **not decided: ")) == len(ENTRIES)
    # issue 17 item 3: the Doeblin experiments list their differences from the paper and a study
    for entry_id, rows in (("steinhardt.fig4", 6), ("steinhardt.table1", 9)):
        differences = (out / entry_id / "DIFFERENCES.md").read_text()
        assert "1. **" in differences and "**Result.**" in differences
        assert f"## {ENTRIES[entry_id].title}: where we differ from the paper" in report
        study = (out / entry_id / "study.csv").read_text().splitlines()
        assert len(study) == 1 + rows * (4 if entry_id.endswith("fig4") else 3)
        assert f'href="{entry_id}/DIFFERENCES.md"' in gallery
    again = figures.build("herding.fig1_17", quick=True)
    for name, data in again["tables"].items():
        stored = out / "herding.fig1_17" / name
        assert (stored.read_bytes() if isinstance(data, bytes) else stored.read_text()) == data


def test_cache_is_reused_and_invalidated_by_a_parameter_change(tmp_path, monkeypatch):
    first = figures.run(["herding.fig1_17"], out=tmp_path, quick=True, seed=None,
                        progress=False)

    def rebuilt(*args, **kwargs):
        raise AssertionError("rebuilt")

    monkeypatch.setattr(command, "build", rebuilt)
    second = figures.run(["herding.fig1_17"], out=tmp_path, quick=True, seed=None,
                         progress=False)
    assert second[0]["png"] == first[0]["png"]  # from the cache, not rebuilt
    with pytest.raises(AssertionError, match="rebuilt"):
        figures.run(["herding.fig1_17"], out=tmp_path, quick=True, seed=5, progress=False)
    with pytest.raises(AssertionError, match="rebuilt"):
        figures.run(["herding.fig1_17"], out=tmp_path, quick=False, seed=None, progress=False)


def test_the_cache_is_rebuilt_when_a_file_of_a_subpackage_changes(tmp_path, monkeypatch):
    """The cache key hashes every Python file under dynamics/ and views/, subpackages included
    (before, only dynamics/*.py and views/*.py: an edit in dynamics/doeblin/ kept old figures).
    On a copy of the tree, so that the real files are not touched, with a stand-in build."""
    import shutil

    tree = tmp_path / "tree"
    for folder in ("dynamics", "views"):
        shutil.copytree(figures.ROOT / folder, tree / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(command, "code_version", lambda: figures.code_version(tree))
    builds = []

    def build(entry_id, quick=False, seed=None, progress=None):
        builds.append(entry_id)
        return dict(id=entry_id, png=b"png", pdf=b"pdf", tables={}, claim="c", statement="s",
                    ours="o", verdict="reproduced", power="", details="", settings={},
                    seconds=0.0)

    monkeypatch.setattr(command, "build", build)
    out = tmp_path / "out"
    for edited in (None, None, "dynamics/doeblin/dnf.py", "views/framework/figure.py",
                   "views/figures/steinhardt.py"):
        if edited is not None:
            before = figures.code_version(tree)
            with open(tree / edited, "a") as f:
                f.write("# an edit\n")
            assert figures.code_version(tree) != before, edited
        figures.run(["herding.fig1_17"], out=out, quick=True, seed=None, progress=False)
    assert builds == ["herding.fig1_17"] * 4  # built, reused, then rebuilt after each edit


def test_command_line_refuses_unknown_entries(capsys):
    with pytest.raises(SystemExit):
        figures.main(["--only", "herding.fig9_9", "--serial"])
    assert "unknown entries" in capsys.readouterr().err


def test_progress_within_an_entry_in_process_and_from_a_dask_worker():
    """The bar hears an entry's runs and study as they go: in this process through ``build``'s
    progress, from a dask worker through the event log the command subscribes to."""
    heard = []
    figures.build("steinhardt.table1", quick=True,
                  progress=lambda f, m: heard.append((f, m)))
    fractions = [f for f, _ in heard]
    assert fractions == sorted(fractions) and 0 < fractions[0] and fractions[-1] == 1.0
    assert any(m.startswith("dnf: ") for _, m in heard)
    assert any(m.startswith("study: ") for _, m in heard)
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    events = []
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.subscribe_topic(figures.PROGRESS_TOPIC, events.append)
        client.submit(figures.build, "steinhardt.fig2", quick=True).result()
        client.submit(figures.build, "steinhardt.table1", quick=True).result()
        deadline = time.monotonic() + 10
        while not any(e[1][1] == 1.0 for e in events) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert any(e[1][0] == "steinhardt.table1" and e[1][1] == 1.0 for e in events)


def test_the_bar_no_longer_shows_an_entry_once_it_is_built(tmp_path, capsys):
    """Issue 30 item 4: the bar's text names the entries being built, and an entry that never
    reported its end (opper.fig1 says 0 % and is done) leaves it when it arrives (the
    gallery's bar showed "opper.fig1 0% (toy ...)" from 0:45 to the end of the run)."""
    figures.run(["opper.fig1"], out=tmp_path, quick=True, seed=None, progress=True)
    bar = capsys.readouterr().err
    assert "opper.fig1 0%" in bar  # shown while it was built
    last = bar.rstrip().split("\r")[-1]
    assert "1/1" in last and "opper.fig1" not in last, last


def test_the_gallery_opens_with_contents_linking_every_entry_and_the_report(tmp_path):
    """Issue 30 item 4: ``index.html`` starts with a table of contents (entry, paper, verdict)
    whose links reach each entry's section, and links REPORT.md."""
    from views import EXPLORERS
    from views.figures.report import write_report

    ids = list(ENTRIES)[:3]
    results = [dict(id=i, statement=f"statement <{k}>", ours=f"ours {k}",
                    verdict=("reproduced", "differs: slope 1.58", "not decided: one seed")[k],
                    tables={"a.csv": "x\n1\n"}, seconds=1.0) for k, i in enumerate(ids)]
    write_report(tmp_path, results, ENTRIES, quick=True)
    page = (tmp_path / "index.html").read_text()
    head = page[:page.index("<section")]
    assert '<a href="REPORT.md">REPORT.md</a>' in head
    for r in results:
        entry = ENTRIES[r["id"]]
        row = f'<a href="#{r["id"]}">'
        assert row in head and f'<section id="{r["id"]}">' in page
        assert html.escape(EXPLORERS[entry.slug].paper.citation) in head
        assert r["verdict"] in head
    assert "statement &lt;0&gt;" in page  # text escaped
