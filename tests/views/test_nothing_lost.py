"""Nothing lost (issue 25 item 5): every file the gallery and the page's exports write appears
whole or not at all, and a gallery run killed in the middle and run again reuses the entries it
had finished and rebuilds the others."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time

import holoviews as hv
import matplotlib.figure
import pytest
from PIL import Image
from pypdf import PdfReader

from views import figures
from views.framework import export_figure
from views.framework.files import PARTIAL_GLOB, atomic_path

#: Two cheap entries, built in this order (the order of ``figures.ENTRIES``) by ``--serial``.
FIRST, SECOND = "herding.fig1_8_9", "herding.fig1_17"
ROOT = figures.ROOT


def _partials(folder):
    return [p for p in folder.rglob("*") if p.match(PARTIAL_GLOB)]


def test_atomic_path_replaces_the_file_whole_or_leaves_it_alone(tmp_path):
    target = tmp_path / "sub" / "table.csv"
    with atomic_path(target) as partial:
        assert partial.parent == target.parent and partial.suffix == ".csv"
        assert partial.match(PARTIAL_GLOB) and not target.exists()
        partial.write_text("a,b\n1,2\n")
    assert target.read_text() == "a,b\n1,2\n"
    with pytest.raises(RuntimeError, match="interrupted"):
        with atomic_path(target) as partial:
            partial.write_text("a,b\n3,")
            raise RuntimeError("interrupted")
    assert target.read_text() == "a,b\n1,2\n" and _partials(tmp_path) == []


@pytest.mark.parametrize("suffix", [".png", ".pdf", ".svg"])
def test_export_figure_leaves_no_partial_file_when_a_write_fails(tmp_path, monkeypatch, suffix):
    """A write that dies half-way (here: the disk fills after 100 bytes) leaves the previous
    export in place and no temporary; a write that succeeds leaves only the complete file."""
    figure = hv.Layout([hv.Curve([(0, 1), (1, 3), (2, 2)])])
    target = tmp_path / f"figure{suffix}"
    export_figure(figure, target)
    before = target.read_bytes()
    assert len(before) > 1000 and _partials(tmp_path) == []
    save = matplotlib.figure.Figure.savefig

    def disk_full(self, fname, **kwargs):
        save(self, fname, **kwargs)
        with open(fname, "r+b") as f:
            f.truncate(100)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", disk_full)
    with pytest.raises(OSError, match="No space"):
        export_figure(hv.Layout([hv.Curve([(0, 2), (1, 1)])]), target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def _complete(snapshot, name, final) -> str | None:
    """Why ``snapshot`` (the file ``name`` as seen during the killed run) is not a complete
    file, or None. Builds are pure: its PNG and tables must equal the finished gallery's."""
    if snapshot.suffix == ".pdf":
        whole = snapshot.read_bytes().rstrip().endswith(b"%%EOF")
        return None if whole and len(PdfReader(snapshot).pages) > 0 else "half a PDF"
    if name.parent.name == ".cache":  # a record: JSON, its figure in base64
        record = json.loads(snapshot.read_bytes())
        same = base64.b64decode(record["png"]) == (final / f"{record['id']}.png").read_bytes()
        return None if same else "a record of another figure"
    if snapshot.suffix == ".png":
        with Image.open(snapshot) as image:
            image.load()
    return None if snapshot.read_bytes() == (final / name).read_bytes() else "differs"


def test_a_gallery_run_killed_after_its_first_entry_reuses_it_and_rebuilds_the_second(
        tmp_path, capsys):
    out = tmp_path / "figures"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    # A writer killed in the middle of a file: what it leaves is a temporary, not a PNG.
    writer = subprocess.Popen(
        [sys.executable, "-c",
         "import importlib.util, time\n"
         "spec = importlib.util.spec_from_file_location('files', 'views/framework/files.py')\n"
         "files = importlib.util.module_from_spec(spec); spec.loader.exec_module(files)\n"
         "atomic_path = files.atomic_path\n"
         f"with atomic_path({str(out / (SECOND + '.png'))!r}) as p:\n"
         "    p.write_bytes(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(500)); print('half', flush=True)\n"
         "    time.sleep(60)\n"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    assert writer.stdout.readline().strip() == "half"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    leftover = _partials(out)
    assert len(leftover) == 1 and not (out / f"{SECOND}.png").exists()

    log = open(tmp_path / "first.log", "w")
    run = subprocess.Popen(
        [sys.executable, "-m", "views.figures", "--quick", "--serial", "--only", FIRST,
         "--only", SECOND, "--out", str(out)], cwd=ROOT, stdout=log, stderr=log, env=env)
    seen = {}   # every file at a final name while the run went and when it was killed

    def look():
        for path in out.rglob("*"):
            if path.is_file() and not path.match(PARTIAL_GLOB):
                seen.setdefault(path, path.read_bytes())

    try:
        deadline = time.monotonic() + 120
        while not list((out / ".cache").glob(f"{FIRST}-*.json")):
            assert run.poll() is None and time.monotonic() < deadline, \
                (tmp_path / "first.log").read_text()[-2000:]
            look()
            time.sleep(0.02)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
        log.close()
    look()
    assert not list((out / ".cache").glob(f"{SECOND}-*.json")), "the second entry finished"
    assert not (out / "REPORT.md").exists()
    kept = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()
            and (p.name.startswith(FIRST) or FIRST in p.parts)}
    assert out / f"{FIRST}.png" in kept and len(kept) >= 4

    # run again (in this process: the same ``run`` the command calls with --serial)
    figures.run([FIRST, SECOND], out=out, quick=True, seed=None)
    assert f"reused from {out / '.cache'}: {FIRST}\n" in capsys.readouterr().err
    # the finished entry was not rebuilt: none of its files, record included, was rewritten
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    assert len(list((out / ".cache").glob(f"{SECOND}-*.json"))) == 1
    assert f"({SECOND}.png)" in (out / "REPORT.md").read_text()
    with Image.open(out / f"{SECOND}.png") as image:
        image.load()
    assert _partials(out) == []          # the killed writer's temporary is gone
    # nothing seen at a final name during the killed run was half a file
    assert out / f"{FIRST}.pdf" in seen
    for path, data in seen.items():
        name = path.relative_to(out)
        snapshot = tmp_path / "seen" / name
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_bytes(data)
        assert _complete(snapshot, name, out) is None, name
