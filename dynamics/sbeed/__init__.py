"""SBEED: smoothed Bellman error embedding (Dai's thesis, chapter 6, Algorithm 5, appendix D).

The Bellman equation smoothed by an entropy term lam (eq 6.4) has a unique fixed point V*_lam and
a softmax policy pi*_lam that satisfy the temporal consistency V(s) = R + gamma E V(s') -
lam log pi(a | s) for every (s, a) (Prop 26). Minimising the squared consistency error needs two
independent next states per (s, a) (the double-sampling problem); SBEED turns it into the saddle
point (eq 6.10)

    min_{V, pi} max_rho  E[(delta - V(s))^2] - eta E[(delta - rho(s, a))^2],
    delta = R(s, a) + gamma V(s') - lam log pi(a | s),

where the dual rho cancels the variance of V(s') (eta = 1, Prop 55) and eta = 0 is PCL's biased
surrogate. ``mdp`` holds finite MDPs (Garnet, gymnasium's FrozenLake) and soft value iteration,
``saddle`` the objective on them in closed form (eq 6.10 at the optimal dual, Prop 55; its
gradients, Thm 27; the biased fixed point), ``tabular`` the exact and sampled SBEED iterations
on them, ``pendulum`` the continuous-control version on gymnasium's Pendulum-v1 (and Fig 6.1's
ablation on it), ``swimmer`` the same learner on gymnasium's Swimmer-v5 (MuJoCo; Fig 6.1's
panels on the paper's environment), ``approximators`` the parts of that learner both share
(delta_k of eq D.3, the dual's least-squares fit, random features, Adam),
``studies`` the ablation's eta panel on a stochastic Garnet (where the dual is exact),
``claims`` the ablation's claims.
"""

from __future__ import annotations

from . import approximators, claims, mdp, pendulum, saddle, studies, swimmer, tabular
from .claims import intermediate_best_claim, k_variance_claim, swimmer_claim
from .mdp import (
    MDP,
    SoftValues,
    frozen_lake,
    garnet,
    policy_entropy,
    policy_values,
    risky_choice,
    soft_value_iteration,
)
from .saddle import FixedPoint, biased_fixed_point, gradients, objective, policy_of
from .tabular import (
    Buffer,
    TabularRun,
    dual_actions,
    k_step_deltas,
    sample_segments,
    sbeed_tabular,
)
from .studies import TabularEta, tabular_eta

__all__ = [
    "approximators", "claims", "mdp", "pendulum", "saddle", "studies", "swimmer", "tabular",
    "intermediate_best_claim",
    "swimmer_claim", "k_variance_claim", "TabularEta",
    "tabular_eta",
    "MDP", "SoftValues", "frozen_lake", "garnet", "policy_entropy", "policy_values", "risky_choice",
    "soft_value_iteration", "Buffer", "FixedPoint", "TabularRun", "biased_fixed_point", "gradients",
    "dual_actions", "k_step_deltas", "objective", "policy_of", "sample_segments", "sbeed_tabular",
]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    tabular._warmup()
