"""The Doeblin page's two experiments, its runs (``views.framework.runs.Run``): the word-task
learning curves (Steinhardt & Liang Sec 4-5, Fig 4) and the DNF search times (Sec 5, Table 1),
with their settings, the lines read off a result and their panels."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import doeblin as db
from views.framework import DOTTED, MPL_DOTTED, Plot, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.doeblin.common import Curve, ErrorBars, Scatter, Spread

__all__ = ["WordRun", "DnfRun", "DNF_SECONDS_PER_TRIAL", "WORD_SECONDS_PER_UNIT",
           "METHOD_COLORS", "word_task_settings"]

#: Seconds of one unit of work measured on the development machine (2 shared cores), used for
#: the estimate shown before a run: word task per transition x epoch x seed, DNF per trial.
WORD_SECONDS_PER_UNIT = 35.0 / (20 * 22 * 4)
DNF_SECONDS_PER_TRIAL = 26.0 / 80
METHOD_COLORS = {"doeblin": "#d62728", "doeblin-edit": "#ff7f0e", "u-gibbs": "#1f77b4",
                 "basic-gibbs": "#2ca02c", "0-stage": "#1f77b4", "1-stage": "#ff7f0e",
                 "2-stage": "#d62728"}


def word_task_settings(settings: dict) -> dict:
    """The word run's settings as ``db.train_word_task`` arguments."""
    return dict(transitions=int(settings["transitions"]), epochs=int(settings["epochs"]),
                seeds=int(settings["seeds"]), channel=settings["channel"],
                noise=float(settings["noise"]), words=db.WORD_LISTS[int(settings["length"])])


class WordRun(Run):
    """Fig 4: the four trainings on the word task (``db.train_word_task``), their held-out word
    and character accuracy against the epochs."""

    key = "word"
    title = "Learning curves on the word task (Fig 4)"
    button = "Run the word task"
    text = prose(__file__, "word.md")
    aliases = {"word_channel": "channel", "word_noise": "noise", "word_length": "length",
               "transitions": "transitions", "epochs": "epochs", "seeds": "seeds"}
    quick = {"transitions": 5, "epochs": 1, "seeds": 1}
    fields = ("transitions", "epochs", "seeds")

    channel = param.Selector(default="neighbour",
                             objects={"key beside": "neighbour", "random letter": "uniform"},
                             label="Word task: a noisy letter is",
                             doc="Word task channel. 'Key beside': a noisy letter is the "
                                 "next letter of the alphabet, as a finger landing on a "
                                 "neighbouring key; with noise above 1/2 most letters of "
                                 "the input are wrong, so basic Gibbs (started at y = x) "
                                 "starts far from the word, as in the paper. 'Uniformly "
                                 "random letter': y = x is the best letter-by-letter guess.")
    noise = param.Number(0.7, bounds=(0.0, 0.95), step=0.05, label="Word task: noise",
                         doc="Probability that a letter of the input is not the intended one.")
    length = param.Selector(default=4, objects=[4, 6], label="Word task: word length",
                            doc="4-letter words (56) or 6-letter words (62) over the "
                                "letters aeinorst; longer words put the intended word "
                                "more single-letter moves away.")
    transitions = param.Integer(20, bounds=(5, 100), label="Transitions T",
                                doc="Word task: Gibbs steps per chain; Doeblin uses eps = 1/T.")
    epochs = param.Integer(20, bounds=(1, 60), label="Epochs",
                           doc="Word task: passes over the 300 training words.")
    seeds = param.Integer(4, bounds=(1, 10), label="Seeds",
                          doc="Word task: independent repetitions (mean ± s.e. bands).")

    def compute(self, settings: dict, progress=None):
        return db.train_word_task(**word_task_settings(settings), seed=0, progress=progress)

    def estimate(self, settings: dict) -> float:
        return (WORD_SECONDS_PER_UNIT * settings["transitions"] * (settings["epochs"] + 2)
                * settings["seeds"])

    def summary(self, settings: dict, result) -> str:
        """Which method wins, read off the result (no hard-coded numbers), and the verdict."""
        names = list(result.methods)
        w, ws = result.word_mean[-1], result.word_se[-1]
        c, cs = result.char_mean[-1], result.char_se[-1]
        bw, bc = int(np.argmax(w)), int(np.argmax(c))
        finals = ", ".join(f"{m} {w[k]:.3f} / {c[k]:.3f}" for k, m in enumerate(names))
        channel = "keys beside" if settings["channel"] == "neighbour" else "uniform letters"
        return (f"**This run** ({settings['length']}-letter words, noise "
                f"{settings['noise']:g} ({channel}), T = {settings['transitions']}, "
                f"{settings['epochs']} epochs, "
                f"{settings['seeds']} seeds, {result.seconds:.0f} s): best final word accuracy "
                f"**{names[bw]}** ({w[bw]:.3f} ± {ws[bw]:.3f}), best character accuracy "
                f"**{names[bc]}** ({c[bc]:.3f} ± {cs[bc]:.3f}). Final word / character accuracy: "
                f"{finals}; u alone {result.u_word_accuracy.mean():.3f} / "
                f"{result.u_char_accuracy.mean():.3f}, Bayes decoder "
                f"{result.oracle_word_accuracy.mean():.3f} / "
                f"{result.oracle_char_accuracy.mean():.3f}. "
                + verdict_markdown(db.word_order_claim(result)))

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

    plots = (Plot(word_plot, title="Word accuracy (Fig 4 left)"),
             Plot(char_plot, title="Character accuracy (Fig 4 right)"))


