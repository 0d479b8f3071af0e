"""The paper's inference for the HBM (Gibbs-sampled eta_B, AIS log Z, eq 8) against exact
enumeration, and the study that puts the two pipelines side by side."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dynamics import hbm
from dynamics.checks import as_generator


def test_gibbs_eta_of_a_third_order_model_against_exact_eta():
    """Gibbs sampling handles interactions of three variables: eta within Monte-Carlo error
    (about 0.005 at 20,000 sweeps) of the exact superset sums."""
    p = hbm.project(hbm.random_distribution(5, seed=3), 3)
    theta = hbm.theta_of(p)
    eta = hbm.gibbs_eta(theta, sweeps=20_000, seed=1)
    np.testing.assert_allclose(eta, hbm.eta_of(p), atol=0.02)
    assert np.max(np.abs(eta - hbm.eta_of(p))) > 0  # a sampler, not the enumeration


def test_ais_log_z_is_within_its_stated_error_of_the_exact_value():
    """Eq 8 on n = 5 with strong pairwise couplings: over 12 independent AIS estimates the
    error divided by the stated standard error has mean ~0 and spread ~1, and the estimates
    scatter as much as the stated error says (within a factor 2)."""
    rng = np.random.default_rng(4)
    theta = np.zeros(32)
    mask = hbm.order_mask(5, 2)
    theta[mask] = rng.normal(scale=1.5, size=int(mask.sum()))
    exact = hbm.exact_log_z(theta)
    est = [hbm.ais_log_z(theta, steps=100, runs=60, seed=s) for s in range(12)]
    errors = np.array([e.log_z - exact for e in est])
    stated = np.array([e.stderr for e in est])
    z = errors / stated
    assert abs(z.mean()) < 1.5 and np.mean(np.abs(z) < 3) >= 0.9
    assert 0.5 < np.median(stated) / errors.std(ddof=1) < 2.0
    assert np.max(np.abs(errors)) > 1e-6  # an estimate, not the exact value


def test_inference_study_against_fits_recomputed_by_enumeration():
    """Each dataset of the study redrawn and refitted here by the exact gradient: the same
    totals; every KL of the Gibbs pipeline with the exact normaliser; the AIS-normalised totals
    shifted by exactly the AIS error of log Z; and the Gibbs fits close to the exact ones."""
    p = hbm.random_distribution(4, seed=5)
    study = hbm.inference_study(p, 2, 300, 3, iterations=400, chains=60, ais_steps=60,
                                ais_runs=40, repeats=3, seed=7)
    base = int(as_generator(7).integers(0, 2**31 - 1))
    for i in range(3):
        counts = np.random.default_rng([base, 300, i]).multinomial(300, p).astype(float)
        fit = hbm.fit_hbm(counts, 2, mode="gradient", iterations=400)
        assert study.totals_exact[i] == pytest.approx(hbm.kl(p, fit), rel=1e-10)
    np.testing.assert_allclose(study.totals_gibbs_ais - study.totals_gibbs,
                               study.log_z_ais - study.log_z, atol=1e-12)
    assert study.bias_exact >= study.projection_bias - 1e-12  # the projection minimises KL(P*, .)
    assert study.bias_gibbs >= study.projection_bias - 1e-12
    assert abs(study.total_gibbs - study.total_exact) < 0.2 * study.total_exact
    assert np.all(np.abs(study.log_z_ais - study.log_z) < 5 * study.log_z_stderr + 1e-3)
    assert min(study.seconds_exact, study.seconds_gibbs, study.seconds_ais) > 0


def test_inference_claim_three_outcomes():
    p = hbm.random_distribution(4, seed=6)
    study = hbm.inference_study(p, 2, 300, 3, iterations=300, chains=60, ais_steps=60,
                                ais_runs=40, repeats=8, seed=1)
    verdict = hbm.inference_claim(study)
    assert verdict.result == "reproduced", verdict.why
    low, high = verdict.numbers["spread_ratio"]
    assert 1 / 3 < low / 1.2 and high * 1.2 < 3  # well inside the factor, not at its edge
    assert abs(verdict.numbers["ais_mean_error"]) + 1.96 * verdict.numbers["ais_se_mean"] < 0.007
    # log Z off by half a nat, the Gibbs fits twice as wrong: each differs
    off = dataclasses.replace(study, repeat_ais=study.repeat_ais + 0.5)
    assert hbm.inference_claim(off).result == "differs"
    worse = dataclasses.replace(study, totals_gibbs=study.totals_gibbs * 2)
    assert hbm.inference_claim(worse).result == "differs"
    # AIS's stated error ten times its spread: its error bars mean nothing
    boasting = dataclasses.replace(study, repeat_stderr=study.repeat_stderr * 10)
    assert hbm.inference_claim(boasting).result == "differs"
    # AIS estimates centred on the truth but spread by 0.03 nats (with an error saying so):
    # the mean's interval is wider than the 0.01 tolerance, not decided
    noise = 0.03 * np.array([1.0, -1.0, 1.2, -1.2, 0.8, -0.8, 1.0, -1.0])
    noisy = dataclasses.replace(study, repeat_ais=study.repeat_log_z + noise,
                                repeat_stderr=np.full(8, 0.03))
    undecided = hbm.inference_claim(noisy)
    assert undecided.result == "not decided" and "AIS log Z" in undecided.why


@pytest.mark.parametrize("kwargs, name", [
    (dict(order=5), "order"), (dict(datasets=1), "datasets"), (dict(chains=0), "chains"),
    (dict(ais_runs=1), "ais_runs"), (dict(lr=-1.0), "lr"), (dict(N=0), "N"),
])
def test_inference_study_refuses_bad_input_by_name(kwargs, name):
    args = dict(p_star=hbm.random_distribution(4, seed=0), order=2, N=10, datasets=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        hbm.inference_study(**args)
