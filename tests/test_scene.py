"""Scene model and Potts bias: RBoW inference against brute force, alpha-expansion and the budgeted Potts argmax
(valid, never worse than the touching labelling, near the exact optimum), G-MM invariants with the Potts bias."""
import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from latent_mm.experiments.scene import column
from latent_mm.lssvm import LatentSSVM, LatentSSVMProblem
from latent_mm.scene import (RBoWModel, alpha_expansion, initial_parts, potts_budgeted_argmax, potts_coherence,
                              potts_energy, toy_scenes)
from latent_mm.report import read_csv
from latent_mm.theory import check_trace


def phi_by_definition(x, y, z, P, K, filters, assignment="part"):
    """phi(x, y, z) of one image, term by term: filter sums in filter set 0 (shared) or y (class), part counts in row
    y ('part') or a one for every region at its part in class y's block ('region')."""
    sets = np.zeros((K if filters == "class" else 1, P, x.shape[1]))
    np.add.at(sets[y if filters == "class" else 0], z, x)
    if assignment == "part":
        counts = np.zeros((K, P))
        counts[y] = np.bincount(z, minlength=P)
    else:
        counts = np.zeros((K, len(x), P))
        counts[y, np.arange(len(x)), z] = 1.0
    return np.concatenate([sets.ravel(), counts.ravel()]) / len(x)


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 2), cols=st.integers(1, 3), P=st.integers(2, 3), K=st.integers(2, 3),
       d=st.integers(1, 3), filters=st.sampled_from(["shared", "class"]),
       assignment=st.sampled_from(["part", "region"]), seed=st.integers(0, 2**31))
def test_rbow_inference_equals_brute_force(rows, cols, P, K, d, filters, assignment, seed):
    "Every inference of every reading, and the one-image and batched oracles, against every (class, labelling)."
    rng = np.random.default_rng(seed)
    V, n = rows * cols, 3
    model = RBoWModel(P, K, (rows, cols), filters=filters, assignment=assignment)
    X, y = rng.normal(size=(n, V, d)), rng.integers(0, K, n)
    w = rng.normal(size=model.size_joint_feature(X))
    Z = np.array(list(itertools.product(range(P), repeat=V)))
    top, S = model.objective_terms(X, y, w)
    bound = model.oracle(X, y, rng.integers(0, P, (n, V)))
    Phi_b, L_b = bound.loss_augmented_batch(w, np.arange(n))
    Phi_b = Phi_b.toarray()                                          # CSR rows
    y_hat, z_hat = model.loss_augmented_inference(X, y, w)
    for i in range(n):
        Phi = np.array([[phi_by_definition(X[i], k, z, P, K, filters, assignment) for z in Z] for k in range(K)])
        np.testing.assert_allclose(model.joint_features(X[i:i + 1].repeat(len(Z), 0), np.full(len(Z), y[i]), Z),
                                   Phi[y[i]], atol=1e-12)
        scores = Phi @ w
        np.testing.assert_allclose(S[i].max(1).sum(), scores[y[i]].max())
        np.testing.assert_allclose(top[i], (scores + (np.arange(K) != y[i])[:, None]).max())
        np.testing.assert_allclose(w @ model.joint_feature(X[i], y_hat[i], z_hat[i]) + (y_hat[i] != y[i]), top[i])
        phi, loss, _ = bound.loss_augmented(w, i)
        np.testing.assert_allclose(w @ phi + loss, top[i])
        np.testing.assert_allclose(Phi_b[i], phi, atol=1e-12)
        assert L_b[i] == loss
        np.testing.assert_allclose(model.decision_scores(X[i:i + 1], w)[0], scores.max(1))
        np.testing.assert_allclose(w @ model.joint_feature(X[i], y[i], model.latent(X[i:i + 1], y[i:i + 1], w)[0]),
                                   scores[y[i]].max())


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), P=st.integers(2, 5), weight=st.floats(0, 3), seed=st.integers(0, 2**31))
def test_alpha_expansion_never_worse_than_its_start(n, P, weight, seed):
    rng = np.random.default_rng(seed)
    grid = (3, 4)
    U = rng.exponential(size=(n * 12, P))
    z0 = rng.integers(0, P, n * 12)
    energy = lambda z: U[np.arange(len(z)), z].sum() + weight * potts_energy(z, grid).sum()
    z = alpha_expansion(U, grid, weight, z0)
    assert energy(z) <= energy(z0) + 1e-9


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 6), P=st.integers(2, 5), share=st.floats(0, 1.5), seed=st.integers(0, 2**31))
def test_potts_argmax_valid_and_no_less_coherent_than_touching(n, P, share, seed):
    rng = np.random.default_rng(seed)
    grid = (3, 3)
    S = rng.normal(size=(n * 9, P))
    R = S.max(1, keepdims=True) - S
    R[rng.random(R.shape) < 0.1] = np.inf                       # forbidden values stay forbidden
    R[np.arange(len(R)), S.argmax(1)] = 0.0
    budget = share * np.median(R[np.isfinite(R) & (R > 0)]) * n
    z, info = potts_budgeted_argmax(R, budget, grid)
    assert R[np.arange(len(z)), z].sum() <= budget * (1 + 1e-12)
    assert potts_energy(z, grid).sum() <= potts_energy(R.argmin(1), grid).sum()
    assert info["energy"] == potts_energy(z, grid).sum()


