"""The scene model's one-image oracle against the generic one of the model contract. `RBoWModel.oracle` returns
`RBoWBound`, the generic `FixedLatentBound` with its own per-image loss-augmented argmax (BCFW calls it n times per
pass); this times that oracle and whole solves of one bound with either bound, alternately in one run.

    python benchmarks/rbow_oracle.py [--repeats 3] [--threads 1]
"""
import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from latent_mm.experiments.scene import FULL
from latent_mm.lssvm import FixedLatentBound
from latent_mm.scene import RBoWModel, initial_parts, toy_scenes
from latent_mm.solvers import bcfw, solve_ssvm


SOLVES = {  # the scene experiment's solve ('auto', as `first_bound`), and BCFW alone (the one-image oracle's user)
    "auto": lambda b: solve_ssvm(b, 1e-3, tol=1e-2, max_passes=3000, random_state=0, warn=False),
    "bcfw, 100 passes": lambda b: bcfw(b, 1e-3, tol=1e-2, max_passes=100, random_state=0, warn=False),
}


def first_per_class(y, n):
    "Training mask of the scene experiment: the first `n` images of every class."
    return np.isin(np.arange(len(y)), np.concatenate([np.flatnonzero(y == k)[:n] for k in np.unique(y)]))


def cpu(f, repeats):
    "Median CPU seconds of `repeats` calls of f, and its last result."
    times, out = [], None
    for _ in range(repeats):
        start = time.process_time()
        out = f()
        times.append(time.process_time() - start)
    return float(np.median(times)), out


def main(repeats, threads):
    grid, n_parts = FULL["grid"], FULL["n_parts"]
    data = toy_scenes(FULL["n_train"] + FULL["n_test"], n_pairs=FULL["n_pairs"], grid=grid,
                      separation=FULL["separation"], n_nuisance=3, context=FULL["context"], random_state=0)
    train = first_per_class(data["y"], FULL["n_train"])
    X, y = data["X"][train], data["y"][train]
    z = initial_parts(X, n_parts, grid, "kmeans", 0.0, random_state=0)
    model = RBoWModel(n_parts, len(data["classes"]), grid)
    bounds = {"RBoWBound": model.oracle(X, y, z), "generic": FixedLatentBound(model, X, y, z)}
    w = np.random.default_rng(0).normal(scale=0.1, size=model.size_joint_feature(X))
    print(f"scene stand-in at full size: {len(X)} training images, {grid[0]} x {grid[1]} regions, {n_parts} parts, "
          f"{len(data['classes'])} classes, w in R^{model.size_joint_feature(X)}; BLAS threads {threads}")
    with threadpool_limits(threads, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_call = {k: [] for k in bounds}
        solves = {(k, m): [] for k in bounds for m in SOLVES}
        for _ in range(repeats):                                  # the two bounds take turns
            for name, b in bounds.items():
                t, _ = cpu(lambda: [b.loss_augmented(w, i) for i in range(len(X))], 1)
                per_call[name].append(t / len(X))
            for name, b in bounds.items():
                for method, solve in SOLVES.items():
                    t, res = cpu(lambda: solve(b), 1)
                    solves[name, method].append((t, res))
    ours = float(np.median(per_call["RBoWBound"]))
    print("| oracle | us per call | / RBoWBound |\n|---|---|---|")
    for name in bounds:
        t = float(np.median(per_call[name]))
        print(f"| {name} loss_augmented (one image) | {t * 1e6:.1f} | {t / ours:.2f} |")
    print("| solve of the first bound (k-means parts, lambda = 0), C = 1000, tol 1e-2 | bound | CPU s | passes | P(w) | "
          "/ RBoWBound |\n|---|---|---|---|---|---|")
    for method in SOLVES:
        ours = float(np.median([t for t, _ in solves["RBoWBound", method]]))
        for name in bounds:
            t = float(np.median([s for s, _ in solves[name, method]]))
            res = solves[name, method][-1][1]
            print(f"| {method} | {name} | {t:.2f} | {res.n_passes} ({res.solver}) | {res.primal!r} | {t / ours:.2f} |")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (default: 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default: 1)")
    args = parser.parse_args()
    if args.repeats < 1 or args.threads < 1:
        parser.error("--repeats and --threads must be at least 1")
    main(args.repeats, args.threads)
