"""Bounded input (issue 45 item 3): every value a link or a typed field holds has a length cap,
refused by name with the cap said; a figure's title never grows with a value; one export of a
page at its longest values raises the process's memory by less than 50 MB and draws an image of
the figure's own size.

What a value may hold is declared once, by kind of knob, in ``views.framework.knobs``
(``limits``, ``check_query``, ``REPEATS``); the pages, the served app (``app/main.py``), the
teacher's keys (``Presentation``) and ``ldx-export --query`` all read values through it.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import urllib.parse

import param
import pytest

from tests.views._url_fuzz import _args
from views import EXPLORERS, export_cli
from views.framework import knobs, stamp
from views.framework.figure import TITLE_LINES, set_title
from views.framework.field import Field
from views.framework.present import Presentation
from views.framework.text import quote

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERDING = EXPLORERS["herding"]
#: Herding at a size that computes in a moment (the links below test the caps, not the engine).
QUICK = {"steps": "1000"}
#: One export may raise the process's memory by at most this much (bytes; the issue's bound).
MEMORY = 50 * 2**20


def _refused(label: str, chars: int, text: str) -> str:
    """The sentence of a value over its cap: the label, the cap, the length, its start quoted."""
    return f"{label} must be at most {chars:,} characters, got {len(text):,}: {quote(text)}"


def _longest_text(p: param.Parameter, chars: int) -> list[str]:
    """Texts of valid values of ``p`` that a page can write: its default, its bounds, every
    choice; each must fit the knob's cap."""
    texts = [knobs.text(p, p.default)] if p.default is not None else []
    if isinstance(p, param.ListSelector):
        texts.append(knobs.text(p, list(p.objects)))
    elif isinstance(p, param.Selector):
        texts += [str(o) for o in p.objects] + list((getattr(p, "names", None) or {}))
    elif isinstance(p, param.Range) and p.bounds is not None:
        texts.append(knobs.text(p, p.bounds))
    elif isinstance(p, param.Number) and p.bounds is not None:
        texts += [knobs.text(p, b) for b in p.bounds if b is not None]
    return texts


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_every_knob_has_a_cap_that_its_own_values_fit(slug):
    """Every knob's cap holds every value the page itself writes (a link the app wrote is
    never refused), one character more is refused by the knob's label with the cap said, and
    the longest link of the page (every knob at its cap) fits the query's cap."""
    cls = EXPLORERS[slug]
    longest = len("page=") + len(slug)
    for name in cls.setting_names():
        p = cls.knob_param(name)
        chars, items = knobs.limits(p)
        assert chars <= knobs.QUERY_CHARS, name
        for text in _longest_text(p, chars):
            assert len(text) <= chars, (name, text)
        with pytest.raises(ValueError) as refused:
            knobs.parse(p, "1" * (chars + 1))
        assert str(refused.value) == _refused(p.label, chars, "1" * (chars + 1))
        if isinstance(p, param.ListSelector):
            assert items == len(p.objects)
        longest += len(name) + chars + 2
    assert longest <= knobs.QUERY_CHARS


def test_a_long_value_in_a_link_is_refused_by_name_and_the_rest_is_used():
    """The issue's links: a 1,001-digit w0 (a valid number, so only its length refuses it), a
    5,000-digit seed (beyond Python's own limit for whole numbers: refused by length, not by
    ``int``), five data sets of three, a 50-digit time, a key given 11 times."""
    w0 = "0." + "0" * 998 + "1"
    query = urllib.parse.urlencode(
        [("page", "herding"), *QUICK.items(), ("w0", w0), ("seed", "7" * 5000),
         ("tables.data_sets", "digits,digits,digits,digits,digits"), ("t", "1" * 50),
         *[("eta", "0.5")] * 11, ("n_states", "5")])
    explorer, messages = HERDING.from_query(_args(query))
    assert messages == [
        _refused("Initial weights w0", 200, w0) + ".",
        _refused("Model seed", 40, "7" * 5000) + ".",
        "Data sets must list at most 3 choices, got 5.",
        "Learning rate eta was given 11 times, more than the 10 read: none was used.",
        _refused("Time t", 40, "1" * 50) + ".",
    ]
    defaults = HERDING()
    for name in ("w0", "seed", "tables.data_sets", "eta"):
        assert explorer.setting(name) == defaults.setting(name), name
    assert explorer.n_states == 5 and explorer.steps == 1000 and explorer.t is None


