"""Novelty criterion on the motif experiment's training set: the batched exact solver vs one cvxpy QP per sample.

Usage: python benchmarks/novelty.py [--n 300] [--protein P1] [--rounds 3] [--solver CLARABEL]

Trains CCCP for two iterations from random motif starts (the point where SPL first evaluates a criterion), then times
`latent_mm.lssvm.criteria.novelty` (Lawson-Hanson least-distance solves batched over samples) and
`latent_mm.lssvm.criteria.novelty_cvxpy` (one QP per sample) on the same (w, z), taking turns, and prints the best time of
each, the ratio and the largest relative difference."""
import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from latent_mm.lssvm.criteria import novelty, novelty_cvxpy
from latent_mm.experiments.spl_motif import PROTEINS, make_motif_data, motif_features
from latent_mm.lssvm import LatentBinary, LatentSSVM


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--protein", default="P1")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--solver", default="CLARABEL")
    args = ap.parse_args(argv)
    p = PROTEINS[args.protein]
    data = make_motif_data(n=args.n, **p, random_state=0)
    X, y = motif_features(data["seqs"], p["motif_length"]), data["y"]
    n_train = args.n // 2
    X, y = X[:n_train], y[:n_train]
    h0 = np.where(y == 1, np.random.default_rng(0).integers(0, X.shape[1], n_train), 0)
    est = LatentSSVM(LatentBinary(), C=20.0, max_iter=2, random_state=0).fit(X, y, h0=h0)
    problem, w, z = est.problem_, est.coef_.ravel(), est.latent_
    print(f"motif training set: n={n_train} sequences, {X.shape[1]} starts, w in R^{w.size}, "
          f"{X.shape[1] + 1} outputs per sample")
    best = {"batched": np.inf, "cvxpy": np.inf}
    for _ in range(args.rounds):
        t = time.perf_counter()
        nu = novelty(problem, w, z)
        best["batched"] = min(best["batched"], time.perf_counter() - t)
        t = time.perf_counter()
        ref = novelty_cvxpy(problem, w, z, solver=args.solver)
        best["cvxpy"] = min(best["cvxpy"], time.perf_counter() - t)
    rel = np.max(np.abs(nu - ref)) / max(np.max(np.abs(ref)), 1e-12)
    print(f"{int((nu > 0).sum())} samples with positive novelty; largest difference relative to max novelty: {rel:.2e}")
    print(f"batched Lawson-Hanson: {best['batched'] * 1e3:8.1f} ms")
    print(f"cvxpy ({args.solver}), per sample: {best['cvxpy'] * 1e3:8.1f} ms")
    print(f"speed-up: {best['cvxpy'] / best['batched']:.0f}x")


if __name__ == "__main__":
    main()
