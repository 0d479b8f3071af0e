"""Temperature bifurcations: from maximum likelihood (a fixed point) to herding (edge of chaos).

Implements Sec 1.2.2 of Chen & Welling, *Herding as a Learning System with Edge-of-Chaos
Dynamics* (seed paper ``000``): gradient ascent with a constant step on the tempered MRF
log-likelihood of eq 1.6, written in the herding scale of eqs 1.7-1.9,

    w_{t+1} = w_t + eta (phi_bar - E_{p_T(w_t)}[phi]),      p_T(x | w) ∝ exp(w . phi(x) / T),

which is eq 1.9 multiplied by T (the paper's w' = w / T are the natural parameters of the MRF).
Its Jacobian is J(w) = I - (eta / T) Cov_{p_T(w)}(phi), so only eta / T matters (up to the scale
of w). At high T the map contracts to the maximum-likelihood fixed point w* = T theta*, where
E_{p(theta*)}[phi] = phi_bar (moment matching, eq 1.1). As T falls the attractor splits into 2, 4,
8, ... points (Fig 1.1 left) up to an accumulation temperature below which the motion is
aperiodic; at T -> 0 the map becomes herding (eqs 1.7-1.8, `dynamics.herding.herd`).

Derived here (not stated in the paper): the fixed point loses stability when the lowest
eigenvalue of J there, 1 - eta c_max / T, crosses -1, i.e. at the first period-doubling
temperature T_1 = eta * c_max / 2, with c_max the largest eigenvalue of Cov_{p*}(phi) and p* the
moment-matching (max-entropy) distribution (`first_doubling_temperature`). Later doublings are
located numerically (`refine_doubling`) as the temperature where a multiplier of the 2^n-cycle's
monodromy matrix crosses -1. Measured on random 4-state, 2-feature models (seeds 0-99 of
`dynamics.herding.random_model`, eta = 1): 71 show a cascade of >= 3 doublings (most followed to
period 512-2048, with interval ratios converging to Feigenbaum's 4.6692, see DEFAULT_SEED), 7 stop
after the second doubling and 22 after the first (the 2-cycle then loses stability another way),
consistent with the paper's "observed very often".

Conventions: ``features`` is the (D, K) table whose row d is phi(x_d); ``moments`` is phi_bar (K,);
``temperature`` T > 0 strictly (T = 0 is herding: use `dynamics.herding.herd`).

Numerics: the softmax subtracts the largest score *before* dividing by T, so any T > 0 works
(T = 1e-300 gives the herding limit with exact ties averaged instead of sent to the lowest index).
1/T is capped at the largest double. The kernels use a branch-free exp(x) for x <= 0 (Cody-Waite
reduction and a degree-13 Taylor polynomial, relative error ~1e-16, flushing below exp(-708))
which LLVM vectorizes across temperatures; all kernels share it, so a single trajectory and a row
of the bifurcation diagram agree bit for bit. Kernels allow only the ``contract`` fast-math flag
(a * b + c fused into one FMA, no reassociation), which keeps that bitwise agreement.

A package by subject, every public name imported here: ``tempered_map`` (trajectories, the
diagram, the maximum-likelihood fixed point), ``cascade`` (periods, doubling temperatures and
Feigenbaum ratios), ``lyapunov`` (exponents), ``claims`` (Fig 1.1's claim, judged on a cascade);
the kernels and shared checks are in ``_kernels``.
"""

from __future__ import annotations

from dynamics.bifurcation import _kernels, cascade, claims, lyapunov, tempered_map
from dynamics.bifurcation._kernels import (  # noqa: F401
    FEIGENBAUM_DELTA,
    MAX_SAMPLE_VALUES,
    MAX_MAP_EVALUATIONS,
    MAX_LYAPUNOV_EVALUATIONS,
    MAX_REFINE_PERIOD,
    DEFAULT_SEED,
    _warmup,
)
from dynamics.bifurcation.tempered_map import (  # noqa: F401
    TemperedResult,
    BifurcationResult,
    tempered_trajectory,
    bifurcation,
    mle_parameters,
    fixed_point,
    first_doubling_temperature,
)
from dynamics.bifurcation.cascade import (  # noqa: F401
    PeriodDoublings,
    DoublingPoint,
    attractor_period,
    periods,
    period_doublings,
    refine_doubling,
    refine_doublings,
    extend_doublings,
    doubling_cascade,
)
from dynamics.bifurcation.lyapunov import (  # noqa: F401
    LyapunovResult,
    LyapunovSweep,
    lyapunov_exponent,
    lyapunov_sweep,
)

from dynamics.bifurcation.claims import (  # noqa: F401
    FEIGENBAUM_MIN_RATIOS,
    FEIGENBAUM_TOLERANCE,
    feigenbaum_claim,
)

__all__ = [*_kernels.__all__, *tempered_map.__all__, *cascade.__all__, *lyapunov.__all__,
           *claims.__all__]
