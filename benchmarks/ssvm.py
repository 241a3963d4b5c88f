"""Time to solve one LS-SVM bound (latent windows fixed) of the localization experiment: BCFW vs cvxpy.

Usage: python benchmarks/ssvm.py [--n-per-class 20] [--n-random 100] [--solver CLARABEL]

Prints, in one run: cvxpy's solve time and optimum P*, and the time BCFW needs until (a) its primal is within
1e-3 / 1e-4 of P* (relative) and (b) its certified duality gap is below 1e-2 / 1e-3 of P(w), with the ratios."""
import argparse
import time

import numpy as np

from latent_mm.experiments.localization import initial_latents, make_localization
from latent_mm.lssvm import LatentMulticlass, _FixedLatent
from latent_mm.solvers import bcfw, primal_objective, solve_cvxpy


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-per-class", type=int, default=20)
    ap.add_argument("--n-random", type=int, default=100)
    ap.add_argument("--solver", default="CLARABEL")
    ap.add_argument("--lam", type=float, default=0.4)
    args = ap.parse_args(argv)
    data = make_localization(n_per_class=args.n_per_class, n_random=args.n_random, random_state=0)
    X, y = data["X"], data["y"]
    n_train = int(0.8 * len(X))
    X, y = X[:n_train], y[:n_train]
    h0 = initial_latents("center", n_train, data["grid"])
    problem = _FixedLatent(LatentMulticlass(n_classes=6), X, y, h0)
    print(f"bound of the localization experiment: n={n_train} images, {X.shape[1]} windows, d={X.shape[2]}, "
          f"w in R^{problem.n_features}, {n_train * 6 * X.shape[1]} constraints")
    t = time.perf_counter()
    w_ref = solve_cvxpy(problem, args.lam, solver=args.solver)
    t_cvx = time.perf_counter() - t
    P_star = primal_objective(problem, w_ref, args.lam)
    print(f"cvxpy ({args.solver}): {t_cvx:.2f} s, P* = {P_star:.6f}")
    # BCFW, one pass at a time (warm-started), timing only the solver
    targets = {"primal within 1e-3 of P*": None, "primal within 1e-4 of P*": None,
               "certified gap <= 1e-2 P": None, "certified gap <= 1e-3 P": None}
    state, elapsed, passes = None, 0.0, 0
    rng = np.random.default_rng(0)
    while passes < 3000 and any(v is None for v in targets.values()):
        t = time.perf_counter()
        res = bcfw(problem, args.lam, tol=0.0, max_passes=1, state=state, random_state=rng, warn=False)
        elapsed += time.perf_counter() - t
        state, passes = res.state, passes + 1
        checks = {"primal within 1e-3 of P*": res.primal <= P_star * (1 + 1e-3),
                  "primal within 1e-4 of P*": res.primal <= P_star * (1 + 1e-4),
                  "certified gap <= 1e-2 P": res.gap <= 1e-2 * res.primal,
                  "certified gap <= 1e-3 P": res.gap <= 1e-3 * res.primal}
        for k, ok in checks.items():
            if ok and targets[k] is None:
                targets[k] = (elapsed, passes)
    for k, v in targets.items():
        if v is None:
            print(f"BCFW {k:28s}: not reached in {passes} passes ({elapsed:.2f} s)")
        else:
            print(f"BCFW {k:28s}: {v[0]:7.2f} s ({v[1]:4d} passes)   speed-up vs cvxpy: {t_cvx / v[0]:6.1f}x")


if __name__ == "__main__":
    main()
