"""Speed of k-means by MM and G-MM on GMM-200 (n=10000, k=200), against scikit-learn, in one run.

Prints per-iteration times and the ratios
  G-MM iteration (regrets + random bound + bound minimisation) / Lloyd iteration of latent_mm   (target <= 3)
  Lloyd iteration of latent_mm / Lloyd iteration of scikit-learn                                 (target ~2)
for each initialisation of Table 1 (a random partition is the first bound), with the default random bound
(product-law start and `latent_mm.selection.N_SWEEPS` Metropolis sweeps) and, for comparison, a 100-sweep walk
from the touching configuration; then the time of one trial of every Table 1 setting (4 data sets x 3
initialisations, k-means and G-MM), with the 50-trial sweep extrapolated from it.

    python benchmarks/kmeans.py [--repeats 3] [--threads 1] [--no-walk100]

Times are CPU seconds of this process (`time.process_time`), single-threaded by default: on a shared machine wall
times and scikit-learn's OpenMP threads swing with other jobs' load, which CPU time of one thread mostly does not.
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from latent_mm.datasets import make_gmm200
from latent_mm.experiments.kmeans import DATASETS, TABLE1_INITS, initial_state, kmeans_trial
from latent_mm.kmeans import GMMKMeans
from latent_mm.selection import N_SWEEPS, random_walk


def per_iteration(fits, repeats):
    """Best-of-`repeats` CPU seconds per iteration of each `fit() -> n_iter`; the fits take turns in every round, so
    a change of machine load affects them alike."""
    best = [np.inf] * len(fits)
    for _ in range(repeats):
        for j, fit in enumerate(fits):
            start = time.process_time()
            n_iter = fit()
            best[j] = min(best[j], (time.process_time() - start) / n_iter)
    return best


def main(repeats=3, threads=1, walk100=True):
    warnings.simplefilter("ignore", ConvergenceWarning)
    threadpool_limits(threads)     # scikit-learn's OpenMP and numpy's BLAS alike
    X, _ = make_gmm200(0)
    GMMKMeans(200, eta=0.02, bound="random", init="forgy", max_iter=2, random_state=0).fit(X)   # compile the walk
    for init in TABLE1_INITS:
        start = initial_state("gmm200", init, 0)           # labels for the random partition, else centres
        w0 = initial_state("gmm200", init, 0, partition_as_bound=False)   # centres: the partition's means
        fits = [lambda: KMeans(200, init=w0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(X).n_iter_,
                lambda: GMMKMeans(200, init=start).fit(X).n_iter_,
                lambda: GMMKMeans(200, eta=0.02, bound="random", init=start, random_state=0).fit(X).n_iter_]
        if walk100:
            fits.append(lambda: GMMKMeans(200, eta=0.02, bound=random_walk(100, init="touching"), init=start,
                                          random_state=0).fit(X).n_iter_)
        sk, mm, gm, *walk = per_iteration(fits, repeats)
        print(f"GMM-200 {init:16s} ms/iteration: scikit-learn Lloyd {sk * 1e3:6.2f}  latent_mm Lloyd {mm * 1e3:6.2f}"
              f"  G-MM (random, {N_SWEEPS} sweeps) {gm * 1e3:6.2f}"
              + (f"  G-MM (100-sweep walk) {walk[0] * 1e3:7.2f}" if walk else "")
              + f"   ratios: Lloyd/sklearn {mm / sk:4.2f}  G-MM/Lloyd {gm / mm:4.2f}"
              + (f"  100-sweep walk/Lloyd {walk[0] / mm:5.1f}" if walk else ""), flush=True)
    start = time.process_time()
    for d in DATASETS:
        for init in TABLE1_INITS:
            kmeans_trial(d, init, 0)
    sweep = time.process_time() - start
    print(f"Table 1, one trial of each of the 12 settings (k-means + G-MM): {sweep:.1f} CPU s;"
          f" 50 trials: {50 * sweep / 60:.1f} CPU min, ~{50 * sweep / 120:.1f} min on 2 cores")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="threads for BLAS and OpenMP (default: 1)")
    parser.add_argument("--no-walk100", dest="walk100", action="store_false",
                        help="skip the 100-sweep walk (it takes minutes)")
    main(**vars(parser.parse_args()))
