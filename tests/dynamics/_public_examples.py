"""Valid example arguments for the public functions of ``dynamics``, for ``test_public_inputs``.

The fuzz test calls each public function first with these (its baseline), then with one argument
at a time replaced by a bad value. An argument's example value is looked up, in order, in
``FUNCTIONS["dynamics.module.function"]``, the signature's default (unless the argument is in
``SMALL[module]``: defaults too big for a quick call), then ``MODULES[module]`` (outer package
first, inner module overriding). Keep the values tiny: every call should take milliseconds.

Adding a public function whose arguments have no example here makes the test fail and say so:
register a factory for it below (a function returning a dict of keyword arguments).
"""

from __future__ import annotations

import functools

import numpy as np


def _features():
    return np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def _moments():
    return np.array([0.4, 0.3])


def _herding():
    states = np.array([0, 1, 2, 3, 1, 0, 2, 1] * 2)
    return dict(features=_features(), moments=_moments(), steps=20, n_states=4, n_features=2,
                states=states, max_lag=3, max_len=3, points=np.array([[0.2, 0.1], [-0.3, 0.5]]))


def _neuron():
    return dict(rate=0.3, steps=20, n=10, w0=0.1, states=np.array([0, 1, 0, 0, 1, 0, 1]),
                max_len=3)


def _torus():
    from dynamics import torus

    features, moments = torus.rational_rotation_model(5, seed=0)
    return dict(features=features, moments=moments, weights=np.zeros((4, features.shape[1])),
                lower=np.array([-1.0, -1.0]), upper=np.array([1.0, 1.0]),
                coords=np.random.default_rng(0).random((30, 2)), lengths=np.array([5, 10, 30]),
                q=5)


def _bifurcation():
    from dynamics import bifurcation

    features = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    moments = np.array([0.3, 0.4])
    temperatures = np.array([0.5, 1.0])
    doublings = bifurcation.period_doublings(np.array([1.0, 2.0, 3.0, 4.0]),
                                             np.array([1, 1, 2, 2]))
    T1 = bifurcation.first_doubling_temperature(features, moments)
    return dict(features=features, moments=moments, temperature=0.8, steps=20,
                temperatures=temperatures, burn_in=20, keep=16, trajectory=np.ones((10, 2)),
                samples=np.ones((2, 10, 2)), periods=np.array([1, 2]), period=2, t_lo=0.8 * T1,
                t_hi=1.25 * T1, doublings=doublings, count=1, xtol=1e-6)


def _ising():
    zeros = np.zeros((3, 3))
    return dict(L=3, beta=0.4, sweeps=3, moments=np.array([0.0, 0.5]), steps=3,
                samples=np.ones((2, 3, 3), dtype=np.int8), sample=np.ones((3, 3), dtype=np.int8),
                w_node=zeros, w_right=zeros, w_down=zeros, state=np.ones((3, 3), dtype=np.int8),
                max_sweeps=20)


def _hbm():
    p = np.full(8, 1 / 8)
    return dict(p=p, q=np.linspace(1, 2, 8) / np.linspace(1, 2, 8).sum(), eta=np.full(8, 0.5),
                theta=np.zeros(8), n=3, order=2, counts=np.array([3, 1, 0, 2, 1, 1, 0, 2]),
                hidden=2, W=np.zeros((3, 2)), b=np.zeros(3), c=np.zeros(2), p_target=p,
                p_star=p, N=10, datasets=2, models=("hbm", 1), Ns=(10,),
                iterations=20, epochs=2, sweeps=20, burn_in=2, runs=4, chains=4, starts=1,
                max_iter=20, steps=20, ais_steps=5, ais_runs=4, repeats=2)


def _generalized_herding():
    data = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, 1]], dtype=float)
    return dict(x=data, n=3, cases=4, data=data, steps=5, error=np.linspace(1.0, 0.1, 200),
                start=10, v=data, z=np.array([[1, -1], [-1, 1], [1, 1], [-1, -1]], dtype=float),
                W=np.zeros((3, 2)), b=np.zeros(3), c=np.zeros(2), hidden=2)


def _hidden_herding():
    from dynamics.rbm import hidden_herding

    data = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, 1]], dtype=float)
    run = hidden_herding.herd_hidden(data, 2, 20, seed=0)
    return dict(data=data, hidden=2, steps=5, cases=5, digit=3, W=np.zeros((3, 2)),
                b=np.zeros(3), c=np.zeros(2), states=np.ones((3, 4)), columns=2, run=run,
                hidden_counts=np.array([1, 2]))


def _herding_classify():
    from dynamics.rbm import herding_classify as hc

    data = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, 1]], dtype=float)
    result = hc.ClassifyResult(
        methods=("H", "SH", "CD"), hidden={"H": (2, 4), "SH": (2, 4), "CD": (2, 4)},
        errors={m: np.full((2, 2), 0.1) for m in ("H", "SH", "CD")}, splits=2, steps=4,
        train=10, validation=5, n_test=100)
    return dict(train=data, evaluate=data, X=data, hidden=2, steps=4, collect=2,
                W=np.zeros((3, 2)), b=np.zeros(3), c=np.zeros(2), validation=np.eye(3),
                validation_labels=np.array([0, 1, 1]), test=np.eye(3), result=result,
                splits=1, pcd_hidden=2)


