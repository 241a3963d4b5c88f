"""Latent structural SVM: oracles against brute force and cvxpy, G-MM invariants for every bound rule, bad input."""
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from latent_mm.lssvm import LatentMulticlass, LatentSSVM, LatentSSVMProblem, toy_localization
from latent_mm.lssvm.bias import multifold_mil
from latent_mm.solvers import GroupL2, L2, bcfw, primal_objective, random_ssvm, solve_cvxpy
from latent_mm.theory import check_trace


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), H=st.integers(1, 5), K=st.integers(2, 4), d=st.integers(1, 4), seed=st.integers(0, 2**31))
def test_inference_equals_brute_force(n, H, K, d, seed):
    rng = np.random.default_rng(seed)
    X, y, w = rng.normal(size=(n, H, d)), rng.integers(0, K, n), rng.normal(size=K * d)
    model = LatentMulticlass(n_classes=K)
    h = model.latent(X, y, w)
    y_hat, h_hat = model.loss_augmented_inference(X, y, w)
    y_pred, h_pred = model.inference(X, w)
    for i in range(n):
        score = lambda c, k: w @ model.joint_feature(X[i], c, k)
        pairs = list(itertools.product(range(K), range(H)))
        np.testing.assert_allclose(score(y[i], h[i]), max(score(y[i], k) for k in range(H)))
        best_aug = max(score(c, k) + (c != y[i]) for c, k in pairs)
        np.testing.assert_allclose(score(y_hat[i], h_hat[i]) + (y_hat[i] != y[i]), best_aug)
        np.testing.assert_allclose(score(y_pred[i], h_pred[i]), max(score(c, k) for c, k in pairs))
    # the single-example oracle of the fixed-latent bound agrees with the vectorised one
    fixed = model.oracle(X, y, h)
    for i in range(n):
        phi, L, key = fixed.loss_augmented(w, i)
        np.testing.assert_allclose(phi @ w + L, fixed.max_augmented(w)[i])
        Phi, Ls = fixed.enumerate(i)
        np.testing.assert_allclose((Phi @ w + Ls).max(), fixed.max_augmented(w)[i])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [0.1, 1.0])
def test_bcfw_agrees_with_cvxpy(seed, lam):
    problem = random_ssvm(n=25, n_outputs=5, n_features=4, random_state=seed)
    s = np.random.default_rng(seed).uniform(0, 2, 25)
    for reg in (L2(), GroupL2([[0, 1], [2, 3]], mu=0.3)):
        res = bcfw(problem, lam, sample_weight=s, regularizer=reg, tol=1e-5, max_passes=20000, random_state=seed)
        assert res.converged
        P_ref = primal_objective(problem, solve_cvxpy(problem, lam, sample_weight=s, regularizer=reg), lam, s, reg)
        assert abs(res.primal - P_ref) <= 1e-4 * P_ref
        assert res.dual <= P_ref + 1e-6 * P_ref            # weak duality


def test_bcfw_plain_frank_wolfe_path():
    """Problems whose oracle does not name its output get plain Frank-Wolfe steps; same optimum."""
    problem = random_ssvm(n=20, n_outputs=4, n_features=3, random_state=7)

    class NoKeys:
        n_samples, n_features = problem.n_samples, problem.n_features
        positive_features = problem.positive_features
        max_augmented = problem.max_augmented
        enumerate = problem.enumerate
        def loss_augmented(self, w, i): return problem.loss_augmented(w, i)[:2]

    res = bcfw(NoKeys(), 1.0, tol=1e-5, max_passes=20000, random_state=0)
    P_ref = primal_objective(problem, solve_cvxpy(problem, 1.0), 1.0)
    assert res.converged and abs(res.primal - P_ref) <= 1e-4 * P_ref


def test_fixed_latent_bound_agrees_with_cvxpy():
    X, y, h = toy_localization(n=30, n_classes=3, n_latent=4, d=3, random_state=1)
    fixed = LatentMulticlass(n_classes=3).oracle(X, y, h)
    res = bcfw(fixed, 0.4, tol=1e-5, max_passes=20000, random_state=0)
    P_ref = primal_objective(fixed, solve_cvxpy(fixed, 0.4), 0.4)
    assert abs(res.primal - P_ref) <= 1e-4 * P_ref
    problem = LatentSSVMProblem(LatentMulticlass(n_classes=3), X, y, C=2.5)
    assert abs(problem.bound(h, res.w) - res.primal) <= 1e-9          # eq. (9) is the solver's problem


def test_warm_start_never_worse_than_w_prev():
    X, y, h = toy_localization(n=40, random_state=2)
    fixed = LatentMulticlass(n_classes=3).oracle(X, y, h)
    first = bcfw(fixed, 0.4, tol=1e-6, max_passes=5000, random_state=0)
    again = bcfw(fixed, 0.4, tol=0.5, max_passes=1, warm=first.state, w_prev=first.w, random_state=1)
    assert again.primal <= first.primal


@pytest.mark.parametrize("bound,eta", [("touching", 1.0), ("touching", 0.3), ("random", 0.1), ("subset", 0.1),
                                       ("biased", 0.1), ("biased", 1.0)])
