"""The real data sets of Table 1.3 (``dynamics.pct.conditional_herding_data``, which exports
these names): data shipped with scikit-learn, split with the classes' proportions kept."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import check_choice, check_count, check_in_range

#: The data sets scikit-learn ships that the table runs on.
DATASETS = ("digits", "breast cancer")


@dataclass(frozen=True)
class Dataset:
    """A training and a test split: inputs (N, d) and class labels 0..K-1."""

    name: str
    X: np.ndarray
    labels: np.ndarray
    X_test: np.ndarray
    labels_test: np.ndarray
    n_classes: int
    about: str


def load_dataset(name: str = "digits", *, test_fraction: float = 1 / 3, seed=0) -> Dataset:
    """A data set shipped with scikit-learn (``DATASETS``), split at random with the classes'
    proportions kept (``test_fraction`` of the cases in the test split). Digits: pixels / 16 in
    [0, 1]; breast cancer: each feature standardised by the training split's mean and standard
    deviation."""
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    name = check_choice("name", name, DATASETS)
    test_fraction = check_in_range("test_fraction", test_fraction, 0.05, 0.95)
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2**31))
    seed = check_count("seed", seed, low=0, high=2**32 - 1) if seed is not None else 0
    if name == "digits":
        bunch = datasets.load_digits()
        X = bunch.data / 16.0
        about = "8 x 8 digits (scikit-learn), 10 classes, pixels / 16 in [0, 1]"
    else:
        bunch = datasets.load_breast_cancer()
        X = bunch.data.astype(float)
        about = "Wisconsin breast cancer (scikit-learn), 2 classes, 30 standardised features"
    X, Xt, y, yt = train_test_split(X, bunch.target.astype(np.int64), test_size=test_fraction,
                                    random_state=seed, stratify=bunch.target)
    if name == "breast cancer":
        mean, std = X.mean(axis=0), X.std(axis=0)
        X, Xt = (X - mean) / std, (Xt - mean) / std
    return Dataset(name=name, X=np.ascontiguousarray(X), labels=y,
                   X_test=np.ascontiguousarray(Xt), labels_test=yt,
                   n_classes=int(bunch.target.max()) + 1,
                   about=f"{about}; {len(y)} training and {len(yt)} test cases")