class DnfRun(Run):
    """Table 1: the three DNF searches on every difficulty level (``db.dnf_experiment``)."""

    key = "dnf"
    title = "DNF formula search (Table 1)"
    button = "Run the DNF search"
    text = prose(__file__, "dnf.md")
    aliases = {"trials": "trials"}
    quick = {"trials": 5}
    fields = ("trials",)

    trials = param.Integer(80, bounds=(5, 500), label="Trials per level",
                           doc="DNF search: problems drawn per difficulty level.")

    def compute(self, settings: dict, progress=None):
        return db.dnf_experiment(trials=int(settings["trials"]), seed=0, progress=progress)

    def estimate(self, settings: dict) -> float:
        return DNF_SECONDS_PER_TRIAL * settings["trials"]

    def summary(self, settings: dict, result) -> str:
        """Which search is fastest on the hardest level, read off the result, and the
        verdict."""
        names = list(result.methods)
        hard = len(result.levels) - 1
        t = result.mean_seconds[hard]
        fastest = int(np.argmin(t))
        steps = result.mean_steps[hard]
        ratios = []
        for a, b in (("0-stage", "1-stage"), ("1-stage", "2-stage"), ("0-stage", "2-stage")):
            if a in names and b in names:
                i, j = names.index(a), names.index(b)
                ratios.append(f"{a} / {b} {t[i] / t[j]:.2f}x (steps {steps[i] / steps[j]:.2f}x)")
        return (f"**This run** ({settings['trials']} trials per level, "
                f"{result.total_seconds:.0f} s): fastest on the hardest level "
                f"({result.levels[hard]}) is **{names[fastest]}**; time ratios there (above 1: "
                f"the second method is faster) {', '.join(ratios)}. Times are wall-clock and "
                "vary with the machine's load; step counts do not. "
                + verdict_markdown(db.staged_restarts_claim(result)))

    def extra(self, settings: dict, result) -> str:
        """Table 1 as Markdown: mean ± s.e. time (ms) and mean steps, methods x levels."""
        head = "| method | " + " | ".join(result.levels) + " |"
        rule = "|---|" + "---|" * len(result.levels)
        rows = [head, rule]
        for k, method in enumerate(result.methods):
            cells = []
            for a in range(len(result.levels)):
                ge = "≥ " if result.solved_fraction[a, k] < 1 else ""
                cells.append(f"{ge}{1e3 * result.mean_seconds[a, k]:.3g} ± "
                             f"{1e3 * result.se_seconds[a, k]:.2g} ms "
                             f"({result.mean_steps[a, k]:,.0f} steps)")
            rows.append(f"| {method} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

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

    plots = (Plot(dnf_plot, title="DNF search time (Table 1)"),)
