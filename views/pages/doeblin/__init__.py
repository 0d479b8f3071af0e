"""Doeblin explorer: restarts make any chain mix fast, at the price of a biased stationary law.

Reproduces Figs 1 and 2 and the experiments of Fig 4 and Table 1 of Steinhardt & Liang,
*Learning Fast-Mixing Models for Structured Prediction*: the stationary law of the strong Doeblin
chain P~ = (1 - eps) P + eps 1 u^T against eps (Fig 1, right) with both KL divergences and the
Mahalanobis bound (Props 3.2-3.5), its spectral gap and eigenvalues (Prop 3.1), a race between
exact restart sampling and the plain chain for the same budget, the staged chain of Fig 2(b)
against Thm 3.6 and Cor 3.7, and, on demand, the word-task learning curves (Fig 4) and the DNF
search times (Table 1), which take about half a minute each and run off the event loop. The
live computations are in ``chains.py`` beside this file, the runs in ``experiments.py``.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import doeblin as db
from dynamics.papers import STEINHARDT
from views.framework.marks import legend_layer
from views.framework.text import prose, verdict_markdown
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Section, Timeline, style)
from views.pages.doeblin.chains import (N_CHECKPOINTS, ChainKey, DoeblinRun, build_chain,
                                        eps_sweep, sampling_race, spectrum, staged,
                                        staged_bounds)
from views.pages.doeblin.common import (Curve, Points, Scatter, Segments, positive,
                                        square_axes)
from views.pages.doeblin.experiments import DnfRun, WordRun

#: Points of the unit circle drawn in the eigenvalue panel.
CIRCLE = np.exp(2j * np.pi * np.linspace(0.0, 1.0, 121))

RESTART_COLOR, CHAIN_COLOR, STAGED_COLOR, DIVERGENCE_COLOR = (
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd")
#: Width over height of a live plot's frame, to keep circles round without data_aspect: the
#: frame of two plots to a row at 1440 x 900 with a row of legend below (432 x 296 px; a
#: plot alone on its row at 1024 x 768 is wider, 565 px, and draws them flatter).
LIVE_FRAME_RATIO = 1.45
EPS = hv.Dimension("eps", label="restart probability ε")
STATE = hv.Dimension("state", label="state y")
PROB = hv.Dimension("p", label="probability")


CHAIN_KNOBS = ("chain", "log_delta", "size", "sparsity", "reversible", "seed", "restart",
               "restart_state")
SWEEP_KNOBS = CHAIN_KNOBS + ("log_eps_min", "eps_points")
RACE_KNOBS = CHAIN_KNOBS + ("log_eps", "log_budget", "start")


BARS = {"exact": ("exact draws", RESTART_COLOR), "plain": ("plain chain", CHAIN_COLOR)}


def _bar_style(color: str) -> dict:
    return dict(color=color, bokeh=dict(line_color=None, alpha=0.8),
                mpl=dict(alpha=0.8, linewidth=0))


def _bars(plot, sampler: str) -> Mark:
    """A sampler's histogram at the race's time t (``DoeblinExplorer.race_frames``) on panel
    ``plot``."""
    return Mark(plot, "rects", x=f"{sampler}_left", y="zero",
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

    fields = ("seed",)
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

    runs = (WordRun, DnfRun)

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
            mpl=dict(hooks=[square_axes]),
        )

    def divergence_plot(self):
        res = self.result()
        sw = res.sweep
        y = hv.Dimension("d", label="divergence from π (KL in nats; Mahalanobis)")
        # KL below 1e-14 nats is round-off (a difference of nearly equal logs): not drawn
        kl_a, kl_b = positive(sw.kl_restart_pi, 1e-14), positive(sw.kl_pi_restart, 1e-14)
        kl1 = Curve((sw.eps, kl_a), EPS, y, label="KL(π̃ ‖ π)")
        kl2 = Curve((sw.eps, kl_b), EPS, y, label="KL(π ‖ π̃)")
        maha = Curve((sw.eps, positive(sw.mahalanobis)), EPS, y, label="Mahalanobis distance")
        thick = dict(bokeh=dict(line_width=2.5), mpl=dict(linewidth=2))
        overlay = (style(kl1, color=RESTART_COLOR, **thick) * style(kl2, color=CHAIN_COLOR, **thick)
                   * style(maha, color=DIVERGENCE_COLOR, bokeh=dict(line_width=2),
                           mpl=dict(linewidth=1.5)))
        if sw.reversible and np.isfinite(sw.mahalanobis_bound).all():
            bound = Curve((sw.eps, sw.mahalanobis_bound), EPS, y, label="Prop 3.5 bound")
            overlay = overlay * style(bound, color=DIVERGENCE_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        finite = np.concatenate([kl_a, kl_b, positive(sw.mahalanobis)])
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
        draws = Curve((cp, positive(race.restart_tv)), x, y, label="exact draws vs π̃")
        draws_pi = Curve((cp, positive(race.restart_tv_pi)), x, y, label="exact draws vs π")
        plain = Curve((cp, positive(race.plain_tv)), x, y, label="plain chain vs π")
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

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(stationary_plot, title="π̃(y) against ε, two regimes (Fig 1)",
             depends=SWEEP_KNOBS + ("state", "log_eps")),
        Plot(divergence_plot, title="Distance to π (Props 3.4, 3.5)", depends=SWEEP_KNOBS),
        Plot(gap_plot, title="Spectral gap (Prop 3.1)", depends=SWEEP_KNOBS),
        Plot(eigen_plot, title="Eigenvalues of P and P̃ (Prop 3.1)",
             depends=CHAIN_KNOBS + ("log_eps",)),
        Plot(race_plot, title="Race: histograms at step t", depends=RACE_KNOBS),
        Plot(race_tv_plot, title="Race: total variation to the target", depends=RACE_KNOBS),
        Plot(staged_plot, title="Staged chain (Fig 2b, Thm 3.6, Cor 3.7)",
             depends=CHAIN_KNOBS + ("log_eps1",)),
    )
    sections = (
        Section((stationary_plot, divergence_plot, gap_plot, eigen_plot)),
        Section((race_plot, race_tv_plot)),
        Section((staged_plot,), aside=prose(__file__, "staged.md")),
    )
    timeline = Timeline(
        race_frames, unit="step", max_frames=N_CHECKPOINTS,
        caption=prose(__file__, "timeline.md"),
        marks=(_bars(race_plot, "exact"), _bars(race_plot, "plain"),
               Mark(race_tv_plot, "vline", x="t",
                    options=dict(color="gray", bokeh=dict(line_width=1),
                                 mpl=dict(linewidth=1))),
               # the distances end at t
               Mark(race_tv_plot, "grow", x="t", dims=("steps",))))
