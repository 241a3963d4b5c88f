"""Time to a certified solve of one LS-SVM bound (latent values fixed) by every named method of the registry (BCFW,
the cutting-plane method, the sequential dual method) and by the default 'auto', from C = 1 to C = 10^6, against
cvxpy (Clarabel); and (`--sdm`) the sequential dual method against liblinear's Crammer-Singer solver and BCFW.

Usage: python benchmarks/ssvm.py [--quick] [--tol 1e-3] [--max-passes 3000] [--threads 1] [--skip-cvxpy-above 1e5]
       python benchmarks/ssvm.py --sdm [--sdm-tol 1e-4] [--repeats 3] [--sections digits,localization,group,fits]

Two bounds: the toy localization data (`latent_mm.lssvm.toy_localization`, n = 60, 6 windows, d = 5, w in R^15,
true windows; cvxpy's optimum P* at every C) and one bound of the localization experiment (96 training images, 25
windows, standardised features, d = 181, w in R^1086, windows at the image centre; no cvxpy: it takes minutes, and
P* is the least certified P). For each C, in one run, in CPU seconds of this process (one BLAS thread): each
solver's time and passes (BCFW), iterations (cutting plane) or oracle rounds (SDM), and whether its duality gap
reached `tol` x P(w) (solves under a second: best of `--repeats`); the fastest certified named method, 'auto' against it, and the largest certified P above P*.
`--quick` runs the toy bound at C = 1 and 10^2 only (under a minute).

`--sdm` times the sequential dual method ('sdm') to a relative gap `--sdm-tol` in CPU seconds of this process
(`time.process_time`, one BLAS thread: on a shared machine wall time counts other processes' work), with ratios between
solvers measured in the same run (the fast ones best of `--repeats`, taking turns; BCFW and the earlier default once):
1. scikit-learn's digits (standardised, 1797 x 64, 10 classes) as one latent value per example: the bound is the
   Crammer-Singer multiclass SVM, solved by liblinear (`LinearSVC(multi_class="crammer_singer", fit_intercept=False,
   C=C/n, tol=1e-6)`), by BCFW (at most `--bcfw-passes` passes) and by 'sdm', at C = 1, 10^2, 10^4;
2. the localization bound above (n = 96, D = 1086) at C = 2.5 and 10^2: BCFW, the earlier default
   'bcfw+cutting-plane' and 'sdm';
3. a group-norm bound (`GroupNormSSVM`'s model on rotated digits 3 vs 8: n = 249, 11 angles, one group per
   (class, angle) block, mu = 1, ridge 1) at C = 1, 10, 10^2: BCFW (its earlier default) and 'sdm';
4. whole CCCP fits of `LatentSSVM` on the localization data (96 training images, random initial windows, tol 1e-3)
   with the default 'auto' (the dual method), the earlier default and BCFW: their time and objective."""
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
    yield "toy n=60, D=15", LatentMulticlass(n_classes=3).oracle(X, y, h), Cs, np.inf
    if quick:
        return
    data = make_localization(n_per_class=20, n_random=100, random_state=0)
    X, y = data["X"][:96], data["y"][:96]
    X, _ = standardise(X, X[:1])
    h0 = initial_latents("center", 96, data["grid"])
    yield "localization n=96, D=1086", LatentMulticlass(n_classes=6).oracle(X, y, h0), (1.0, 1e2, 1e4, 1e6), 0.0


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def cpu(f):
    "f() and its CPU time in seconds."
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def best_of(fs, repeats):
    "Each callable's result and its least CPU time over `repeats` rounds, the callables taking turns."
    times, outs = [[] for _ in fs], [None] * len(fs)
    for _ in range(repeats):
        for k, f in enumerate(fs):
            outs[k], t = cpu(f)
            times[k].append(t)
    return outs, [min(t) for t in times]


def certified(res):
    return f"{res.n_passes}" + ("" if res.converged else f", not certified: gap {res.gap / res.primal:.2g} P")