def _herding_data():
    from dynamics.herding import data as hd

    x = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]] * 6,
                 dtype=np.int8)
    y = np.array([0, 1, 1, 0, 1, 0] * 6, dtype=float)
    b, W = np.array([0.1, -0.2, 0.3]), np.array([[0, 0.2, 0], [0.2, 0, -0.1], [0, -0.1, 0]])
    table = hd.KLTable(name="t", n=3, cases=1, samples=1, data_joint=np.ones(8) / 8,
                       data_p_k=np.ones(4) / 4,
                       kl_count={"H.XXX": 0.01, "H.XX": 0.05, "PL": 0.1, "MARG": 0.4})
    errors = hd.ClassificationTable(name="t", runs=2, train=10, test=10, steps=10,
                                    errors={m: np.array([0.1, 0.2]) for m in hd.CLASSIFIERS})
    return dict(name="diabetes", bits=3, n=3, states=x, order=2, data=x, distribution=np.ones(8) / 8,
                steps=20, b=b, W=W, sweeps=20, burn_in=5, samples=400, x=x, y=y, runs=1,
                train_fraction=0.5, tables=[table], seeds=2)


def _herding_data_claims():
    from dynamics.herding import data as hd

    errors = hd.ClassificationTable(name="t", runs=2, train=10, test=10, steps=10,
                                    errors={m: np.array([0.1, 0.2]) for m in hd.CLASSIFIERS})
    return dict(tables=[errors])


def _conditional_herding():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    return dict(n=10, a=np.zeros((3, 2)), B=np.zeros(2), alpha=0.5, X=X, y=y,
                X_test=X[:4], hidden=3, epochs=3, batch_size=4)


def _conditional_herding_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    labels = np.arange(12) % 3
    return dict(X=X, labels=labels, X_test=X[:4], W=rng.normal(size=(2, 3)),
                B=rng.normal(size=(3, 3)), theta=np.zeros(3), alpha=np.zeros(3), hidden=3,
                epochs=3, batch_size=4, max_iter=5, n_classes=3)


@functools.lru_cache(maxsize=1)
def _conditional_herding_table():
    from dynamics.pct import conditional_herding_data as cd

    wrong = np.zeros((2, 50), bool)
    wrong[:, :2] = True
    return cd.TableResult(dataset="digits", about="", hidden=(5, 10), vp_error=0.1,
                          drbm_error=np.array([0.04, 0.04]), ch_error=np.array([0.04, 0.04]),
                          n_train=100, n_test=50, epochs=1, drbm_iter=1, inits=np.ones(2),
                          seconds={}, vp_wrong=np.arange(50) < 5, drbm_wrong=wrong,
                          ch_wrong=wrong, drbm_validation=np.array([0.1, 0.2]),
                          ch_validation=np.array([0.1, 0.2]))


def _online_bayes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    y = np.sign(X[:, 0]) + (X[:, 0] == 0)
    return dict(m=np.zeros(3), C=np.eye(3), x=X[0], y=1.0, sigma0=0.5, noise=0.5, X=X,
                N=3, t=5, estimate=np.array([1.0, 0.0, 0.0]), teacher=np.array([0.6, 0.8, 0.0]),
                alpha=np.array([0.5, 1.0]), alpha_max=2.0, runs=2, points=3,
                t_max=20, nodes=10, sweeps=5, burn_in=2, c=0.5)


def _doeblin():
    from dynamics import doeblin

    P = np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]])
    u = np.full(3, 1 / 3)
    model = doeblin.sequence_model(3, 3, np.array([[0, 1, 2], [2, 1, 0]]))
    theta = np.random.default_rng(0).normal(scale=0.5, size=model.n_params)
    C = np.array([[0.0, 1.0], [0.5, 0.5]])
    return dict(P=P, u=u, eps=0.1, eps_grid=np.array([0.1, 0.2]), n=3, pi=u, q=u, delta=0.1,
                cluster_size=3, kind="uniform", deltas=np.array([0.3, 0.5]),
                kernels=np.stack([np.tile(u, (3, 1)), P]), stage_transition=C,
                law=np.full(6, 1 / 6), n_stages=2, simple=P, eps1=0.1, eps2_grid=np.array([0.1]),
                n_letters=3, length=3, theta=theta, x=np.array([0, 1, 2]),
                y=np.array([2, 1, 0]), model=model, steps=5, samples=4,
                sample_sizes=(4, 8), repeats=2, n_train=10, n_test=10, transitions=2,
                epochs=1, seeds=1, chains=2, u_epochs=1, trials=2, max_steps=50)


