"""The single-neuron page: Fig 1.9 at defaults, linked presets, bounds and Sturmian word counts."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from dynamics.neuron import GOLDEN_MEAN, RATE_PRESETS, rabbit_sequence
from views.pages.neuron import CUSTOM, STARTS, NeuronExplorer, _envelope

RABBIT, HALF, ZERO = list(STARTS)


def _stripes(explorer):
    """(herding row, rabbit row, note) of the stripes panel."""
    overlay = explorer.stripes_plot()
    rects = overlay.get(0)
    values = rects.dimension_values("s")
    n = len(values) // 2
    return values[:n].astype(int), values[n:].astype(int), overlay.get(1).text


def _element(overlay, kind):
    return next(e for e in overlay if isinstance(e, kind))


def test_default_page_is_fig_1_9_the_rabbit_sequence():
    explorer = NeuronExplorer()
    assert explorer.rate == GOLDEN_MEAN and explorer.w0 == 2 * GOLDEN_MEAN - 1
    assert explorer.preset == next(iter(RATE_PRESETS)) and explorer.start == RABBIT
    herding, rabbit, note = _stripes(explorer)
    assert len(herding) == explorer.stripes
    np.testing.assert_array_equal(herding, rabbit_sequence(explorer.stripes))
    np.testing.assert_array_equal(rabbit, rabbit_sequence(explorer.stripes))
    assert "identical" in note


def test_other_rates_show_the_rabbit_anyway_with_a_note():
    explorer = NeuronExplorer(rate=0.3)
    herding, rabbit, note = _stripes(explorer)
    np.testing.assert_array_equal(rabbit, rabbit_sequence(explorer.stripes))
    assert not np.array_equal(herding, rabbit)
    assert "golden mean" in note and "differ" in note


def test_choosing_a_preset_sets_the_rate_and_w0_follows_the_start():
    explorer = NeuronExplorer()
    explorer.preset = "pi - 3"
    assert explorer.rate == RATE_PRESETS["pi - 3"]
    assert explorer.w0 == 2 * explorer.rate - 1 and explorer.start == RABBIT
    explorer.start = HALF
    assert explorer.w0 == explorer.rate - 0.5
    explorer.preset = "2/5 (rational)"
    assert explorer.rate == 0.4 and explorer.w0 == 0.4 - 0.5 and explorer.start == HALF
    explorer.start = ZERO
    assert explorer.w0 == 0.0


def test_typing_a_rate_or_w0_shows_custom():
    explorer = NeuronExplorer()
    explorer.rate = 0.3
    assert explorer.preset == CUSTOM and explorer.w0 == 2 * 0.3 - 1
    explorer.rate = RATE_PRESETS["1/sqrt2"]  # typing a preset's value selects it
    assert explorer.preset == "1/sqrt2"
    explorer.w0 = 0.1
    assert explorer.start == CUSTOM
    explorer.rate = 0.2  # a custom w0 stays put
    assert explorer.w0 == 0.1 and explorer.preset == CUSTOM
    # constructor arguments (a shared URL) are kept and the selectors agree with them
    shared = NeuronExplorer(rate=0.25, w0=0.05)
    assert (shared.preset, shared.start, shared.rate, shared.w0) == (CUSTOM, CUSTOM, 0.25, 0.05)
    assert NeuronExplorer(preset="2/5 (rational)").w0 == 2 * 0.4 - 1


def test_a_linked_change_is_one_batch_of_events():
    # one redraw per move: the plots watch every knob, so linked knobs must change together
    explorer = NeuronExplorer()
    batches = []
    explorer.param.watch(lambda *events: batches.append({e.name for e in events}),
                         ["preset", "rate", "start", "w0"])
    explorer.rate = 0.3
    explorer.preset = "pi - 3"
    explorer.start = HALF
    assert batches == [{"preset", "rate", "w0"}, {"preset", "rate", "w0"}, {"start", "w0"}]


@pytest.mark.parametrize("start, bound, source",
                         [(RABBIT, 1.0, "Prop 1.5"), (HALF, 0.5, "Cor 1.6")])
def test_discrepancy_stays_within_the_bound_that_applies(start, bound, source):
    explorer = NeuronExplorer(start=start)
    overlay = explorer.discrepancy_plot()
    curve, bounds = overlay.get(0), overlay.get(1)
    assert source in bounds.label
    np.testing.assert_allclose(np.nanmax(np.abs(bounds.dimension_values(1))), bound)
    assert np.abs(curve.dimension_values(1)).max() <= bound + 1e-12


def test_far_start_uses_the_transient_bound():
    explorer = NeuronExplorer(w0=5.0)
    bounds = explorer.discrepancy_plot().get(1)
    assert "outside" in bounds.label
    B = np.nanmax(bounds.dimension_values(1))
    assert B == pytest.approx(5.0 - (GOLDEN_MEAN - 1.0))
    assert np.abs(explorer.discrepancy_plot().get(0).dimension_values(1)).max() <= B


def test_irrational_rate_is_sturmian():
    words = _element(NeuronExplorer().words_plot(), hv.Scatter)
    T = words.dimension_values(0)
    np.testing.assert_array_equal(words.dimension_values(1), T + 1)


@pytest.mark.parametrize("rate, q", [(0.4, 5), (0.3, 10)])
def test_rational_rate_shows_saturating_words(rate, q):
    explorer = NeuronExplorer(rate=rate)
    words = _element(explorer.words_plot(), hv.Scatter)
    M = words.dimension_values(1)
    T = words.dimension_values(0)
    np.testing.assert_array_equal(M, np.minimum(T + 1, q))
    assert f"q = {q}" in words.label


def test_weights_stay_in_the_invariant_interval():
    explorer = NeuronExplorer(rate=RATE_PRESETS["1/sqrt2"], stripes=200)
    w = _element(explorer.weights_plot(), hv.Curve).dimension_values(1)
    assert len(w) == 201
    assert np.all((w > explorer.rate - 1) & (w <= explorer.rate))


def test_envelope_keeps_extremes_of_long_runs():
    y = np.sin(np.arange(100_003) * 0.37) * np.linspace(0, 1, 100_003)
    T, e = _envelope(y, 500)
    assert len(T) <= 2 * 500 + 1 and np.all(np.diff(T) >= 0)
    T2, e2 = _envelope(y[:100_000], 500)  # a multiple of the block count
    assert e2.max() == y[:100_000].max() and e2.min() == y[:100_000].min()
    assert e.max() == y.max() and e.min() == y.min() and T[-1] == y.size
    np.testing.assert_array_equal(e, y[T - 1])
    short = np.arange(10.0)
    np.testing.assert_array_equal(_envelope(short, 500)[1], short)
