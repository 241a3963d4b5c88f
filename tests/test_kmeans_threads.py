"""k-means on several threads: a fit is the same, bit for bit, whatever numba's thread count or `n_threads`."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from latent_mm.datasets import load_cloud, load_d31, make_gmm200
from latent_mm.kmeans import GMMKMeans, KMeansProblem, thread_count

numba = pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba started one thread")


def _data(name):
    "(X, k): D31; 4000 points of GMM-200 (several blocks of the numpy pass); Cloud; points with duplicates (ties)."
    if name == "d31":
        return load_d31()[0], 31
    if name == "gmm200":
        return make_gmm200(0)[0][:4000], 200
    if name == "cloud":
        return load_cloud()[0][:2000], 50
    rng = np.random.default_rng(3)
    return np.round(rng.normal(size=(3000, 2)) * 2), 120          # a grid: many equal distances


def _fit(X, k, bound, threads, init="forgy", **kw):
    numba.set_num_threads(threads)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return GMMKMeans(k, bound=bound, eta=1.0 if bound == "touching" else 0.05, init=init, max_iter=15,
                             random_state=0, **kw).fit(X)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def _same(a, b):
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.objective_ == b.objective_ and a.n_iter_ == b.n_iter_
    for name in ("F", "gap", "changed"):
        np.testing.assert_array_equal(getattr(a.trace_, name), getattr(b.trace_, name))
    assert a.trace_.info.keys() == b.trace_.info.keys()
    for key in a.trace_.info:
        np.testing.assert_array_equal(a.trace_.info[key], b.trace_.info[key])


@pytest.mark.parametrize("bound", ["touching", "random", "biased"])
@pytest.mark.parametrize("data", ["d31", "gmm200", "cloud", "ties"])
def test_same_fit_on_one_and_two_threads(data, bound):
    X, k = _data(data)
    one, two = _fit(X, k, bound, 1), _fit(X, k, bound, 2)
    _same(one, two)
    assert one.n_iter_ > 1


@pytest.mark.parametrize("bound", ["touching", "random"])
def test_n_threads_overrides_numba(bound):
    X, k = _data("gmm200")
    _same(_fit(X, k, bound, 2, init="random-partition", n_threads=1),
          _fit(X, k, bound, 1, init="random-partition", n_threads=2))


@pytest.mark.parametrize("data", ["gmm200", "ties"])
def test_passes_same_on_one_and_two_threads(data):
    "Each pass alone: labels, least distances, regrets and the touching values with ties kept at z_prev."
    X, k = _data(data)
    w = X[np.random.default_rng(1).choice(len(X), k, replace=False)]
    z_prev = np.random.default_rng(2).integers(0, k, len(X))
    out = []
    for threads in (1, 2):
        p = KMeansProblem(X, n_threads=threads)
        out.append([*p._pass(w, keep_regrets=True)[:3], *p._pass(w, z_prev=z_prev)[3]])
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


def test_thread_count_follows_numba_and_validates():
    numba.set_num_threads(1)
    try:
        assert thread_count() == 1
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert thread_count() == numba.config.NUMBA_NUM_THREADS
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match=f"n_threads={bad!r} must be an integer >= 1"):
            GMMKMeans(3, n_threads=bad).fit(np.arange(20.0).reshape(10, 2))