def _hbm_model():
    from dynamics import hbm

    return hbm.Model("hbm", 1)


def _online_bayes_many():
    X = _online_bayes()["X"]
    return dict(X=X, y=np.where(X[:, 0] >= 0, 1.0, -1.0))


def _doeblin_dnf():
    from dynamics import doeblin

    problem = doeblin.make_dnf_problem(seed=0)
    n, m = 2, 2
    return dict(problem=problem, coef=np.zeros((n, m, 3), dtype=np.int64),
                bound=np.zeros((n, m), dtype=np.int64), max_steps=50, trials=1, levels=None)


def _pmd():
    from dynamics import pmd

    model = pmd.MixtureModel(1.0, 1.0, 2.5, 0.5)
    data = model.sample(20, (1.0, -2.0), seed=0)
    grid = pmd.posterior_grid(model, data, spacing=0.2, max_side=20)
    exact = pmd.grid_posterior(model, data, grid.x, grid.y)
    cloud = np.random.default_rng(0).normal(size=(30, 2))
    weights = np.full(30, 1 / 30)
    density = exact / (exact.sum() * grid.cell_area)
    return dict(model=model, data=data, grid_x=grid.x, grid_y=grid.y, p=density, q=density,
                cell_area=grid.cell_area, points=cloud[:5], centres=cloud, weights=weights,
                bandwidth=0.5, particles=cloud, rule="1/t", t=3, steps=3, grid=grid,
                exact=exact, m=10, rng=np.random.default_rng(0), theta=(1.0, -2.0), n=20,
                result=pmd.exact_samples(exact, grid, 10, np.random.default_rng(1)),
                repeats=1, methods=("one-pass SMC",), burn_in=5, epochs=2, samples=2,
                checkpoints=2, start_particles=20, spacing=0.2, max_side=20, batch_size=5,
                means=cloud, widths=np.full(30, 0.3))


def _pmd_functions():
    # Functions that take ``particles`` as a count rather than as a cloud.
    return dict(particles=20, batch_size=5)


def _sbeed():
    from dynamics import sbeed

    mdp = sbeed.garnet(4, 2, 2, seed=0)
    S, A = 4, 2
    theta = np.zeros((S, A))
    buffer = sbeed.sample_segments(mdp, 8, 1, seed=0)
    return dict(mdp=mdp, n_states=S, n_actions=A, branching=2, policy=np.full((S, A), 1 / A),
                gamma=0.9, lam=0.1, eta=0.5, V=np.zeros(S), theta=theta, k=1, buffer=buffer,
                size=8, iterations=3, Q=np.zeros((S, A)), buffer_size=64, batch_size=4,
                n_checkpoints=2, max_sweeps=1000)


def _pendulum():
    rng = np.random.default_rng(0)
    return dict(x=np.array([0.5, 4.0]), theta=0.3, thetadot=0.1, u=0.5, steps=200, seeds=1,
                features=4, value_features=4, batch_size=8, updates=1, buffer_episodes=1, k=10,
                terms=rng.normal(size=(2, 5)), values=rng.normal(size=(2, 6)),
                observations=rng.normal(size=(2, 6, 3)), actions=rng.normal(size=(2, 5)),
                deltas=rng.normal(size=6))


def _swimmer():
    rng = np.random.default_rng(0)
    return dict(episode=10, steps=10, seeds=1, features=4, value_features=4, batch_size=4,
                updates=1, buffer_episodes=1, k=2, observations=rng.normal(size=(2, 6, 8)),
                actions=rng.normal(size=(2, 5, 2)), panels=("eta",),
                rewards=rng.normal(size=(2, 5)), log_pi=rng.normal(size=(2, 5)),
                values=rng.normal(size=(2, 6)), episodes=np.array([0, 1, 1]),
                starts=np.array([0, 4, 2]), gamma=0.9, lam=0.1)


def _swimmer_prox():
    rng = np.random.default_rng(0)
    return dict(features=rng.normal(size=(6, 3)), actions=rng.normal(size=(6, 2)),
                weights=rng.normal(size=6), w_pi=np.zeros((3, 2)), log_std=np.zeros(2),
                policy_kl=0.01)


def _swimmer_claim():
    from dynamics.sbeed.swimmer import SwimmerAblation

    runs = {v: np.full((1, 3), r) for v, r in ((0.0, 10.0), (0.1, 20.0), (1.0, 15.0))}
    return dict(result=SwimmerAblation(panels={"eta": runs}, steps=np.array([10.0, 20.0, 30.0]),
                                       seeds=1, seconds=0.0, env_seconds=0.0, episode=10,
                                       noise={"eta": 0.3},
                                       dual={"eta": {v: np.full(1, np.nan) for v in runs}}))