@pytest.mark.parametrize("seed", range(3))
def test_gmm_with_the_potts_bias_obeys_algorithm_1(seed):
    data = toy_scenes(n_per_class=6, n_pairs=3, grid=(4, 4), random_state=seed)
    h0 = initial_parts(data["X"], 6, (4, 4), "kmeans", weight=0.5, random_state=seed)
    est = LatentSSVM(RBoWModel(6, 3, (4, 4)), C=1000.0, tol=1e-2, bound="biased", eta=0.1,
                     bias=potts_coherence((4, 4)), max_iter=30, random_state=seed)
    est.fit(data["X"], data["y"], h0=h0)
    check_trace(est.result_, eta=0.1)
    assert est.latent_.shape == (18, 16)
    problem = LatentSSVMProblem(est.model_, data["X"], data["y"], C=1000.0)
    np.testing.assert_allclose(problem.objective(est.coef_), est.objective_)


@pytest.mark.parametrize("seed", range(3))
def test_first_bound_from_random_parts_is_flat_with_shared_filters_only(seed):
    """From uniformly random part assignments the first bound's minimum is F(0) = 1 with shared filters (certified:
    the solver's lower bound reaches 1 = b(0)) and far below 1 with one filter set per class."""
    from latent_mm.solvers import make_solver
    data = toy_scenes(n_per_class=6, n_pairs=3, grid=(4, 4), random_state=seed)
    h = initial_parts(data["X"], 6, (4, 4), "random", random_state=seed)
    minimum = {}
    for filters in ("shared", "class"):
        bound = RBoWModel(6, 3, (4, 4), filters=filters).oracle(data["X"], data["y"], h)
        res = make_solver("auto", tol=1e-3).solve(bound, 1e-3, random_state=np.random.default_rng(0))
        assert res.converged
        minimum[filters] = (res.primal - res.gap, res.primal)
    assert minimum["shared"][0] > 1 - 1e-6
    assert minimum["class"][1] < 0.5


def test_bad_input_names_the_value():
    with pytest.raises(ValueError, match=r"n_parts=1 must be an integer >= 2"):
        RBoWModel(1, 3, (2, 2))
    with pytest.raises(ValueError, match=r"filters='per-class' must be one of \('shared', 'class'\)"):
        RBoWModel(2, 3, (2, 2), filters="per-class")
    with pytest.raises(ValueError, match=r"filters=None must be one of"):
        RBoWModel(2, 3, (2, 2), filters=None)
    with pytest.raises(ValueError, match=r"weight=-1 must be a finite number >= 0"):
        initial_parts(np.zeros((2, 4, 3)), 2, (2, 2), weight=-1)
    with pytest.raises(ValueError, match=r"X has 5 regions per image but grid=\(2, 2\)"):
        LatentSSVM(RBoWModel(2, 2, (2, 2))).fit(np.zeros((2, 5, 3)), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"weight=-1.0 must be a finite number >= 0"):
        alpha_expansion(np.zeros((4, 2)), (2, 2), -1.0)


