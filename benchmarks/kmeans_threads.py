"""k-means on 1, 2, ... threads at n = 10^5, k = 200 (2-D): latent_mm's Lloyd iteration against scikit-learn's, and
G-MM's random bound against a Lloyd iteration, all measured in one run.

    python benchmarks/kmeans_threads.py [--threads 1,2] [--repeats 5] [--max-iter 5]

Data: GMM-200's recipe at 500 points per Gaussian (200 unit-variance 2-D Gaussians, n = 100000); start: 200
distinct points (forgy, seed 0), the same for all. For each thread count t (numba's `set_num_threads(t)` and
threadpoolctl's limit t for scikit-learn's OpenMP and BLAS) it times whole fits of `--max-iter` iterations, in wall
seconds per iteration (best of `--repeats`, the fits taking turns in every round):

- scikit-learn: `KMeans(200, init=centres, n_init=1, algorithm="lloyd", tol=0)`;
- latent_mm Lloyd: `GMMKMeans(200, init=centres)` (touching bounds, eps=0 so no early stop);
- G-MM: `GMMKMeans(200, eta=0.02, bound="random", init=centres)` (the default random bound: the regret pass, a
  product-law draw and two Metropolis sweeps); the random bound costs G-MM's iteration minus Lloyd's.

It prints Lloyd / scikit-learn (target <= 1.2), random bound / Lloyd (target <= 2) and G-MM / Lloyd, and checks
that the fits on every thread count are the same as on the first.
"""
import argparse
import time
import warnings

import numba
import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from latent_mm.datasets import _blobs, _separated_means
from latent_mm.kmeans import GMMKMeans, init_centers


def per_iteration(fits, repeats):
    "Best-of-`repeats` wall seconds per iteration of each `fit() -> estimator`, and each fit's last estimator."
    best, last = [np.inf] * len(fits), [None] * len(fits)
    for _ in range(repeats):
        for j, fit in enumerate(fits):
            start = time.perf_counter()
            last[j] = fit()
            best[j] = min(best[j], (time.perf_counter() - start) / last[j].n_iter_)
    return best, last


def main(threads="1,2", repeats=5, max_iter=5):
    warnings.simplefilter("ignore", ConvergenceWarning)
    rs = check_random_state(0)
    X, _ = _blobs(_separated_means(200, 70.0, 2.5, rs), 500, rs)
    w0 = init_centers(X, 200, "forgy", random_state=0)
    GMMKMeans(200, eta=0.02, bound="random", init=w0, max_iter=2, random_state=0).fit(X)   # compile the kernels
    fits = [lambda: KMeans(200, init=w0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=max_iter).fit(X),
            lambda: GMMKMeans(200, init=w0, eps=0, max_iter=max_iter).fit(X),
            lambda: GMMKMeans(200, eta=0.02, bound="random", init=w0, max_iter=max_iter, random_state=0).fit(X)]
    print(f"n = {len(X)}, k = 200, d = 2; {max_iter} iterations per fit, best of {repeats}; ms per iteration")
    first = None
    for t in map(int, threads.split(",")):
        numba.set_num_threads(t)
        with threadpool_limits(t):
            (sk, mm, gm), est = per_iteration(fits, repeats)
        first = first or est
        same = all(np.array_equal(a.cluster_centers_, b.cluster_centers_) and a.objective_ == b.objective_
                   for a, b in zip(first[1:], est[1:]))
        print(f"{t} thread(s): scikit-learn {sk * 1e3:6.1f}  latent_mm Lloyd {mm * 1e3:6.1f}  G-MM {gm * 1e3:6.1f}"
              f"   Lloyd / scikit-learn {mm / sk:4.2f}  random bound / Lloyd {(gm - mm) / mm:4.2f}"
              f"  G-MM / Lloyd {gm / mm:4.2f}   fits as on {threads.split(',')[0]} thread(s): {same}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-iter", dest="max_iter", type=int, default=5)
    main(**vars(parser.parse_args()))
