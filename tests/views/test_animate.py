"""A page's timeline as an animation (issue 27 item 5): frame k of the GIF is the picture the
page's export draws at time t_k, on two pages (one whose marks the film moves itself, one whose
marks HoloViews redraws); the MP4 reads back with its frames; the files carry the page's state;
bad input is refused by name. Few frames, small runs: each test takes seconds."""

from __future__ import annotations

import pathlib

import numpy as np
import panel as pn
import pytest
from PIL import Image

from views import export_cli
from views.framework import stamp
from views.framework.animation import (ANIMATION_DPI, check_panels, frame_indices, frame_title,
                                       landscape_columns)
from views.framework.figure import export_figure
from views.pages.dsg import DSGExplorer
from views.pages.herding import HerdingExplorer
from views.pages.hbm import HBMExplorer
from views.pages.neuron import NeuronExplorer
from views.pages.pmd import PMDExplorer
from views.framework.page import Page


def _gif(path) -> list[np.ndarray]:
    """The GIF's frames as RGB pixels."""
    with Image.open(path) as gif:
        frames = []
        for k in range(gif.n_frames):
            gif.seek(k)
            frames.append(np.asarray(gif.convert("RGB")))
    return frames


def _in_colors(rgb: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """``rgb`` with each colour replaced by the nearest of those in ``frame`` (a GIF's frame:
    colours of its palette, each the nearest there to the colours drawn; of equally near ones
    the first in sorted order, as the animation's palette chooses)."""
    def packed(image):  # one number per colour, sorted as the colours are
        image = image.reshape(-1, 3).astype(np.int64)
        return (image[:, 0] << 16) | (image[:, 1] << 8) | image[:, 2]

    def unpacked(values):
        return np.stack([values >> 16, (values >> 8) & 255, values & 255], axis=1)

    palette = unpacked(np.unique(packed(frame)))
    colors, inverse = np.unique(packed(rgb), return_inverse=True)
    distance = ((unpacked(colors)[:, None, :] - palette[None]) ** 2).sum(axis=2)
    return palette[np.argmin(distance, axis=1)][inverse].reshape(rgb.shape)


def _export(cls, settings: dict, i: int, tmp_path, panels=None) -> np.ndarray:
    """What a fresh page's PNG export draws at the time of its frame ``i`` (at the
    animation's resolution, titled as the animation's frame), of the panels the animation
    shows (by default those that move in time), laid out as it lays them out."""
    page = cls(**settings)
    page.t = int(page.frames().t[i])
    panels = check_panels(page, panels)
    path = export_figure(page.figure(panels, landscape_columns(len(panels))),
                         tmp_path / f"export-{i}.png",
                         title=frame_title(page, i), dpi=ANIMATION_DPI)
    return np.asarray(Image.open(path).convert("RGB"))


def _differing(a: np.ndarray, b: np.ndarray) -> int:
    assert a.shape == b.shape
    return int(np.count_nonzero(np.any(a != b, axis=2)))


# herding: a trail, a ray and a ring moved by the film; the moment error's line under a
# guide line and beside the legend. PMD: particles coloured and sized by their weight, which
# HoloViews redraws.
PAGES = [(HerdingExplorer, dict(steps=2000)),
         (PMDExplorer, dict(particles=200))]


@pytest.mark.parametrize("cls, settings", PAGES, ids=[c.slug for c, _ in PAGES])
def test_frame_k_of_the_gif_is_the_page_at_t_k(cls, settings, tmp_path):
    page = cls(**settings)
    count = len(page.frames())
    times = [int(page.frames().t[i]) for i in (0, count // 3, count - 1)]
    path = page.animate(tmp_path / "film.gif", frames=times, fps=5)
    frames = _gif(path)
    assert len(frames) == 3
    # the export at t_1 as the GIF holds it: in the colours of its palette
    export = _export(cls, settings, int(frame_indices(page, times)[1]), tmp_path)
    held = _in_colors(export, frames[1])
    # pixel for pixel (a line drawn over the moving one, a legend it passes under: all
    # as the export draws them)
    assert _differing(frames[1], held) == 0, f"frame 1 is not the page at t = {times[1]}"
    # the other frames are other times: the marks moved
    assert min(_differing(frames[0], held), _differing(frames[2], held)) > 300
    assert page.t is None  # the page itself was not moved


def test_a_runs_own_timeline_animates_as_its_panels_at_t_k(tmp_path, capsys):
    """The DSG page's run (its timeline: the averaged iterate at the run's steps): frame k of
    the GIF is the export of the run's panels at the run's time t_k; the file names the run,
    and ``ldx-export --from`` computes the run and rebuilds the animation."""
    settings = {"points": 200, "curve.steps": 64}
    page = DSGExplorer(**settings)
    with pytest.raises(ValueError, match="^run 'curve' has no result"):
        page.animate(tmp_path / "film.gif", run="curve")
    page.jobs["curve"].compute()
    count = len(page.frames("curve"))
    # the compared frame's title ("Step t = 40 of 64") as wide as the widest: the same box
    times = [int(page.frames("curve").t[i]) for i in (0, count - 3, count - 1)]
    path = page.animate(tmp_path / "film.gif", frames=times, fps=5, run="curve")
    frames = _gif(path)
    assert len(frames) == 3
    i = int(frame_indices(page, times, run="curve")[1])
    fresh = DSGExplorer(**settings)
    fresh.jobs["curve"].compute()
    fresh.set_time("curve", int(fresh.frames("curve").t[i]))
    only = tuple(p.method for p in fresh.jobs["curve"].run.plots)
    export = export_figure(fresh.figure(only, landscape_columns(len(only))),
                           tmp_path / "export.png",
                           title=frame_title(fresh, i, run="curve"), dpi=ANIMATION_DPI)
    export = np.asarray(Image.open(export).convert("RGB"))
    held = _in_colors(export, frames[1])
    assert _differing(frames[1], held) == 0, f"frame 1 is not the run at t = {times[1]}"
    assert _differing(frames[0], held) > 300  # the iterate and the ring moved
    assert page.time_of("curve") is None  # the run's own time was not moved
    query, _ = stamp.read_state(path)
    assert query["run"] == ["curve"] and query["curve.steps"] == ["64"] and "t" not in query
    assert export_cli.main(["--from", str(path), "--frames", "2"]) == 0
    rebuilt = pathlib.Path(capsys.readouterr().out.split()[-1])
    assert rebuilt.name.endswith("_run-curve.gif") and len(_gif(rebuilt)) == 2
    with pytest.raises(ValueError, match="^run must be None or the name"):
        page.animate(tmp_path / "film.gif", run="nope")
    with pytest.raises(TypeError, match="^run must be None"):
        page.animate(tmp_path / "film.gif", run=1)
    # the run's buttons sit beside its timeline control
    buttons = Page(page).animation_buttons("curve")
    assert [b.label for b in buttons] == ["GIF", "MP4"]
    assert buttons[0].filename.endswith("_run-curve.gif")


def test_the_mp4_reads_back_frame_by_frame(tmp_path):
    import imageio.v2 as imageio

    page = NeuronExplorer(max_word=12, stripes=20)
    path = page.animate(tmp_path / "film.mp4", frames=4, fps=8)
    reader = imageio.get_reader(path, format="FFMPEG")
    try:
        assert reader.get_meta_data()["fps"] == pytest.approx(8)
        frames = [np.asarray(frame) for frame in reader]
    finally:
        reader.close()
    assert len(frames) == 4
    height, width = frames[0].shape[:2]
    assert height % 2 == 0 and width % 2 == 0
    # H.264 is lossy: the last frame is near the page's export at its time, nearer than to
    # the first frame's (the ringed weight and the veil over the future moved)
    last = _export(NeuronExplorer, dict(max_word=12, stripes=20), len(page.frames()) - 1,
                   tmp_path)[:height, :width].astype(float)
    near = np.abs(frames[-1] - last).mean()
    assert near < 3 and near < np.abs(frames[0] - last).mean() / 2
    # the state rebuilds the page (without the time: an animation shows every time)
    query, version = stamp.read_state(path)
    assert version == stamp.VERSION and query["stripes"] == ["20"] and "t" not in query


def test_ldx_export_writes_an_animation_that_carries_the_state(tmp_path, capsys):
    target = tmp_path / "neuron.gif"
    assert export_cli.main(["--query", "page=neuron&stripes=20", "-o", str(target),
                            "--frames", "2", "--fps", "4"]) == 0
    assert capsys.readouterr().out.split()[-1] == str(target)
    with Image.open(target) as gif:
        assert gif.n_frames == 2 and gif.info["duration"] == 250
    query, _ = stamp.read_state(target)
    assert query["page"] == ["neuron"] and query["stripes"] == ["20"] and "t" not in query


@pytest.fixture(scope="module")
def neuron():
    return NeuronExplorer()


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(path="film.png"), ValueError, "path"),
    (dict(path="film"), ValueError, "path"),
    (dict(fps=0), ValueError, "fps"),
    (dict(fps=float("nan")), ValueError, "fps"),
    (dict(fps=1000), ValueError, "fps"),
    (dict(fps="10"), TypeError, "fps"),
    (dict(fps=True), TypeError, "fps"),
    (dict(frames=0), ValueError, "frames"),
    (dict(frames=10**6), ValueError, "frames"),
    (dict(frames=2.5), TypeError, "frames"),
    (dict(frames="10"), TypeError, "frames"),
    (dict(frames=[]), ValueError, "frames"),
    (dict(frames=[1, 10**9]), ValueError, "frames"),
    (dict(frames=[1.5]), TypeError, "frames"),
    (dict(frames=object()), TypeError, "frames"),
])
def test_bad_input_is_refused_by_name(neuron, tmp_path, kwargs, error, name):
    kwargs = dict(kwargs)
    path = tmp_path / kwargs.pop("path", "film.gif")
    with pytest.raises(error, match=rf"^{name} must"):
        neuron.animate(path, **kwargs)
    assert not path.exists() and not list(tmp_path.iterdir())


def test_only_pages_with_a_timeline_animate_and_show_the_buttons(neuron, tmp_path):
    with pytest.raises(ValueError, match="no timeline"):
        HBMExplorer().animate(tmp_path / "film.gif")
    buttons = [w for w in Page(neuron).downloads() if isinstance(w, pn.widgets.FileDownload)]
    assert [b.label for b in buttons] == ["PNG", "SVG", "PDF", "HTML", "GIF", "MP4"]
    # named like the static exports, without the time (an animation shows every time)
    neuron.t = int(neuron.frames().t[3])
    assert buttons[0].filename == f"{stamp.file_stem(neuron)}.png" and "t-" in buttons[0].filename
    assert buttons[-1].filename == f"{stamp.file_stem(neuron, time=False)}.mp4"
    neuron.t = None
    assert "GIF" not in [getattr(w, "label", None) for w in Page(HBMExplorer()).downloads()]