def sdm_digits(tol, repeats, bcfw_passes):
    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    n = len(X)
    bound = LatentMulticlass(n_classes=10).oracle(X[:, None, :], y, np.zeros(n, np.int64))
    sdm = make_solver("sdm", tol=tol)
    bcfw = make_solver("bcfw", tol=tol, max_passes=bcfw_passes)
    sdm.solve(bound, 1.0, random_state=np.random.default_rng(0))           # numba compiles or loads its cache: not timed
    print(f"\n### Digits as the Crammer-Singer SVM (n = {n}, D = {bound.n_features}), relative gap {tol:g}\n")
    print("| C | liblinear (s) | liblinear converged | BCFW: s (passes) | SDM (s) | SDM / liblinear | SDM / BCFW "
          "| (P_SDM - P_lib) / P_lib | SDM: oracle rounds, block passes, CG iterations |")
    print("|---|---|---|---|---|---|---|---|---|")
    for C in (1.0, 1e2, 1e4):
        lam = 1.0 / C

        def lib():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                model = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C / n, tol=1e-6).fit(X, y)
            return model, not any(issubclass(c.category, ConvergenceWarning) for c in caught)

        (lo, rs), (t_lib, t_s) = best_of([lib, lambda: sdm.solve(bound, lam, random_state=np.random.default_rng(0))], repeats)
        rb, t_b = cpu(lambda: bcfw.solve(bound, lam, random_state=np.random.default_rng(0)))
        P_lib = primal_objective(bound, lo[0].coef_.ravel(), lam)
        info = rs.info
        print(f"| {C:g} | {t_lib:.3f} | {'yes' if lo[1] else 'no (max_iter)'} | {t_b:.2f} ({certified(rb)}) "
              f"| {t_s:.3f}{'' if rs.converged else ' (not certified)'} | {t_s / t_lib:.2f} | {t_s / t_b:.3f} "
              f"| {(rs.primal - P_lib) / P_lib:+.1e} | {rs.n_passes}, {info['block_passes']}, "
              f"{info['cg_iterations']} |", flush=True)


def localization_bound():
    data = make_localization(n_per_class=20, n_random=100, random_state=0)
    X, y = data["X"][:96], data["y"][:96]
    X, _ = standardise(X, X[:1])
    return X, y, data["grid"]


def sdm_localization(tol, repeats, bcfw_passes):
    X, y, grid = localization_bound()
    bound = LatentMulticlass(n_classes=6).oracle(X, y, initial_latents("center", 96, grid))
    sdm = make_solver("sdm", tol=tol)
    others = {name: make_solver(name, tol=tol, max_passes=bcfw_passes) for name in ("bcfw", "bcfw+cutting-plane")}
    print(f"\n### One bound of the localization experiment (n = 96, 150 outputs each, D = {bound.n_features}), relative "
          f"gap {tol:g}\n")
    print("| C | BCFW: s (passes) | earlier default: s (method) | SDM (s) | SDM / BCFW | SDM / earlier default | (P_SDM - P_BCFW) / P_BCFW "
          "| SDM: oracle rounds, block passes, CG iterations |")
    print("|---|---|---|---|---|---|---|---|")
    for C in (2.5, 1e2):
        lam = 1.0 / C
        (rs,), (t_s,) = best_of([lambda: sdm.solve(bound, lam, random_state=np.random.default_rng(0))], repeats)
        rb, t_b = cpu(lambda: others["bcfw"].solve(bound, lam, random_state=np.random.default_rng(0)))
        ra, t_a = cpu(lambda: others["bcfw+cutting-plane"].solve(bound, lam, random_state=np.random.default_rng(0)))
        info = rs.info
        print(f"| {C:g} | {t_b:.2f} ({certified(rb)}) | {t_a:.2f} ({ra.solver}, {certified(ra)}) "
              f"| {t_s:.3f}{'' if rs.converged else ' (not certified)'} | {t_s / t_b:.3f} | {t_s / t_a:.3f} "
              f"| {(rs.primal - rb.primal) / rb.primal:+.1e} | {rs.n_passes}, {info['block_passes']}, "
              f"{info['cg_iterations']} |", flush=True)


