"""The group-norm model's own bound oracles against the generic ones of the model contract, in one run.

Usage: python benchmarks/group_norm_oracle.py [--repeats 3] [--threads 1]

`LatentStateBlocks.oracle` returns `StateBlocksBound`, the class-block `latent_mm.lssvm.ClassBlockBound` with two oracles
written for the weight blocks: the per-example loss-augmented argmax (BCFW calls it n times per pass) and Algorithm 1's
hinge-and-subgradient (the subgradient solver calls it once per step). This script measures what each override buys,
on one (pair, seed) of the rotated-digits experiment (2-7, seed 0: about 250 training images, 11 angles, 10 PCA
features, 2 classes, w in R^220): the oracles alone (CPU time per call), then whole `GroupNormSSVM` fits as the
experiment runs them (the full model, mu = 0; mu = 1 with BCFW and with the subgradient solver, from the full model),
each with (a) `StateBlocksBound`, (b) the generic bound and, for the subgradient solver, (c) `StateBlocksBound` with
the generic hinge-and-subgradient. Variants are timed alternately, median CPU time of `--repeats` runs. (a) and (b)
can take different paths: the two per-example oracles round the scores differently, and a near-tie between two
outputs can go either way, so the G-MM iterations and bound passes are printed beside the times."""
import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from latent_mm.datasets import load_rotated_digits
from latent_mm.lssvm.group_norm import GroupNormSSVM, LatentStateBlocks, StateBlocksBound
from latent_mm.lssvm import ClassBlockBound
from latent_mm.solvers import BoundSolver, Oracle, make_solver


class GenericBlocks(LatentStateBlocks):
    "The group-norm model with the generic bound of the model contract."
    def oracle(self, X, y, z): return ClassBlockBound(self, X, y, z)


class GenericSubgradientBound(StateBlocksBound):
    "`StateBlocksBound` with the generic hinge-and-subgradient of `Oracle`."
    hinge_and_subgradient = Oracle.hinge_and_subgradient


class GenericSubgradientBlocks(LatentStateBlocks):
    def oracle(self, X, y, z): return GenericSubgradientBound(self, X, y, z)


class Counted(BoundSolver):
    "A registry solver with GroupNormSSVM's defaults that counts the passes (or steps) of all its solves."
    def __init__(self, name):
        sub = name == "subgradient"
        self.inner = make_solver(name, tol=1e-5 if sub else 1e-3, max_passes=2000 if sub else 200)
        self.name, self.tol, self.max_passes, self.passes = name, self.inner.tol, self.inner.max_passes, 0

    def solve(self, *args, **kwargs):
        res = self.inner.solve(*args, **kwargs)
        self.passes += res.n_passes
        return res


def cpu(f, repeats):
    "Median CPU seconds of `repeats` calls of f, and its last result."
    times = []
    for _ in range(repeats):
        t = time.process_time()
        out = f()
        times.append(time.process_time() - t)
    return float(np.median(times)), out


def oracles(X, y, repeats):
    rng = np.random.default_rng(0)
    model = LatentStateBlocks(2)
    z = rng.integers(0, X.shape[1], len(X))
    ours, generic = model.oracle(X, y, z), ClassBlockBound(model, X, y, z)
    w, s = rng.normal(size=ours.n_features) * 0.1, np.ones(len(X))
    rows = []
    for name, a, b, per in (
            ("loss_augmented (one example)", lambda: [ours.loss_augmented(w, i) for i in range(len(X))],
             lambda: [generic.loss_augmented(w, i) for i in range(len(X))], len(X)),
            ("hinge_and_subgradient (all examples)", lambda: [ours.hinge_and_subgradient(w, s) for _ in range(50)],
             lambda: [Oracle.hinge_and_subgradient(generic, w, s) for _ in range(50)], 50)):
        t_a, t_b = [], []
        for _ in range(repeats):
            t_a.append(cpu(a, 1)[0] / per)
            t_b.append(cpu(b, 1)[0] / per)
        rows.append((name, np.median(t_a), np.median(t_b)))
    print("| oracle | StateBlocksBound (us per call) | generic (us per call) | generic / ours |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {1e6 * a:.1f} | {1e6 * b:.1f} | {b / a:.2f} |")


def fits(X, y, repeats):
    H = X.shape[1]
    variants = {"ours": LatentStateBlocks(), "generic": GenericBlocks(), "generic subgradient": GenericSubgradientBlocks()}
    fit = lambda model, warm, solver="bcfw", **params: GroupNormSSVM(
        model, C=1.0, solver=Counted(solver), random_state=0, **params).fit(X, y, **warm)
    full = fit(LatentStateBlocks(), dict(h0=np.full(len(X), H // 2)), mu=0.0)
    warm = dict(h0=full.latent_, coef_init=full.coef_)
    runs = [("full model, mu=0, bcfw", dict(h0=np.full(len(X), H // 2)), dict(mu=0.0), ("ours", "generic")),
            ("mu=1, bcfw", warm, dict(mu=1.0), ("ours", "generic")),
            ("mu=1, subgradient", warm, dict(mu=1.0, solver="subgradient"), ("ours", "generic", "generic subgradient"))]
    print("\n| fit | bound | CPU s | G-MM iterations | bound passes (BCFW) or steps (subgradient) | objective | "
          "CPU s / ours |")
    print("|---|---|---|---|---|---|---|")
    for name, start, params, names in runs:
        runs_of = {v: [] for v in names}
        for _ in range(repeats):
            for v in names:
                runs_of[v].append(cpu(lambda: fit(variants[v], start, **params), 1))
        t_ours = float(np.median([t for t, _ in runs_of["ours"]]))
        for v in names:
            t, est = float(np.median([t for t, _ in runs_of[v]])), runs_of[v][-1][1]
            print(f"| {name} | {v} | {t:.2f} | {est.n_iter_} | {est.problem_.run.solver.passes} | "
                  f"{est.objective_:.6f} | {t / t_ours:.2f} |")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    D = load_rotated_digits((2, 7), random_state=0)
    X, y = 16.0 * D.X_train, D.y_train
    with threadpool_limits(args.threads):
        oracles(X, y, args.repeats)
        fits(X, y, args.repeats)


if __name__ == "__main__":
    main()
