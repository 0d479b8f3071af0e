"""Where our attractor differs from the paper's Fig 1.11: its dimension measured on several
models (the page's random models and the hexagon example), every model herded from scratch
through ``dynamics.sweep`` and judged by the claim of the page and the gallery
(`attractor_claim`). The gallery writes it into its report (REPORT.md and
``herding.fig1_10_11/DIFFERENCES.md``); a notebook can run it as it is."""

from __future__ import annotations

from dataclasses import dataclass

from dynamics.checks import check_count, check_flag, check_progress
from dynamics.herding.claims import attractor_claim
from dynamics.herding.dimension import AttractorDimension, attractor_dimension, hexagon_model
from dynamics.herding.samples import random_model
from dynamics.sweep import sweep

__all__ = ["AttractorStudy", "attractor_study"]


def _attractor_setting(*, model: str, n_states: int, n_features: int, model_seed: int,
                       steps: int, burn_in: int, sample: int, seed: int,
                       progress=None) -> AttractorDimension:
    """One model's attractor, herded from w0 = 0 and measured."""
    m = (hexagon_model() if model == "hexagon"
         else random_model(n_states, n_features, seed=model_seed))
    return attractor_dimension(m.features, m.moments, steps=steps, burn_in=burn_in,
                               sample=sample, seed=seed, progress=progress)


@dataclass(frozen=True)
class AttractorStudy:
    """``attractor_study``: per setting (``settings``: model, n_states, n_features, model_seed,
    steps, burn_in, sample) the measured ``results`` and the claim's ``verdicts``
    (`attractor_claim`)."""

    settings: tuple
    results: tuple
    verdicts: tuple

    def agreeing(self, **match) -> tuple[int, int]:
        """(settings whose attractor measures between 0 and 1, settings) among those matching
        ``match`` (``model="random"``, ...)."""
        rows = [i for i, s in enumerate(self.settings)
                if all(s[k] == v for k, v in match.items())]
        return sum(bool(self.verdicts[i].agrees) for i in rows), len(rows)


def attractor_study(*, quick: bool = False, seed: int = 0, progress=None) -> AttractorStudy:
    """The attractor's dimension (Chen & Welling, Fig 1.11) at 10^6 points after a burn-in of
    10^4 steps (the page's default model, D = 6, K = 2, seed 1, also at 2 x 10^6) on the page's
    random models with D = 6, K = 2 and seeds 1, 2, 3, 7, and on the hexagon example
    (`hexagon_model`); correlation dimensions from 50,000 points. ``quick``: 20,000 points
    after 1,000 steps, 5,000 for the correlation, the seed-1 model and the hexagon."""
    quick = check_flag("quick", quick)
    seed = check_count("seed", seed, low=0, high=2**63 - 1)
    progress = check_progress(progress)
    steps, burn_in, sample = (20_000, 1_000, 5_000) if quick else (1_000_000, 10_000, 50_000)
    random = dict(model="random", n_states=6, n_features=2)
    settings = [dict(random, model_seed=s, steps=steps) for s in ((1,) if quick else (1, 2, 3, 7))]
    if not quick:
        settings.insert(1, dict(random, model_seed=1, steps=2 * steps))
    settings.append(dict(model="hexagon", n_states=6, n_features=2, model_seed=0, steps=steps))
    for s in settings:
        s.update(burn_in=burn_in, sample=sample)
    results = sweep(_attractor_setting, settings, seed=seed, progress=progress,
                    task_progress=True, weights=[s["steps"] for s in settings])
    return AttractorStudy(tuple(settings), tuple(results),
                          tuple(attractor_claim(r) for r in results))
