"""The Doeblin explorer: chains and restart laws, per-panel redraws, the sampling race's
checkpoints on the timeline, the staged chain, and the experiments (cached, shown and exported once run)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

import views.pages.doeblin as vd
from dynamics import doeblin as db
from dynamics.papers import CHEN_WELLING
from views import EXPLORERS
from views.pages.doeblin import DoeblinExplorer
from views.framework.jobs import cached_result
from views.framework.text import verdict_markdown
from views.framework.page import Page

#: Small experiment settings (a second or two each).
SMALL = {"word.transitions": 5, "word.epochs": 1, "word.seeds": 1, "dnf.trials": 5}


def _arrays(element) -> list[np.ndarray]:
    out = []
    for el in element.traverse(lambda e: e, [hv.Element]):
        for d in el.dimensions():
            v = el.dimension_values(d)
            if v.dtype.kind in "fiu":
                out.append(np.asarray(v, dtype=float))
    return out


def _first(overlay, kind):
    return next(el for el in overlay if isinstance(el, kind))


def _same(a, b) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and np.allclose(x, y, equal_nan=True) for x, y in zip(a, b))


def test_registered_after_the_chen_welling_pages():
    slugs = list(EXPLORERS)
    before = slugs[: slugs.index("doeblin")]
    assert EXPLORERS["doeblin"] is DoeblinExplorer and len(before) >= 4
    assert all(EXPLORERS[s].paper is CHEN_WELLING for s in before)


def test_first_slider_is_delta_and_changes_the_first_panel():
    # the browser test moves the first slider of the sidebar and expects the first plot to change
    e = DoeblinExplorer()
    controls = Page(e).controls()
    first_slider = next(w for w in controls.select(lambda o: hasattr(o, "start")
                                                    and hasattr(o, "end")
                                                    and type(o).__name__.endswith("Slider")))
    assert first_slider.name.startswith("Mode escape, log₁₀ δ")
    before = _arrays(e.stationary_plot())
    e.log_delta = e.log_delta + 0.2
    assert not _same(before, _arrays(e.stationary_plot()))


def test_fig1_curve_shows_both_regimes():
    e = DoeblinExplorer()  # three-state chain, delta = 1e-4, tracked state 1
    curve = _first(e.stationary_plot(), hv.Curve)
    eps = curve.dimension_values(0)
    p = curve.dimension_values(1)
    assert p[eps < 1e-7].min() > 0.499  # eps << delta: pi_1 ~ 0.49993
    mid = (eps > 1e-2) & (eps < 3e-2)
    assert np.all(np.abs(p[mid] - 4 / 9) < 0.02)  # delta << eps << 1: about 4/9


@pytest.mark.parametrize("chain", ["three-state", "random", "barbell"])
@pytest.mark.parametrize("restart", ["uniform", "point", "chain"])
def test_every_chain_and_restart_law_draws(chain, restart):
    e = DoeblinExplorer(chain=chain, restart=restart, size=6, restart_state=9, state=9, start=9)
    figure = e.figure()
    assert e.error == "" and len(figure) == len(DoeblinExplorer.plots)
    res = e.result()
    n = res.setup.P.shape[0]
    assert res.state == n - 1  # knobs beyond n are clamped
    if restart == "point":
        assert res.setup.u[n - 1] == 1.0
    if restart == "chain":
        np.testing.assert_allclose(res.setup.u, db.stationary(res.setup.simple))


def test_irrelevant_knobs_do_not_recompute_the_three_state_chain():
    e = DoeblinExplorer()
    key = e.chain_key()
    e.param.update(sparsity=0.1, seed=5, size=12)
    assert e.chain_key() == key
    e.chain = "random"
    assert e.chain_key() != key


def _race_at(e, t):
    """The race panel as the page draws it at time ``t`` (its bars are the timeline's)."""
    e.t = t
    plot = next(p for p in e.plots if p.method == "race_plot")
    return e.clock.with_marks(plot, e.race_plot())


def test_the_timeline_moves_only_the_race_panels():
    e = DoeblinExplorer(log_budget=4.0)
    race = e.result().race
    assert len(race.checkpoints) > 10
    assert list(e.frames().t) == list(race.checkpoints)
    early = _arrays(_race_at(e, int(race.checkpoints[3])))
    assert not _same(early, _arrays(_race_at(e, int(race.checkpoints[-1]))))
    assert {m.plot for m in e.timeline.marks} == {"race_plot", "race_tv_plot"}
    assert "checkpoint" not in e.param


@pytest.mark.parametrize("c", [0, 20, vd.N_CHECKPOINTS - 1])
def test_race_histograms_at_t_are_the_engines(c):
    e = DoeblinExplorer(log_budget=4.0)
    race = e.result().race
    bars = [el for el in _race_at(e, int(race.checkpoints[c]))
            if isinstance(el, hv.Rectangles)
            and np.isfinite(el.dimension_values(0)).any()]  # not the legend's NaN layers
    np.testing.assert_allclose(bars[0].dimension_values("p1"), race.restart_histograms[c],
                               rtol=1e-6)
    np.testing.assert_allclose(bars[1].dimension_values("p1"), race.plain_histograms[c],
                               rtol=1e-6)
    s = db.sample_restart(e.result().setup.P, e.result().setup.u, e.eps,
                          round(1e4 * e.eps), start=0, n_checkpoints=vd.N_CHECKPOINTS, seed=e.seed)
    np.testing.assert_allclose(s.restart_histograms, race.restart_histograms)
    np.testing.assert_allclose(s.plain_histograms, race.plain_histograms)


def test_staged_panel_respects_the_bounds():
    res = DoeblinExplorer().result()
    assert np.all(res.staged.gaps >= res.bounds.theorem - 1e-12)
    ok = np.isfinite(res.bounds.corollary)
    assert ok.any() and np.all(res.staged.gaps[ok] >= res.bounds.corollary[ok])


def test_failed_computation_shows_an_alert_and_keeps_the_last_plot(monkeypatch):
    e = DoeblinExplorer()
    good = _arrays(e.stationary_plot())

    def refuse(key):
        raise ValueError("delta must lie in (0, 0.5], got a test value")

    monkeypatch.setattr(vd, "build_chain", refuse)
    e.log_delta = -3.0
    assert _same(good, _arrays(e.stationary_plot()))
    assert "test value" in e.error
    monkeypatch.undo()
    e.log_delta = -4.0
    assert _same(good, _arrays(e.stationary_plot())) and e.error == ""


def test_page_builds_with_the_timeline_and_placeholders():
    e = DoeblinExplorer()
    body = Page(e).panel()
    body.get_root(Document())
    players = body.select(lambda o: isinstance(o, pn.widgets.Player))
    assert len(players) == 1 and players[0].end == vd.N_CHECKPOINTS - 1
    text = " ".join(str(getattr(o, "object", "")) for o in body.select(lambda o: True))
    assert "Click **Run the word task**" in text and "Click **Run the DNF search**" in text


def test_experiments_run_cache_show_and_export(tmp_path):
    e = DoeblinExplorer(**SMALL)
    body = Page(e).panel()
    body.get_root(Document())
    reports = []
    word = e.jobs["word"].compute(progress=lambda f, m: reports.append((f, m)))
    assert reports and reports[-1][0] == pytest.approx(1.0)
    assert word.word_mean.shape == (2, 4)
    # cached across explorers (sessions): a second run is instant and reports nothing
    other = DoeblinExplorer(**SMALL)
    run = other.jobs["word"].run
    assert cached_result(other, run, other.jobs["word"].current_settings()) is word
    again = []
    assert other.jobs["word"].compute(progress=lambda f, m: again.append(f)) is word
    assert again == []
    e.jobs["dnf"].compute()
    # the figure grows by the experiments' panels once they are run
    figure = e.figure()
    assert len(figure) == len(DoeblinExplorer.plots) + 3
    assert len(DoeblinExplorer().figure()) == len(DoeblinExplorer.plots)
    path = e.export(tmp_path / "with-experiments.png")
    assert path.stat().st_size > 10_000
    summary = e.jobs["word"].run.summary(e.jobs["word"].settings, word)
    assert "best final word accuracy" in summary and any(m in summary for m in word.methods)
    table = e.jobs["dnf"].run.extra(e.jobs["dnf"].settings, e.jobs["dnf"].result)
    assert len(table.splitlines()) == 2 + 3 and "2-stage" in table


def test_summaries_say_whether_the_run_agrees_with_the_paper():
    """The page's sentence about the outcome is the verdict of the paper's claim, generated from
    the result (it cannot go stale) by the function the gallery calls too
    (``dynamics.doeblin.word_order_claim``, ``staged_restarts_claim``: their rules are tested
    in tests/dynamics/test_claims.py)."""
    e = DoeblinExplorer(**SMALL)
    for name, claim in (("word", db.word_order_claim), ("dnf", db.staged_restarts_claim)):
        result = e.jobs[name].compute()
        summary = e.jobs[name].run.summary(e.jobs[name].settings, result)
        verdict = claim(result)
        assert summary.endswith(verdict_markdown(verdict))
        # a word run of one seed is not judged (at least 3: dynamics.doeblin.WORD_MIN_SEEDS)
        assert {True: "**Reproduced", False: "**Differs", None: "**Not decided"}[verdict.agrees] \
            in summary
    assert "a verdict needs at least 3" in e.jobs["word"].run.summary(
        e.jobs["word"].settings, e.jobs["word"].result)
    assert all("What the default run shows" not in run.text for run in DoeblinExplorer.runs)


#: Another value for every knob of the static panels.
OTHER = dict(chain="barbell", log_delta=-3.0, size=10, sparsity=0.2, reversible=False, seed=4,
             restart="point", restart_state=2, log_eps=-1.5, state=2, log_eps_min=-6.0,
             eps_points=50, log_budget=4.5, start=3, log_eps1=-0.5)


@pytest.mark.parametrize("base", [dict(), dict(chain="random")])
def test_every_panel_lists_the_knobs_it_reads(base):
    # a panel whose data changes with a knob must redraw on it (its Plot.depends)
    for knob, value in OTHER.items():
        if knob in base:
            continue
        e = DoeblinExplorer(**base)
        before = {p.method: _arrays(getattr(e, p.method)()) for p in DoeblinExplorer.plots}
        e.param.update(**{knob: value})
        for p in DoeblinExplorer.plots:
            if not _same(before[p.method], _arrays(getattr(e, p.method)())):
                assert knob in p.depends, (knob, p.method)


def test_the_experiments_settings_are_their_runs_and_older_links_still_open_them():
    """The experiments' settings belong to their runs (``word.noise``, ``dnf.trials``): an
    older link's names (``word_noise``, ``trials``) open them, the page writes the new names,
    and the counts stay typed fields in the run's card. The runs read no page knob: moving the
    chain leaves their settings (and so their cached results) alone."""
    from views.framework.field import Field

    old = {"word_channel": "uniform", "word_noise": "0.3", "word_length": "6",
           "transitions": "7", "epochs": "2", "seeds": "3", "trials": "9"}
    opened, messages = DoeblinExplorer.from_query({k: [v.encode()] for k, v in old.items()})
    assert messages == []
    word, dnf = opened.jobs["word"].run, opened.jobs["dnf"].run
    assert word.settings() == dict(channel="uniform", noise=0.3, length=6, transitions=7,
                                   epochs=2, seeds=3)
    assert dnf.settings() == {"trials": 9}
    query = opened.query()
    assert query["word.noise"] == "0.3" and query["dnf.trials"] == "9"
    assert not set(old) & set(query)
    again, more = DoeblinExplorer.from_query({k: [v] for k, v in query.items()})
    assert more == [] and again.query() == query
    opened.chain = "random"
    assert word.settings()["transitions"] == 7 and dnf.settings() == {"trials": 9}
    for run in (word, dnf):
        for name in run.fields:
            assert isinstance(Page(opened).control(name, run=run), Field), name
