"""The word task of Sec 5 (Fig 4): noisy words decoded by a strong Doeblin chain trained with
Algorithm 1, against Gibbs-chain MCMC gradients. The model: ``dynamics.doeblin.sequence``;
Algorithm 1: ``dynamics.doeblin.learning``; the training and evaluation kernels:
``dynamics.doeblin.word_training`` (re-exported here)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from dynamics.checks import (as_generator, check_choice, check_count, check_in_range,
                              check_progress, describe, report)
from dynamics.doeblin.sequence import SequenceModel, sequence_model
from dynamics.doeblin.word_training import (  # noqa: F401  (kernels, re-exported)
    _add_features_a, _evaluate, _train_doeblin_epoch, _train_gibbs_epoch, _train_u_epoch,
)

__all__ = [
    "WORD_LETTERS",
    "WORD_LIST",
    "WORD_LIST_6",
    "WORD_LISTS",
    "WORD_CHANNELS",
    "WORD_METHODS",
    "MAX_STEP_SIZE",
    "WordTask",
    "make_word_task",
    "WordTaskResult",
    "WordTaskProgress",
    "train_word_task",
]

#: Letters of the word task (a small alphabet that still spells many English words).
WORD_LETTERS = "aeinorst"
#: The dictionary of the word task: 4-letter English words over WORD_LETTERS. Many are one letter
#: apart (rate / rite, tone / note / none / nose), so a noisy letter string is ambiguous
#: position by position and only the whole word (the global in-dictionary feature) decides.
WORD_LIST = (
    "rate", "tone", "nest", "rest", "test", "sort", "note", "seat", "tear", "rose", "nose",
    "tire", "iron", "rain", "earn", "near", "star", "east", "ears", "rent", "sent", "tent",
    "site", "into", "riot", "trio", "stir", "sine", "anti", "tons", "soot", "root", "neat",
    "ante", "tart", "onto", "oats", "sore", "tore", "torn", "rise", "ties", "toes", "nets",
    "teen", "seen", "tree", "arts", "rats", "sire", "rite", "tier", "noon", "soon", "none",
    "nine",
)

#: A harder dictionary: 6-letter English words over WORD_LETTERS. Noise hits more letters per word
#: and the intended word is several single-letter moves away through non-words, where the
#: in-dictionary feature gives single-site Gibbs no signal: closer to Sec 5's claim that "local
#: information is insufficient to even identify high-probability regions of the space".
WORD_LIST_6 = (
    "retain", "senior", "nation", "insert", "tenors", "stoner", "reason", "treats", "tartan",
    "sonnet", "tenant", "attire", "ratios", "satire", "rotten", "intern", "tinier", "orient",
    "stereo", "street", "tester", "setter", "resist", "sister", "assert", "starts", "states",
    "tastes", "taster", "rioter", "roster", "stores", "sorter", "sooner", "season", "senses",
    "tenses", "tennis", "sienna", "insane", "sanest", "easier", "teaser", "eaters", "arrest",
    "rarest", "raster", "errant", "ration", "sitter", "otters", "traits", "strait", "attest",
    "rosier", "toasts", "entire", "retire", "tanner", "sonata", "astern", "stairs",
)

#: Training methods of `train_word_task`: Algorithm 1 ("doeblin"), its Sec 5 edit-distance
#: variant ("doeblin-edit"), and the two Gibbs baselines of Sec 5.
#: The word lists by word length.
WORD_LISTS = {4: WORD_LIST, 6: WORD_LIST_6}
WORD_METHODS = ("doeblin", "doeblin-edit", "u-gibbs", "basic-gibbs")
_EVAL_MODE = {"doeblin": 0, "doeblin-edit": 0, "u-gibbs": 1, "basic-gibbs": 2}


# ============================================================== the word task (Sec 5)


@dataclass(frozen=True)
class WordTask:
    """Short dictionary words sent through a noisy channel (in the spirit of Sec 5's keyboard task).

    Attributes
    ----------
    model : SequenceModel
        V = len(letters), L = word length, in-dictionary table of ``words``.
    letters : str
    words : ndarray of int64 (n_words, L)
    x_train, y_train : ndarray of int64 (n_train, L)
        Noisy inputs and intended words.
    x_test, y_test : ndarray of int64 (n_test, L)
    noise : float
        Each letter is replaced with probability ``noise`` (how: ``channel``).
    channel : str
        "uniform": by a uniformly random letter; "neighbour": by the next letter of
        ``letters`` (cyclically), as a finger landing on the key beside the intended one.
    """

    model: SequenceModel
    letters: str
    words: np.ndarray
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    noise: float
    channel: str = "uniform"

    def channel_matrix(self) -> np.ndarray:
        """P(x_i = b | y_i = a) as a (V, V) array [a, b]."""
        V = len(self.letters)
        if self.channel == "neighbour":
            return (1.0 - self.noise) * np.eye(V) + self.noise * np.roll(np.eye(V), 1, axis=1)
        return (1.0 - self.noise) * np.eye(V) + self.noise / V


#: Channels of `make_word_task`.
WORD_CHANNELS = ("uniform", "neighbour")


#: Largest AdaGrad step of ``train_word_task``: a step moves each logit by at most step_size, and
#: logits 100 apart already give probabilities e^-100.
MAX_STEP_SIZE = 100.0


def _check_words(words) -> tuple:
    """A non-empty tuple or list of strings of one length (a lone string is refused)."""
    if isinstance(words, str) or not isinstance(words, (tuple, list)):
        raise TypeError(f"words must be a tuple or list of strings, got {type(words).__name__}")
    words = tuple(words)
    if not words or not all(isinstance(w, str) for w in words) \
            or len({len(w) for w in words}) != 1 or not words[0]:
        raise ValueError("words must be a non-empty sequence of non-empty strings of equal "
                         f"length, got {describe(words)}")
    return words


def make_word_task(*, n_train: int = 300, n_test: int = 200, noise: float = 0.5,
                   words=WORD_LIST, letters: str = WORD_LETTERS, channel: str = "uniform",
                   seed=None) -> WordTask:
    """Draw a word task: y uniform over ``words``, x = y with each letter replaced w.p. ``noise``.

    ``channel`` "uniform": the replacement is a uniformly random letter. Local evidence is weak
    (a letter survives with probability 1 - noise + noise / V), but the whole word is usually
    determined by the dictionary: the global feature decides. y = x is then the most likely
    word letter by letter, so a chain started at x (basic-Gibbs) starts well.

    ``channel`` "neighbour": the replacement is the next letter of ``letters`` (the key beside
    the intended one). With noise > 1/2 most letters of x are wrong and y = x is a poor start,
    while u_theta can learn the shift (closer to Sec 5, where x is mostly incidental keys).
    """
    n_train = check_count("n_train", n_train, high=100_000)
    n_test = check_count("n_test", n_test, high=100_000)
    noise = check_in_range("noise", noise, 0.0, 1.0)
    channel = check_choice("channel", channel, WORD_CHANNELS)
    if not isinstance(letters, str) or len(set(letters)) != len(letters) or len(letters) < 2:
        raise ValueError(
            f"letters must be a string of distinct characters, got {describe(letters)}"
        )
    words = _check_words(words)
    bad = [w for w in words if any(ch not in letters for ch in w)]
    if bad:
        raise ValueError(f"words must use only the letters {letters!r}, got {bad[:3]}")
    index = {ch: k for k, ch in enumerate(letters)}
    W = np.array([[index[ch] for ch in w] for w in sorted(set(words))], dtype=np.int64)
    V, L = len(letters), W.shape[1]
    model = sequence_model(V, L, W)
    rng = as_generator(seed)

    def draw(m):
        y = W[rng.integers(0, W.shape[0], size=m)]
        flip = rng.random(y.shape) < noise
        if channel == "neighbour":
            x = np.where(flip, (y + 1) % V, y)
        else:
            x = np.where(flip, rng.integers(0, V, size=y.shape), y)
        return x.astype(np.int64), y.astype(np.int64)

    x_train, y_train = draw(n_train)
    x_test, y_test = draw(n_test)
    return WordTask(model=model, letters=letters, words=W, x_train=x_train, y_train=y_train,
                    x_test=x_test, y_test=y_test, noise=noise, channel=channel)


#: How many times T the final "long budget" evaluation runs its chains.
LONG_BUDGET = 10
#: Examples and repetitions of the calibration that weighs the methods' shares of the progress
#: fraction (``_unit_costs``).
_CALIBRATION_EXAMPLES, _CALIBRATION_REPEATS = 12, 2


def _unit_costs(task: WordTask, methods, theta0, G0, eps, T, chains, eta) -> dict:
    """Seconds of one training epoch and of one evaluation, per method, on this machine,
    measured on ``_CALIBRATION_EXAMPLES`` examples (the fastest of ``_CALIBRATION_REPEATS``)
    and scaled to the task's sizes. Copies of the parameters and a generator of its own are
    used, so that the run's results are those of an uncalibrated run.

    The progress fraction of ``train_word_task`` weighs each step by these costs: the Doeblin
    methods take several times as long per epoch as the Gibbs ones, and an equal share each
    made a time-left estimate from early progress up to three times too high."""
    m = task.model
    V, L, D = m.n_letters, m.length, m.in_dictionary
    n_train, n_test = task.x_train.shape[0], task.x_test.shape[0]
    k_train, k_test = min(_CALIBRATION_EXAMPLES, n_train), min(_CALIBRATION_EXAMPLES, n_test)
    order = np.arange(k_train, dtype=np.int64)
    costs = {}
    for method in methods:
        train = evaluate = math.inf
        for repeat in range(_CALIBRATION_REPEATS):
            theta, G = theta0.copy(), G0.copy()
            started = time.perf_counter()
            if method.startswith("doeblin"):
                _train_doeblin_epoch(theta, G, task.x_train, task.y_train, order, V, L, D, eps,
                                     chains, eta, method == "doeblin-edit", repeat)
            else:
                _train_gibbs_epoch(theta, G, task.x_train, task.y_train, order, V, L, D,
                                   method == "u-gibbs", T, chains, eta, repeat)
            middle = time.perf_counter()
            _evaluate(theta0, task.x_test[:k_test], task.y_test[:k_test], V, L, D,
                      _EVAL_MODE[method], T, eps, chains, repeat)
            train = min(train, (middle - started) * n_train / k_train)
            evaluate = min(evaluate, (time.perf_counter() - middle) * n_test / k_test)
        costs[method] = (max(train, 1e-9), max(evaluate, 1e-9))
    return costs


def _oracle_accuracy(task: WordTask) -> tuple[float, float]:
    """Bayes decoder knowing the channel and the (uniform) dictionary: MAP word per input."""
    with np.errstate(divide="ignore"):
        log_c = np.log(task.channel_matrix())
    # log P(x | word) for every test input and dictionary word
    loglik = log_c[task.words[None, :, :], task.x_test[:, None, :]].sum(axis=2)
    pred = task.words[np.argmax(loglik, axis=1)]
    ok = pred == task.y_test
    return float(ok.all(axis=1).mean()), float(ok.mean())


@dataclass(frozen=True)
class WordTaskResult:
    """Held-out accuracy curves of the training methods on the word task (Fig 4).

    Attributes
    ----------
    epochs : ndarray of int64 (n_evals,)
        Passes over the training data at each evaluation (0 = the initialisation).
    methods : tuple of str
        A subset of ("doeblin", "doeblin-edit", "u-gibbs", "basic-gibbs").
    word_accuracy, char_accuracy : ndarray (n_evals, n_methods, n_seeds)
        Held-out word / character accuracy, each method with its own sampler and budget T.
    word_mean, word_se, char_mean, char_se : ndarray (n_evals, n_methods)
        Mean and standard error over seeds.
    long_word_accuracy, long_char_accuracy : ndarray (n_methods, n_seeds)
        The final parameters evaluated with a 10x larger budget (10 T steps, eps / 10): how good
        the learned model is once its own sampler has more time.
    dictionary_weight : ndarray (n_methods, n_seeds)
        The learned weight of the in-dictionary feature.
    train_objective : ndarray (epochs, n_methods, n_seeds)
        Doeblin methods: mean log(Z / k) over the training pass (an estimate of eq 4, or of the
        smoothed objective for "doeblin-edit"); 0 for the Gibbs methods.
    u_word_accuracy, u_char_accuracy : ndarray (n_seeds,)
        The pre-trained u_theta alone (all methods start from it).
    oracle_word_accuracy, oracle_char_accuracy : ndarray (n_seeds,)
        The Bayes decoder that knows the channel and the dictionary (a ceiling).
    transitions : int
        T: Gibbs chains run T steps; Doeblin uses eps = 1 / T (same expected number).
    chains : int
    seconds : float
        Wall-clock time of the whole experiment.
    """

    epochs: np.ndarray
    methods: tuple
    word_accuracy: np.ndarray
    char_accuracy: np.ndarray
    word_mean: np.ndarray
    word_se: np.ndarray
    char_mean: np.ndarray
    char_se: np.ndarray
    long_word_accuracy: np.ndarray
    long_char_accuracy: np.ndarray
    dictionary_weight: np.ndarray
    train_objective: np.ndarray
    u_word_accuracy: np.ndarray
    u_char_accuracy: np.ndarray
    oracle_word_accuracy: np.ndarray
    oracle_char_accuracy: np.ndarray
    transitions: int
    chains: int
    seconds: float


def _mean_se(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = a.mean(axis=-1)
    if a.shape[-1] < 2:
        return m, np.zeros_like(m)
    return m, a.std(axis=-1, ddof=1) / math.sqrt(a.shape[-1])


@dataclass(frozen=True)
class WordTaskProgress:
    """The word task's held-out accuracies so far (``train_word_task`` passes it to a progress
    callable that takes ``partial``): shape (epochs + 1, methods, seeds), NaN where not yet
    computed; every computed entry equals the final result's."""

    methods: tuple
    word_accuracy: np.ndarray
    char_accuracy: np.ndarray


