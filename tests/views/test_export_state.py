"""An exported figure says what it shows (issue 27 item 4): named and titled after its
settings, carrying the page's state in its metadata in every format, and rebuilt from that
state alone by ``ldx-export --from``."""

from __future__ import annotations

import pytest

from views import export_cli
from views.framework import stamp
from views.framework.figure import EXPORT_FORMATS
from views.pages.neuron import NeuronExplorer

SETTINGS = dict(max_word=12, stripes=20)


@pytest.fixture(scope="module")
def explorer():
    return NeuronExplorer(**SETTINGS)


def test_the_name_and_title_say_the_settings(explorer):
    assert stamp.file_stem(NeuronExplorer()) == "neuron"
    assert stamp.settings_words(NeuronExplorer()) == "default settings"
    stem = stamp.file_stem(explorer)
    assert stem.startswith("neuron_") and "stripes-20" in stem and "max_word-12" in stem
    words = stamp.settings_words(explorer)
    labels = [NeuronExplorer.param[n].label for n in SETTINGS]
    assert all(f"{label} = " in words for label in labels), words


@pytest.mark.parametrize("suffix", EXPORT_FORMATS)
def test_every_format_carries_the_state_that_rebuilds_it(explorer, suffix, tmp_path):
    path = explorer.export(tmp_path / f"figure{suffix}")
    query, version = stamp.read_state(path)
    assert version == stamp.VERSION and query["page"] == ["neuron"]
    rebuilt, messages = export_cli.explorer_from_query(query)
    assert messages == []
    assert {n: rebuilt.knob_text(n) for n in rebuilt.setting_names()} == \
        {n: explorer.knob_text(n) for n in explorer.setting_names()}


def test_ldx_export_rebuilds_a_figure_from_its_file(explorer, tmp_path, capsys):
    source = explorer.export(tmp_path / "source.png")
    assert export_cli.main(["--from", str(source), "-o", str(tmp_path / "again.svg")]) == 0
    assert stamp.read_state(tmp_path / "again.svg") == stamp.read_state(source)
    # without -o: beside the source, named after the settings, never over the source
    assert export_cli.main(["--from", str(source)]) == 0
    written = capsys.readouterr().out.split()[-1]
    assert written.endswith(f"{stamp.file_stem(explorer)}.png") and (tmp_path / written).exists()


def test_a_file_without_a_state_is_refused_by_name(tmp_path):
    from PIL import Image

    plain = tmp_path / "plain.png"
    Image.new("RGB", (4, 4)).save(plain)
    with pytest.raises(ValueError, match="path 'plain.png'|plain.png.* carries no"):
        stamp.read_state(plain)
    with pytest.raises(ValueError, match="is not a file"):
        stamp.read_state(tmp_path / "missing.png")
    (tmp_path / "fake.png").write_text("not an image")
    with pytest.raises(ValueError, match="is not a PNG image"):
        stamp.read_state(tmp_path / "fake.png")
    with pytest.raises(ValueError, match="path must be"):
        stamp.read_state(tmp_path / "figure.jpg")
    with pytest.raises(ValueError, match="not a Learning Dynamics Explorer state"):
        stamp.parse_state("seed=3")
    with pytest.raises(ValueError, match="page must be one of"):
        export_cli.explorer_from_query({"page": ["nowhere"]})