def _swimmer_k_claim():
    from dynamics.sbeed.swimmer import SwimmerAblation

    ks = (1, 10, 20, 100)
    runs = {k: np.full((3, 3), 10.0) for k in ks}
    return dict(result=SwimmerAblation(panels={"k": runs}, steps=np.array([10.0, 20.0, 30.0]),
                                       seeds=3, seconds=0.0, env_seconds=0.0, episode=100,
                                       noise={"k": 0.3},
                                       dual={"k": {k: np.full(3, 0.5) for k in ks}},
                                       delta_var={"k": {k: np.array([1.0, 1.1, 0.9]) * k
                                                        for k in ks}},
                                       residual_var={"k": {k: np.array([1.0, 1.1, 0.9]) + k
                                                           for k in ks}}))


def _pendulum_fit_dual():
    rng = np.random.default_rng(0)
    return dict(features=rng.normal(size=(6, 3)), deltas=rng.normal(size=6))


def _sbeed_studies():
    return dict(etas=np.array([0.0, 1.0]), seeds=1, iterations=10)


def _dsg():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(16, 2))
    y = np.sin(X[:, 0])
    return dict(seed=0, step=1, block_size=4, dim=2, bandwidth=1.0, X=X, y=y, X_test=X[:4],
                nu=0.01, steps=3, batch_size=4, noise=0.1, A=X[:3], B_=X[:4], x=np.arange(1.0, 6.0),
                n=16, checkpoints=2, max_points=16)


def _dsg_linear():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(12, 3))
    return dict(Z=Z, y=np.sign(Z[:, 0] + 0.1), loss="hinge", nu=0.1, steps=5, batch_size=2,
                updates=20, Z_test=Z[:4], y_test=np.sign(Z[:4, 0] + 0.1), w=np.ones(3),
                checkpoints=2, t0=1.0, project=True)


def _dsg_baselines():
    X, y = _dsg()["X"], _dsg()["y"]
    return dict(X=X, y=y, X_test=X[:4], y_test=y[:4], bandwidth=1.0, nu=0.1, points=32,
                batch_size=4, features=4, methods=("r-Pegasos", "n-SDCA"), checkpoints=2,
                kind="random")


@functools.lru_cache(maxsize=None)
def _dsg_baselines_claim():
    from dynamics import dsg

    a = _dsg_baselines()
    return dict(baselines=dsg.compare_baselines(**{k: a[k] for k in a if k != "kind"}, seed=0),
                dsg_history={"seen": np.array([4, 32]), "error": np.array([1.0, 0.1])},
                norma={"error": np.array([0.5, 0.2])})


@functools.lru_cache(maxsize=None)
def _dsg_digits():
    from dynamics import dsg

    X, y = _dsg()["X"], np.sign(_dsg()["X"][:, 0] + 0.01)
    model = dsg.doubly_sgd(X, y, loss="hinge", bandwidth=1.0, nu=0.1, steps=3, batch_size=4,
                           block_size=4, seed=0, X_test=X[:4], y_test=y[:4], checkpoints=2)
    run = dsg.classification_run(model, X, y, X[:4], y[:4], loss="hinge", nu=0.1)
    return dict(X=X, y=y, X_test=X[:4], y_test=y[:4], loss="hinge", bandwidth=1.0, nu=0.1,
                model=model, run=run, first=8, second=6, test_fraction=0.5, seed=0)


def _dsg_loglog():
    return dict(x=np.array([1.0, 2.0, 4.0]), y=np.array([1.0, 0.5, 0.25]))


def _embedding_sgd():
    rng = np.random.default_rng(0)
    x = rng.random(20)
    return dict(x=x, y=np.sin(x), x_clean=x, n=20, batch_size=5, features_f=8, features_u=8,
                checkpoints=2, test_points=10, i=3, eta=1.0, eta0=1.0, method="saa", runs=1,
                data=100, features=8, virtual_samples=2, iterations=20, grid_points=10)


def _sweep():
    return dict(seed=0, params={"a": 1}, fn=example_task, tasks=[{"x": -1.0}, {"x": 2.0}])


def example_task(x, seed=None):
    """A task for ``dynamics.sweep.sweep``."""
    return x * x


def stop_at_once(fraction, message):
    """A ``progress`` callable that stops a long run at its first report: the arguments are
    checked before any work, so a bad one still fails, and an accepted one costs little."""
    from dynamics.checks import Cancelled

    raise Cancelled


# --- the paper claims (``*_claim``) and the studies: small runs of their engines, built once a
# worker (each factory serves several functions; the claims read their arguments, never write)


@functools.lru_cache(maxsize=None)
def _neuron_claim():
    from dynamics import neuron

    run = neuron.herd_neuron(neuron.GOLDEN_MEAN, 50)
    return dict(run=run, words=neuron.complexity(run.states, 5), bound=1.0)


@functools.lru_cache(maxsize=None)
def _herding_claims():
    from dynamics import herding

    model = herding.random_model(4, 2, seed=0)
    run = herding.herd(model.features, model.moments, 200)
    return dict(error=herding.moment_error(model.features, run.states, model.moments, seed=0),
                autocorrelation=np.array([1.0, -0.4, 0.1]),
                iid_autocorrelation=np.array([1.0, 0.01, 0.0]),
                dimension=herding.attractor_dimension(**_hexagon_dimension()))