@pytest.mark.parametrize("seed", range(3))
def test_invariants_every_bound_rule(bound, eta, seed):
    X, y, h = toy_localization(n=45, signal=3.0, random_state=seed)
    rng = np.random.default_rng(seed)
    h0 = np.where(rng.random(45) < 0.5, h, rng.integers(0, 6, 45))
    bias = multifold_mil(n_folds=3) if bound == "biased" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = LatentSSVM(LatentMulticlass(), C=2.5, bound=bound, eta=eta, bias=bias, max_iter=40,
                         random_state=seed).fit(X, y, h0=h0)
    check_trace(est.result_, eta=eta, eps=est.eps)
    assert est.objective_ <= est.trace_.v0 + 1e-12
    assert est.coef_.shape == (3, 5) and est.latent_.shape == (45,)


def test_binary_latent_svm_is_the_two_class_case():
    X, y, h = toy_localization(n=40, n_classes=2, signal=3.0, random_state=0)
    labels = np.where(y == 1, 1, -1)
    est = LatentSSVM(LatentMulticlass(), C=2.5).fit(X, labels, h0=h)
    assert set(est.classes_) == {-1, 1} and est.score(X, labels) > 0.8


def test_bad_input_names_the_value():
    X, y, h = toy_localization(n=20, random_state=0)
    est = LatentSSVM(LatentMulticlass())
    with pytest.raises(ValueError, match=r"X\[2\] has shape \(6, 4\)"):
        est.fit([X[0], X[1], X[2][:, :4]], y[:3])
    Xn = X.copy(); Xn[3, 1, 0] = np.inf
    with pytest.raises(ValueError, match="first in example 3"):
        est.fit(Xn, y)
    with pytest.raises(ValueError, match=r"h0\[1\]=-1 is out of range"):
        est.fit(X, y, h0=np.r_[0, -1, np.zeros(18, int)])
    with pytest.raises(ValueError, match="label 7 outside the classes 0..2"):
        LatentSSVM(LatentMulticlass(n_classes=3)).fit(X, np.r_[y[:-1], 7])
    for C in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="'C' parameter of LatentSSVM"):
            LatentSSVM(C=C).fit(X, y)
    with pytest.raises(ValueError, match="'bound' parameter of LatentSSVM"):
        LatentSSVM(bound="nearest").fit(X, y)
    fitted = LatentSSVM().fit(X, y, h0=h)
    with pytest.raises(ValueError, match="label 9 outside the classes"):
        fitted.score(X, np.full(20, 9))


def test_cli_lssvm(tmp_path, capsys):
    from latent_mm.cli import main
    main(["reproduce", "lssvm", "--out", str(tmp_path), "--n-per-class", "6", "--n-random", "20", "--n-jobs", "1"])
    printed = capsys.readouterr().out
    assert "G-MM biased" in printed and "top-left" in printed
    assert (tmp_path / "table2.csv").read_text().count("\n") == 10          # header + 3 methods x 3 inits
    assert (tmp_path / "trials.jsonl").read_text().count("\n") == 45         # 3 x 3 x 5 folds
    assert (tmp_path / "figure3.png").stat().st_size > 10_000


def test_continuous_labels_are_refused_at_fit_and_whole_floats_are_classes():
    X, y, _ = toy_localization(n=40, random_state=0)
    with pytest.raises(ValueError, match=r"y\[0\]=0.5 is not a class label: float labels must be whole numbers"):
        LatentSSVM(LatentMulticlass(), C=1.0).fit(X, y + 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_int = LatentSSVM(LatentMulticlass(), C=1.0, random_state=0).fit(X, y)
        as_float = LatentSSVM(LatentMulticlass(), C=1.0, random_state=0).fit(X, y.astype(float))
    np.testing.assert_array_equal(as_float.coef_, as_int.coef_)
    assert as_float.score(X, y.astype(float)) == as_int.score(X, y)


def test_the_oracle_contract_and_the_fits_solver_run():
    """`model.oracle` is the fixed-latent bound's oracle (the old `bound` refuses in one line); the fit builds its
    solver run and hands it to the problem, which only calls it."""
    X, y, h = toy_localization(n=30, random_state=3)
    model = LatentMulticlass(n_classes=3)
    with pytest.raises(TypeError, match=r"model\.bound\(\.\.\.\) is now model\.oracle\(\.\.\.\)"):
        model.bound(X, y, h)
    w = np.random.default_rng(0).normal(size=15)
    out = model.oracle(X, y, h).loss_augmented(w, 4)
    np.testing.assert_allclose(out.phi @ w + out.loss, model.oracle(X, y, h).max_augmented(w)[4])
    assert isinstance(out.key, int)
    with pytest.raises(ValueError, match="has no solver run"):
        LatentSSVMProblem(model, X, y).minimize_bound(h, w)
    est = LatentSSVM(C=10.0, random_state=0).fit(X, y, h0=h)
    assert est.problem_.run is est.run_ and est.run_.n_solves == len(est.trace_)   # one solve per G-MM iteration
