"""The herding page's run on data (Sec 1.4.1): Tables 1.1-1.2 of Chen & Welling beside ours,
on binary data sets built from data scikit-learn ships (``dynamics.herding.data``)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics.herding import data as hd
from views.framework import Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import plain, verdict_markdown

__all__ = ["TablesRun", "DATA_NAMES", "METHOD_MARKS", "CLASSIFIER_MARKS"]

#: The data sets of the run (``hd.binary_dataset``), as the page names them.
DATA_NAMES = {"digits": "digits", "breast_cancer": "breast cancer", "diabetes": "diabetes"}
#: Table 1.1's estimates and Table 1.2's classifiers: colour, Bokeh marker, matplotlib marker.
METHOD_MARKS = {"H.XXX": ("#d62728", "circle", "o"), "H.XX": ("#ff7f0e", "square", "s"),
                "PL": ("#1f77b4", "triangle", "^"), "MARG": ("#7f7f7f", "diamond", "D")}
CLASSIFIER_MARKS = {"H.XXY": ("#d62728", "circle", "o"), "PL": ("#1f77b4", "triangle", "^"),
                    "5NN": ("#2ca02c", "inverted_triangle", "v"),
                    "NB": ("#9467bd", "diamond", "D"), "LR": ("#222222", "square", "s")}


class TablesRun(Run):
    """Table 1.1 (KL of the count of ones under herding, PL and the marginals) and Table 1.2
    (the classifier learned while herding against batch classifiers)."""

    key = "tables"
    title = "Herding on data (Tables 1.1-1.2)"
    button = "Run both tables"
    text = prose(__file__, "tables.md")
    aliases = {"data_sets": "data_sets", "samples": "samples", "splits": "splits",
               "data_seed": "seed"}
    quick = {"data_sets": ["diabetes"], "samples": 1_000, "splits": 2}
    fields = ("seed",)
    widgets = {"data_sets": {"type": "checkboxes", "inline": True},
               "samples": {"throttled": True}}

    data_sets = param.ListSelector(default=list(hd.DATASETS),
                                   objects={DATA_NAMES[k]: k for k in hd.DATASETS},
                                   label="Data sets",
                                   doc="10-bit data sets built from data scikit-learn ships "
                                       "(dynamics.herding.data.binary_dataset): 8 x 8 "
                                       "digits 3 and 5, breast cancer, diabetes.")
    samples = param.Integer(100_000, bounds=(1_000, 200_000), step=1_000,
                            label="Pseudo-samples S",
                            doc="Samples of each estimate of Table 1.1 (PL: 2S Gibbs sweeps, "
                                "the last S kept) and herding steps of H.XXY in Table 1.2 "
                                "(the paper: 100K).")
    splits = param.Integer(5, bounds=(2, 20), label="Splits (Table 1.2)",
                           doc="Random 70/30 training/test splits of Table 1.2 (the paper: 5).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed (Tables 1.1-1.2)",
                         doc="Seed of the PL Gibbs chains, the marginals' draws and the "
                             "splits (herding itself is deterministic).")

    def constrain(self) -> list[str]:
        """No data set chosen (a link's empty list): the default sets back, and a note saying
        so."""
        notes = super().constrain()
        if self.data_sets:
            return notes
        self.set_unconstrained("data_sets", list(self.param.data_sets.default))
        return notes + ["Data sets: choose at least one of "
                        + ", ".join(DATA_NAMES.values()) + "."]

    def compute(self, settings: dict, progress=None) -> hd.DataTables:
        names = list(settings["data_sets"])
        if not names:
            raise ValueError("choose at least one data set")
        return hd.data_tables(names, samples=int(settings["samples"]),
                              runs=int(settings["splits"]), seed=int(settings["seed"]),
                              progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured on the development machine (CPU seconds a data set): Table 1.1 about 0.2 + 2.8 per
        # 10^5 samples, Table 1.2 about 0.2 + 0.35 per 10^5 herding steps a split
        S = settings["samples"] / 100_000
        return len(settings["data_sets"]) * (0.2 + 2.8 * S
                                            + settings["splits"] * (0.2 + 0.35 * S))

    def summary(self, settings: dict, result: hd.DataTables) -> str:
        missing = [f"{DATA_NAMES[t.name]} {m}" for t in result.kl for m, v in t.kl_count.items()
                   if not np.isfinite(v)]
        note = (" Left out of the left panel (infinite KL, a count k never drawn): "
                + ", ".join(missing) + "." if missing else "")
        text = (f"**S = {result.samples:,} pseudo-samples, {result.errors[0].runs} splits, "
                f"{len(result.names)} data set{'s' if len(result.names) > 1 else ''}.** "
                "Table 1.1: " + verdict_markdown(hd.kl_table_claim(list(result.kl)))
                + " Table 1.2: " + verdict_markdown(hd.online_classifier_claim(
                    list(result.errors))) + note)
        return text.replace("H.XXX", r"H\.XXX")  # not a web address (.xxx is a domain)

    def extra(self, settings: dict, result: hd.DataTables) -> str:
        def kl_row(name, values):
            return f"| {name} | " + " | ".join(_sci(values.get(m)) for m in hd.METHODS) + " |"

        def error_row(name, cells):
            return f"| {name} | " + " | ".join(cells) + " |"

        # plain: "H.XXX" would be linked as a web address (.xxx is a top-level domain)
        rows = ["| data set | " + " | ".join(map(plain, hd.METHODS)) + " |", "|" + " --- |" * 5]
        rows += [kl_row(f"{name} (paper)", values)
                 for name, values in hd.PAPER_TABLE_1_1.items()]
        rows += [kl_row(f"**{plain(DATA_NAMES[t.name])} (ours)**", t.kl_count)
                 for t in result.kl]
        errors = ["| data set | " + " | ".join(map(plain, hd.CLASSIFIERS)) + " |",
                  "|" + " --- |" * 6]
        errors += [error_row(f"{name} (paper)",
                             [f"{values[m][0]:.2f} ± {values[m][1]:.2g}" for m in hd.CLASSIFIERS])
                   for name, values in hd.PAPER_TABLE_1_2.items()]
        errors += [error_row(f"**{plain(DATA_NAMES[t.name])} (ours)**",
                             [f"{t.mean(m):.3f} ± {t.std(m):.3f}" for m in hd.CLASSIFIERS])
                   for t in result.errors]
        return ("**Table 1.1**, KL of P(k) (the paper's experiment I), beside ours at S = "
                f"{result.samples:,}:\n\n" + "\n".join(rows)
                + "\n\n**Table 1.2**, test error, mean ± sd over splits (the paper: 5 runs; its "
                "splits are fixed sizes, ours 70/30):\n\n" + "\n".join(errors)
                + "\n\nThe paper's sets are not ours (not shipped: see above), so the rows "
                "differ in data; compare the orderings within a row, not the numbers.")

    def kl_plot(self, result: hd.DataTables):
        dims = [axis("set", "data set (10 bits)"),
                axis("kl", "KL(data ‖ estimate) of P(k) (nats)")]
        tables = dict(zip(result.names, result.kl))
        return _grouped(result.names, hd.METHODS, METHOD_MARKS,
                        lambda n, m: tables[n].kl_count.get(m, np.nan), dims)

    def error_plot(self, result: hd.DataTables):
        dims = [axis("set", "data set (10 bits and a label)"),
                axis("error", "test error (fraction of test cases)")]
        tables = dict(zip(result.names, result.errors))
        return _grouped(result.names, hd.CLASSIFIERS, CLASSIFIER_MARKS,
                        lambda n, m: tables[n].mean(m), dims,
                        spread=lambda n, m: tables[n].std(m))

    plots = (Plot(kl_plot, title="Table 1.1: KL of P(k), the count of ones"),
             Plot(error_plot, title="Table 1.2: test error (± sd)"))


def _grouped(names, methods, marks, values, dims, *, spread=None):
    """Markers side by side per data set (x: the set), one colour and shape per method;
    ``values(name, method)`` gives the value (non-finite or non-positive: left out, the
    axis is logarithmic), ``spread`` the whisker (one sd) below and above."""
    xs = np.arange(len(names), dtype=float)
    width = 0.6 / len(methods)
    layers = []
    for j, method in enumerate(methods):
        color, marker, mpl_marker = marks[method]
        x = xs + width * (j - (len(methods) - 1) / 2)
        y = np.array([values(n, method) for n in names], dtype=float)
        keep = np.isfinite(y) & (y > 0)
        if spread is not None:
            sd = np.array([spread(n, method) for n in names], dtype=float)
            layers.append(style(hv.ErrorBars((x[keep], y[keep],
                                              np.minimum(sd, 0.95 * y)[keep], sd[keep]),
                                             dims[0], [dims[1], "below", "above"]),
                                color=color, mpl=dict(edgecolor=color)))
        layers.append(style(hv.Scatter((x[keep], y[keep]), *dims, label=method),
                            color=color, bokeh=dict(size=9, marker=marker),
                            mpl=dict(s=36, marker=mpl_marker)))
    ticks = {}
    if spread is not None:
        # within two decades Bokeh's log axis labels one or two ticks: 1-2-5 steps instead
        shown = [v for layer in layers if isinstance(layer, hv.ErrorBars)
                 for v in (layer.dimension_values(1) - layer.dimension_values(2),
                           layer.dimension_values(1) + layer.dimension_values(3))]
        if shown and np.concatenate(shown).size:
            lo, hi = np.concatenate(shown).min(), np.concatenate(shown).max()
            steps = [float(m * 10.0 ** e) for e in range(-4, 1) for m in (1, 2, 5)
                     if lo <= m * 10.0 ** e <= hi]
            if len(steps) >= 3:  # a narrower range keeps the axis's own ticks
                ticks["yticks"] = [(v, f"{v:g}") for v in steps]
    return style(hv.Overlay(layers), logy=True, framewise=True,
                 xticks=[(float(i), DATA_NAMES[n]) for i, n in enumerate(names)],
                 xlim=(-0.5, len(names) - 0.5), **ticks)


def _sci(value) -> str:
    """A KL as the paper's Table 1.1 writes it (5E-3, 1.8E0); None: not run (-); inf: ∞."""
    if value is None:
        return "-"
    if not np.isfinite(value):
        return "∞"
    mantissa, exponent = f"{value:.1E}".split("E")
    return f"{mantissa}E{int(exponent)}"
