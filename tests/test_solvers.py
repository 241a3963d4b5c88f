"""Bound solvers: every method reaches the cvxpy optimum with a true certificate from C = 1 to C = 10^6."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from latent_mm.lssvm import LatentMulticlass, LatentSSVM, toy_localization
from latent_mm.solvers import (GroupL2, bcfw, cutting_plane, primal_objective, random_ssvm, simplex_qp, solve_cvxpy,
                               solve_ssvm)

CS = [1.0, 1e2, 1e4, 1e6]


def _toy_bound(seed, n=30):
    X, y, h = toy_localization(n=n, n_classes=3, n_latent=4, d=3, random_state=seed)
    return LatentMulticlass(n_classes=3).fixed_latent(X, y, h)


@pytest.mark.parametrize("C", CS)
@pytest.mark.parametrize("seed", range(2))
def test_cutting_plane_and_auto_agree_with_cvxpy(C, seed):
    problem = _toy_bound(seed)
    s = np.random.default_rng(seed).uniform(0.5, 2, problem.n_samples)
    P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C, sample_weight=s), 1 / C, s)
    for solve in (cutting_plane, solve_ssvm):
        res = solve(problem, 1 / C, sample_weight=s, tol=1e-6)
        assert res.converged and res.gap <= 1e-6 * res.primal
        assert res.dual <= P_ref + 1e-7 * P_ref                 # the certificate is a true lower bound
        assert abs(res.primal - P_ref) <= 1e-5 * P_ref
        np.testing.assert_allclose(primal_objective(problem, res.w, 1 / C, s), res.primal, rtol=1e-12)


@pytest.mark.parametrize("C", [1.0, 1e2])
def test_bcfw_agrees_where_it_is_fast(C):
    problem = _toy_bound(0)
    res = bcfw(problem, 1 / C, tol=1e-5, max_passes=5000, random_state=0)
    P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C), 1 / C)
    assert res.converged and abs(res.primal - P_ref) <= 1e-4 * P_ref


def test_group_norm_cutting_plane():
    problem = random_ssvm(n=20, n_outputs=4, n_features=4, random_state=3)
    reg = GroupL2([[0, 1], [2, 3]], mu=0.3)
    for C in (1.0, 1e4):
        res = cutting_plane(problem, 1 / C, regularizer=reg, tol=1e-6)
        P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C, regularizer=reg), 1 / C, None, reg)
        assert res.converged and abs(res.primal - P_ref) <= 1e-5 * P_ref


def test_large_C_fit_is_certified():
    """At C = 10^6, a latent SVM fit used to stop uncertified at w = 0; the auto solver certifies every bound."""
    X, y, h = toy_localization(n=60, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = LatentSSVM(C=1e6, random_state=0).fit(X, y, h0=h)
    assert est.converged_ and np.any(est.coef_)
    assert est.problem_.last_solve.solver in ("cutting-plane", "bcfw+cutting-plane")


def test_uncertified_solve_warns():
    problem = _toy_bound(1)
    with pytest.warns(ConvergenceWarning, match="max_passes=3"):
        res = solve_ssvm(problem, 1e-6, tol=1e-9, max_passes=3)
    assert not res.converged


def test_simplex_qp_singular_and_large_C():
    rng = np.random.default_rng(0)
    A = np.vstack([np.zeros(3), rng.normal(size=(20, 3))])
    A[4] = A[2]
    G, b = A @ A.T, np.r_[0.0, rng.uniform(0, 1, 20)]
    for C in (1.0, 1e6):
        u, _ = simplex_qp(G, b, C)
        g = G @ u - b
        on = u > 0
        assert np.all(u >= 0) and abs(u.sum() - C) <= 1e-9 * C
        assert np.ptp(g[on]) <= 1e-8 * max(1.0, np.abs(g).max())          # KKT: equal gradients on the face
        assert np.all(g[~on] >= g[on].min() - 1e-8 * max(1.0, np.abs(g).max()))


def test_warm_started_cutting_plane_adds_no_duplicate_cut():
    "A state last solved by the cutting-plane method already holds its dual point: chained solves add no copy."
    problem = random_ssvm(n=30, n_outputs=5, n_features=6, random_state=0)
    state = None
    for lam in (1.0, 0.5, 0.25, 0.125):
        state = cutting_plane(problem, lam, tol=1e-6, state=state, warn=False).state
        Q = state.cuts.Q
        assert len(np.unique(Q.round(12), axis=0)) == len(Q), f"{len(Q) - len(np.unique(Q, axis=0))} duplicate cuts"


def test_auto_keeps_bcfw_for_a_regularizer_without_exact_line_search():
    "The cutting-plane method would solve every restricted dual of a group norm with cvxpy: 'auto' stays on BCFW."
    problem = random_ssvm(n=40, n_outputs=5, n_features=6, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = solve_ssvm(problem, 1e-3, tol=1e-4, max_passes=200)
        D = len(plain.w)
        grouped = solve_ssvm(problem, 1e-3, tol=1e-4, max_passes=200,
                             regularizer=GroupL2([np.arange(D // 2), np.arange(D // 2, D)], 0.1))
    assert plain.solver == "bcfw+cutting-plane" and grouped.solver == "bcfw"
