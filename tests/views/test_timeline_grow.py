"""Pictures that build up in time (issue 49 item 2): on every page with a timeline, the export
at the first frame's time differs from the one at the end and holds only what happened by then;
on herding and torus the drawn points are the engine's states up to t; a dense cloud's raster
lights exactly the pixels visited by t; animations start at t = 0 and build up, of the panels
that move (landscape) or of the panels named."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest
from PIL import Image

from dynamics import herding, torus
from views import EXPLORERS
from views.framework.animation import ANIMATION_DPI, check_panels, frame_title, landscape_columns
from views.framework.figure import count_points, dense, export_figure
from views.framework.marks import Mark, grown, grows
from views.pages.herding import HerdingExplorer
from views.pages.torus import TorusExplorer

from ._url_fuzz import size_knobs

def cloud_plot(self):  # the panel the mark below is declared on
    return None


#: A cloud building up along its points' steps ``t``.
_GROW = Mark(cloud_plot, "grow", x="t", dims=("t",))

TIMED = [slug for slug, cls in EXPLORERS.items() if cls.timeline is not None]


def _layers(figure, page, only=None):
    """(panel key, layer) of every layer of the exported figure."""
    names = only or [p.method for p in page.panels()]
    for name, item in zip(names, figure):
        for layer in (item if isinstance(item, hv.Overlay) else [item]):
            yield name, layer


def _amount(layer) -> int:
    """What a layer draws: its rows, or a raster's lit pixels."""
    if isinstance(layer, hv.Image):
        return int(np.count_nonzero(layer.dimension_values(2) > 0))
    return len(layer)


@pytest.mark.parametrize("slug", TIMED)
def test_every_timeline_page_draws_at_t_only_what_happened_by_t(slug):
    cls = EXPLORERS[slug]
    page, _ = cls.from_query({k: [v] for k, v in size_knobs(cls).items()})
    grows_on = {m.plot: m for m in page.timeline.marks if m.kind == "grow"}
    assert grows_on, f"{slug}: no panel builds up in time"
    frames = page.frames()
    end = {}
    for name, layer in _layers(page.figure(), page):
        if name in grows_on:
            end.setdefault(name, []).append(_amount(layer))
    page.t = int(frames.t[0])
    start = {}
    for name, layer in _layers(page.figure(), page):
        mark = grows_on.get(name)
        if mark is None:
            continue
        start.setdefault(name, []).append(_amount(layer))
        value = mark.data(frames, 0)
        dim = mark.dims[0]
        if layer.get_dimension(dim) is not None and not isinstance(layer, hv.Image) \
                and not str(layer.label).startswith(tuple(mark.keep) or ("\0",)):
            values = np.asarray(layer.dimension_values(dim), float)
            assert not np.any(values > value), f"{slug} {name}: drawn beyond t"
    # the picture at the first frame is not the picture at the end: some layer drew less
    assert any(s < e for name in end for s, e in zip(start[name], end[name])), slug


def test_herding_export_at_t_holds_the_engines_weights_up_to_t():
    page = HerdingExplorer(steps=2000)
    model = herding.random_model(6, 2, seed=1)
    w = herding.herd(model.features, model.moments, 2000, w0=np.zeros(2), eta=1.0).weights
    for t in (150, 900):
        page.t = t
        layers = list(list(page.figure(("cones_plot",)))[0])
        cloud = [layer for layer in layers if isinstance(layer, hv.Points)
                 and layer.get_dimension("t") is not None]
        assert len(cloud) == 1  # 1,901 points: drawn as points in an export
        drawn = np.column_stack([cloud[0].dimension_values(0), cloud[0].dimension_values(1)])
        np.testing.assert_array_equal(drawn, w[100:t + 1, :2])  # the burn-in left out
        moment = list(page.figure(("moment_plot",)))[0]
        error = next(layer for layer in moment if layer.label == "herding")
        assert error.dimension_values("T").max() <= t < page.result().error.t[-1]


def test_torus_export_at_t_holds_the_orbits_visits_up_to_t():
    page = TorusExplorer(steps=2000)
    features, moments = torus.irrational_rotation_model(seed=4)
    weights = herding.herd(features, moments, 2000).weights
    coords = torus.lattice_coordinates(features, weights)
    for t in (0, 7, 600):
        page.t = t
        figure = list(page.figure(("torus_plot", "rational_plot")))
        cloud = next(layer for layer in figure[0] if isinstance(layer, hv.Points)
                     and layer.get_dimension("t") is not None)
        drawn = np.column_stack([cloud.dimension_values(0), cloud.dimension_values(1)])
        np.testing.assert_allclose(drawn, coords[:t + 1])
        visits = next(layer for layer in figure[1] if isinstance(layer, hv.Points)
                      and layer.get_dimension("t") is not None)
        assert len(visits) == min(t + 1, page.q)
        np.testing.assert_allclose(visits.dimension_values(0),
                                   page.result().rational_coords[:min(t + 1, page.q), 0])


