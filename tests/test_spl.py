"""Self-paced learning and the easiness criteria: oracles (cvxpy, SciPy), the estimator contract, bad input, the
experiments' command lines and resumable sweeps."""
import json
import warnings

import numpy as np
import pytest
from scipy.optimize import nnls
from sklearn.base import clone

from latent_mm.lssvm import LatentBinary, LatentMulticlass, LatentSSVM, LatentSSVMProblem, toy_localization
from latent_mm.lssvm.criteria import (Entropy, least_distance, nnls_gram, novelty, novelty_constraints, novelty_cvxpy,
                                      slack)
from latent_mm.lssvm.spl import SelfPacedSSVM, initial_threshold, select_easy
from latent_mm.report import read_csv


def _problem(model, seed, n=12, H=4, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, H, d))
    K = model.n_classes
    y = np.arange(n) % K
    w = 2.0 * rng.normal(size=K * d)
    z = np.where(y == 0, 0, rng.integers(0, H, n)) if isinstance(model, LatentBinary) else rng.integers(0, H, n)
    return LatentSSVMProblem(model, X, y), w, z


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("model", [LatentMulticlass(n_classes=3), LatentBinary()], ids=["multiclass", "binary"])
def test_novelty_agrees_with_cvxpy(model, seed):
    problem, w, z = _problem(model, seed)
    nu, ref = novelty(problem, w, z), novelty_cvxpy(problem, w, z)
    assert (nu > 0).any()
    np.testing.assert_allclose(nu, ref, rtol=1e-6, atol=1e-6 * ref.max())


@pytest.mark.parametrize("seed", range(4))
def test_novelty_is_zero_exactly_when_the_slack_is(seed):
    problem, w, z = _problem(LatentMulticlass(n_classes=2), seed, n=30)
    np.testing.assert_array_equal(novelty(problem, w, z) == 0, slack(problem, w, z) == 0)


@pytest.mark.parametrize("rows,cols", [(9, 5), (5, 9)], ids=["full rank", "rank deficient"])
def test_nnls_gram_agrees_with_scipy(rows, cols):
    rng = np.random.default_rng(rows)
    E, f = rng.normal(size=(40, rows, cols)), rng.normal(size=(40, rows))
    u = nnls_gram(E.transpose(0, 2, 1) @ E, np.einsum("bij,bi->bj", E, f))
    for k in range(40):     # the objective, not the point: the minimiser is not unique when E is rank deficient
        ref = nnls(E[k], f[k])[0]
        np.testing.assert_allclose(np.linalg.norm(E[k] @ u[k] - f[k]), np.linalg.norm(E[k] @ ref - f[k]), rtol=1e-8,
                                   atol=1e-10)
    assert (u >= 0).all()


def test_least_distance_closed_forms():
    psi = np.array([1.0, 2.0, 2.0])
    np.testing.assert_allclose(least_distance((psi @ psi)[None, None, None], np.array([[6.0]])), [0.5 * 2.0 ** 2])
    assert least_distance(np.array([[[1.0, -1.0], [-1.0, 1.0]]]), np.array([[1.0, 1.0]]))[0] == np.inf


def test_slack_is_the_bound_minus_the_regulariser():
    problem, w, z = _problem(LatentMulticlass(n_classes=3), 0)
    np.testing.assert_allclose(problem.bound(z, w), problem.lam * 0.5 * w @ w + slack(problem, w, z).mean())


def test_entropy_range_and_single_latent_values():
    problem, w, z = _problem(LatentBinary(), 1, n=20, H=6)
    u = Entropy(0.7)(problem, w, z)
    assert np.all(u >= 0) and np.all(u <= np.log(6) + 1e-12)
    np.testing.assert_array_equal(u[problem.y == 0], 0.0)


def test_initial_threshold_rules():
    d = np.r_[np.zeros(80), np.linspace(0.1, 2.0, 20)]
    v = select_easy(d, initial_threshold(d))
    assert v.sum() > 50 and v[80:].sum() >= 2            # more than half, and 10 % of the 20 positive ones
    v = select_easy(np.arange(1.0, 11.0), initial_threshold(np.arange(1.0, 11.0)))
    assert v.sum() == 6


@pytest.fixture(scope="module")
def toy():
    X, y, h = toy_localization(n=60, n_classes=3, n_latent=5, d=4, signal=2.5, random_state=0)
    rng = np.random.default_rng(0)
    return X, y, np.where(rng.random(60) < 0.5, h, rng.integers(0, 5, 60))


def test_estimator_contract_and_history(toy):
    X, y, h0 = toy
    est = SelfPacedSSVM(LatentMulticlass(), C=5.0, random_state=0)
    assert repr(clone(est).get_params()) == repr(est.get_params())
    assert est.fit(X, y, h0=h0) is est
    H = est.history_
    n_iter = est.n_iter_
    assert all(len(H[k]) == n_iter for k in ("K", "threshold", "share", "objective", "spl_objective"))
    assert H["selected"].shape == H["latent"].shape == (n_iter, 60)
    assert est.converged_ and H["selected"][-2:].all()        # the last two iterations are CCCP's, on everyone
    np.testing.assert_allclose(est.objective_, LatentSSVMProblem(est.model_, X, y, 5.0).objective(est.coef_.ravel()))
    assert est.predict(X).shape == (60,) and 0 <= est.score(X, y) <= 1