def test_a_link_too_long_as_a_whole_opens_the_defaults():
    query = urllib.parse.urlencode([("page", "herding"), ("n_states", "5"),
                                    ("w0", "1" * knobs.QUERY_CHARS)])
    explorer, messages = HERDING.from_query(_args(query))
    assert messages == [f"the link's settings must be at most {knobs.QUERY_CHARS:,} "
                        f"characters, got {knobs.QUERY_CHARS + 28:,}: the page shows the "
                        "default settings."]
    assert explorer.query() == HERDING().query()
    # many short values of one key count as much as one long one
    explorer, messages = HERDING.from_query({"foo": [b""] * knobs.QUERY_CHARS})
    assert "must be at most 20,000 characters" in messages[0]


def test_the_teacher_keys_are_capped_too():
    knob_count = len(HERDING.setting_names())
    shown, messages = Presentation.from_query(HERDING, {"show": ["seed," * (knob_count + 1)],
                                                        "present": ["1" * 101]})
    assert shown == Presentation()
    assert messages == [_refused("present", 100, "1" * 101) + ".",
                        f"show must name at most {knob_count} controls, got "
                        f"{knob_count + 1}; every control is shown."]
    shown, messages = Presentation.from_query(HERDING, {"show": ["x" * 10_000]})
    assert shown == Presentation() and "show must be at most" in messages[0]


def test_a_typed_value_over_its_cap_is_refused_in_the_field():
    explorer = HERDING()
    field = Field(explorer, "w0")
    assert field.input.max_length == knobs.TEXT_CHARS  # the browser takes no more
    field.input.value = "1" * (knobs.TEXT_CHARS + 1)   # a client that sends more anyway
    assert explorer.w0 == HERDING.param["w0"].default
    assert field.message.visible and "at most 200 characters" in field.message.object
    assert field.input.value == explorer.knob_text("w0")


def test_a_typed_vector_is_capped_before_it_is_read():
    with pytest.raises(ValueError, match="^w0 must be at most 200 characters, got 201: '1"):
        knobs.parse_vector("w0", "1" * 201, 2)
    with pytest.raises(ValueError, match="w0 needs 1 or 2 numbers, got 100"):
        knobs.parse_vector("w0", ",".join(["x"] * 100), 2)


def test_the_title_fits_the_figure_in_a_few_lines():
    """A title of any length is cut and wrapped into at most ``TITLE_LINES`` lines as wide as
    the figure at most, its end an ellipsis; a short title stays as it was."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(4.2, 3.0))
    try:
        title = fig.suptitle("")
        set_title(title, "Herding: Model seed = 7")
        assert title.get_text() == "Herding: Model seed = 7"
        for text in ("Herding: Initial weights w0 = 0." + "0" * 20_000 + "1",
                     "Herding: " + ", ".join(f"Knob {i} = {i}" for i in range(2_000))):
            set_title(title, text)
            lines = title.get_text().split("\n")
            assert 1 < len(lines) <= TITLE_LINES and lines[-1].endswith("…")
            assert title.get_window_extent().width <= fig.bbox.width
    finally:
        plt.close(fig)


def test_settings_words_are_bounded():
    explorer = HERDING(n_states=5, seed=7)
    explorer.w0 = "0." + "0" * 5000 + "1"  # a script may set any text; the title is cut
    words = stamp.settings_words(explorer)
    assert len(words) <= stamp.SETTINGS_CHARS and words.startswith("States D = 5, Model seed")
    assert f"w0 = {'0.' + '0' * (stamp.VALUE_CHARS - 3)}…" in words
    assert len(stamp.file_stem(explorer)) <= 120


def test_ldx_export_refuses_a_long_query_by_name_before_building_a_page(monkeypatch, capsys):
    import psutil

    def built(*_):
        raise AssertionError("the page was built from a refused query")

    monkeypatch.setattr(export_cli.EXPLORERS["herding"], "from_query", built)
    rss = psutil.Process().memory_info().rss
    for argv, said in [
        (["--query", "page=herding&w0=" + "1" * 20_001],
         "--query must be at most 20,000 characters, got 20,017"),
        (["--query", "page=" + "x" * 500], "page must be at most 100 characters, got 500"),
        (["--query", "page=herding&run=" + "x" * 101],
         "run must be at most 100 characters, got 101"),
    ]:
        with pytest.raises(SystemExit) as exited:
            export_cli.main(argv)
        assert exited.value.code == 2 and said in capsys.readouterr().err
    assert psutil.Process().memory_info().rss - rss < MEMORY


def test_ldx_export_notes_a_refused_value_and_exports_the_rest(tmp_path, capsys):
    out = tmp_path / "herding.png"
    w0 = "0." + "0" * 998 + "1"
    assert export_cli.main(["--query", f"page=herding&steps=1000&n_states=5&w0={w0}",
                            "-o", str(out)]) == 0
    assert f"note: {_refused('Initial weights w0', 200, w0)}." in capsys.readouterr().err
    query, _ = stamp.read_state(out)
    assert query["n_states"] == ["5"] and query["w0"] == [HERDING.param["w0"].default]


#: Run in a fresh process: herding at its longest allowed values (every knob changed, w0 at
#: its 200-character cap), computed; then one PNG export, its resident memory sampled.
_EXPORT_SCRIPT = r"""
import io, json, sys, threading
import psutil
from PIL import Image
from views import EXPLORERS
from views.framework import figure