def test_a_dense_clouds_raster_lights_exactly_the_pixels_visited_by_t():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(2, 20_000))
    steps = np.arange(len(x), dtype=float)
    cloud = hv.Points((x, y, steps), kdims=["x", "y"], vdims=["t"])
    raster = dense(cloud, threshold=0, x_range=(-3, 3), y_range=(-3, 3), width=120,
                   height=100, first="t")
    assert grows(raster, _GROW)
    for t in (0, 50, 4_000, 19_999):
        _, _, counts = count_points(x[:t + 1], y[:t + 1], (-3, 3), (-3, 3), 120, 100)
        lit = grown(raster, _GROW, t).dimension_values(2, flat=False) > 0
        np.testing.assert_array_equal(lit, np.nan_to_num(counts) > 0)




def _gif(path) -> list[np.ndarray]:
    with Image.open(path) as gif:
        out = []
        for k in range(gif.n_frames):
            gif.seek(k)
            out.append(np.asarray(gif.convert("RGB")))
    return out


def _near(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels that differ by more than a GIF palette's rounding."""
    return float(np.mean(np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 40))


@pytest.mark.parametrize("cls", [HerdingExplorer, TorusExplorer], ids=["herding", "torus"])
def test_the_gif_starts_at_t_0_builds_up_and_is_landscape(cls, tmp_path):
    page = cls(steps=2000)
    path = page.animate(tmp_path / "film.gif", frames=3, fps=5)
    frames = _gif(path)
    height, width = frames[0].shape[:2]
    assert width > height  # landscape: the panels that move, in a row
    assert _near(frames[0], frames[-1]) > 0.005  # the picture built up
    # the first frame is the export at t = 0 of the same panels: only what happened by then
    fresh = cls(steps=2000)
    fresh.t = 0
    panels = check_panels(fresh)
    export = export_figure(fresh.figure(panels, landscape_columns(len(panels))),
                           tmp_path / "t0.png", title=frame_title(fresh, 0), dpi=ANIMATION_DPI)
    export = np.asarray(Image.open(export).convert("RGB"))
    assert export.shape == frames[0].shape
    assert _near(frames[0], export) < 0.002


def test_animate_panels_gives_the_panels_named(tmp_path):
    page = HerdingExplorer(steps=2000)
    path = page.animate(tmp_path / "one.gif", frames=2, panels=("cones_plot",))
    one = _gif(path)
    page.t = int(page.frames().t[-1])
    export = export_figure(page.figure(("cones_plot",), 1), tmp_path / "one.png",
                           title=frame_title(page, len(page.frames()) - 1), dpi=ANIMATION_DPI)
    export = np.asarray(Image.open(export).convert("RGB"))
    # one panel: the export of that panel alone (the film's box also holds its widest title)
    assert one[-1].shape[0] == export.shape[0]
    assert abs(one[-1].shape[1] - export.shape[1]) < 0.05 * export.shape[1]
    for bad, error in ((("nope",), ValueError), ("cones_plot", TypeError), ((), ValueError),
                       ((1,), TypeError)):
        with pytest.raises(error, match="^panels must"):
            page.animate(tmp_path / "bad.gif", frames=2, panels=bad)


def test_landscape_columns():
    assert [landscape_columns(n) for n in range(1, 10)] == [1, 2, 3, 4, 3, 3, 4, 4, 3]


def test_a_rasters_first_frames_show_each_pixel_at_the_first_frame_at_or_after_its_visit():
    from views.framework.timeline import first_frames

    t = np.array([0, 5, 10, 15])  # strided frames
    first = np.array([[0.0, 1.0, 5.0], [6.0, 15.0, np.nan]])
    index = first_frames(first, t)
    assert index.dtype == np.uint16
    np.testing.assert_array_equal(index, [[0, 1, 1], [2, 3, 65_535]])
    # lit at frame i exactly when visited by its time t_i
    for i in range(len(t)):
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(index <= i, first <= t[i])


@pytest.mark.parametrize("slug", TIMED)
def test_every_timeline_plays_in_about_fifteen_seconds_and_says_its_pace(slug):
    """The default pace on every page with a timeline (at its small sizes): the whole run in
    10-20 s when it has the frames to fill it, and the control says how far t advances a
    second in the timeline's unit ("t advances 1,322 steps a second")."""
    import math

    from views.framework.player import PLAY_SECONDS, pace, pace_text

    cls = EXPLORERS[slug]
    page, _ = cls.from_query({k: [v] for k, v in size_knobs(cls).items()})
    frames = page.frames()
    interval, step = pace(len(frames))
    seconds = math.ceil((len(frames) - 1) / step) * interval / 1000
    if len(frames) - 1 >= PLAY_SECONDS:
        assert 10 <= seconds <= 20, (slug, len(frames), seconds)
    text = pace_text(frames.t, interval, step, unit=page.timeline.unit)
    rate = (frames.t[-1] - frames.t[0]) / seconds
    assert text.startswith(f"Plays in about {seconds:.0f} s: t advances ")
    assert text.endswith(" a second.")
    assert f"{rate:,.0f}" in text or f"{rate:.2g}" in text