def test_everyone_selected_is_cccp(toy):
    X, y, h0 = toy
    spl = SelfPacedSSVM(LatentMulticlass(), C=5.0, K0=1e-9, min_decrease=1e-9, tol=1e-6, max_passes=2000,
                        random_state=0).fit(X, y, h0=h0)
    cccp = LatentSSVM(LatentMulticlass(), C=5.0, eps=1e-9, tol=1e-6, max_passes=2000, random_state=0).fit(X, y, h0=h0)
    assert spl.history_["selected"].all()
    np.testing.assert_array_equal(spl.latent_, cccp.latent_)
    np.testing.assert_allclose(spl.objective_, cccp.objective_, rtol=1e-4)


@pytest.mark.parametrize("kwargs,match", [
    (dict(anneal=1.0), "'anneal' parameter of SelfPacedSSVM must be a float in the range \\(1.0, inf\\)"),
    (dict(anneal=0.5), "'anneal' parameter of SelfPacedSSVM"),
    (dict(K0=0.0), "'K0' parameter of SelfPacedSSVM must be a float in the range \\(0.0, inf\\) or None"),
    (dict(K0=-1), "'K0' parameter of SelfPacedSSVM"),
    (dict(criterion="margin"), "'criterion' parameter of SelfPacedSSVM must be a str among"),
    (dict(init_iters=-1), "'init_iters' parameter of SelfPacedSSVM must be an int in the range \\[0, inf\\)"),
    (dict(criterion=lambda p, w, z: np.zeros(3)), "returned shape \\(3,\\)"),
    (dict(criterion=lambda p, w, z: np.full(p.n, np.nan)), "NaN difficulties"),
])
def test_bad_input_names_the_value(toy, kwargs, match):
    X, y, h0 = toy
    with pytest.raises(ValueError, match=match):
        SelfPacedSSVM(LatentMulticlass(), **kwargs).fit(X, y, h0=h0)


def test_cli_spl_motif_and_resume(tmp_path, capsys):
    from latent_mm.cli import main
    args = ["reproduce", "spl-motif", "--out", str(tmp_path), "--n", "40", "--n-folds", "1", "--n-seeds", "1",
            "--n-jobs", "1"]
    main(args)
    stuck = read_csv(tmp_path / "spl_motif_stuck.csv")          # every method's runs counted, 5 proteins each
    assert [r["method"] for r in stuck] == ["CCCP", "SPL", "SPL entropy", "SPL novelty", "G-MM SPL"]
    trials = tmp_path / "trials.jsonl"
    lines = trials.read_text().splitlines()
    assert len(lines) == 25                                   # 5 proteins x 5 methods
    runs = [{**json.loads(l)["config"], **json.loads(l)["result"]} for l in lines]
    typical = {p: np.median([t["objective"] for t in runs if t["protein"] == p]) for p in ("P1", "P2", "P3", "P4", "P5")}
    for r in stuck:                 # stuck: runs closer to F(0) = 1 than to the median objective of their protein and fold
        mine = [t for t in runs if t["method"] == r["method"]]
        assert r["runs"] == len(mine) == 5
        assert r["stuck"] == sum(t["objective"] > (1 + typical[t["protein"]]) / 2 for t in mine)
    # an interrupted sweep: keep 5 finished trials and half of the sixth; the rerun runs only what is missing
    trials.write_text("\n".join(lines[:5]) + "\n" + lines[5][:40])
    with pytest.warns(UserWarning, match="truncated last line"):
        main(args)
    again = trials.read_text().splitlines()
    assert len(again) == 25 and again[:5] == lines[:5]
    seconds = {json.dumps(json.loads(l)["config"], sort_keys=True): json.loads(l)["seconds"] for l in again}
    first = {json.dumps(json.loads(l)["config"], sort_keys=True): json.loads(l)["seconds"] for l in lines[:5]}
    assert all(seconds[k] == v for k, v in first.items())     # finished trials were not rerun
    assert (tmp_path / "figure2.png").stat().st_size > 5_000


def test_cli_spl_digits(tmp_path, capsys):
    from latent_mm.cli import main
    main(["reproduce", "spl-digits", "--out", str(tmp_path), "--pairs", "1-7", "--Cs", "25", "--n-jobs", "1"])
    (row,) = read_csv(tmp_path / "spl_digits_figure3.csv")
    assert row["pair"] == "1-7" and row["C"] == 25
    trials = {t["config"]["method"]: t["result"] for t in map(json.loads, (tmp_path / "trials.jsonl").read_text().splitlines())}
    assert len(trials) == 3                                   # CCCP, SPL and the model without latent values
    for m, key in (("CCCP", "cccp"), ("SPL", "spl")):         # the row is the trials' results
        assert np.isclose(row[f"obj_{key}"], trials[m]["objective"])
        assert np.isclose(row[f"test_{key}"], 100 * trials[m]["test_error"])


def test_cli_spl_localization(tmp_path, capsys):
    from latent_mm.cli import main
    main(["reproduce", "spl-localization", "--out", str(tmp_path), "--n-per-class", "5", "--n-random", "20",
          "--n-jobs", "1"])
    assert (tmp_path / "trials.jsonl").read_text().count("\n") == 10
    table = read_csv(tmp_path / "spl_localization_table2.csv")
    assert [r["method"] for r in table] == ["CCCP", "SPL"] and all(r["n_folds"] == 5 for r in table)
    trials = [json.loads(line) for line in (tmp_path / "trials.jsonl").read_text().splitlines()]
    for r in table:                                           # each row is the mean of its method's 5 folds
        folds = [t["result"] for t in trials if t["config"]["method"] == r["method"]]
        assert np.isclose(r["test_loss"], 100 * np.mean([f["test_loss"] for f in folds]))
        assert np.isclose(r["objective"], np.mean([f["objective"] for f in folds]))