def test_cli_reproduce_scene(tmp_path, capsys):
    from latent_mm.cli import main
    main(["reproduce", "scene", "--out", str(tmp_path), "--grid", "4", "4", "--n-train", "3", "--n-test", "2",
          "--separation", "3", "--seeds", "1", "--runs", "1", "--n-jobs", "1"])
    for name in ("table3.csv", "trials.jsonl", "part_maps.png"):
        assert (tmp_path / name).stat().st_size > 0
    table = read_csv(tmp_path / "table3.csv")                    # every method, from every start
    assert {r["method"] for r in table} == {"CCCP", "G-MM random", "G-MM biased"}
    trials = [json.loads(line) for line in (tmp_path / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == sum(r["n_trials"] for r in table)
    for r in table:                                              # each cell is the mean of its trials
        cell = [t["result"] for t in trials if t["config"]["method"] == r["method"] and column(t["config"]) == r["column"]]
        assert len(cell) == r["n_trials"]
        assert np.isclose(r["accuracy"], 100 * np.mean([c["accuracy"] for c in cell]))
        assert np.isclose(r["objective"], np.mean([c["objective"] for c in cell]))
        assert np.isclose(r["n_iter"], np.mean([c["n_iter"] for c in cell]))
    capsys.readouterr()
    for bad, said in ((["--grid", "4"], "grid=[4] must be two integers"), (["--grid", "4", "1"], "'1' must be an integer >= 2"),
                      (["--separation", "nan"], "'nan' must be a finite number > 0"), (["--seeds", "0"], "'0' must be"),
                      (["--filters", "both"], "'both' must be one of shared, class, region")):
        with pytest.raises(SystemExit):
            main(["reproduce", "scene", "--out", str(tmp_path / "bad")] + bad)
        assert said in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()                        # refused before any work


def test_a_fit_left_at_zero_is_retried_tighter_or_says_whether_the_solver_could_see_a_descent(monkeypatch):
    """Coherent starts whose first bound is nearly flat: at tol=1e-2 the solve cannot see the descent below w = 0, so
    the first solve is repeated at tighter tolerances and the fit learns; without the retries, the warning names the
    certificate's allowance and tol."""
    import warnings
    import latent_mm.lssvm.estimator as lssvm
    grid = (6, 6)
    data = toy_scenes(12, n_pairs=3, grid=grid, separation=1.5, n_nuisance=3, nuisance=3.0, context=True,
                      random_state=0)
    train = np.concatenate([np.flatnonzero(data["y"] == k)[:8] for k in np.unique(data["y"])])
    X, y = data["X"][train], data["y"][train]
    h0 = initial_parts(X, 6, grid, "kmeans", 1.0, random_state=0)

    def fit():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = LatentSSVM(RBoWModel(6, len(data["classes"]), grid), C=1000.0, tol=1e-2,
                             random_state=0).fit(X, y, h0=h0)
        return est, [str(w.message) for w in caught if w.category is UserWarning]

    est, messages = fit()
    assert np.any(est.coef_) and est.objective_ < 1.0 and messages == []
    assert est.tightened_[0]["tol"] == 1e-2 and est.tightened_[0]["primal"] == 1.0    # the first solve ended at w = 0
    assert all(t["solve"] == 0 for t in est.tightened_)                               # ... and only the first
    tols = est.trace_.info["tol"]
    assert len(tols) == est.n_iter_ > 1 and np.all(tols[1:] == 1e-2)                  # the later solves at tol
    np.testing.assert_allclose(tols[0], 1e-2 / 10 ** len(est.tightened_), rtol=1e-12)
    monkeypatch.setattr(lssvm, "MAX_TIGHTEN", 0)
    est, messages = fit()
    assert not np.any(est.coef_) and len(messages) == 1 and est.tightened_ == []
    gap = est.run_.first.gap
    assert gap > 0 and f"its certificate allows {gap:.2g} (tol=0.01)" in messages[0]


@pytest.mark.parametrize("filters", ["shared", "class"])
def test_rbow_bound_oracle_sum_equals_the_per_image_oracle(filters):
    "The cutting-plane method's batched oracle sum agrees with the sum of the per-image loss-augmented argmaxes."
    rng = np.random.default_rng(0)
    model = RBoWModel(4, 3, (3, 4), filters=filters)
    X, y = rng.normal(size=(15, 12, 5)), rng.integers(0, 3, 15)
    bound = model.oracle(X, y, rng.integers(0, 4, (15, 12)))
    w, s = rng.normal(size=model.size_joint_feature(X)), rng.uniform(0.5, 2.0, 15)
    phi, loss = bound.loss_augmented_sum(w, s)
    outs = [bound.loss_augmented(w, i) for i in range(15)]
    np.testing.assert_allclose(phi, sum(si * o[0] for si, o in zip(s, outs)), atol=1e-12)
    np.testing.assert_allclose(loss, sum(si * o[1] for si, o in zip(s, outs)))