def _hexagon_dimension():
    from dynamics import herding

    model = herding.hexagon_model()
    return dict(features=model.features, moments=model.moments, steps=20_000, burn_in=100,
                sample=3000)


def _segment():
    t = np.random.default_rng(0).random(2000)
    return dict(points=np.c_[t, 0.5 * t])


@functools.lru_cache(maxsize=None)
def _ising_claim():
    from dynamics import ising

    sw = ising.swendsen_wang(16, ising.BETA_C, 4, burn_in=4, seed=0)
    herd = ising.herd_ising(16, (0.0, float(sw.correlation.mean())), 4, seed=0)
    return dict(sw=sw, herd=herd, sw_fit=ising.cluster_histogram(sw.samples, fit_min=1.0),
                herd_fit=ising.cluster_histogram(herd.samples, fit_min=1.0))


@functools.lru_cache(maxsize=None)
def _online_bayes_claims():
    from dynamics import bayes as ob

    curve = ob.learning_curve(3, 2.0, 2, seed=0)
    return dict(right=ob.toy_runs(20, 4, seed=0), wrong=ob.toy_runs(20, 4, logistic_tau=0.5,
                                                                    seed=1),
                curve=curve, replica=ob.replica_bayes_curve(curve.alpha))


@functools.lru_cache(maxsize=None)
def _hbm_claim():
    from dynamics import hbm

    p = hbm.random_distribution(3, seed=0)
    return dict(result=hbm.sweep(p, (hbm.Model("hbm", 1), hbm.Model("hbm", 2)), (10, 40), 2,
                                 seed=0))


@functools.lru_cache(maxsize=None)
def _hbm_inference_claim():
    from dynamics import hbm

    p = hbm.random_distribution(3, seed=0)
    return dict(study=hbm.inference_study(p, 2, 20, 2, iterations=20, chains=4, ais_steps=5,
                                          ais_runs=4, repeats=3, seed=0))


@functools.lru_cache(maxsize=None)
def _dsg_claims():
    from dynamics import dsg

    X, y = dsg.synthetic_2d(40, seed=0)
    run = dsg.gp_regression(X[:30], y[:30], X[30:], bandwidth=1.0, steps=4, batch_size=4,
                            block_size=4, checkpoints=2, seed=0)
    return dict(history={"step": np.array([1, 2, 4, 8]), "error": np.array([1.0, 0.5, 0.3, 0.1])},
                steps=8, batch=4, block=4, run=run)


@functools.lru_cache(maxsize=None)
def _esgd_claims():
    from dynamics import esgd as es

    return dict(runs=1, data=100, features=8, result=es.compare_methods(1, 100, features=8),
                run=es.gp_toy(20, features=8, grid_points=10, batch_size=4))


@functools.lru_cache(maxsize=None)
def _esgd_policy():
    from dynamics import esgd as es

    mdp = es.garnet(5, 2, 2, seed=0)
    features = es.state_features(5, 2, seed=0)
    return dict(mdp=mdp, features=features, values=np.zeros(5), states=5, dim=2, actions=2,
                branching=2, iterations=5, batch_size=2, checkpoints=2, runs=1,
                methods=("embedding", "rg"),
                result=es.compare_policy_evaluation(states=5, dim=2, iterations=5, runs=1,
                                                    methods=("embedding", "rg"), seed=0))


@functools.lru_cache(maxsize=None)
def _pmd_logistic_data():
    from dynamics import pmd

    return pmd.digits_pair(components=2, seed=0)


def _pmd_logistic():
    data = _pmd_logistic_data()
    x, y = data.test_x[:6], data.test_y[:6]
    cloud = np.zeros((4, 3))
    return dict(data=data, particles=10, batch_size=50, passes=1, checkpoints=2, burn_in=5,
                steps=20, chains=2, reference_steps=20, repeats=1, w=cloud, x=x, y=y,
                weights=np.full(4, 0.25), components=2)


def _pmd_predictive():
    return dict(_pmd_logistic(), particles=np.zeros((4, 3)))


def _pmd_mala():
    return dict(log_density=lambda w: (-0.5 * (w * w).sum(1), -w), start=np.zeros((2, 2)),
                steps=10, burn_in=5)


@functools.lru_cache(maxsize=None)
def _pmd_logistic_claim():
    from dynamics import pmd

    return dict(comparison=pmd.compare_logistic(_pmd_logistic_data(), particles=10, passes=1,
                                                repeats=1, reference_steps=20, checkpoints=2))


