"""k-means by MM and G-MM: scikit-learn equivalence and compatibility, bad input, invariants, data sets."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from latent_mm.datasets import load_cloud, load_d31, load_norm25, make_gmm200, make_norm25
from latent_mm.core import gmm
from latent_mm.kmeans import GMMKMeans, KMeansProblem, init_centers
from latent_mm.selection import touching
from latent_mm.theory import check_trace


@pytest.fixture(scope="module")
def d31():
    return load_d31()[0]


def blobs(n=300, k=5, d=2, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 30, size=(k, d))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, d))


@pytest.mark.parametrize("init", ["forgy", "k-means++"])   # random partitions empty clusters, handled differently
@pytest.mark.parametrize("seed", range(3))
def test_same_as_sklearn_lloyd(d31, init, seed):
    w0 = init_centers(d31, 31, init, random_state=seed)
    ours = GMMKMeans(31, init=w0).fit(d31)
    ref = KMeans(31, init=w0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(d31)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-9)
    np.testing.assert_allclose(ours.objective_, ref.inertia_ / len(d31), rtol=1e-9)


def test_predict_transform_score_match_sklearn():
    X = blobs()
    w0 = init_centers(X, 5, "forgy", random_state=1)
    ours = GMMKMeans(5, init=w0).fit(X)
    ref = KMeans(5, init=w0, n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    Xn = blobs(50, seed=9)
    np.testing.assert_array_equal(ours.predict(Xn), ref.predict(Xn))
    np.testing.assert_allclose(ours.transform(Xn), ref.transform(Xn), atol=1e-8)
    np.testing.assert_allclose(ours.score(Xn), ref.score(Xn), rtol=1e-9)
    np.testing.assert_array_equal(ours.fit_predict(X), ours.labels_)


def test_sklearn_estimator_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = check_estimator(GMMKMeans(), on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in results) > 30


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_clusters=301), "n_clusters=301 must be <= n_samples=300"),
    (dict(n_clusters=0), "n_clusters=0 must be an integer >= 1"),
    (dict(n_clusters=2.5), "n_clusters=2.5 must be an integer"),
    (dict(eta=0.0), "eta=0.0 must be in (0, 1]"),
    (dict(eta=1.01), "eta=1.01 must be in (0, 1]"),
    (dict(eta=float("nan")), "must be in (0, 1]"),
    (dict(bound="greedy"), "bound='greedy' must be one of"),
    (dict(init="kmeans++"), "init='kmeans++' must be one of"),
    (dict(init=np.zeros((4, 2))), "init array has shape (4, 2); it must be (n_clusters, n_features) = (5, 2)"),
    (dict(init=np.zeros((5, 3))), "init array has shape (5, 3)"),
    (dict(max_iter=0), "max_iter=0 must be an integer >= 1"),
    (dict(eps=-1.0), "eps=-1.0 must be a finite number >= 0"),
])
def test_bad_parameters(kwargs, message):
    X = blobs()
    params = dict(n_clusters=5) | kwargs
    with pytest.raises(ValueError) as e:
        GMMKMeans(**params).fit(X)
    assert message in str(e.value)


def test_bad_data():
    X = blobs()
    with pytest.raises(ValueError, match="Expected 2D array"):
        GMMKMeans(5).fit(X[:, 0])
    for bad, word in ((np.nan, "NaN"), (np.inf, "infinity")):
        Xb = X.copy()
        Xb[7, 1] = bad
        with pytest.raises(ValueError, match=word):
            GMMKMeans(5).fit(Xb)
    fitted = GMMKMeans(5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(np.zeros((3, 4)))


@pytest.mark.parametrize("bound, eta", [("touching", 1.0), ("touching", 0.3), ("random", 1.0), ("random", 0.02),
                                        ("random", 0.2), ("biased", 0.02), ("biased", 0.5)])
@pytest.mark.parametrize("init", ["forgy", "random-partition"])
def test_invariants_every_bound(bound, eta, init):
    X = blobs(400, k=8, seed=3)
    est = GMMKMeans(8, eta=eta, bound=bound, init=init, random_state=4).fit(X)
    assert est.converged_
    check_trace(est.result_, eta=eta, eps=est.eps)
    assert est.objective_ <= est.trace_.v0 + 1e-12
    if eta == 1.0:
        assert np.all(np.diff(est.trace_.F) <= 1e-12)          # MM never increases F
    if bound == "random" and eta < 1:
        assert np.nanmax(est.trace_.info["spent"]) > 0.5       # the walk spends its budget
        assert np.all(est.trace_.info["acceptance"][~np.isnan(est.trace_.info["acceptance"])] >= 0)


def test_problem_cache_is_exact():
    X = blobs(200, k=4)
    rng = np.random.default_rng(0)
    p = KMeansProblem(X)
    for _ in range(5):
        w = rng.normal(10, 5, size=(4, 2))
        z = rng.integers(0, 4, 200)
        sq = ((X[:, None] - w[None]) ** 2).sum(-1)
        np.testing.assert_allclose(p.objective(w), sq.min(1).mean())
        np.testing.assert_allclose(p.bound(z, w), sq[np.arange(200), z].mean())
        np.testing.assert_allclose(p.regrets(w), (sq - sq.min(1, keepdims=True)) / 200, atol=1e-12)
        w[0] += 1.0                                            # mutate in place: the cache must notice
        np.testing.assert_allclose(p.objective(w), ((X[:, None] - w[None]) ** 2).sum(-1).min(1).mean())


def test_gmm_not_worse_than_kmeans_from_same_start():
    X = load_d31()[0]
    wins = 0
    for seed in range(4):
        w0 = init_centers(X, 31, "random-partition", random_state=seed)
        km = GMMKMeans(31, init=w0).fit(X)
        gm = GMMKMeans(31, eta=0.02, bound="random", init=w0, random_state=seed).fit(X)
        wins += gm.objective_ < km.objective_
    assert wins == 4


def test_datasets_shapes():
    for load, shape, n_labels in ((load_d31, (3100, 2), 31), (load_cloud, (1024, 10), None),
                                  (load_norm25, (10000, 15), 25)):
        X, y = load()
        assert X.shape == shape and np.isfinite(X).all()
        assert (y is None) if n_labels is None else (len(np.unique(y)) == n_labels and len(y) == shape[0])
    for make, shape, k in ((make_gmm200, (10000, 2), 200), (make_norm25, (10000, 15), 25)):
        X, y = make(0)
        assert X.shape == shape and np.bincount(y).tolist() == [shape[0] // k] * k
        np.testing.assert_array_equal(make(0)[0], X)


def test_cli_reproduce_kmeans(tmp_path, capsys):
    from latent_mm.cli import main
    from latent_mm.report import read_csv
    main(["reproduce", "kmeans", "--trials", "1", "--datasets", "cloud", "--n-jobs", "1", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert "paper_mean" in printed and "cloud" in printed
    rows = read_csv(tmp_path / "kmeans_table1.csv")
    assert [(r["init"], r["method"]) for r in rows][:2] == [("forgy", "k-means"), ("forgy", "G-MM")]
    assert all(r["trials"] == 1 and r["mean"] > 0 for r in rows)
    assert (tmp_path / "kmeans_table1.png").stat().st_size > 1000
    assert len((tmp_path / "kmeans_trials.jsonl").read_text().splitlines()) == 3


def test_touching_fit_does_not_load_numba():
    "numba (about 0.1 GB resident) is loaded by the random walk only: importing the package and MM never load it."
    code = ("import sys, numpy as np\n"
            "import latent_mm, latent_mm.kmeans\n"
            "from latent_mm.kmeans import GMMKMeans\n"
            "X = np.random.default_rng(0).normal(size=(300, 2))\n"
            "GMMKMeans(4, random_state=0).fit(X)\n"
            "print('numba' in sys.modules)\n"
            "GMMKMeans(4, bound='random', eta=0.1, max_iter=3, random_state=0).fit(X)\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_kmeans_loads_no_latent_svm_module():
    "k-means stands alone: importing it and fitting with biased bounds load none of the latent SVM family's modules."
    code = ("import sys, warnings, numpy as np\n"
            "import latent_mm.kmeans\n"
            "from latent_mm.kmeans import GMMKMeans, anti_starvation\n"
            "warnings.simplefilter('ignore')\n"
            "X = np.random.default_rng(0).normal(size=(300, 2))\n"
            "fits = [GMMKMeans(4, bound='biased', bias=anti_starvation, eta=0.1, random_state=0).fit(X),\n"
            "        GMMKMeans(4, bound='biased', eta=0.1, random_state=0).fit(X)]\n"
            "print(all('lam' in f.trace_.info for f in fits))\n"
            "print(','.join(m for m in ('latent_mm.lssvm', 'latent_mm.solvers', 'latent_mm.lssvm.bias') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "True"                              # both fits ran the biased selector
    assert out[1] == "", f"k-means loaded {out[1]}"

def test_touching_fit_builds_no_regret_array():
    "MM asks the problem for its touching values; the (n, k) regret array is never built, and the run is the same."
    X = blobs(n=400, k=6)
    w0 = init_centers(X, 6, "forgy", random_state=2)
    lazy = KMeansProblem(X)
    res = gmm(lazy, w0, touching(), eps=1e-12, max_iter=50)
    assert lazy._R is None
    eager = KMeansProblem(X)
    eager.regrets(w0)                                  # the array is built, and the selector reads it at every point
    ref = gmm(eager, w0, lambda R, budget, z_prev, rng: touching()(R, budget, z_prev, rng), eps=1e-12, max_iter=50)
    np.testing.assert_array_equal(res.z, ref.z)
    for col in ("F", "bound_prev", "bound_new", "gap", "changed"):
        np.testing.assert_array_equal(getattr(res.trace, col), getattr(ref.trace, col))


def test_eta_without_effect_is_warned():
    "Touching bounds spend no budget, so an eta other than 1 changes nothing there: said, as scikit-learn says of l1_ratio."
    X = blobs(100, k=3)
    with pytest.warns(UserWarning, match=r"eta=0.1 has no effect with bound='touching'"):
        GMMKMeans(3, eta=0.1, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GMMKMeans(3, eta=0.1, bound="random", random_state=0).fit(X)      # G-MM spends it: no warning
        GMMKMeans(3, random_state=0).fit(X)


def test_eps_zero_runs_until_nothing_changes(d31):
    "eps=0 is scikit-learn's tol=0: Lloyd's algorithm runs to its fixed point, and so does G-MM, without max_iter."
    w0 = init_centers(d31, 31, "forgy", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = GMMKMeans(31, init=w0, eps=0).fit(d31)
        walk = GMMKMeans(31, init="random-partition", bound="random", eta=0.02, eps=0, random_state=0).fit(d31)
    ref = KMeans(31, init=w0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(d31)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    for est in (ours, walk):
        assert est.converged_ and est.n_iter_ < est.max_iter
        assert est.trace_.gap[-1] == 0 or est.trace_.changed[-1] == 0
