"""``python -m views.figures``: every paper figure from one command (issue 17)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from views import figures
from views.figures import ENTRIES


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
    print(f"\nviews.figures --quick: {seconds:.0f} s; {done.stdout.strip()}")
    report = (out / "REPORT.md").read_text()
    gallery = (out / "index.html").read_text()
    for entry_id in ENTRIES:
        assert (out / f"{entry_id}.png").stat().st_size > 10_000
        assert (out / f"{entry_id}.pdf").read_bytes().startswith(b"%PDF")
        assert list((out / entry_id).glob("*.csv")) + list((out / entry_id).glob("*.nc")), \
            entry_id
        assert f"({entry_id}.png)" in report and f'id="{entry_id}"' in gallery
    assert report.count("| **reproduced** |") + report.count("| **differs: ") == len(ENTRIES)
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

    monkeypatch.setattr(figures, "build", rebuilt)
    second = figures.run(["herding.fig1_17"], out=tmp_path, quick=True, seed=None,
                         progress=False)
    assert second[0]["png"] == first[0]["png"]  # from the cache, not rebuilt
    with pytest.raises(AssertionError, match="rebuilt"):
        figures.run(["herding.fig1_17"], out=tmp_path, quick=True, seed=5, progress=False)
    with pytest.raises(AssertionError, match="rebuilt"):
        figures.run(["herding.fig1_17"], out=tmp_path, quick=False, seed=None, progress=False)


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