@functools.lru_cache(maxsize=None)
def _pmd_rate():
    from dynamics import pmd

    model = pmd.MixtureModel(1.0, 1.0, 2.5, 0.5)
    data = model.sample(10, (1.0, -2.0), seed=0)
    return dict(model=model, data=data, counts=np.array([10, 40]), repeats=2, spacing=0.2,
                result=pmd.particle_rate(model, data, counts=(10, 40), repeats=2, spacing=0.2,
                                         seed=0))


@functools.lru_cache(maxsize=None)
def _pmd_claim():
    from dynamics import pmd

    model = pmd.MixtureModel(1.0, 1.0, 2.5, 0.5)
    return dict(summary=pmd.compare_repeats(model, (1.0, -2.0), 20, repeats=1,
                                            methods=("PMD", "SGLD"), particles=20,
                                            batch_size=5))


def _sbeed_claim():
    from dynamics.sbeed.pendulum import Ablation

    runs = {v: np.full((1, 3), r) for v, r in ((0.001, -900.0), (0.01, -400.0), (0.1, -700.0))}
    return dict(result=Ablation(panels={"lam": runs}, steps=np.array([200.0, 400.0, 600.0]),
                                seeds=1, seconds=0.0),
                scores={0.0: np.array([-3.0, -2.0]), 0.1: np.array([-1.0, 0.0]),
                        1.0: np.array([-2.0, -1.0])})


@functools.lru_cache(maxsize=None)
def _doeblin_claims():
    from dynamics import doeblin

    P = np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]])
    u = np.full(3, 1 / 3)
    grid = np.array([0.05, 0.1])
    return dict(sweep=doeblin.restart_sweep(P, u, np.array([0.1, 0.2])), state=1,
                staged=doeblin.staged_sweep(P, P, u, 0.2, grid),
                bounds=doeblin.staged_cycle_bounds(0.2, grid),
                result=doeblin.train_word_task(n_train=10, n_test=10, transitions=2, epochs=1,
                                               seeds=1, chains=2, u_epochs=1, seed=0),
                table=doeblin.dnf_experiment(("easy",), trials=2, max_steps=50, seed=0))


def _visible_herding():
    from dynamics.rbm import visible_herding as vh

    data = np.array([[1, -1, 1, -1], [-1, 1, 1, 1], [1, 1, -1, -1]], np.int8)
    return dict(data=data, steps=20, max_sweeps=10, run=vh.herd_visible(data, 20), seed=0)


def _claims():
    return dict(effect=0.5, se=0.1, margin=0.2, z=1.96, a=[1.0, 2.0, 3.5], b=[0.0, 1.0, 1.0],
                wrong_a=[True, False, True, False], wrong_b=[False, False, True, True])


MODULES = {
    "dynamics.claims": _claims,
    "dynamics.rbm.visible_herding": _visible_herding,
    "dynamics.herding": _herding,
    "dynamics.neuron": _neuron,
    "dynamics.torus": _torus,
    "dynamics.bifurcation": _bifurcation,
    "dynamics.ising": _ising,
    "dynamics.hbm": _hbm,
    "dynamics.pct.generalized_herding": _generalized_herding,
    "dynamics.rbm.hidden_herding": _hidden_herding,
    "dynamics.pct.conditional_herding": _conditional_herding,
    "dynamics.pct.conditional_herding_data": _conditional_herding_data,
    "dynamics.herding.datasets": _herding_data,
    "dynamics.herding.data": _herding_data,
    "dynamics.rbm.herding_classify": _herding_classify,
    "dynamics.bayes": _online_bayes,
    "dynamics.doeblin": _doeblin,
    "dynamics.doeblin.dnf": _doeblin_dnf,
    "dynamics.pmd": _pmd,
    "dynamics.sbeed": _sbeed,
    "dynamics.sbeed.approximators": _pendulum,
    "dynamics.sbeed.pendulum": _pendulum,
    "dynamics.sbeed.swimmer": _swimmer,
    "dynamics.dsg": _dsg,
    "dynamics.esgd": _embedding_sgd,
    "dynamics.sweep": _sweep,
}

