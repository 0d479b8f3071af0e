"""Strong Doeblin chains: Markov chains with a guaranteed mixing time, and learning them.

Implements Steinhardt & Liang, *Learning Fast-Mixing Models for Structured Prediction*
(seed paper ``002``): the restarted chain of eqs 1-2, its spectral gap (Prop 3.1), its stationary
law in closed form (Prop 3.2, eq 3) with the exact sampler that the series suggests, the monotone
KL divergences (Prop 3.4), the Mahalanobis bound (Prop 3.5), staged chains (Sec 3.1, Thm 3.6,
Cor 3.7), and the three-state chain of the paper's Fig 1, learning (Sec 4, Algorithm 1) and the
experiments of Sec 5. A package by subject, every public name imported here:

- ``chains``: restarted chains and their closed forms (eqs 1-3, Props 3.1-3.5);
- ``builders``: the example chains (Fig 1, random, barbell) and restart laws;
- ``sampling``: the exact restart sampler (Prop 3.2) raced against the plain chain;
- ``staged``: staged chains and the bounds of Thm 3.6 and Cor 3.7;
- ``sequence``: the sequence model of Sec 4 (eqs 4-6), its chains and exact likelihood;
- ``gibbs``: the Numba kernels of its two base chains u_theta and A_theta (eq 5);
- ``learning``: Algorithm 1's gradient estimates (Sec 4, 4.2);
- ``word_task``: the word task of Sec 5 / Fig 4, and ``word_training`` its training kernels;
- ``dnf``: the DNF formula search of Sec 5, and ``dnf_table`` its Table 1 experiment;
- ``claims``: the paper's claims, judged on the runs above;
- ``studies``: the word task and the DNF search over the settings the paper leaves open.

Conventions: row-stochastic matrices
------------------------------------
Here ``P[i, j] = P(next = j | now = i)`` (rows sum to 1) and laws are 1-d arrays read as row
vectors, ``pi @ P``. The paper writes column-stochastic kernels ``A(y_t | y_{t-1})``, i.e. its
``A[y_t, y_{t-1}]`` is our ``P[y_{t-1}, y_t]``: ``A = P.T``. Its equations translate as

    paper (columns)                              here (rows)
    A~ = (1 - eps) A + eps u 1^T       (eq 2)    P~ = (1 - eps) P + eps 1 u^T
    pi~ = eps (I - (1 - eps) A)^{-1} u (eq 3)    (I - (1 - eps) P^T) pi~ = eps u
    A pi = pi                                    pi P = pi  (i.e. P^T pi = pi)

and eigenvalues are the same for A and P = A^T.

What is here
------------
- Closed forms: `restart_chain` (eq 2), `stationary`, `restart_stationary` (Prop 3.2),
  `spectral_gap`, `restart_spectrum` (Prop 3.1), `restart_sweep` (Props 3.1, 3.4, 3.5 over a
  grid of eps), `mahalanobis_distance`, `is_reversible`.
- Sampling: `sample_restart` (exact draws, Prop 3.2, raced against the plain chain).
- Chains: `three_state_chain` (Fig 1), `random_chain`, `barbell_chain`, `restart_law`.
- Staged chains (Sec 3.1): `restart_kernel`, `cycle_stage_transition`, `staged_chain`,
  `stage_marginal`, `staged_gap_bound` (Thm 3.6), `cycle_gap_bound` (Cor 3.7), and
  `staged_sweep` and `staged_cycle_bounds` (the three-stage chain of Fig 2(b) over a grid
  of restart rates).
- Learning (Sec 4): `sequence_model`, `model_chains`, `exact_log_likelihood`, `exact_gradient`,
  `sample_gradient` (Algorithm 1), `gradient_convergence`, `gibbs_path`; the word task of
  Sec 5 / Fig 4: `make_word_task`, `train_word_task`.
- DNF search (Sec 5, Table 1): `make_dnf_problem`, `dnf_search`, `dnf_experiment`.
- The paper's claims, judged on these runs (``claims``): `restart_gap_claim` (Props 3.1, 3.4),
  `staged_gap_claim` (Thm 3.6, Cor 3.7), `word_order_claim` (Fig 4), `staged_restarts_claim`
  (Table 1); and where our experiments differ from the paper's (``studies``): `word_study`,
  `dnf_study`.
"""