def sdm_group_norm(tol, repeats, bcfw_passes):
    from latent_mm.datasets import load_rotated_digits
    from latent_mm.lssvm.group_norm import LatentStateBlocks, block_groups
    from latent_mm.solvers import GroupL2
    data = load_rotated_digits((3, 8), random_state=0)
    X, y = 16.0 * data.X_train, data.y_train
    n, H, d = X.shape
    bound = LatentStateBlocks(n_classes=2).oracle(X, y, np.full(n, H // 2))
    reg = GroupL2(block_groups(bound.n_features // d, d), mu=1.0)
    sdm, bcfw = make_solver("sdm", tol=tol), make_solver("bcfw", tol=tol, max_passes=bcfw_passes)
    print(f"\n### A group-norm bound (rotated digits 3 vs 8: n = {n}, {H} angles, D = {bound.n_features}, "
          f"{len(reg.groups)} groups, mu = 1), relative gap {tol:g}\n")
    print("| C | BCFW: s (passes) | SDM (s) | SDM / BCFW | (P_SDM - P_BCFW) / P_BCFW | groups at 0 (BCFW, SDM) "
          "| SDM: oracle rounds, block passes, CG iterations |")
    print("|---|---|---|---|---|---|---|")
    for C in (1.0, 10.0, 1e2):
        lam = 1.0 / C
        (rs,), (t_s,) = best_of([lambda: sdm.solve(bound, lam, reg, random_state=np.random.default_rng(0))], repeats)
        rb, t_b = cpu(lambda: bcfw.solve(bound, lam, reg, random_state=np.random.default_rng(0)))
        zeros = [int((reg.norms(r.w) == 0).sum()) for r in (rb, rs)]
        info = rs.info
        print(f"| {C:g} | {t_b:.2f} ({certified(rb)}) | {t_s:.3f}{'' if rs.converged else ' (not certified)'} "
              f"| {t_s / t_b:.3f} | {(rs.primal - rb.primal) / rb.primal:+.1e} | {zeros[0]}, {zeros[1]} "
              f"| {rs.n_passes}, {info['block_passes']}, {info['cg_iterations']} |", flush=True)


def sdm_fits():
    from latent_mm.lssvm import LatentSSVM
    X, y, grid = localization_bound()
    h0 = initial_latents("random", 96, grid, random_state=1)
    print("\n### Whole CCCP fits (localization, 96 images, random initial windows, tol 1e-3, eps 1e-3)\n")
    print("| C | solver | fit (s) | G-MM iterations | objective | fit / the default's |")
    print("|---|---|---|---|---|---|")
    for C in (2.5, 1e2):
        rows = []
        for solver in ("auto", "bcfw+cutting-plane", "bcfw"):
            est = LatentSSVM(LatentMulticlass(), C=C, tol=1e-3, eps=1e-3, max_iter=50, solver=solver,
                             max_passes=5000, random_state=0)
            _, t = cpu(lambda: est.fit(X, y, h0=h0))
            rows.append((solver, t, est.n_iter_, est.objective_))
        for solver, t, it, obj in rows:
            print(f"| {C:g} | {solver} | {t:.2f} | {it} | {obj:.6f} | {t / rows[0][1]:.1f} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the toy bound at C = 1 and 100 only")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--max-passes", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--skip-cvxpy-above", type=float, default=np.inf, help="no cvxpy reference for larger C")
    ap.add_argument("--sdm", action="store_true", help="the sequential dual method against liblinear and BCFW")
    ap.add_argument("--sdm-tol", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--bcfw-passes", type=int, default=5000)
    ap.add_argument("--sections", default="digits,localization,group,fits", help="with --sdm: which tables")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.sdm:
        sections = args.sections.split(",")
        with threadpool_limits(1):
            for name, table in (("digits", sdm_digits), ("localization", sdm_localization),
                                ("group", sdm_group_norm)):
                if name in sections:
                    table(args.sdm_tol, args.repeats, args.bcfw_passes)
            if "fits" in sections:
                sdm_fits()
        return
    X, y, h = toy_localization(n=5, random_state=0)           # cvxpy's first call pays its imports: not timed
    solve_cvxpy(LatentMulticlass(n_classes=3).oracle(X, y, h), 1.0)
    names = ("bcfw", "cutting-plane", "sdm", "auto")
    solvers = {name: make_solver(name, tol=args.tol, max_passes=args.max_passes) for name in names}
    for name in names:                                        # compiled kernels: compiled before any timing
        solvers[name].solve(LatentMulticlass(n_classes=3).oracle(X, y, h), 1.0, random_state=np.random.default_rng(0))
    solve = lambda name, problem, lam: solvers[name].solve(problem, lam, random_state=np.random.default_rng(0))
    print("| bound | C | cvxpy (s) | BCFW: s (passes) | cutting plane: s (iterations) | SDM: s (rounds) "
          "| auto: s (method) | fastest named | auto / fastest named | max (P - P*)/P* |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    with threadpool_limits(args.threads):
        for name, problem, Cs, cvxpy_up_to in bounds(args.quick):
            for C in Cs:
                lam = 1.0 / C
                if C <= min(args.skip_cvxpy_above, cvxpy_up_to):
                    w_ref, t_cvx = cpu(lambda: solve_cvxpy(problem, lam))
                    P_ref = primal_objective(problem, w_ref, lam)
                else:
                    t_cvx, P_ref = np.nan, None
                res, t = {}, {}
                for m in names:
                    res[m], t[m] = cpu(lambda: solve(m, problem, lam))
                for _ in range(args.repeats - 1):          # quick solves: best of `--repeats`, taking turns
                    for m in [m for m in names if t[m] < 1.0]:
                        t[m] = min(t[m], cpu(lambda: solve(m, problem, lam))[1])
                done = [m for m in names[:-1] if res[m].converged]
                fastest = min(done, key=t.get) if done else None
                ratio = t["auto"] / t[fastest] if fastest else np.nan
                worst = max(worst, ratio) if fastest else worst
                P_best = P_ref if P_ref is not None else min(r.primal for r in res.values() if r.converged)
                err = max((r.primal - P_best) / P_best for r in res.values() if r.converged)
                cell = lambda m: f"{t[m]:.3g} ({certified(res[m])})"
                print(f"| {name} | {C:g} | {t_cvx:.3g} | {cell('bcfw')} | {cell('cutting-plane')} | {cell('sdm')} "
                      f"| {t['auto']:.3g} ({res['auto'].solver}, {res['auto'].n_passes}) | {fastest} | {ratio:.2f} "
                      f"| {err:.1e} |", flush=True)
    print(f"\nauto against the fastest certified named method: at most {worst:.2f}x")

if __name__ == "__main__":
    main()
