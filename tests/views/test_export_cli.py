"""A command line a stranger can run on any file (issue 45 item 5): ``ldx-export --from`` reads
a state file in time linear in its size and refuses one over its caps (bytes, pixels) by name;
``-o`` writes regular files only, never a directory, device, FIFO or symbolic link; every
message escapes the control characters a file or link may hold."""

from __future__ import annotations

import os
import re
import stat
import time

import pytest

from tests.views import _state_files as crafted
from views import export_cli
from views.framework import stamp
from views.framework.files import atomic_path, check_target
from views.framework.text import printable


def _best(fn, repeats=5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _read(path):
    try:
        return stamp.read_state(path)
    except ValueError as exc:
        return re.sub(r"[\d,]+", "#", str(exc))


@pytest.mark.parametrize("suffix", [".png", ".gif", ".mp4"])
def test_reading_a_file_of_many_chunks_takes_time_linear_in_its_size(suffix, tmp_path):
    """Four times the bytes, about four times the time: a generous bound (10) where a
    quadratic reader takes 16 times as long. The files hold the most chunks, blocks or boxes
    their size allows, so the time is the parser's steps (times are in tests/bench)."""
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small, large = tmp_path / "small" / f"state{suffix}", tmp_path / "large" / f"state{suffix}"
    small.write_bytes(crafted.CRAFTED[suffix](1_000_000))
    large.write_bytes(crafted.CRAFTED[suffix](4_000_000))
    outcome = _read(small)  # the same at both sizes (but for the sizes it says)
    assert _read(large) == (outcome.replace("small", "large") if isinstance(outcome, str)
                            else outcome)
    ratio = _best(lambda: _read(large), 3) / _best(lambda: _read(small), 3)
    assert ratio < 10, f"{suffix}: 4 MB took {ratio:.1f} times as long as 1 MB"


@pytest.mark.parametrize("suffix", [".pdf", ".svg", ".html"])
def test_reading_a_crafted_text_file_costs_a_few_passes_over_it(suffix, tmp_path):
    """A 32 MB file crafted against the reader (its state opened over and over, never closed)
    is read in the time of a few plain passes over its bytes (reading them and counting a
    byte), not in the hours the regular expression this replaced would take (12 s of CPU at
    200 kB, four times as long at twice the size). Two C-level searches make the reading
    bound by the memory's speed, so it is compared with a plain pass at the same size."""
    path = tmp_path / f"state{suffix}"
    path.write_bytes(crafted.CRAFTED[suffix](32_000_000))
    assert "Learning Dynamics Explorer state" in _read(path)
    single = _best(lambda: path.read_bytes().count(b"\n"), 7)
    reader = _best(lambda: _read(path), 7)
    assert reader < 10 * single, f"{suffix}: {reader / single:.1f} passes"


@pytest.mark.parametrize("suffix", [".png", ".mp4"])
def test_a_crafted_file_of_many_chunks_or_boxes_still_gives_its_state(suffix, tmp_path):
    path = tmp_path / f"figure{suffix}"
    path.write_bytes(crafted.CRAFTED[suffix](200_000))
    assert stamp.read_state(path) == ({"page": ["neuron"], "stripes": ["20"]}, "0.1.0")


def test_the_mp4_reader_agrees_with_ffmpeg(tmp_path):
    """The box walk that replaced ffmpeg's listing finds the comment ffmpeg writes."""
    import imageio.v2 as imageio
    import numpy as np

    path = tmp_path / "clip.mp4"
    writer = imageio.get_writer(path, fps=10, codec="libx264", macro_block_size=1,
                                ffmpeg_log_level="error",
                                output_params=["-metadata", f"comment={crafted.STATE}"])
    for _ in range(2):
        writer.append_data(np.zeros((16, 16, 3), np.uint8))
    writer.close()
    assert stamp.read_state(path) == stamp.parse_state(crafted.STATE)


def test_a_file_over_the_cap_is_refused_and_the_cap_said(tmp_path, monkeypatch, capsys):
    big = tmp_path / "big.pdf"
    with open(big, "wb") as f:  # sparse: no disk
        f.truncate(stamp.MAX_FILE_BYTES + 1)
    with pytest.raises(ValueError, match=r"big\.pdf' is larger than the cap of 50 MB"):
        stamp.read_state(big)
    monkeypatch.setattr(stamp, "MAX_FILE_BYTES", 100_000)
    for suffix, make in crafted.CRAFTED.items():
        path = tmp_path / f"over{suffix}"
        path.write_bytes(make(200_000))
        with pytest.raises(ValueError, match="larger than the cap"):
            stamp.read_state(path)
    monkeypatch.undo()
    with pytest.raises(SystemExit) as exit_:
        export_cli.main(["--help"])
    assert exit_.value.code == 0
    assert "at most 50 MB" in " ".join(capsys.readouterr().out.split())


def test_what_is_not_a_regular_file_is_not_read(tmp_path):
    (tmp_path / "folder.png").mkdir()
    os.mkfifo(tmp_path / "fifo.svg")  # opened without blocking, never read
    (tmp_path / "null.pdf").symlink_to("/dev/null")
    for name in ("folder.png", "fifo.svg", "null.pdf"):
        with pytest.raises(ValueError, match="is not a file"):
            stamp.read_state(tmp_path / name)


@pytest.mark.parametrize("width, height", [(9_000, 9_000), (10_000, 10_000),
                                           (100_000, 100_000), (2**31 - 1, 2**31 - 1)])
@pytest.mark.parametrize("suffix", [".png", ".gif"])
def test_an_image_with_an_oversized_header_is_refused_by_name(width, height, suffix, tmp_path,
                                                              capsys):
    """Over our cap (64 million pixels), over Pillow's warning (89 million) and over its
    error (179 million): each a clear error naming the file, never a traceback."""
    if suffix == ".gif":
        width, height = min(width, 65_535), min(height, 65_535)  # a GIF's sizes are 16 bits
    path = tmp_path / f"huge{suffix}"
    path.write_bytes(crafted.CRAFTED[suffix](1000, width=width, height=height))
    with pytest.raises(ValueError, match=r"huge\.(png|gif)' is an image of .* pixels"):
        stamp.read_state(path)
    with pytest.raises(SystemExit) as exit_:
        export_cli.main(["--from", str(path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "huge" in err and "pixels" in err and "Traceback" not in err


def test_dash_o_refuses_what_is_not_a_regular_file_and_replaces_nothing(tmp_path, capsys):
    """A directory, a FIFO, a symbolic link to ``/dev/null`` and one to a regular file are
    refused by name before any work; ``/dev/null`` itself is never named here (the tests run
    as root: a mistake would replace the system's), only reached through the link."""
    null_before = os.stat("/dev/null")
    (tmp_path / "folder.png").mkdir()
    os.mkfifo(tmp_path / "fifo.png")
    (tmp_path / "null.png").symlink_to("/dev/null")
    (tmp_path / "real.png").write_bytes(b"mine")
    (tmp_path / "link.png").symlink_to(tmp_path / "real.png")
    cases = {"folder.png": "a directory", "fifo.png": "a FIFO",
             "null.png": "a symbolic link (to '/dev/null')", "link.png": "a symbolic link"}
    for name, kind in cases.items():
        target = tmp_path / name
        with pytest.raises(SystemExit) as exit_:
            export_cli.main(["--query", "page=neuron&stripes=20", "-o", str(target)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert f"-o '{target}' is {kind}" in err and "not a regular file" in err, err
        assert "Traceback" not in err
    assert stat.S_ISDIR(os.lstat(tmp_path / "folder.png").st_mode)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo.png").st_mode)
    assert os.readlink(tmp_path / "null.png") == "/dev/null"
    assert (tmp_path / "real.png").read_bytes() == b"mine"
    null_after = os.stat("/dev/null")
    assert stat.S_ISCHR(null_after.st_mode) and null_after.st_rdev == null_before.st_rdev
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*cases, "real.png"])


def test_a_target_that_stops_being_a_regular_file_while_written_is_not_replaced(tmp_path):
    target = tmp_path / "figure.png"
    with pytest.raises(ValueError, match="is a FIFO, not a regular file"):
        with atomic_path(target) as partial:
            partial.write_bytes(b"new")
            os.mkfifo(target)  # put there by someone else during the write
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["figure.png"]  # no temporary left
    assert check_target(tmp_path / "new.png") == tmp_path / "new.png"
    with pytest.raises(ValueError, match="'/dev/null' is a character device"):
        check_target("/dev/null", "-o")  # only looked at


def test_printable_escapes_controls_and_keeps_ordinary_unicode():
    assert printable("ok: é, 漢字, ✓ and spaces") == "ok: é, 漢字, ✓ and spaces"
    assert printable("\x1b[2J\x07\x00\x7f\x9b\n\t\u202e\u2028\udc80") == \
        r"\x1b[2J\x07\x00\x7f\x9b\n\t\u202e\u2028\udc80"
    assert printable(b"a\x1bb") == r"a\x1bb"


def _no_controls(text: str) -> bool:
    return not any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in text)


def test_messages_quoting_a_file_or_link_escape_control_characters(tmp_path, capsys):
    """A state whose names, values and version hold ESC, BEL and NUL (percent-encoded in the
    query, raw in the version), given as a file and as a query: what is printed holds none of
    them, only their escapes."""
    hostile = "page=neuron&stripes=20&x%1B%5B2J=%07&y=%00;version=9\x1b]0;owned\x07"
    source = tmp_path / "hostile.png"
    source.write_bytes(crafted.png(0, state=hostile))
    target = tmp_path / "out\x1b[31m.png"
    assert export_cli.main(["--from", str(source), "-o", str(target)]) == 0
    out, err = capsys.readouterr()
    assert _no_controls(out) and _no_controls(err), (out, err)
    assert r"version 9\x1b]0;owned\x07" in err and r"x\x1b[2J" in err
    assert out.strip() == str(tmp_path / r"out\x1b[31m.png") and target.is_file()
    for argv in (["--query", "page=neuron&z%1B%5B31m=1", "-o", str(tmp_path / "q.svg")],
                 ["--query", "page=nowhere\x1b[31m\x00"],
                 ["--query", "page=neuron", "stray\x1b[2J\x07"],
                 ["--from", str(tmp_path / "missing\x1b[2J.png")]):
        try:
            export_cli.main(argv)
        except SystemExit as exc:
            assert exc.code == 2
        out, err = capsys.readouterr()
        assert _no_controls(out) and _no_controls(err), (argv, out, err)
        assert r"\x1b" in out + err, (argv, out, err)