query = json.loads(sys.argv[1])
cls = EXPLORERS["herding"]
cls(steps=1000).export_bytes(".png")  # the export machinery loaded, fonts cached
explorer, messages = cls.from_query({k: [v] for k, v in query.items()})
assert messages == [], messages
explorer.result()
proc = psutil.Process()
before = proc.memory_info().rss
peak, done = [before], threading.Event()

def sample():
    while not done.wait(0.002):
        peak[0] = max(peak[0], proc.memory_info().rss)

sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
png = explorer.export_bytes(".png").getvalue()
done.set(); sampler.join()
after = proc.memory_info().rss
import os, tempfile
with tempfile.TemporaryDirectory() as tmp:  # the same figure, titled in one word
    path = figure.export_figure(explorer.figure(), os.path.join(tmp, "short.png"), title="Herding")
    short_size = Image.open(path).size
print(json.dumps({"peak": peak[0] - before, "retained": after - before,
                  "size": Image.open(io.BytesIO(png)).size, "short_size": short_size,
                  "state": Image.open(io.BytesIO(png)).info["ldx-state"]}))
"""


def _longest_herding() -> dict[str, str]:
    """Herding with every knob off its default and w0 a valid 200-character vector."""
    w0 = ", ".join(["0.10000000000000000000000000001"] * 6)
    w0 += " " * (knobs.TEXT_CHARS - len(w0))
    return {"n_states": "16", "n_features": "6", "seed": "99999", "steps": "1000", "w0": w0,
            "eta": "4.95", "max_lag": "200", "max_word": "60", "box.steps": "2000000",
            "tables.data_sets": "digits", "tables.samples": "200000", "tables.splits": "20",
            "tables.seed": "99999"}


def test_an_export_at_the_longest_values_is_bounded():
    """One PNG export of herding at its longest allowed values: resident memory at most
    ``MEMORY`` above what it was before, at its peak and after; the image as large as the same
    figure's with a one-word title, but for the title's extra lines (at most TITLE_LINES);
    the file's state holds every value whole."""
    from views.framework.figure import PNG_DPI

    query = _longest_herding()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _EXPORT_SCRIPT, json.dumps(query)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["peak"] < MEMORY and got["retained"] < MEMORY, got
    (width, height), (short_width, short_height) = got["size"], got["short_size"]
    # a 13-point title line in pixels: matplotlib spaces lines 1.2 times the height of "lp"
    # (about 1.2 em in DejaVu Sans), so at most 1.5 em
    line = 13 * 1.5 * PNG_DPI / 72
    assert width == short_width, got
    assert short_height < height <= short_height + (TITLE_LINES - 1) * line, got
    state, _ = stamp.parse_state(got["state"])
    assert {k: v[0] for k, v in state.items() if k != "page"} == query
