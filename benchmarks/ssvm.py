"""Time to a certified solve of one LS-SVM bound (latent values fixed): BCFW, the cutting-plane method and the
automatic choice, against cvxpy (Clarabel), from C = 1 to C = 10^6.

Usage: python benchmarks/ssvm.py [--quick] [--tol 1e-3] [--max-passes 3000] [--threads 1] [--skip-cvxpy-above 1e5]

Two bounds: the toy localization data (`latent_mm.lssvm.toy_localization`, n = 60, 6 windows, d = 5, w in R^15,
true windows) and one bound of the localization experiment (96 training images, 25 windows, standardised features,
d = 181, w in R^1086, windows at the image centre; cvxpy there only at C = 2.5, where it takes a minute). For each C, in one run: cvxpy's time and optimum P*, then each
solver's time, passes (BCFW) or iterations (cutting plane), whether its duality gap reached `tol` x P(w), and its
P(w) relative to P*. Ratios are against cvxpy and against BCFW measured in the same run. The solvers are the
registry's (`latent_mm.solvers.make_solver`); `--quick` runs the toy bound at C = 1 and 10^2 only (under a minute)."""
import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from latent_mm.experiments.localization import initial_latents, make_localization, standardise
from latent_mm.lssvm import LatentMulticlass, toy_localization
from latent_mm.solvers import make_solver, primal_objective, solve_cvxpy


def bounds(quick=False):
    X, y, h = toy_localization(n=60, random_state=0)
    Cs = (1.0, 1e2) if quick else (1.0, 1e2, 1e4, 1e6)
    yield "toy n=60, D=15", LatentMulticlass(n_classes=3).bound(X, y, h), Cs, np.inf
    if quick:
        return
    data = make_localization(n_per_class=20, n_random=100, random_state=0)
    X, y = data["X"][:96], data["y"][:96]
    X, _ = standardise(X, X[:1])
    h0 = initial_latents("center", 96, data["grid"])
    yield "localization n=96, D=1086", LatentMulticlass(n_classes=6).bound(X, y, h0), (2.5, 1e2, 1e4), 2.5


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the toy bound at C = 1 and 100 only")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--max-passes", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--skip-cvxpy-above", type=float, default=np.inf, help="no cvxpy reference for larger C")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    X, y, h = toy_localization(n=5, random_state=0)           # cvxpy's first call pays its imports: not timed
    solve_cvxpy(LatentMulticlass(n_classes=3).bound(X, y, h), 1.0)
    solvers = {name: make_solver(name, tol=args.tol, max_passes=args.max_passes)
               for name in ("bcfw", "cutting-plane", "auto")}
    solve = lambda name, problem, lam: solvers[name].solve(problem, lam, rng=np.random.default_rng(0))
    print(f"| bound | C | cvxpy (s) | BCFW: s (passes, certified) | cutting plane: s (iterations) | auto: s (method) "
          f"| cvxpy / cutting plane | BCFW / cutting plane | BCFW / auto | max (P - P*)/P* |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with threadpool_limits(args.threads):
        for name, problem, Cs, cvxpy_up_to in bounds(args.quick):
            for C in Cs:
                lam = 1.0 / C
                if C <= min(args.skip_cvxpy_above, cvxpy_up_to):
                    w_ref, t_cvx = timed(lambda: solve_cvxpy(problem, lam))
                    P_ref = primal_objective(problem, w_ref, lam)
                else:
                    t_cvx, P_ref = np.nan, None
                bc, t_bc = timed(lambda: solve("bcfw", problem, lam))
                cp, t_cp = timed(lambda: solve("cutting-plane", problem, lam))
                au, t_au = timed(lambda: solve("auto", problem, lam))
                P_best = P_ref if P_ref is not None else min(r.primal for r in (bc, cp, au) if r.converged)
                err = max((r.primal - P_best) / P_best for r in (cp, au))
                yes = lambda r: "yes" if r.converged else f"no, gap {r.gap / r.primal:.2g} P"
                print(f"| {name} | {C:g} | {t_cvx:.2f} | {t_bc:.2f} ({bc.n_passes}, {yes(bc)}) | {t_cp:.2f} ({cp.n_passes}"
                      f"{'' if cp.converged else ', ' + yes(cp)}) | {t_au:.2f} ({au.solver}, {au.n_passes}) "
                      f"| {t_cvx / t_cp:.1f} | {t_bc / t_cp:.1f} | {t_bc / t_au:.1f} | {err:.1e} |", flush=True)


if __name__ == "__main__":
    main()