def train_word_task(*, transitions: int = 20, epochs: int = 20, seeds: int = 4,
                    chains: int = 16, step_size: float = 0.3, u_epochs: int = 5,
                    n_train: int = 300, n_test: int = 200, noise: float = 0.5,
                    words=WORD_LIST, letters: str = WORD_LETTERS, channel: str = "uniform",
                    methods=WORD_METHODS, seed=0, progress=None) -> WordTaskResult:
    """Train Doeblin learning and the Gibbs baselines on the word task (Sec 5, Fig 4).

    Per seed: draw a task (`make_word_task`); train u_theta alone by its exact convex gradient
    (``u_epochs`` AdaGrad passes); initialise A_theta to leave u invariant (A's unary weights =
    u's, bigrams and dictionary weight 0; Assumption 4.3), so every method starts at p = u. Then
    each method makes ``epochs`` AdaGrad passes (same step size), ``chains`` chains per example,
    and is evaluated on held-out data after every pass:

    - "doeblin": Algorithm 1 (exact importance weights A(y | y_{t-1})), eps = 1 / transitions,
      on all of theta. Tested by exact draws from pi~: y_0 ~ u, Geometric(eps) Gibbs steps
      (1 / eps = T steps per chain on average), scored at the end.
    - "doeblin-edit": the same with the weights exp(-(D + 1)) that Sec 5 uses for this task.
    - "u-gibbs": gradient phi_A(x, y) - E phi_A(x, y^) with y^ from Gibbs chains of T steps
      started from u_theta, first half burn-in; trains A only (u stays as pre-trained); tested
      the same way (fraction of correct second-half samples).
    - "basic-gibbs": the same with chains started at y = x.

    Parameters
    ----------
    transitions : int
        T in [2, 1000].
    epochs : int
        Passes over the training set, in [1, 1000].
    seeds : int
        Independent repetitions (new data, new chains), in [1, 100].
    chains : int
        Chains (Algorithm 1 samples) per example, in [1, 1000].
    step_size : float
        AdaGrad step size.
    u_epochs : int
        Passes of the pre-training of u, in [0, 1000].
    n_train, n_test : int
    noise : float
        Channel noise in [0, 1].
    words, letters, channel :
        The dictionary, alphabet and noisy channel (`make_word_task`); e.g. `WORD_LIST_6` for 6-letter words,
        where single-letter Gibbs moves must cross more non-words to reach the intended word.
    methods : sequence of str
        Subset of `WORD_METHODS`.
    seed : int, Generator or None
    progress : callable(fraction: float, message: str) or None
        Called after every evaluated pass. The fraction weighs each pass by its cost on this
        machine, measured at the start on a few examples (``_unit_costs``), so that a time
        left read off it holds from early in the run.
    """
    T = check_count("transitions", transitions, low=2, high=1000)
    epochs = check_count("epochs", epochs, high=1000)
    seeds = check_count("seeds", seeds, high=100)
    chains = check_count("chains", chains, high=1000)
    eta = check_in_range("step_size", step_size, 0.0, MAX_STEP_SIZE, low_open=True)
    u_epochs = check_count("u_epochs", u_epochs, low=0, high=1000)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)):
        raise TypeError(f"methods must be a tuple or list of names from {WORD_METHODS}, got "
                        f"{type(methods).__name__}")
    methods = tuple(methods)
    if not methods or any(not isinstance(mth, str) or mth not in WORD_METHODS for mth in methods):
        raise ValueError(f"methods must be a non-empty subset of {WORD_METHODS}, got {methods!r}")
    _check_words(words)
    check_progress(progress)
    rng = as_generator(seed)
    eps = 1.0 / T
    n_methods = len(methods)
    word = np.full((epochs + 1, n_methods, seeds), np.nan)
    char = np.full((epochs + 1, n_methods, seeds), np.nan)
    long_word = np.empty((n_methods, seeds))
    long_char = np.empty((n_methods, seeds))
    w_dict = np.empty((n_methods, seeds))
    objective = np.zeros((epochs, n_methods, seeds))
    u_word = np.empty(seeds)
    u_char = np.empty(seeds)
    o_word = np.empty(seeds)
    o_char = np.empty(seeds)
    costs = None  # seconds of a training epoch and of an evaluation, per method
    done = 0.0
    start = time.perf_counter()

    def tick(message, cost):
        nonlocal done
        done += cost
        if progress is not None:
            # every pass weighed by its cost: each seed does the same passes
            total = seeds * sum(epochs * train + (epochs + 1 + LONG_BUDGET) * evaluate
                                for train, evaluate in costs.values())
            # the curves so far: entries not yet computed are NaN, computed ones are final
            report(progress, min(done / total, 1.0), message,
                   partial=WordTaskProgress(methods, word.copy(), char.copy()))

    def s32():
        return int(rng.integers(0, 2**32))

    for s in range(seeds):
        task = make_word_task(n_train=n_train, n_test=n_test, noise=noise, words=words,
                              letters=letters, channel=channel, seed=rng)
        m = task.model
        V, L, D = m.n_letters, m.length, m.in_dictionary
        sl = m.slices
        theta0 = np.zeros(m.n_params)
        G0 = np.zeros(m.n_params)
        for _ in range(u_epochs):
            _train_u_epoch(theta0, G0, task.x_train, task.y_train,
                           rng.permutation(n_train).astype(np.int64), V, L, eta)
        theta0[sl["a_emit"]] = theta0[sl["u_emit"]]
        theta0[sl["a_pos"]] = theta0[sl["u_pos"]]
        u_word[s], u_char[s] = _evaluate(theta0, task.x_test, task.y_test, V, L, D, 3, T, eps,
                                         chains, s32())
        o_word[s], o_char[s] = _oracle_accuracy(task)
        if costs is None and progress is not None:
            costs = _unit_costs(task, methods, theta0, G0, eps, T, chains, eta)
        for k, method in enumerate(methods):
            theta = theta0.copy()
            G = np.zeros(m.n_params)
            G[: m.u_params] = G0[: m.u_params]  # u continues its AdaGrad schedule
            mode = _EVAL_MODE[method]
            for e in range(epochs + 1):
                if e > 0:
                    order = rng.permutation(n_train).astype(np.int64)
                    if method.startswith("doeblin"):
                        objective[e - 1, k, s] = _train_doeblin_epoch(
                            theta, G, task.x_train, task.y_train, order, V, L, D, eps, chains,
                            eta, method == "doeblin-edit", s32())
                    else:
                        _train_gibbs_epoch(theta, G, task.x_train, task.y_train, order, V, L, D,
                                           method == "u-gibbs", T, chains, eta, s32())
                    if progress is not None:
                        # a report between the epoch's training and its evaluation: a cancel
                        # (raised by the progress callback) waits half as long (an epoch and its
                        # evaluation took 0.65 s at T = 40 here, 1.3 s beside other work)
                        tick(f"seed {s + 1}/{seeds}, {method}, epoch {e}/{epochs}: trained",
                             costs[method][0])
                if e > 0 and not (np.all(np.isfinite(theta))
                                  and np.isfinite(objective[e - 1, k, s])):
                    raise ValueError(
                        f"train_word_task diverged ({method}, seed {s}, epoch {e}): the "
                        f"parameters or the training likelihood are no longer finite; "
                        f"step_size = {eta:g} is too large: use a smaller one (0.3 is the "
                        "default)")
                word[e, k, s], char[e, k, s] = _evaluate(theta, task.x_test, task.y_test, V, L,
                                                         D, mode, T, eps, chains, s32())
                if progress is not None:
                    tick(f"seed {s + 1}/{seeds}, {method}, epoch {e}/{epochs}: "
                         f"word accuracy {word[e, k, s]:.3f}", costs[method][1])
            long_word[k, s], long_char[k, s] = _evaluate(theta, task.x_test, task.y_test, V, L,
                                                         D, mode, LONG_BUDGET * T,
                                                         eps / LONG_BUDGET, chains, s32())
            w_dict[k, s] = theta[sl["dictionary"]][0]
            if progress is not None:
                tick(f"seed {s + 1}/{seeds}, {method}: long-budget accuracy "
                     f"{long_word[k, s]:.3f}", LONG_BUDGET * costs[method][1])
    wm, ws = _mean_se(word)
    cm, cs = _mean_se(char)
    return WordTaskResult(
        epochs=np.arange(epochs + 1, dtype=np.int64), methods=methods,
        word_accuracy=word, char_accuracy=char, word_mean=wm, word_se=ws, char_mean=cm,
        char_se=cs, long_word_accuracy=long_word, long_char_accuracy=long_char,
        dictionary_weight=w_dict, train_objective=objective, u_word_accuracy=u_word,
        u_char_accuracy=u_char, oracle_word_accuracy=o_word, oracle_char_accuracy=o_char,
        transitions=T, chains=chains, seconds=time.perf_counter() - start,
    )

