"""Group-norm latent SSVMs: oracles against brute force and cvxpy, exact zeros, G-MM invariants, test-time inference."""
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning

from latent_mm.group_norm import (GroupNorm, GroupNormSSVM, LatentStateBlocks, _FixedStates, block_groups,
                                  check_groups, subgradient_descent, toy_states)
from latent_mm.solvers import GroupL2, bcfw, primal_objective, solve_cvxpy
from latent_mm.theory import check_trace


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), H=st.integers(1, 4), K=st.integers(2, 4), d=st.integers(1, 3),
       null=st.booleans(), seed=st.integers(0, 2**31))
def test_oracles_equal_brute_force(n, H, K, d, null, seed):
    rng = np.random.default_rng(seed)
    model = LatentStateBlocks(n_classes=K, null_class=0 if null else None)
    X, y, z = rng.normal(size=(n, H, d)), rng.integers(0, K, n), rng.integers(0, H, n)
    w = rng.normal(size=model.size_joint_feature(H, d))
    score = lambda i, c, k: w @ model.joint_feature(X[i], c, k)
    fixed = _FixedStates(model, X, y, z)
    hinge, G = fixed.hinge_and_subgradient(w, np.ones(n))
    y_hat, h_hat = model.inference(X, w)
    for i in range(n):
        pairs = list(itertools.product(range(K), range(H)))
        top = max(score(i, c, k) + (c != y[i]) for c, k in pairs)
        np.testing.assert_allclose(fixed.max_augmented(w)[i], top)
        np.testing.assert_allclose(hinge[i], max(0.0, top - score(i, y[i], z[i])))
        np.testing.assert_allclose(score(i, y_hat[i], h_hat[i]), max(score(i, c, k) for c, k in pairs))
        phi, L, _ = fixed.loss_augmented(w, i)
        np.testing.assert_allclose(phi @ w + L, top)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("null", [None, 0])
def test_prox_and_subgradient_agree_with_cvxpy(seed, null):
    rng = np.random.default_rng(seed)
    X, y, z = rng.normal(size=(25, 3, 3)), rng.integers(0, 2, 25), rng.integers(0, 3, 25)
    X[np.arange(25), z] += np.where(y[:, None] == 1, 1.5, -1.5)
    fixed = _FixedStates(LatentStateBlocks(n_classes=2, null_class=null), X, y, z)
    C = 2.0
    omega = GroupNorm(block_groups(fixed.n_features // 3, 3), lam=rng.uniform(0, 0.4, fixed.n_features // 3))
    P_ref = primal_objective(fixed, solve_cvxpy(fixed, 1 / C, regularizer=omega), 1 / C, regularizer=omega)
    lam, R = omega.for_bcfw(C)
    res = bcfw(fixed, lam, regularizer=R, tol=1e-7, max_passes=5000, random_state=seed)
    assert abs(primal_objective(fixed, res.w, 1 / C, regularizer=omega) - P_ref) <= 1e-4 * P_ref
    sub = subgradient_descent(fixed, C, omega, tol=1e-8, max_steps=20000)
    assert P_ref * (1 - 1e-6) <= sub.primal <= P_ref * (1 + 1e-3)


def test_block_soft_threshold_equals_group_l2():
    rng = np.random.default_rng(0)
    omega = GroupNorm(block_groups(5, 4), lam=rng.uniform(0, 2, 5), ridge=0.7)
    lam, R = omega.for_bcfw(3.0)
    reference = GroupL2(block_groups(5, 4), omega.lam / 0.7)
    for _ in range(20):
        v = rng.normal(size=20) * 2
        np.testing.assert_allclose(R.prox(v), reference.prox(v))
        np.testing.assert_allclose(lam * R.value(v), omega.value(v) / 3.0)


@pytest.mark.parametrize("bound,eta", [("touching", 1.0), ("random", 0.3), ("subset", 0.5)])
def test_invariants_and_sparse_inference(bound, eta):
    X, y, _ = toy_states(n=120, random_state=1)
    full = GroupNormSSVM(C=10.0, lam=0.0, random_state=0).fit(X[:80], y[:80])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = GroupNormSSVM(C=10.0, lam=1.0, bound=bound, eta=eta, random_state=0).fit(
            X[:80], y[:80], h0=full.latent_, coef_init=full.coef_)
    check_trace(est.result_, eta=eta)
    assert np.array_equal(est.active_groups_, np.flatnonzero(est.group_norms_ > 0))
    assert len(est.active_groups_) < 12
    np.testing.assert_array_equal(est.predict_active(X[80:], n_groups=12), est.predict(X[80:]))
    states = est.active_states()
    np.testing.assert_array_equal(est.predict_active(X[80:, states]), est.predict_active(X[80:]))


def test_groups_must_partition():
    with pytest.raises(ValueError, match="overlap"):
        check_groups([[0, 1], [1]], 2)
    with pytest.raises(ValueError, match="leave 1 weight"):
        check_groups([[0]], 2)
    with pytest.raises(ValueError, match="lam=-0.5"):
        GroupNormSSVM(lam=-0.5).fit(*toy_states(n=20, random_state=0)[:2])
