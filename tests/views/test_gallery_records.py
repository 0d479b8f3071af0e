"""The gallery's cache records are data (issue 45 item 5): JSON, checked field by field before
an entry is reused; a corrupt or foreign record (a planted pickle, garbage, another schema,
entry or key, a table name that leaves the entry's folder) is rebuilt, never executed."""

from __future__ import annotations

import json
import os
import pickle

import pytest

from views import figures
from views.figures.files import RECORD_FORMAT, load, record_path, store

#: A cheap entry (``test_nothing_lost`` builds it too).
ENTRY = "herding.fig1_8_9"
KEY = "0123456789abcdef0123"

RESULT = dict(id=ENTRY, png=b"\x89PNG\r\n\x1a\n\x00\xff", pdf=b"%PDF-1.4\n%\xe2\xe3",
              tables={"panel1_layer1.csv": "# t / Curve\nx,y\n0,1\n",
                      "panel2_layer1.nc": b"CDF\x01\x00\x00", "verdict.json": "{}\n"},
              claim="Fig 1.8", statement="the paper's", ours="ours: 0.5 ≤ 1", verdict="reproduced",
              power="rule: slope < -0.9; power: 1.96 SE = 0.05", details="", settings={"steps": 5000, "seed": 3, "data": "digits", "w": [0.5, 1]},
              seconds=1.25)


class _Planted:
    """A pickle that writes ``marker`` when it is loaded: what an attacker plants."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def test_a_record_is_json_and_gives_back_the_build(tmp_path):
    store(tmp_path, ENTRY, KEY, RESULT)
    path = record_path(tmp_path, ENTRY, KEY)
    assert path.name == f"{ENTRY}-{KEY}.json"
    assert json.loads(path.read_text())["format"] == RECORD_FORMAT
    assert load(tmp_path, ENTRY, KEY) == RESULT
    # a new key's record replaces the old one (and an older version's pickle)
    (tmp_path / f"{ENTRY}-{'f' * 20}.pickle").write_bytes(b"old")
    (tmp_path / f"{ENTRY}x-{KEY}.json").write_text("another entry's")
    store(tmp_path, ENTRY, "a" * 20, RESULT)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{ENTRY}-{'a' * 20}.json",
                                                          f"{ENTRY}x-{KEY}.json"]


def _record(**changes) -> bytes:
    return json.dumps({**json.loads(_valid()), **changes}).encode()


def _valid() -> str:
    import tempfile
    import pathlib

    with tempfile.TemporaryDirectory() as tmp:
        store(pathlib.Path(tmp), ENTRY, KEY, RESULT)
        return record_path(pathlib.Path(tmp), ENTRY, KEY).read_text()


@pytest.mark.parametrize("content", [
    pytest.param(b"", id="empty"),
    pytest.param(b"\x00\xff garbage {", id="garbage"),
    pytest.param(b"[1, 2, 3]", id="a list"),
    pytest.param(lambda: _record(format="ldx-figures-record/0"), id="another schema"),
    pytest.param(lambda: _record(key="f" * 20), id="another key"),
    pytest.param(lambda: _record(id="herding.fig1_17"), id="another entry"),
    pytest.param(lambda: _record(png="not base64!"), id="png not base64"),
    pytest.param(lambda: _record(ours=3), id="a number for words"),
    pytest.param(lambda: _record(seconds="1"), id="text for seconds"),
    pytest.param(lambda: _record(settings=[1]), id="a list for settings"),
    pytest.param(lambda: _record(tables={"../../escape.csv": {"text": "x"}}),
                 id="a table outside its folder"),
    pytest.param(lambda: _record(tables={".hidden": {"text": "x"}}), id="a hidden table"),
    pytest.param(lambda: _record(tables={"a.csv": {"text": 1}}), id="a table of a number"),
    pytest.param(lambda: {k: v for k, v in json.loads(_valid()).items() if k != "pdf"},
                 id="a field missing"),
])
def test_a_foreign_record_is_not_used(content, tmp_path):
    content = content() if callable(content) else content
    if isinstance(content, dict):
        content = json.dumps(content).encode()
    record_path(tmp_path, ENTRY, KEY).write_bytes(content)
    assert load(tmp_path, ENTRY, KEY) is None


def test_what_is_not_a_regular_file_is_not_a_record(tmp_path):
    path = record_path(tmp_path, ENTRY, KEY)
    os.mkfifo(path)  # never opened: a read would block
    assert load(tmp_path, ENTRY, KEY) is None
    path.unlink()
    path.mkdir()
    assert load(tmp_path, ENTRY, KEY) is None


def test_a_planted_pickle_is_rebuilt_never_run(tmp_path, capsys):
    """A pickle that would write a marker, planted where the records are (under the name an
    older version read and under the record's own name): the build does not run it, rebuilds
    the entry and writes a record of its own, which the next build reuses."""
    marker = tmp_path / "marker"
    planted = pickle.dumps(_Planted(marker))
    pickle.loads(planted)  # the plant is live: loading it writes the marker
    assert marker.read_text() == "ran"
    marker.unlink()
    out = tmp_path / "figures"
    cache = out / ".cache"
    cache.mkdir(parents=True)
    key = figures.cache_key(figures.ENTRIES[ENTRY], True, None, figures.code_version())
    (cache / f"{ENTRY}-{key}.pickle").write_bytes(planted)
    record_path(cache, ENTRY, key).write_bytes(planted)
    figures.run([ENTRY], out=out, quick=True, seed=None)
    assert "reused" not in capsys.readouterr().err
    assert not marker.exists()
    built = load(cache, ENTRY, key)
    assert built is not None and built["png"] == (out / f"{ENTRY}.png").read_bytes()
    assert sorted(p.name for p in cache.iterdir()) == [f"{ENTRY}-{key}.json"]
    figures.run([ENTRY], out=out, quick=True, seed=None)
    assert f"reused from {cache}: {ENTRY}" in capsys.readouterr().err
    assert not marker.exists()


def test_an_entry_folder_that_is_a_link_is_refused_and_nothing_written_through_it(tmp_path):
    from views.figures.files import write_entry

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.csv").write_text("not the gallery's")
    out = tmp_path / "figures"
    out.mkdir()
    (out / ENTRY).symlink_to(elsewhere)
    with pytest.raises(ValueError, match="is there and is not a folder"):
        write_entry(out, RESULT)
    assert [p.name for p in elsewhere.iterdir()] == ["keep.csv"]


def test_an_out_that_is_not_a_folder_is_refused_by_name(tmp_path, capsys):
    (tmp_path / "file").write_text("mine")
    for out in (tmp_path / "file", "/dev/null"):
        with pytest.raises(SystemExit) as exit_:
            figures.main(["--serial", "--quick", "--only", ENTRY, "--out", str(out)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert f"--out '{out}'" in err and "not a folder" in err and "Traceback" not in err
    assert (tmp_path / "file").read_text() == "mine"


def test_ldx_figures_messages_escape_control_characters(tmp_path, capsys):
    (tmp_path / "file\x1b[2J").write_text("mine")
    for argv in (["--only", "bogus\x1b[2J\x07"], ["--out", str(tmp_path / "file\x1b[2J")],
                 ["--serial", "stray\x1b]0;owned\x07"]):
        with pytest.raises(SystemExit) as exit_:
            figures.main(["--serial", *argv])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "\x1b" not in err and "\x07" not in err and r"\x1b" in err, err
