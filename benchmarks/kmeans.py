"""Speed of k-means by MM and G-MM on GMM-200 (n=10000, k=200), against scikit-learn, in one run.

Prints per-iteration times and the ratios
  G-MM iteration (regrets + random walk + bound minimisation) / Lloyd iteration of latent_mm   (target ~2)
  Lloyd iteration of latent_mm / Lloyd iteration of scikit-learn                               (target ~2)
and the time of one trial of every Table 1 setting (4 data sets x 3 initialisations, k-means and G-MM), with the
50-trial sweep extrapolated from it.

    python benchmarks/kmeans.py [--repeats 3] [--threads 1]

Single-threaded by default: on a shared machine scikit-learn's OpenMP threads stall when a core is busy, which
makes multi-threaded ratios swing by 3x from run to run.
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits
from sklearn.exceptions import ConvergenceWarning

from latent_mm.datasets import make_gmm200
from latent_mm.kmeans import GMMKMeans, init_centers
from latent_mm.experiments.kmeans import DATASETS, TABLE1_INITS, kmeans_trial


def per_iteration(fits, repeats):
    """Best-of-`repeats` seconds per iteration of each `fit() -> n_iter`; the fits take turns in every round, so a
    change of machine load affects them alike."""
    best = [np.inf] * len(fits)
    for _ in range(repeats):
        for j, fit in enumerate(fits):
            start = time.perf_counter()
            n_iter = fit()
            best[j] = min(best[j], (time.perf_counter() - start) / n_iter)
    return best


def main(repeats=3, threads=1):
    warnings.simplefilter("ignore", ConvergenceWarning)
    threadpool_limits(threads)     # scikit-learn's OpenMP and numpy's BLAS alike
    X, _ = make_gmm200(0)
    rows = []
    for init in ("forgy", "k-means++"):
        w0 = init_centers(X, 200, init, random_state=0)
        sk, mm, gm = per_iteration([
            lambda: KMeans(200, init=w0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(X).n_iter_,
            lambda: GMMKMeans(200, init=w0).fit(X).n_iter_,
            lambda: GMMKMeans(200, eta=0.02, bound="random", init=w0, random_state=0).fit(X).n_iter_], repeats)
        rows.append((init, sk, mm, gm))
        print(f"GMM-200 {init:10s} ms/iteration: scikit-learn Lloyd {sk * 1e3:6.2f}  latent_mm Lloyd {mm * 1e3:6.2f}"
              f"  G-MM (eta=0.02, random) {gm * 1e3:6.2f}   ratios: Lloyd/sklearn {mm / sk:4.2f}"
              f"  G-MM/Lloyd {gm / mm:4.2f}")
    start = time.perf_counter()
    for d in DATASETS:
        for init in TABLE1_INITS:
            kmeans_trial(d, init, 0)
    sweep = time.perf_counter() - start
    print(f"Table 1, one trial of each of the 12 settings (k-means + G-MM): {sweep:.1f} s;"
          f" 50 trials on one core: ~{50 * sweep / 60:.0f} min")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="threads for BLAS and OpenMP (default: 1)")
    main(**vars(parser.parse_args()))
