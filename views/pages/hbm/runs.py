"""The HBM page's runs (Luo & Sugiyama): the bias-variance sweep over models, sample sizes and
datasets (Figs 3-9, ``dynamics.hbm.sweep``), and the paper's own inference, Gibbs-sampled gradients
and log Z by AIS (eq 8), beside the exact one (``dynamics.hbm.inference_study``)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import hbm
from views.framework import DASHED, MPL_DASHED, Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.hbm.common import FIT_COLOR, PROJ_COLOR, PSTAR_COLOR

__all__ = ["SweepRun", "InferenceRun", "PARAM_NS"]

#: Sample sizes whose error is drawn against the number of parameters (Figs 7-9).
PARAM_NS = (50, 500, 5_000, 50_000)


class SweepRun(Run):
    """Total error, bias and variance of HBMs and RBMs against N and the number of parameters,
    on the page's P* (``n``, ``seed``) with its fit (``mode``)."""

    key = "sweep"
    title = "The bias-variance sweep (Figs 3-9)"
    button = "Run the sweep"
    text = prose(__file__, "sweep.md")
    uses = ("n", "seed", "mode")
    aliases = {name: name for name in ("datasets", "n_min", "n_max", "orders", "hidden")}
    quick = {"datasets": 2, "n_min": 10, "n_max": 100, "orders": [1, 2], "hidden": [0], "n": 4}
    widgets = {name: {"throttled": True} for name in ("datasets", "n_min", "n_max")}
    # boxes to tick (a MultiSelect needed Ctrl-click for a second choice, and cut a row)
    widgets.update({name: {"type": "checkboxes", "inline": True}
                    for name in ("orders", "hidden")})

    datasets = param.Integer(6, bounds=(2, 48), label="Datasets per N",
                             doc="Datasets drawn per sample size (the paper: 24).")
    n_min = param.Integer(10, bounds=(10, 50_000), label="Smallest N",
                          doc="The sweep uses the paper's sample sizes 10 ... 50,000 from here.")
    n_max = param.Integer(50_000, bounds=(10, 50_000), label="Largest N",
                          doc="... up to here.")
    orders = param.ListSelector(default=list(range(1, 13)), objects=list(range(1, 13)),
                                label="HBM orders",
                                doc="HBM orders in the sweep (those up to n; the paper: 1..n).")
    hidden = param.ListSelector(default=[0, 5, 10, 15], objects=[0, 2, 5, 10, 15, 20],
                                label="RBM hidden units",
                                doc="RBMs in the sweep (the paper: 0, 5, 10, 15).")

    def __setattr__(self, name, value):
        # What the page did for these settings when they were its knobs (``knob_bounds`` and
        # ``Explorer._constrain``), which a run's settings do not get from the framework: the
        # ticked boxes in the options' order, as a link writes them (the same run, the same
        # cache entry), and the smallest N at most the largest, each slider's range following
        # the other (the smallest N gives way, as it did).
        if name not in ("n_min", "n_max"):
            return super().__setattr__(name, value)
        low, high = type(self).param["n_min"].bounds
        self.param["n_min"].bounds = self.param["n_max"].bounds = (low, high)
        try:
            super().__setattr__(name, value)
        finally:  # a refused value leaves the ranges as they were
            if self.n_min > self.n_max:
                super().__setattr__("n_min", self.n_max)
            self.param["n_min"].bounds = (low, self.n_max)
            self.param["n_max"].bounds = (self.n_min, high)

    def _sweep_models(self, settings: dict):
        n = int(settings["n"])
        mode = str(settings["mode"])
        return ([hbm.Model("hbm", int(k), mode) for k in sorted(settings["orders"]) if k <= n]
                + [hbm.Model("rbm", int(m), "converged" if mode == "converged" else "cd")
                   for m in sorted(settings["hidden"])])

    def _sweep_ns(self, settings: dict) -> list[int]:
        return [N for N in hbm.PAPER_N if settings["n_min"] <= N <= settings["n_max"]]

    def compute(self, settings: dict, progress=None) -> hbm.Sweep:
        p_star = hbm.random_distribution(int(settings["n"]), seed=int(settings["seed"]))
        Ns = self._sweep_ns(settings)
        if not Ns:
            raise ValueError("no paper sample size lies between the smallest and largest N")
        return hbm.sweep(p_star, self._sweep_models(settings), Ns, int(settings["datasets"]),
                         seed=int(settings["seed"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured at n = 8 on two processes: about 36 converged fits a second, 0.15 s per
        # model for its reference; the sweep now runs in one process (dynamics.sweep, no
        # executor): half that rate, 18 fits a second. The cost doubles with n (converged);
        # CD-1 for 100 epochs takes about N / 25,000 s a fit
        scale = 2.0 ** (int(settings["n"]) - 8)
        models = self._sweep_models(settings)
        Ns = self._sweep_ns(settings)
        fits = len(models) * len(Ns) * int(settings["datasets"])
        cd = sum(m.mode == "cd" for m in models) * sum(Ns) / 25_000 * int(settings["datasets"])
        return scale * (0.15 * len(models) + fits / 18) + cd

    def summary(self, settings: dict, result: hbm.Sweep) -> str:
        if result.done < len(result.models) * len(result.Ns):
            return ""
        hbm_rows = [i for i, m in enumerate(result.models) if m.kind == "hbm"]
        rbm_rows = [i for i, m in enumerate(result.models) if m.kind == "rbm"]
        first, last = 0, len(result.Ns) - 1
        best_small = min(range(len(result.models)), key=lambda i: result.total[i, first])
        best_large = min(range(len(result.models)), key=lambda i: result.total[i, last])
        hbm_res = np.nanmax(np.abs(result.residual[hbm_rows])) if hbm_rows else float("nan")
        rbm_res = np.nanmax(np.abs(result.residual[rbm_rows])) if rbm_rows else float("nan")
        fits = ("maximum likelihood with 0.5 pseudo-counts per state (RBMs: L-BFGS)"
                if settings["mode"] == "converged" else
                "the paper's 10⁴ gradient steps of 0.1 from θ = 0 (RBMs: CD-1, 100 epochs)")
        return (f"**Fits:** {fits}. **Lowest total error** at N = {result.Ns[first]:,}: "
                f"{result.models[best_small].label} ({result.total[best_small, first]:.4f}); at "
                f"N = {result.Ns[last]:,}: {result.models[best_large].label} "
                f"({result.total[best_large, last]:.4f}). Largest |total − bias − variance|: "
                f"HBM {hbm_res:.1e}, RBM {rbm_res:.1e}. {result.datasets} datasets per N. "
                + verdict_markdown(hbm.bias_variance_claim(result)))

    def _by_model(self, result: hbm.Sweep, values: np.ndarray, dims, x):
        n = result.n
        curves = []
        cmap = hv.plotting.util.process_cmap("viridis", max(n, 2))
        rbm_colors = ["#d62728", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"]
        r = 0
        for i, model in enumerate(result.models):
            if model.kind == "hbm":
                color, opts = cmap[model.size - 1], dict(bokeh=dict(line_width=2),
                                                         mpl=dict(linewidth=1.5))
            else:
                color, opts = rbm_colors[r % len(rbm_colors)], dict(bokeh=DASHED, mpl=MPL_DASHED)
                r += 1
            curves.append(style(hv.Curve((x, values[i]), *dims, label=model.label), color=color,
                                **opts))
        return hv.Overlay(curves)

    def total_plot(self, result: hbm.Sweep):
        dims = [axis("N", "sample size N"), axis("total", "E KL(P*, P̂) (nats)")]
        return style(self._by_model(result, result.total, dims, result.Ns.astype(float)),
                     logx=True, logy=True, framewise=True)

    def bias_n_plot(self, result: hbm.Sweep):
        """Figs 5-6's bias panels: flat in N (P*(B) does not depend on the data)."""
        dims = [axis("N", "sample size N"), axis("bias", "KL(P*, P*(B)) (nats)")]
        return style(self._by_model(result, result.bias, dims, result.Ns.astype(float)),
                     logx=True, show_legend=False, framewise=True)

    def variance_plot(self, result: hbm.Sweep):
        dims = [axis("N", "sample size N"), axis("variance", "E KL(P*(B), P̂) (nats)")]
        return style(self._by_model(result, result.variance, dims, result.Ns.astype(float)),
                     logx=True, logy=True, show_legend=False, framewise=True)

    def _params(self, result: hbm.Sweep) -> np.ndarray:
        return np.array([m.parameters(result.n) for m in result.models], dtype=float)

    def bias_plot(self, result: hbm.Sweep):
        dims = [axis("params", "number of parameters"), axis("bias", "KL(P*, P*(B)) (nats)")]
        params = self._params(result)
        parts = []
        for kind, label, color, opts in (("hbm", "HBM, orders 1..n", "#1f77b4",
                                          dict(bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))),
                                         ("rbm", "RBM", "#d62728",
                                          dict(bokeh=DASHED, mpl=MPL_DASHED))):
            rows = [i for i, m in enumerate(result.models) if m.kind == kind]
            if rows:
                rows = sorted(rows, key=lambda i: params[i])
                parts.append(style(hv.Curve((params[rows], result.bias[rows, 0]), *dims,
                                            label=label), color=color, **opts))
                parts.append(style(hv.Scatter((params[rows], result.bias[rows, 0]), *dims),
                                   color=color, bokeh=dict(size=6), mpl=dict(s=15)))
        return style(hv.Overlay(parts), logx=True, framewise=True)

    def params_plot(self, result: hbm.Sweep):
        dims = [axis("params", "number of parameters"), axis("total", "E KL(P*, P̂) (nats)")]
        params = self._params(result)
        parts = []
        colors = ["#440154", "#31688e", "#35b779", "#fde725"]
        for j, N in enumerate(PARAM_NS):
            cols = np.flatnonzero(result.Ns == N)
            if not cols.size:
                continue
            for kind, opts in (("hbm", dict(bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))),
                               ("rbm", dict(bokeh=DASHED, mpl=MPL_DASHED))):
                rows = sorted([i for i, m in enumerate(result.models) if m.kind == kind],
                              key=lambda i: params[i])
                if rows:
                    label = f"{kind.upper()}, N = {N:,}"
                    parts.append(style(hv.Curve((params[rows], result.total[rows, cols[0]]),
                                                *dims, label=label), color=colors[j], **opts))
        if not parts:
            parts = [hv.Curve(([], []), *dims)]
        return style(hv.Overlay(parts), logx=True, logy=True,
                     framewise=True)

    plots = (Plot(total_plot, title="Total error against N"),
             Plot(bias_n_plot, title="Bias against N"),
             Plot(variance_plot, title="Variance against N"),
             Plot(bias_plot, title="Bias against parameters"),
             Plot(params_plot, title="Error against parameters (Figs 7-9)"))


class InferenceRun(Run):
    """Gibbs-sampled gradients and log Z by AIS (eq 8) against exact enumeration, on the
    page's P* (``n``, ``seed``), order and sample size."""

    key = "inference"
    title = "The paper's inference: Gibbs sampling and AIS against exact (eq 8)"
    button = "Run Gibbs + AIS against exact"
    text = prose(__file__, "inference.md")
    uses = ("n", "seed", "order", "sample")
    aliases = {name: name for name in ("fits", "iterations", "chains", "ais_steps", "ais_runs")}
    quick = {"fits": 2, "iterations": 100, "chains": 10, "ais_steps": 10, "ais_runs": 10, "n": 4}
    widgets = {name: {"throttled": True} for name in ("fits", "iterations", "chains",
                                                      "ais_steps", "ais_runs")}

    fits = param.Integer(6, bounds=(2, 48), label="Datasets (inference)",
                         doc="Datasets of N samples fitted by both pipelines.")
    iterations = param.Integer(2000, bounds=(100, 10_000), step=100, label="Gradient steps",
                               doc="Steps of 0.1 (η̂ − η_B) from θ = 0, in both pipelines "
                                   "(the paper: 10⁴).")
    chains = param.Integer(100, bounds=(10, 1000), step=10, label="Gibbs chains",
                           doc="Persistent Gibbs chains that estimate η_B at each step (one "
                               "sweep each per step).")
    ais_steps = param.Integer(300, bounds=(10, 5000), step=10, label="AIS distributions K",
                              doc="Intermediate distributions f₀^(1−β) f^β of AIS (eq 8).")
    ais_runs = param.Integer(100, bounds=(10, 2000), step=10, label="AIS runs M",
                             doc="Independent AIS runs averaged in eq 8.")

    def compute(self, settings: dict, progress=None) -> hbm.InferenceStudy:
        n = int(settings["n"])
        p_star = hbm.random_distribution(n, seed=int(settings["seed"]))
        return hbm.inference_study(
            p_star, min(int(settings["order"]), n), int(settings["sample"]),
            int(settings["fits"]), iterations=int(settings["iterations"]),
            chains=int(settings["chains"]), ais_steps=int(settings["ais_steps"]),
            ais_runs=int(settings["ais_runs"]), seed=int(settings["seed"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured at n = 8, order 2: 0.29 s a Gibbs fit (2,000 steps, 100 chains), 0.05 s an
        # AIS estimate (300 x 100), 0.033 s an exact-gradient fit; the samplers' cost about
        # doubles per 2 more variables, the enumeration's per 1
        n, fits = int(settings["n"]), int(settings["fits"])
        steps = int(settings["iterations"]) / 2000
        gibbs = 0.29 * steps * int(settings["chains"]) / 100
        ais = 0.05 * int(settings["ais_steps"]) * int(settings["ais_runs"]) / 30_000
        sampled = 2.0 ** ((n - 8) / 2) * ((fits + 1) * gibbs + (fits + 8) * ais)
        return sampled + (fits + 1) * 0.033 * steps * 2.0 ** (n - 8)

    def summary(self, settings: dict, result: hbm.InferenceStudy) -> str:
        r = result
        rows = [("exact gradient, exact log Z", r.bias_exact, r.variances_exact,
                 r.totals_exact, r.seconds_exact + r.seconds_log_z),
                ("Gibbs gradient, exact log Z", r.bias_gibbs, r.variances_gibbs, r.totals_gibbs,
                 r.seconds_gibbs + r.seconds_log_z),
                ("Gibbs gradient, AIS log Z (the paper)", r.bias_gibbs_ais,
                 r.variances_gibbs_ais, r.totals_gibbs_ais, r.seconds_gibbs + r.seconds_ais)]
        table = "| pipeline | bias | variance | total | s per fit |\n| --- | --- | --- | --- | --- |\n"
        table += "\n".join(f"| {name} | {b:.4f} | {v.mean():.4f} | {t.mean():.4f} | {s:.3g} |"
                           for name, b, v, t, s in rows)
        return (f"**n = {r.n}, order {r.order}, N = {r.N:,}, {r.datasets} datasets, "
                f"{r.iterations:,} gradient steps of 0.1, {r.chains} Gibbs chains, AIS with "
                f"K = {r.ais_steps}, M = {r.ais_runs}.** The converged projection's bias is "
                f"{r.projection_bias:.4f}. " + verdict_markdown(hbm.inference_claim(r))
                + "\n\n" + table)

    def ais_plot(self, result: hbm.InferenceStudy):
        dims = [axis("run", "AIS estimate (P*_B repeated, then one per dataset's fit)"),
                axis("error", "log Z by AIS − exact log Z")]
        parts = []
        k = result.repeat_ais.size
        for xs, err, se, label, color in (
                (np.arange(k, dtype=float), result.repeat_ais - result.repeat_log_z,
                 result.repeat_stderr, "P*(B), repeated", PROJ_COLOR),
                (k + np.arange(result.datasets, dtype=float), result.log_z_ais - result.log_z,
                 result.log_z_stderr, "each dataset's Gibbs fit", FIT_COLOR)):
            parts.append(style(hv.ErrorBars((xs, err, 2 * se), dims[0], [dims[1], "se"]),
                               color=color, mpl=dict(edgecolor=color)))
            parts.append(style(hv.Scatter((xs, err), *dims, label=label), color=color,
                               bokeh=dict(size=7), mpl=dict(s=25)))
        zero = style(hv.HLine(0.0), color="gray", bokeh=DASHED, mpl=MPL_DASHED)
        return style(hv.Overlay(parts) * zero, framewise=True, padding=0.1)

    def inference_plot(self, result: hbm.InferenceStudy):
        r = result
        dims = [axis("part", "part of the error"), axis("kl", "KL (nats)")]
        parts = []
        for j, (label, bias, var, tot, color) in enumerate((
                ("exact gradient", r.bias_exact, r.variances_exact, r.totals_exact,
                 PSTAR_COLOR),
                ("Gibbs gradient", r.bias_gibbs, r.variances_gibbs, r.totals_gibbs, FIT_COLOR),
                ("Gibbs gradient + AIS log Z", r.bias_gibbs_ais, r.variances_gibbs_ais,
                 r.totals_gibbs_ais, PROJ_COLOR))):
            xs = np.arange(3, dtype=float) + 0.2 * (j - 1)
            means = np.array([bias, var.mean(), tot.mean()])
            se = np.array([0.0, var.std(ddof=1), tot.std(ddof=1)]) / np.sqrt(r.datasets)
            parts.append(style(hv.ErrorBars((xs, means, 2 * se), dims[0], [dims[1], "se"]),
                               color=color, mpl=dict(edgecolor=color)))
            parts.append(style(hv.Scatter((xs, means), *dims, label=label), color=color,
                               bokeh=dict(size=9), mpl=dict(s=35)))
        floor = style(hv.Curve(([-0.35, 0.35], [r.projection_bias] * 2), *dims,
                               label="bias of the converged projection"),
                      color="gray", bokeh=dict(line_width=3), mpl=dict(linewidth=2))
        return style(hv.Overlay(parts) * floor, xticks=[(0, "bias"), (1, "variance"),
                                                        (2, "total")],
                     xlim=(-0.5, 2.5), framewise=True)

    def cost_plot(self, result: hbm.InferenceStudy):
        r = result
        names = ["exact\nη_B", "exact\nlog Z", "Gibbs\nη_B", "AIS\nlog Z"]
        seconds = np.array([r.seconds_exact, r.seconds_log_z, r.seconds_gibbs, r.seconds_ais])
        dims = [axis("part", "computation (a whole fit: all gradient steps)"),
                axis("seconds", "seconds per fit")]
        xs = np.arange(4, dtype=float)
        colors = [PSTAR_COLOR, PSTAR_COLOR, FIT_COLOR, PROJ_COLOR]
        bars = hv.Segments([(x, 1e-7, x, max(s, 1e-7)) for x, s in zip(xs, seconds)],
                           kdims=[dims[0], dims[1], "x1", "y1"])
        bars = style(bars, color="#bbbbbb", bokeh=dict(line_width=10), mpl=dict(linewidth=6))
        dots = style(hv.Points((xs, np.maximum(seconds, 1e-7), colors), kdims=dims,
                               vdims=["color"]),
                     color="color", bokeh=dict(size=10), mpl=dict(s=40))
        return style(bars * dots, logy=True, xticks=list(zip(xs, names)), xlim=(-0.5, 3.5),
                     ylim=(1e-6, 10 * max(float(seconds.max()), 1e-5)), framewise=True,
                     show_legend=False)

    plots = (Plot(ais_plot, title="log Z by AIS minus exact log Z (eq 8)"),
             Plot(inference_plot, title="Bias, variance, total: three pipelines"),
             Plot(cost_plot, title="Cost per fit"))