#: Arguments whose defaults are too big for a quick call: the module's example replaces them.
SMALL = {
    "dynamics.bifurcation": {"burn_in", "keep", "count", "xtol"},
    "dynamics.ising": {"max_sweeps"},
    "dynamics.hbm": {"iterations", "epochs", "sweeps", "burn_in", "runs", "chains", "starts",
                     "max_iter", "steps", "ais_steps", "ais_runs", "repeats"},
    "dynamics.pct.conditional_herding": {"hidden", "epochs", "batch_size"},
    "dynamics.pct.conditional_herding_data": {"hidden", "epochs", "batch_size", "max_iter",
                                          "drbm_iter", "n_classes"},
    "dynamics.bayes": {"N", "runs", "points", "t_max", "nodes", "alpha_max", "sweeps",
                              "burn_in"},
    "dynamics.herding.datasets": {"samples", "steps", "runs", "seeds"},
    "dynamics.herding.data": {"samples", "steps", "runs", "seeds"},
    "dynamics.rbm.herding_classify": {"hidden", "steps", "splits", "pcd_hidden"},
    "dynamics.doeblin": {"n_train", "n_test", "transitions", "epochs", "seeds", "chains",
                         "u_epochs", "trials", "max_steps", "samples", "sample_sizes", "repeats"},
    "dynamics.doeblin.dnf": {"max_steps", "trials"},
    "dynamics.pmd": {"particles", "batch_size", "repeats", "methods", "burn_in", "epochs",
                     "samples", "checkpoints", "start_particles", "spacing", "max_side"},
    "dynamics.sbeed": {"buffer_size", "batch_size", "n_checkpoints", "max_sweeps"},
    "dynamics.sbeed.pendulum": {"steps", "seeds", "features", "value_features", "batch_size",
                                "updates", "buffer_episodes"},
    "dynamics.sbeed.swimmer": {"steps", "episode", "seeds", "features", "value_features",
                               "batch_size", "updates", "buffer_episodes", "k"},
    "dynamics.dsg": {"checkpoints", "max_points"},
    "dynamics.esgd": {"batch_size", "features_f", "features_u", "checkpoints",
                               "test_points", "data", "features", "virtual_samples",
                               "iterations", "grid_points"},
}