from __future__ import annotations

from dynamics.doeblin import chains
from dynamics.doeblin.chains import (  # noqa: F401
    MAX_SWEEP_COST,
    MAX_STAGED_STATES,
    MAX_BOUND_HORIZON,
    MIN_EPS,
    restart_chain,
    stationary,
    restart_stationary,
    second_eigenvalue,
    spectral_gap,
    is_reversible,
    mahalanobis_distance,
    RestartSpectrum,
    restart_spectrum,
    RestartSweep,
    restart_sweep,
)
from dynamics.doeblin import builders
from dynamics.doeblin.builders import (  # noqa: F401
    RESTART_LAWS,
    three_state_chain,
    random_chain,
    barbell_chain,
    restart_law,
)
from dynamics.doeblin import sampling
from dynamics.doeblin.sampling import (  # noqa: F401
    MAX_SAMPLE_TRANSITIONS,
    MAX_SAMPLE_DRAWS,
    RestartSample,
    sample_restart,
)
from dynamics.doeblin import staged
from dynamics.doeblin.staged import (  # noqa: F401
    restart_kernel,
    cycle_stage_transition,
    staged_chain,
    stage_marginal,
    cycle_gap_bound,
    StagedGapBound,
    staged_gap_bound,
    StagedSweep,
    staged_sweep,
    StagedBounds,
    staged_cycle_bounds,
)
from dynamics.doeblin import sequence
from dynamics.doeblin.sequence import (  # noqa: F401
    MAX_CODES,
    MAX_ENUMERATED,
    MAX_TRANSITIONS,
    SequenceModel,
    sequence_model,
    model_chains,
    exact_log_likelihood,
    exact_gradient,
)
from dynamics.doeblin import gibbs
from dynamics.doeblin.gibbs import gibbs_path  # noqa: F401
from dynamics.doeblin import learning
from dynamics.doeblin.learning import (  # noqa: F401
    SampledGradient,
    sample_gradient,
    GradientConvergence,
    gradient_convergence,
)
from dynamics.doeblin import word_task, word_training
from dynamics.doeblin.word_task import (  # noqa: F401
    WORD_LETTERS,
    WORD_LIST,
    WORD_LIST_6,
    WORD_LISTS,
    WORD_CHANNELS,
    WORD_METHODS,
    MAX_STEP_SIZE,
    WordTask,
    make_word_task,
    WordTaskResult,
    WordTaskProgress,
    train_word_task,
)
from dynamics.doeblin import dnf
from dynamics.doeblin.dnf import (  # noqa: F401
    DNF_LEVELS,
    DNF_LEVEL_COST,
    DNF_TARGETS,
    PAPER_EXAMPLE_LEVEL,
    DNF_METHODS,
    DNFProblem,
    dnf_errors,
    make_dnf_problem,
    DNFSearchResult,
    dnf_search,
)
from dynamics.doeblin import dnf_table
from dynamics.doeblin.dnf_table import DNFTable, dnf_experiment  # noqa: F401

from dynamics.doeblin import claims
from dynamics.doeblin.claims import (  # noqa: F401
    restart_gap_claim,
    staged_gap_claim,
    word_order_claim,
    WORD_MIN_SEEDS,
    GAP_ROUNDING,
    DOEBLIN_ALPHA,
    staged_restarts_claim,
)
from dynamics.doeblin import studies
from dynamics.doeblin.studies import (  # noqa: F401
    WordStudy,
    word_study,
    DNFStudy,
    dnf_study,
)

__all__ = [*chains.__all__, *builders.__all__, *sampling.__all__, *staged.__all__,
           *sequence.__all__, *gibbs.__all__, *learning.__all__, *word_task.__all__,
           *dnf.__all__, *dnf_table.__all__, *claims.__all__, *studies.__all__]


def _warmup() -> None:
    """Compile (or load from cache) every kernel of the Doeblin engine with production dtypes."""
    for module in (chains, sampling, staged, learning, word_training, dnf):
        module._warmup()
