"""Group-norm latent SSVMs: oracles against brute force and cvxpy, exact zeros, G-MM invariants, test-time inference."""
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning

from latent_mm.lssvm import LatentSSVM
from latent_mm.lssvm.group_norm import GroupNormSSVM, LatentStateBlocks, block_groups, check_groups, toy_states
from latent_mm.solvers import GroupL2, make_solver, primal_objective, solve_cvxpy
from latent_mm.theory import check_trace


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), H=st.integers(1, 4), K=st.integers(2, 4), d=st.integers(1, 3),
       null=st.booleans(), seed=st.integers(0, 2**31))
def test_oracles_equal_brute_force(n, H, K, d, null, seed):
    rng = np.random.default_rng(seed)
    model = LatentStateBlocks(n_classes=K, null_class=0 if null else None)
    X, y, z = rng.normal(size=(n, H, d)), rng.integers(0, K, n), rng.integers(0, H, n)
    w = rng.normal(size=model.size_joint_feature(X))
    score = lambda i, c, k: w @ model.joint_feature(X[i], c, k)
    bound = model.oracle(X, y, z)
    s = rng.uniform(0, 2, n)
    hinge, G = bound.hinge_and_subgradient(w, s)
    y_hat, h_hat = model.inference(X, w)
    G_brute = np.zeros_like(G)
    for i in range(n):
        pairs = list(itertools.product(range(K), range(H)))
        top = max(score(i, c, k) + (c != y[i]) for c, k in pairs)
        np.testing.assert_allclose(bound.max_augmented(w)[i], top)
        np.testing.assert_allclose(hinge[i], max(0.0, top - score(i, y[i], z[i])), atol=1e-12)
        np.testing.assert_allclose(score(i, y_hat[i], h_hat[i]), max(score(i, c, k) for c, k in pairs))
        phi, L, _ = bound.loss_augmented(w, i)
        np.testing.assert_allclose(phi @ w + L, top)
        if hinge[i] > 0:
            G_brute += s[i] * (phi - model.joint_feature(X[i], y[i], z[i])) / n
    np.testing.assert_allclose(G, G_brute, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("null", [None, 0])
def test_bcfw_and_subgradient_agree_with_cvxpy(seed, null):
    rng = np.random.default_rng(seed)
    X, y, z = rng.normal(size=(25, 3, 3)), rng.integers(0, 2, 25), rng.integers(0, 3, 25)
    X[np.arange(25), z] += np.where(y[:, None] == 1, 1.5, -1.5)
    bound = LatentStateBlocks(n_classes=2, null_class=null).oracle(X, y, z)
    lam = 1 / 2.0
    R = GroupL2(block_groups(bound.n_features // 3, 3), mu=rng.uniform(0, 0.4, bound.n_features // 3))
    P_ref = primal_objective(bound, solve_cvxpy(bound, lam, regularizer=R), lam, regularizer=R)
    res = make_solver("bcfw", tol=1e-7, max_passes=5000).solve(bound, lam, R, random_state=np.random.default_rng(seed))
    assert abs(primal_objective(bound, res.w, lam, regularizer=R) - P_ref) <= 1e-4 * P_ref
    sub = make_solver("subgradient", tol=1e-8, max_passes=20000).solve(bound, lam, R)
    assert P_ref * (1 - 1e-6) <= sub.primal <= P_ref * (1 + 1e-3)


def test_thin_subclass_is_the_base_with_a_group_norm():
    X, y, _ = toy_states(n=80, random_state=3)
    est = GroupNormSSVM(C=10.0, mu=0.5, random_state=0).fit(X, y)
    base = LatentSSVM(LatentStateBlocks(), C=10.0, regularizer=GroupL2(block_groups(12, 8), mu=0.5), solver="auto",
                      tol=1e-3, max_passes=200, random_state=0).fit(X, y)
    np.testing.assert_array_equal(est.coef_, base.coef_)
    np.testing.assert_array_equal(est.latent_, base.latent_)


@pytest.mark.parametrize("bound,eta", [("touching", 1.0), ("random", 0.3), ("subset", 0.5)])
def test_invariants_and_sparse_inference(bound, eta):
    X, y, _ = toy_states(n=120, random_state=1)
    full = GroupNormSSVM(C=10.0, mu=0.0, random_state=0).fit(X[:80], y[:80])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = GroupNormSSVM(C=10.0, mu=1.0, bound=bound, eta=eta, random_state=0).fit(
            X[:80], y[:80], h0=full.latent_, coef_init=full.coef_)
    check_trace(est.result_, eta=eta)
    assert np.array_equal(est.active_groups_, np.flatnonzero(est.group_norms_ > 0))
    assert len(est.active_groups_) < 12
    np.testing.assert_array_equal(est.predict_active(X[80:], n_groups=12), est.predict(X[80:]))
    states = est.active_states()
    np.testing.assert_array_equal(est.predict_active(X[80:, states]), est.predict_active(X[80:]))


def test_plain_group_norm_needs_the_subgradient_solver():
    X, y, _ = toy_states(n=40, random_state=0)
    for solver in ("bcfw", "auto", "cutting-plane"):
        with pytest.raises(ValueError, match=f"ridge=0 .* needs solver='subgradient': solver='{solver}'"):
            GroupNormSSVM(ridge=0.0, solver=solver).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = GroupNormSSVM(C=10.0, ridge=0.0, solver="subgradient", max_iter=3, random_state=0).fit(X, y)
    check_trace(est.result_, eta=1.0)
    assert est.problem_.regularizer.ridge == 0.0


def test_errors_name_the_rule():
    X, y, _ = toy_states(n=20, random_state=0)
    with pytest.raises(ValueError, match="overlap"):
        check_groups([[0, 1], [1]], 2)
    with pytest.raises(ValueError, match="leave 1 weight"):
        check_groups([[0]], 2)
    with pytest.raises(ValueError, match="'mu' parameter of GroupNormSSVM"):
        GroupNormSSVM(mu=-0.5).fit(X, y)
    with pytest.raises(ValueError, match=r"mu has shape \(2,\)"):
        GroupNormSSVM(mu=[1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match=r"coef_init has 7 entries; it must be 96 finite weights, shape \(2, 6, 8\)"):
        GroupNormSSVM().fit(X, y, coef_init=np.zeros(7))
    with pytest.raises(ValueError, match="coef_init has 96 entries"):
        GroupNormSSVM().fit(X, y, coef_init=np.full(96, np.nan))
    est = GroupNormSSVM(C=10.0, random_state=0).fit(X, y)
    for H in (5, 7):
        Xh = np.random.default_rng(H).normal(size=(4, H, 8))
        for method in (est.predict, est.decision_function, est.predict_latent):
            with pytest.raises(ValueError, match=rf"X has shape \(4, {H}, 8\), which needs weights of shape \(2, {H}, 8\), but GroupNormSSVM was fitted with weights of shape \(2, 6, 8\)"):
                method(Xh)
