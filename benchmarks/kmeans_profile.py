"""Where a G-MM iteration of k-means spends its time, at GMM-200 size (n=10000, k=200), one thread.

    python benchmarks/kmeans_profile.py [--init forgy] [--repeats 3]

Prints, per iteration of a default G-MM fit (`GMMKMeans(eta=0.02, bound="random")`), the CPU time of each step
summed over the fit (best of `--repeats` fits): the regret pass, the random walk, the bounds, the engine's
configuration check and the closed-form minimiser; then, on the walk's input at iteration `--at` of that fit, the
time of each of the walk's kernels, and of the product-law draw's weights alone (the rest of the draw is the search
for the drawn value along the weights).
"""
import argparse
import functools
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

import latent_mm._kernels as K
import latent_mm.core as core
import latent_mm.selection as S
from latent_mm.datasets import make_gmm200
from latent_mm.experiments.kmeans import initial_state
from latent_mm.kmeans import GMMKMeans, KMeansProblem


def best_ms(f, repeats=20):
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        f()
        best = min(best, time.process_time() - start)
    return best * 1e3


def main(init="forgy", repeats=3, at=8):
    warnings.simplefilter("ignore", ConvergenceWarning)
    threadpool_limits(1)
    X, _ = make_gmm200(0)
    GMMKMeans(200, eta=0.02, bound="random", init="forgy", max_iter=2, random_state=0).fit(X)   # compile
    spent, calls = {}, []

    def timed(owner, name, label, keep=False):
        f = getattr(owner, name)

        @functools.wraps(f)
        def g(*args, **kw):
            if keep:                                       # count the walks; copy the input of walk `at` only
                calls.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args[1:4])
                             if len(calls) == at else None)
            start = time.process_time()
            out = f(*args, **kw)
            spent[label] = spent.get(label, 0.0) + time.process_time() - start
            return out
        setattr(owner, name, g)
        return f

    originals = [(KMeansProblem, "_pass", timed(KMeansProblem, "_pass", "regret pass")),
                 (S.RandomWalk, "__call__", timed(S.RandomWalk, "__call__", "random walk", keep=True)),
                 (KMeansProblem, "bound", timed(KMeansProblem, "bound", "bounds")),
                 (core, "check_configuration", timed(core, "check_configuration", "configuration check")),
                 (KMeansProblem, "minimize_bound", timed(KMeansProblem, "minimize_bound", "minimiser"))]
    start_state, best = initial_state("gmm200", init, 0), None
    for _ in range(repeats):
        spent.clear()
        calls.clear()
        t0 = time.process_time()
        n_iter = GMMKMeans(200, eta=0.02, bound="random", init=start_state, random_state=0).fit(X).n_iter_
        total = time.process_time() - t0
        if best is None or total < best[0]:
            best = (total, dict(spent), n_iter, list(calls))
    for owner, name, f in originals:
        setattr(owner, name, f)
    total, spent, n_iter, calls = best
    print(f"GMM-200 from {init}: {n_iter} iterations, {total / n_iter * 1e3:.2f} ms per iteration; of which "
          + ", ".join(f"{k} {v / n_iter * 1e3:.2f}" for k, v in spent.items()))

    if len(calls) <= at:
        raise SystemExit(f"--at {at}: the fit made only {len(calls)} walks")
    R, budget, z_prev = calls[at]
    budget, z_prev = float(budget), np.asarray(z_prev, np.int64)
    touch, count, start, cand = K.scan_rows(R, budget, z_prev)
    movable = np.flatnonzero(count > 1)
    sub = np.sort(np.random.default_rng(0).choice(movable, min(S._N_BETA_ROWS, len(movable)), replace=False))
    beta = K.solve_beta(R, budget, sub, budget * len(sub) / len(movable), start, cand)
    weights = np.empty(R.shape[1])

    from numba import njit
    g, floor = K.g, K.NORMAL_Y                            # compiled by the first fit

    @njit(fastmath=K.FAST)
    def _draw_weights(R, budget, rows, beta, weight):
        "The draw's weight loop over whole rows, without the walk along the weights."
        total = 0.0
        for i in rows:
            for j in range(R.shape[1]):
                weight[j] = g(beta * R[i, j], floor) if R[i, j] <= budget else 0.0
                total += weight[j]
        return total
    state = np.full(1, 1, np.uint64)
    listed = int(np.count_nonzero(np.diff(start)))
    print(f"the walk of iteration {at + 1}: {len(movable)} movable points ({listed} with a list),"
          f" {count[movable].mean():.0f} candidates each on average; ms: "
          f"whole walk {best_ms(lambda: K.random_bound(R, budget, z_prev, 2.0, -1, True, S._N_BETA_ROWS, np.uint64(1))):.2f}, "
          f"scan {best_ms(lambda: K.scan_rows(R, budget, z_prev)):.2f}, "
          f"beta {best_ms(lambda: K.solve_beta(R, budget, sub, budget * len(sub) / len(movable), start, cand)):.2f}, "
          f"draw {best_ms(lambda: K.draw_product(R, budget, movable, beta, touch.copy(), state, start, cand)):.2f}"
          + (f" (its weights alone {best_ms(lambda: _draw_weights(R, budget, movable, beta, weights)):.2f})"
             if listed == 0 else "")
          + f", Metropolis sweeps {best_ms(lambda: K.metropolis(R, budget, touch.copy(), budget, movable, start, cand, 2 * len(movable), state)):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init", default="forgy", choices=("forgy", "random-partition", "k-means++"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--at", type=int, default=8, help="the iteration whose walk is timed kernel by kernel (0-based)")
    args = parser.parse_args()
    if args.at < 0 or args.repeats < 1:
        parser.error(f"--at {args.at} --repeats {args.repeats}: --at must be >= 0 and --repeats >= 1")
    main(**vars(args))