#: Per-function examples (override everything else).
FUNCTIONS = {
    "dynamics.herding.data.online_classifier_claim": _herding_data_claims,
    # digits: every count k the data hold has marginal probability >= 0.011, so 2000 draws
    # miss none (an infinite KL of MARG, legitimate with fewer draws, as on the other sets)
    "dynamics.herding.data.data_tables": lambda: dict(names=("digits",), samples=2000, runs=2),
    "dynamics.pmd.particle_mirror_descent": _pmd_functions,
    "dynamics.pmd.one_pass_smc": _pmd_functions,
    "dynamics.pmd.sgld": _pmd_functions,
    "dynamics.pmd.gibbs": _pmd_functions,
    "dynamics.pmd.svi": _pmd_functions,
    "dynamics.pmd.sgd_npv": _pmd_functions,
    "dynamics.pmd.compare_methods": _pmd_functions,
    "dynamics.pmd.compare_repeats": lambda: dict(n=20, particles=20),
    "dynamics.pmd.metric_redraws": lambda: dict(m=10, redraws=2),
    "dynamics.dsg.loglog_slope": _dsg_loglog,
    "dynamics.dsg.doubly_sgd": lambda: dict(keep_values=False),  # a flag (None: by cost)
    "dynamics.dsg.pegasos": _dsg_linear,
    "dynamics.dsg.sdca": _dsg_linear,
    "dynamics.dsg.primal_objective": _dsg_linear,
    "dynamics.dsg.kernel_features": _dsg_baselines,
    "dynamics.dsg.compare_baselines": _dsg_baselines,
    "dynamics.dsg.baselines_claim": _dsg_baselines_claim,
    **{f"dynamics.dsg.{name}": _dsg_digits for name in (
        "digits_pair", "kernel_classifier_reference", "classification_run",
        "classification_claim")},
    "dynamics.hbm.popcount": lambda: dict(n=3),
    "dynamics.rbm.herding_classify.split_digits": lambda: dict(train=10, validation=5),
    "dynamics.rbm.herding_classify.classification_experiment": lambda: dict(
        hidden=(2,), splits=1, steps=2, train=10, validation=5),
    "dynamics.rbm.hidden_herding.mosaic": lambda: dict(states=np.ones((3, 4)), columns=2, side=2),
    "dynamics.neuron.rabbit_sequence": lambda: dict(n=10),
    "dynamics.doeblin.restart_law": lambda: dict(kind="uniform", n=3),
    # a point set to count boxes over (the module's two points serve the cone functions)
    "dynamics.herding.box_dimension": _segment,
    "dynamics.herding.correlation_dimension": _segment,
    "dynamics.herding.attractor_dimension": _hexagon_dimension,
    "dynamics.herding.attractor_study": lambda: dict(quick=True, progress=stop_at_once),
    "dynamics.doeblin.random_chain": lambda: dict(n=4),
    "dynamics.doeblin.make_word_task": lambda: dict(n_train=10, n_test=10),
    "dynamics.doeblin.sequence_model": lambda: dict(dictionary=np.array([[0, 1, 2]])),
    "dynamics.doeblin.cycle_gap_bound": lambda: dict(deltas=np.array([0.3, 0.1])),
    "dynamics.doeblin.dnf_errors": _doeblin_dnf,
    "dynamics.doeblin.dnf_search": _doeblin_dnf,
    "dynamics.doeblin.dnf_experiment": _doeblin_dnf,
    "dynamics.hbm.sweep": lambda: dict(models=(_hbm_model(),)),
    "dynamics.bayes.adf_perceptron": _online_bayes_many,
    "dynamics.bayes.adf_path": _online_bayes_many,
    "dynamics.bayes.posterior_mean_quadrature": _online_bayes_many,
    "dynamics.bayes.posterior_mean_gibbs": _online_bayes_many,
    "dynamics.warmup": lambda: dict(engines=("neuron",)),
    "dynamics.sbeed.pendulum.ablation": lambda: dict(progress=stop_at_once),
    "dynamics.bifurcation.feigenbaum_claim": lambda: dict(cascade=_bifurcation()["doublings"]),
    "dynamics.neuron.sturmian_claim": _neuron_claim,
    "dynamics.torus.uniform_filling_claim": lambda: dict(
        discrepancy=np.array([0.5, 0.005]), rational_discrepancy=np.array([0.5, 0.2]), bins=8,
        points=10_000, period=13),
    "dynamics.herding.moment_rates_claim": _herding_claims,
    "dynamics.herding.attractor_claim": _herding_claims,
    "dynamics.ising.cluster_exponent_claim": _ising_claim,
    "dynamics.pct.conditional_herding.boundary_claim": lambda: dict(
        vp_wrong=np.array([1, 1, 0, 1]), ch_wrong=np.array([0, 1, 0, 0]), hidden=3),
    "dynamics.pct.conditional_herding_data.table_claim": lambda: dict(
        result=_conditional_herding_table()),
    "dynamics.pct.conditional_herding_data.table_experiment": lambda: dict(
        hidden=(2,), epochs=1, burn_in=1, drbm_iter=2, inits=(1.0,)),
    "dynamics.pct.conditional_herding_data.load_dataset": lambda: dict(name="breast cancer"),
    "dynamics.bayes.efficiency_claim": _online_bayes_claims,
    "dynamics.bayes.batch_bayes_claim": _online_bayes_claims,
    "dynamics.hbm.bias_variance_claim": _hbm_claim,
    "dynamics.hbm.inference_claim": _hbm_inference_claim,
    "dynamics.dsg.rate_claim": _dsg_claims,
    "dynamics.dsg.posterior_claim": _dsg_claims,
    "dynamics.esgd.seed_runs": _esgd_claims,
    "dynamics.esgd.mse_claim": _esgd_claims,
    "dynamics.esgd.recovery_claim": _esgd_claims,
    "dynamics.esgd.compare_methods": lambda: dict(methods=("embedding", "saa")),
    **{f"dynamics.esgd.{name}": _esgd_policy for name in (
        "garnet", "state_features", "exact_value", "bellman_error", "value_limits",
        "policy_evaluation", "compare_policy_evaluation", "policy_evaluation_claim")},
    "dynamics.pmd.best_method_claim": _pmd_claim,
    "dynamics.pmd.logistic_claim": _pmd_logistic_claim,
    "dynamics.pmd.average_densities": _pmd_claim,
    "dynamics.pmd.digits_pair": lambda: dict(components=2),
    "dynamics.pmd.log_posterior": _pmd_logistic,
    "dynamics.pmd.predictive": _pmd_predictive,
    "dynamics.pmd.mala": _pmd_mala,
    "dynamics.pmd.split_rhat": lambda: dict(samples=np.random.default_rng(0).normal(
        size=(8, 2, 2))),
    "dynamics.pmd.reference_posterior": _pmd_logistic,
    "dynamics.pmd.logistic_pmd": _pmd_logistic,
    "dynamics.pmd.logistic_sgld": _pmd_logistic,
    "dynamics.pmd.compare_logistic": _pmd_logistic,
    "dynamics.pmd.particle_rate": _pmd_rate,
    "dynamics.pmd.rate_claim": _pmd_rate,
    "dynamics.pmd.fit_slope": lambda: dict(counts=np.array([10.0, 40.0]),
                                           errors=np.array([0.5, 0.25])),
    "dynamics.pmd.both_modes_claim": _pmd_claim,
    "dynamics.sbeed.intermediate_best_claim": _sbeed_claim,
    "dynamics.sbeed.claims.panel_outcome": _sbeed_claim,
    "dynamics.sbeed.approximators.fit_dual": _pendulum_fit_dual,
    "dynamics.sbeed.swimmer.policy_prox": _swimmer_prox,
    "dynamics.sbeed.swimmer.swimmer_ablation": lambda: dict(progress=stop_at_once),
    "dynamics.sbeed.swimmer_claim": _swimmer_claim,
    "dynamics.sbeed.k_variance_claim": _swimmer_k_claim,
    "dynamics.sbeed.tabular_eta": _sbeed_studies,
    "dynamics.doeblin.restart_gap_claim": _doeblin_claims,
    "dynamics.doeblin.staged_gap_claim": _doeblin_claims,
    "dynamics.doeblin.word_order_claim": _doeblin_claims,
    "dynamics.doeblin.staged_restarts_claim": _doeblin_claims,
    "dynamics.doeblin.word_study": lambda: dict(quick=True, progress=stop_at_once),
    "dynamics.doeblin.dnf_study": lambda: dict(quick=True, progress=stop_at_once),
}
