"""Doeblin explorer: restarts make any chain mix fast, at the price of a biased stationary law.

Reproduces Figs 1 and 2 and the experiments of Fig 4 and Table 1 of Steinhardt & Liang,
*Learning Fast-Mixing Models for Structured Prediction*: the stationary law of the strong Doeblin
chain P~ = (1 - eps) P + eps 1 u^T against eps (Fig 1, right) with both KL divergences and the
Mahalanobis bound (Props 3.2-3.5), its spectral gap and eigenvalues (Prop 3.1), a race between
exact restart sampling and the plain chain for the same budget, the staged chain of Fig 2(b)
against Thm 3.6 and Cor 3.7, and, on demand, the word-task learning curves (Fig 4) and the DNF
search times (Table 1), which take about half a minute each and run off the event loop.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import holoviews as hv
import numpy as np
import param

from dynamics import doeblin as db
from views.framework.legacy_runs import Run
from dynamics.papers import STEINHARDT
from views.framework.cache import results_cache
from views.framework.marks import legend_layer
from views.framework.text import prose, verdict_markdown
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Section, Timeline, style)
from views.pages.doeblin.experiments import (DNF_KEYS, DNF_SECONDS_PER_TRIAL, WORD_KEYS,
                                       WORD_SECONDS_PER_UNIT, dnf_table_markdown,
                                       experiment_summary, word_task_settings)

#: Budgets at which the sampling race records both histograms (the timeline's frames).
N_CHECKPOINTS = 60
#: The "simpler chain" of the three-state and barbell chains: the same chain with the mode
#: escape delta raised to this (it mixes in ~10 steps).
SIMPLE_DELTA = 0.1
#: Grid of restart rates eps_2 of the staged-chain panel (Thm 3.6's cost grows like 1/eps_2^2).
STAGED_EPS2 = tuple(np.geomspace(10**-2.5, 1.0, 18))
#: Points of the unit circle drawn in the eigenvalue panel.
CIRCLE = np.exp(2j * np.pi * np.linspace(0.0, 1.0, 121))

RESTART_COLOR, CHAIN_COLOR, STAGED_COLOR, DIVERGENCE_COLOR = (
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd")
METHOD_COLORS = {"doeblin": "#d62728", "doeblin-edit": "#ff7f0e", "u-gibbs": "#1f77b4",
                 "basic-gibbs": "#2ca02c", "0-stage": "#1f77b4", "1-stage": "#ff7f0e",
                 "2-stage": "#d62728"}
#: Elements hold plain dicts of arrays: HoloViews' default, a pandas DataFrame, costs several
#: ms per element on every redraw (conversion, cloning by .opts, range computation).
_DICT = ["dictionary"]
Curve, Scatter, Rectangles, Segments, Points, Spread, ErrorBars = (
    functools.partial(cls, datatype=_DICT) for cls in (
        hv.Curve, hv.Scatter, hv.Rectangles, hv.Segments, hv.Points, hv.Spread, hv.ErrorBars))
#: Width over height of a live plot's frame, to keep circles round without data_aspect: the
#: frame of two plots to a row at 1440 x 900 with a row of legend below (432 x 296 px; a
#: plot alone on its row at 1024 x 768 is wider, 565 px, and draws them flatter).
LIVE_FRAME_RATIO = 1.45
EPS = hv.Dimension("eps", label="restart probability ε")
STATE = hv.Dimension("state", label="state y")
PROB = hv.Dimension("p", label="probability")


# ============================================================== computations (cached)


class ChainKey(NamedTuple):
    """The knobs that define P, the simpler chain and u, with irrelevant ones normalised away
    (so that moving the seed of a random chain does not recompute the three-state chain)."""

    chain: str
    delta: float
    size: int
    sparsity: float
    reversible: bool
    seed: int
    restart: str
    restart_state: int


@dataclass(frozen=True)
class ChainSetup:
    """The chain P, the simpler chain (restart law "chain", staged chain's middle stage), u."""

    P: np.ndarray
    simple: np.ndarray
    u: np.ndarray
    pi: np.ndarray
    gap: float


@results_cache
def build_chain(key: ChainKey) -> ChainSetup:
    """P, the simpler chain and u for one set of chain knobs (cached)."""
    if key.chain == "three-state":
        P = db.three_state_chain(key.delta)
        simple = db.three_state_chain(max(key.delta, SIMPLE_DELTA))
    elif key.chain == "barbell":
        P = db.barbell_chain(key.size // 2, bridge=key.delta)
        simple = db.barbell_chain(key.size // 2, bridge=max(key.delta, SIMPLE_DELTA))
    else:
        P = db.random_chain(key.size, sparsity=key.sparsity, reversible=key.reversible,
                            seed=key.seed)
        # the same weights without the zeros: a denser, faster-mixing relative of P
        simple = db.random_chain(key.size, sparsity=0.0, reversible=key.reversible,
                                 seed=key.seed)
    n = P.shape[0]
    u = db.restart_law(key.restart, n, state=key.restart_state, chain=simple)
    return ChainSetup(P=P, simple=simple, u=u, pi=db.stationary(P), gap=db.spectral_gap(P))


@results_cache
def eps_sweep(key: ChainKey, log_eps_min: float, points: int) -> db.RestartSweep:
    """Props 3.1-3.5 over a log grid of eps from 10^log_eps_min to 1 (cached)."""
    setup = build_chain(key)
    return db.restart_sweep(setup.P, setup.u, np.geomspace(10.0**log_eps_min, 1.0, points))


@results_cache
def spectrum(key: ChainKey, eps: float) -> db.RestartSpectrum:
    """Eigenvalues of P and P~ at one eps (Prop 3.1, cached)."""
    setup = build_chain(key)
    return db.restart_spectrum(setup.P, setup.u, eps)


@dataclass(frozen=True)
class Race:
    """The sampling race without its trajectories (which can hold millions of states)."""

    checkpoints: np.ndarray
    completed: np.ndarray
    restart_histograms: np.ndarray
    plain_histograms: np.ndarray
    restart_law: np.ndarray
    stationary_law: np.ndarray
    restart_tv: np.ndarray
    restart_tv_pi: np.ndarray
    plain_tv: np.ndarray
    top: float


@results_cache
def sampling_race(key: ChainKey, eps: float, budget: int, start: int, seed: int) -> Race:
    """Exact draws from pi~ against the plain chain, the same number of steps (cached)."""
    setup = build_chain(key)
    draws = max(1, round(budget * eps))
    s = db.sample_restart(setup.P, setup.u, eps, draws, start=start, n_checkpoints=N_CHECKPOINTS,
                          seed=seed)
    top = max(float(s.restart_histograms.max()), float(s.plain_histograms.max()),
              float(s.restart_law.max()), float(s.stationary_law.max()))
    return Race(checkpoints=s.checkpoints, completed=s.completed,
                restart_histograms=s.restart_histograms, plain_histograms=s.plain_histograms,
                restart_law=s.restart_law, stationary_law=s.stationary_law,
                restart_tv=s.restart_tv, restart_tv_pi=s.restart_tv_pi, plain_tv=s.plain_tv,
                top=top)


@results_cache
def staged(key: ChainKey, eps1: float) -> db.StagedSweep:
    """The three-stage chain of Fig 2(b) over the eps_2 grid (cached)."""
    setup = build_chain(key)
    return db.staged_sweep(setup.P, setup.simple, setup.u, eps1, STAGED_EPS2)


@results_cache
def staged_bounds(eps1: float) -> db.StagedBounds:
    """Thm 3.6 and Cor 3.7: they depend on the stage chain only, not on P (cached)."""
    return db.staged_cycle_bounds(eps1, STAGED_EPS2)


@dataclass(frozen=True)
class DoeblinRun:
    """Everything the static panels draw for one parameter set."""

    setup: ChainSetup
    sweep: db.RestartSweep
    spectrum: db.RestartSpectrum
    race: Race
    staged: db.StagedSweep
    bounds: db.StagedBounds
    state: int
    eps: float


# ============================================================== the explorer


CHAIN_KNOBS = ("chain", "log_delta", "size", "sparsity", "reversible", "seed", "restart",
               "restart_state")
SWEEP_KNOBS = CHAIN_KNOBS + ("log_eps_min", "eps_points")
RACE_KNOBS = CHAIN_KNOBS + ("log_eps", "log_budget", "start")


BARS = {"exact": ("exact draws", RESTART_COLOR), "plain": ("plain chain", CHAIN_COLOR)}


def _bar_style(color: str) -> dict:
    return dict(color=color, bokeh=dict(line_color=None, alpha=0.8),
                mpl=dict(alpha=0.8, linewidth=0))


def _bars(sampler: str) -> Mark:
    """A sampler's histogram at the race's time t (``DoeblinExplorer.race_frames``)."""
    return Mark("race_plot", "rects", x=f"{sampler}_left", y="zero",
                more=(f"{sampler}_right", sampler), dims=(STATE, PROB, "x1", "p1"),
                always=True, options=_bar_style(BARS[sampler][1]))


class DoeblinExplorer(Explorer):
    """Strong Doeblin chains (eqs 1-3, Props 3.1-3.5, Sec 3.1) and their experiments (Sec 5)."""

    slug = "doeblin"
    title = "Doeblin mixing"
    summary = "Restart a slow chain with probability ε: it mixes in 1/ε steps, with a biased law."
    paper = STEINHARDT
    figures = "Figs 1, 2, 4 and Table 1; eqs 1-3, Props 3.1-3.5, Thm 3.6, Cor 3.7, Algorithm 1"

    # --- the chain ---------------------------------------------------------------------------
    chain = param.Selector(default="three-state", objects=["three-state", "random", "barbell"],
                           label="Chain P",
                           doc="The three-state chain of Fig 1, a random ergodic chain, or a "
                               "barbell: two dense clusters joined by one weak edge.")
    log_delta = param.Number(-4.0, bounds=(-6.0, -0.5), step=0.1,
                             label="Mode escape, log₁₀ δ (3-state, barbell)",
                             doc="log10 of the probability delta of leaving a mode: the "
                                 "three-state chain's delta (Fig 1 uses 1e-4) or the barbell's "
                                 "bridge. The chain mixes in about 1/delta steps.")
    size = param.Integer(8, bounds=(4, 40), label="States n (random, barbell)",
                         doc="Number of states of the random chain; the barbell has two "
                             "clusters of n/2 states.")
    sparsity = param.Number(0.5, bounds=(0.0, 0.95), step=0.05, label="Sparsity (random)",
                            doc="Fraction of the random chain's transition weights set to zero "
                                "(a cycle and the self-loops stay, so it is ergodic).")
    reversible = param.Boolean(True, label="Reversible (random)",
                               doc="Symmetrise the random chain's weights so that it satisfies "
                                   "detailed balance, the hypothesis of Prop 3.5.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the random chain and of both samplers of the race.")

    # --- the restart -------------------------------------------------------------------------
    restart = param.Selector(default="uniform",
                             objects={"uniform": "uniform", "point mass": "point",
                                      "stationary law of a simpler chain": "chain"},
                             label="Restart law u",
                             doc="Uniform; a point mass at one state; or the stationary law of a "
                                 "faster-mixing relative of P (delta raised to 0.1, or the random "
                                 "chain's weights without the zeros).")
    restart_state = param.Integer(3, bounds=(1, 40), label="Point mass at state",
                                  doc="State (1-based, clamped to n) of the point-mass restart.")
    log_eps = param.Number(-2.0, bounds=(-4.0, 0.0), step=0.1,
                           label="Restart probability, log₁₀ ε",
                           doc="log10 of eps for the eigenvalues, the sampling race and the "
                               "marker on the curves.")
    state = param.Integer(1, bounds=(1, 40), label="Tracked state y",
                          doc="State (1-based, clamped to n) whose probability the first panel "
                              "follows; Fig 1 tracks state 1.")
    log_eps_min = param.Number(-8.0, bounds=(-10.0, -2.0), step=0.5,
                               label="Smallest ε plotted, log₁₀ ε",
                               doc="Left end of the log grid of eps in the curve panels.")
    eps_points = param.Integer(81, bounds=(20, 300), label="Points of the ε grid",
                               doc="Number of log-spaced eps values (one eigen-decomposition "
                                   "each).")

    # --- the race and the staged chain ----------------------------------------------------------
    log_budget = param.Number(5.0, bounds=(3.0, 6.5), step=0.1, label="Race budget, log₁₀ steps",
                              doc="Steps given to each sampler: about budget * eps exact draws "
                                  "(1/eps steps each) against the same number of plain steps.")
    start = param.Integer(1, bounds=(1, 40), label="Plain chain starts at state",
                          doc="Initial state (1-based, clamped to n) of the plain chain.")
    log_eps1 = param.Number(-1.0, bounds=(-2.0, 0.0), step=0.1,
                            label="Staged chain, log₁₀ ε₁",
                            doc="Rate of leaving the simpler middle stage of Fig 2(b): about "
                                "1/eps_1 steps of the simpler chain after each restart.")

    # --- the experiments (run by their buttons) --------------------------------------------------
    transitions = param.Integer(20, bounds=(5, 100), label="Transitions T",
                                doc="Word task: Gibbs steps per chain; Doeblin uses eps = 1/T.")
    word_channel = param.Selector(default="neighbour",
                                  objects={"key beside": "neighbour",
                                           "random letter": "uniform"},
                                  label="Word task: a noisy letter is",
                                  doc="Word task channel. 'Key beside': a noisy letter is the "
                                      "next letter of the alphabet, as a finger landing on a "
                                      "neighbouring key; with noise above 1/2 most letters of "
                                      "the input are wrong, so basic Gibbs (started at y = x) "
                                      "starts far from the word, as in the paper. 'Uniformly "
                                      "random letter': y = x is the best letter-by-letter guess.")
    word_noise = param.Number(0.7, bounds=(0.0, 0.95), step=0.05, label="Word task: noise",
                              doc="Probability that a letter of the input is not the intended "
                                  "one.")
    word_length = param.Selector(default=4, objects=[4, 6], label="Word task: word length",
                                 doc="4-letter words (56) or 6-letter words (62) over the "
                                     "letters aeinorst; longer words put the intended word "
                                     "more single-letter moves away.")
    epochs = param.Integer(20, bounds=(1, 60), label="Epochs",
                           doc="Word task: passes over the 300 training words.")
    seeds = param.Integer(4, bounds=(1, 10), label="Seeds",
                          doc="Word task: independent repetitions (mean ± s.e. bands).")
    trials = param.Integer(80, bounds=(5, 500), label="Trials per level",
                           doc="DNF search: problems drawn per difficulty level.")

    fields = ("seed", "transitions", "epochs", "seeds", "trials")
    #: Placed on the page next to what they drive, not in the sidebar.
    placed = ("word_channel", "word_noise", "word_length", "transitions", "epochs",
              "seeds", "trials")
    widgets = {
        # a chain or eps move redraws every panel (~25 ms each): update on release while dragging
        "log_delta": {"throttled": True},
        "log_eps": {"throttled": True},
        "size": {"throttled": True},
        "sparsity": {"throttled": True},
        "eps_points": {"throttled": True},
        "log_eps_min": {"throttled": True},
        "log_budget": {"throttled": True},
        "log_eps1": {"throttled": True},
    }
    #: Sidebar groups (the experiments' settings sit next to their buttons).
    groups = {
        "The chain": ("chain", "log_delta", "size", "sparsity", "reversible", "seed"),
        "The restart": ("restart", "restart_state", "log_eps", "state", "log_eps_min",
                        "eps_points"),
        "Sampling race and staged chain": ("log_budget", "start", "log_eps1"),
    }

    #: Each panel redraws only on the knobs it reads.
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"log_delta": -3.0}
    bench_move = ("log_delta", [-3.9, -3.8, -3.7, -3.6, -3.5, -3.4, -3.3, -3.2])
    invalidating = (("chain", "random"), ("size", 20), ("state", 18), ("restart", "point"),
                    ("restart_state", 15), ("chain", "three-state"))
    plots = (
        Plot("stationary_plot", title="π̃(y) against ε, two regimes (Fig 1)",
             depends=SWEEP_KNOBS + ("state", "log_eps")),
        Plot("divergence_plot", title="Distance to π (Props 3.4, 3.5)", depends=SWEEP_KNOBS),
        Plot("gap_plot", title="Spectral gap (Prop 3.1)", depends=SWEEP_KNOBS),
        Plot("eigen_plot", title="Eigenvalues of P and P̃ (Prop 3.1)",
             depends=CHAIN_KNOBS + ("log_eps",)),
        Plot("race_plot", title="Race: histograms at step t", depends=RACE_KNOBS),
        Plot("race_tv_plot", title="Race: total variation to the target", depends=RACE_KNOBS),
        Plot("staged_plot", title="Staged chain (Fig 2b, Thm 3.6, Cor 3.7)",
             depends=CHAIN_KNOBS + ("log_eps1",)),
    )

    sections = (
        Section(("stationary_plot", "divergence_plot", "gap_plot", "eigen_plot")),
        Section(("race_plot", "race_tv_plot")),
        Section(("staged_plot",), aside=prose(__file__, "staged.md")),
    )
    timeline = Timeline(
        "race_frames", unit="step", max_frames=N_CHECKPOINTS,
        caption=prose(__file__, "timeline.md"),
        marks=(_bars("exact"), _bars("plain"),
               Mark("race_tv_plot", "vline", x="t",
                    options=dict(color="gray", bokeh=dict(line_width=1),
                                 mpl=dict(linewidth=1)))))
    runs = (
        Run("word", quick=(("transitions", 5), ("epochs", 1), ("seeds", 1)),
            title="Learning curves on the word task (Fig 4)",
            button="Run the word task", settings=WORD_KEYS, compute="run_word_task",
            plots=(Plot("word_plot", title="Word accuracy (Fig 4 left)"),
                   Plot("char_plot", title="Character accuracy (Fig 4 right)")),
            text=prose(__file__, "word.md"), estimate="word_estimate", summary="word_summary"),
        Run("dnf", quick=(("trials", 5),),
            title="DNF formula search (Table 1)", button="Run the DNF search",
            settings=DNF_KEYS, compute="run_dnf_search",
            plots=(Plot("dnf_plot", title="DNF search time (Table 1)"),),
            text=prose(__file__, "dnf.md"), estimate="dnf_estimate", summary="dnf_summary",
            extra="dnf_table"),
    )

    text = prose(__file__, "page.md")

    # --- computation -------------------------------------------------------------------------
    def _n_states(self) -> int:
        return 3 if self.chain == "three-state" else 2 * (self.size // 2) \
            if self.chain == "barbell" else self.size

    def knob_bounds(self) -> dict[str, tuple]:
        n = self._n_states()
        why = f"a chain of n = {n} states"
        return {name: (1, n, why) for name in ("restart_state", "state", "start")}

    def _clamp(self, state: int) -> int:
        """A 1-based state knob as a 0-based index of the current chain."""
        return min(state, self._n_states()) - 1

    def chain_key(self) -> ChainKey:
        random = self.chain == "random"
        return ChainKey(
            chain=self.chain,
            delta=0.0 if random else round(10.0 ** float(self.log_delta), 12),
            size=0 if self.chain == "three-state" else int(self.size),
            sparsity=float(self.sparsity) if random else 0.0,
            reversible=bool(self.reversible) if random else False,
            seed=int(self.seed) if random else 0,
            restart=self.restart,
            restart_state=self._clamp(self.restart_state) if self.restart == "point" else 0,
        )

    @property
    def eps(self) -> float:
        return round(10.0 ** float(self.log_eps), 12)

    def _compute(self) -> DoeblinRun:
        key = self.chain_key()
        eps1 = round(10.0 ** float(self.log_eps1), 12)
        return DoeblinRun(
            setup=build_chain(key),
            sweep=eps_sweep(key, float(self.log_eps_min), int(self.eps_points)),
            spectrum=spectrum(key, self.eps),
            race=sampling_race(key, self.eps, int(round(10.0 ** float(self.log_budget))),
                               self._clamp(self.start), int(self.seed)),
            staged=staged(key, eps1),
            bounds=staged_bounds(eps1),
            state=self._clamp(self.state),
            eps=self.eps,
        )

    def status(self) -> str:
        res = self.result()
        return (verdict_markdown(db.restart_gap_claim(res.sweep, state=res.state + 1)) + " "
                + verdict_markdown(db.staged_gap_claim(res.staged, res.bounds)))

    # --- plots -------------------------------------------------------------------------------
    def stationary_plot(self):
        res = self.result()
        sw, y = res.sweep, res.state
        dims = [EPS, hv.Dimension("p", label=f"stationary probability of state {y + 1}")]
        curve = Curve((sw.eps, sw.stationary[:, y]), *dims, label=f"π̃({y + 1}) at each ε")
        pi = Curve((sw.eps[[0, -1]], np.full(2, sw.pi[y])), *dims,
                   label=f"π({y + 1}) = {sw.pi[y]:.3g}")
        now = Scatter(([res.eps], [res.race.restart_law[y]]), *dims,
                      label=f"ε = {res.eps:.3g}")
        boundary = hv.VLine(max(res.setup.gap, float(sw.eps[0])))
        return style(
            style(curve, color=RESTART_COLOR, bokeh=dict(line_width=2.5), mpl=dict(linewidth=2))
            * style(pi, color=CHAIN_COLOR, bokeh=dict(line_width=1.5, **DASHED),
                    mpl=dict(linewidth=1.2, **MPL_DASHED))
            * style(boundary, color="gray", bokeh=dict(line_width=1, **DOTTED),
                    mpl=dict(linewidth=1, **MPL_DOTTED))
            * style(now, color="black", bokeh=dict(size=9), mpl=dict(s=40)),
            logx=True, framewise=True,
            xlim=(float(sw.eps[0]), 1.0),
            mpl=dict(hooks=[_square_axes]),
        )

    def divergence_plot(self):
        res = self.result()
        sw = res.sweep
        y = hv.Dimension("d", label="divergence from π (KL in nats; Mahalanobis)")
        # KL below 1e-14 nats is round-off (a difference of nearly equal logs): not drawn
        kl_a, kl_b = _positive(sw.kl_restart_pi, 1e-14), _positive(sw.kl_pi_restart, 1e-14)
        kl1 = Curve((sw.eps, kl_a), EPS, y, label="KL(π̃ ‖ π)")
        kl2 = Curve((sw.eps, kl_b), EPS, y, label="KL(π ‖ π̃)")
        maha = Curve((sw.eps, _positive(sw.mahalanobis)), EPS, y, label="Mahalanobis distance")
        thick = dict(bokeh=dict(line_width=2.5), mpl=dict(linewidth=2))
        overlay = (style(kl1, color=RESTART_COLOR, **thick) * style(kl2, color=CHAIN_COLOR, **thick)
                   * style(maha, color=DIVERGENCE_COLOR, bokeh=dict(line_width=2),
                           mpl=dict(linewidth=1.5)))
        if sw.reversible and np.isfinite(sw.mahalanobis_bound).all():
            bound = Curve((sw.eps, sw.mahalanobis_bound), EPS, y, label="Prop 3.5 bound")
            overlay = overlay * style(bound, color=DIVERGENCE_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        finite = np.concatenate([kl_a, kl_b, _positive(sw.mahalanobis)])
        finite = finite[np.isfinite(finite)]
        top = 10 * float(finite.max()) if finite.size else 1.0
        low = max(float(finite.min()) if finite.size else 1e-12, top * 1e-14) / 3
        return style(overlay, logx=True, logy=True, framewise=True, ylim=(low, top))

    def gap_plot(self):
        res = self.result()
        sw = res.sweep
        y = hv.Dimension("gap", label="spectral gap 1 − |λ₂|")
        # as eps -> 0 the curve levels off at the gap of P (no separate line: fewer elements)
        gap = Curve((sw.eps, sw.gaps), EPS, y, label=f"gap of P̃ (of P: {res.setup.gap:.2g})")
        bound = Curve((sw.eps, sw.eps), EPS, y, label="ε (Prop 3.1)")
        return style(
            style(gap, color=RESTART_COLOR, bokeh=dict(line_width=3), mpl=dict(linewidth=2))
            * style(bound, color="black", bokeh=dict(line_width=1.5, **DASHED),
                    mpl=dict(linewidth=1.2, **MPL_DASHED)),
            logx=True, logy=True, framewise=True,
            ylim=(min(float(sw.eps[0]), res.setup.gap if res.setup.gap > 0 else 1.0) / 3, 3.0),
        )

    def eigen_plot(self):
        res = self.result()
        sp = res.spectrum
        dims = [hv.Dimension("re", label="Re λ"), hv.Dimension("im", label="Im λ")]
        r = 1.0 - sp.eps
        circles = hv.Path([np.column_stack([CIRCLE.real, CIRCLE.imag]),
                           np.column_stack([r * CIRCLE.real, r * CIRCLE.imag])], kdims=dims)
        circles = style(circles, color="gray", bokeh=dict(line_width=1, line_dash="dashed"),
                        mpl=dict(linewidth=0.8, linestyle="dashed"))
        chain = Points((sp.chain.real, sp.chain.imag), kdims=dims, label="eigenvalues of P")
        chain = style(chain, color=CHAIN_COLOR,
                      bokeh=dict(size=12, fill_alpha=0.0, line_width=2, line_color=CHAIN_COLOR),
                      mpl=dict(s=70, facecolors="none", edgecolors=CHAIN_COLOR, linewidth=1.5))
        restart = Points((sp.restart.real, sp.restart.imag), kdims=dims,
                         label=f"of P̃, ε = {sp.eps:.3g}")
        restart = style(restart, color=RESTART_COLOR, bokeh=dict(size=6), mpl=dict(s=16))
        # Ranges instead of data_aspect=1 (which costs ~13 ms per redraw): a 1:1 square in
        # export, and the live frame's width/height ratio on the page, so that circles stay
        # round.
        return style(circles * chain * restart,
                     bokeh=dict(xlim=(-1.2 * LIVE_FRAME_RATIO, 1.2 * LIVE_FRAME_RATIO),
                                ylim=(-1.2, 1.2)),
                     mpl=dict(xlim=(-1.2, 1.2), ylim=(-1.2, 1.2)))

    def race_frames(self) -> Frames:
        """The timeline: the race's checkpoints (steps spent by each sampler), both samplers'
        histograms at each, and the bars' fixed places (the draws left of each state)."""
        race = self.result().race
        s = np.arange(1, race.restart_law.size + 1, dtype=float)
        return Frames(race.checkpoints, {},
                      arrays={"exact": race.restart_histograms, "plain": race.plain_histograms},
                      fixed={"exact_left": s - 0.42, "exact_right": s, "plain_left": s,
                             "plain_right": s + 0.42, "zero": 0 * s})

    def race_plot(self):
        """The targets, and the legend of the histograms at t (the timeline's bars)."""
        race = self.result().race
        n = race.restart_law.size
        s = np.arange(1, n + 1, dtype=float)
        # targets: pi~ over the draws' bars, pi over the chain's
        level = np.r_[race.restart_law, race.stationary_law]
        targets = Segments((np.r_[s - 0.46, s - 0.04], level, np.r_[s + 0.04, s + 0.46], level),
                           kdims=[STATE, PROB, "x1", "p1"], label="targets π̃ (left), π (right)")
        legend = [legend_layer("rects", (STATE, PROB, "x1", "p1"), label, **_bar_style(color))
                  for label, color in BARS.values()]
        return style(
            hv.Overlay([*legend, style(targets, color="black", bokeh=dict(line_width=2.5),
                                       mpl=dict(linewidth=2))]),
            xlim=(0.4, n + 0.6), ylim=(0, 1.1 * race.top),
            framewise=True,
            xticks=list(range(1, n + 1, max(1, n // 10))), show_legend=True)

    def race_tv_plot(self):
        res = self.result()
        race = res.race
        x = hv.Dimension("steps", label="steps spent by each sampler")
        y = hv.Dimension("tv", label="total variation distance")
        cp = race.checkpoints.astype(float)
        draws = Curve((cp, _positive(race.restart_tv)), x, y, label="exact draws vs π̃")
        draws_pi = Curve((cp, _positive(race.restart_tv_pi)), x, y, label="exact draws vs π")
        plain = Curve((cp, _positive(race.plain_tv)), x, y, label="plain chain vs π")
        return style(
            style(draws, color=RESTART_COLOR, bokeh=dict(line_width=2.5), mpl=dict(linewidth=2))
            * style(draws_pi, color=RESTART_COLOR, bokeh=dict(line_width=1.5, **DASHED),
                    mpl=dict(linewidth=1.2, **MPL_DASHED))
            * style(plain, color=CHAIN_COLOR, bokeh=dict(line_width=2.5), mpl=dict(linewidth=2)),
            logx=True, logy=True, framewise=True,
            xlim=(float(cp[0]), float(cp[-1])), ylim=(1e-3, 1.5),  # TV <= 1
        )

    def staged_plot(self):
        res = self.result()
        st, bd = res.staged, res.bounds
        x = hv.Dimension("eps2", label="restart rate ε₂ of the last stage")
        y = hv.Dimension("gap", label="spectral gap")
        three = Curve((st.eps2, st.gaps), x, y, label=f"3 stages (ε₁ = {st.eps1:.2g})")
        two = Curve((st.eps2, st.doeblin_gaps), x, y, label="2 stages (eq 2)")
        thm = Curve((bd.eps2, bd.theorem), x, y, label="Thm 3.6")
        cor = Curve((bd.eps2, bd.corollary), x, y, label="Cor 3.7 (ε₂/78)")
        values = np.concatenate([st.gaps, st.doeblin_gaps, bd.theorem, bd.corollary])
        top = float(np.nanmax(values[np.isfinite(values)], initial=1e-3))
        return style(
            style(three, color=STAGED_COLOR, bokeh=dict(line_width=3), mpl=dict(linewidth=2))
            * style(two, color=RESTART_COLOR, bokeh=dict(line_width=1.5), mpl=dict(linewidth=1.2))
            * style(thm, color="black", bokeh=dict(line_width=1.5, **DASHED),
                    mpl=dict(linewidth=1.2, **MPL_DASHED))
            * style(cor, color="black", bokeh=dict(line_width=1.5, **DOTTED),
                    mpl=dict(linewidth=1.2, **MPL_DOTTED)),
            logx=True, logy=True, framewise=True,
            ylim=(float(np.nanmin(bd.corollary, initial=1e-4)) / 3, 3 * top),
        )

    # --- experiment plots (drawn once computed) -------------------------------------------------
    def _accuracy_plot(self, res, which: str):
        """Held-out accuracy against epochs, mean ± s.e. over the seeds computed so far (a
        running job shows the curves growing: entries not yet computed are NaN)."""
        x = hv.Dimension("epoch", label="epoch (passes over the training set)")
        y = hv.Dimension("acc", label=f"held-out {which} accuracy")
        acc = res.word_accuracy if which == "word" else res.char_accuracy
        with np.errstate(invalid="ignore", divide="ignore"):
            count = np.sum(np.isfinite(acc), axis=-1)
            mean = np.nanmean(np.where(count[..., None] > 0, acc, 0.0), axis=-1)
            mean[count == 0] = np.nan
            spread = np.nanstd(np.where(count[..., None] > 0, acc, 0.0), axis=-1, ddof=0)
            se = np.where(count > 1, spread * np.sqrt(count / np.maximum(count - 1, 1))
                          / np.sqrt(np.maximum(count, 1)), 0.0)
        ep = np.arange(acc.shape[0], dtype=float)
        layers = []
        for k, method in enumerate(res.methods):
            if not np.isfinite(mean[:, k]).any():
                continue  # not started yet
            color = METHOD_COLORS[method]
            layers.append(style(Spread((ep, mean[:, k], se[:, k]), x, [y, "se"]),
                                color=color, alpha=0.2, bokeh=dict(line_color=None),
                                mpl=dict(linewidth=0)))
            layers.append(style(Curve((ep, mean[:, k]), x, y, label=method), color=color,
                                bokeh=dict(line_width=2.5), mpl=dict(linewidth=1.8)))
        top = float(np.nanmax(mean + se, initial=0.0))
        u = getattr(res, "u_word_accuracy" if which == "word" else "u_char_accuracy", None)
        oracle = getattr(res, "oracle_word_accuracy" if which == "word"
                         else "oracle_char_accuracy", None)
        if u is not None and oracle is not None:  # the finished run: u alone and Bayes
            guides = hv.Path([np.array([[ep[0], u.mean()], [ep[-1], u.mean()]]),
                              np.array([[ep[0], oracle.mean()], [ep[-1], oracle.mean()]])],
                             kdims=[x, y])
            layers.append(style(guides, color="gray", bokeh=dict(line_width=1, **DOTTED),
                                mpl=dict(linewidth=1, **MPL_DOTTED)))
            top = max(top, float(oracle.mean()))
        return style(hv.Overlay(layers), ylim=(0, min(1.0, 1.1 * max(top, 0.05))),
                     xlim=(0, max(ep[-1], 1.0)), framewise=True)

    def word_plot(self, result):
        return self._accuracy_plot(result, "word")

    def char_plot(self, result):
        return self._accuracy_plot(result, "character")

    def dnf_plot(self, res):
        x = hv.Dimension("level", label="difficulty level")
        y = hv.Dimension("ms", label="time to a zero-error formula (ms)")
        levels = np.arange(len(res.levels), dtype=float)
        layers = []
        for k, method in enumerate(res.methods):
            xs = levels + 0.08 * (k - 1)
            mean, se = 1e3 * res.mean_seconds[:, k], 1e3 * res.se_seconds[:, k]
            color = METHOD_COLORS[method]
            layers.append(style(ErrorBars((xs, mean, np.minimum(se, 0.95 * mean), se),
                                          x, [y, "lo", "hi"]), color=color))
            layers.append(style(Curve((xs, mean), x, y, label=method), color=color,
                                bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
            layers.append(style(Scatter((xs, mean), x, y), color=color,
                                bokeh=dict(size=7), mpl=dict(s=25)))
        ticks = list(zip(levels, res.levels))
        return style(hv.Overlay(layers), logy=True, xticks=ticks,
                     xlim=(-0.4, len(levels) - 0.6), framewise=True)

    # --- the experiments, run as jobs (views.framework.jobs) --------------------------------------------
    def run_word_task(self, settings: dict, progress=None):
        """Fig 4: the four trainings on the word task (``db.train_word_task``)."""
        return db.train_word_task(**word_task_settings(settings), seed=0, progress=progress)

    def run_dnf_search(self, settings: dict, progress=None):
        """Table 1: the three DNF searches on every difficulty level (``db.dnf_experiment``)."""
        return db.dnf_experiment(**{k: int(v) for k, v in settings.items()}, seed=0,
                                 progress=progress)

    def word_estimate(self, settings: dict) -> float:
        return (WORD_SECONDS_PER_UNIT * settings["transitions"] * (settings["epochs"] + 2)
                * settings["seeds"])

    def dnf_estimate(self, settings: dict) -> float:
        return DNF_SECONDS_PER_TRIAL * settings["trials"]

    def word_summary(self, settings: dict, result) -> str:
        return experiment_summary("word", settings, result)

    def dnf_summary(self, settings: dict, result) -> str:
        return experiment_summary("dnf", settings, result)

    def dnf_table(self, settings: dict, result) -> str:
        return dnf_table_markdown(result)


def _square_axes(plot, element) -> None:
    """Matplotlib hook: a square box. HoloViews' default 'square' aspect is computed from the
    data range and comes out several times too narrow with a log x and a linear y axis."""
    ax = plot.handles["axis"]
    ax.set_aspect("auto")
    aspect = plot.aspect  # width / height when given as a number (e.g. the thumbnails' 1.5)
    ax.set_box_aspect(1 / aspect if isinstance(aspect, (int, float)) else 1)


def _positive(values: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Values for a log axis: zeros (or values at most ``floor``) and infinities become gaps."""
    out = np.asarray(values, dtype=float).copy()
    out[~(out > floor) | ~np.isfinite(out)] = np.nan
    return out

