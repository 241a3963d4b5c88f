"""The sequential dual method's options on the scene class reading's bounds: the same bounds solved with each setting.

    python benchmarks/sdm_options.py [--max-iter 40] [--blas-threads 1]

Three full-size trials of the scene experiment under the class reading's protocol (`READINGS["class"]`), run with
the default options up to `max_iter` iterations: CCCP from the k-means start with lambda = 0, and G-MM biased and
G-MM random from random start 0. The bounds of their solves 2, 5, 10, 20, 30 and 39 (those the run reaches) are kept
with the warm state each solve started from. Every setting then solves every kept bound from that state to the
protocol's relative gap; printed per setting: CPU seconds of the process over all bounds (the best of `--repeats`),
per bound the oracle rounds, block visits, conjugate-gradient iterations and their restarts at a bound of the face,
the planes per image in the working sets at the end, and the ratio to the defaults. Every solve
is certified, so the settings differ in time, not in what they certify.
"""
import argparse
import copy
import time

SETTINGS = [{}, dict(cg_iter=0), dict(cg_iter=0, max_age=5), dict(cg_iter=0, max_age=3), dict(cg_iter=0, max_age=1),
            dict(max_age=3)]
KEEP = (2, 5, 10, 20, 30, 39)


def capture(method, init, lam, max_iter, protocol, size):
    "The bounds (oracle, lam, regularizer, weights, warm state, previous point) of the kept solves of one trial."
    import numpy as np
    import latent_mm.solvers as S
    from latent_mm.experiments.scene import scene_trial
    kept, solve = [], S.SolverRun.solve

    def keep(self, oracle, lam, regularizer=None, sample_weight=None, *, w_prev=None):
        if self.n_solves in KEEP:
            kept.append((oracle, lam, regularizer, sample_weight, copy.deepcopy(self.warm),
                         None if w_prev is None else np.array(w_prev)))
        return solve(self, oracle, lam, regularizer, sample_weight, w_prev=w_prev)

    S.SolverRun.solve = keep
    try:
        scene_trial(method, init, lam, seed=0, run=0, max_iter=max_iter, **size,
                    **dict(protocol, solver="sdm", solver_options=None))
    finally:
        S.SolverRun.solve = solve
    return kept


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-iter", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits
    from latent_mm.experiments.scene import FULL, READINGS
    from latent_mm.solvers import sdm
    from latent_mm.report import format_table

    size = {k: v for k, v in FULL.items() if k not in ("seeds", "prototype_seeds", "runs")}
    protocol = {k: v for k, v in READINGS["class"].items() if k not in ("solver", "solver_options")}
    with threadpool_limits(args.blas_threads):
        bounds = [b for trial in (("CCCP", "kmeans", 0.0), ("G-MM biased", "random", 0.0),
                                  ("G-MM random", "random", 0.0))
                  for b in capture(*trial, args.max_iter, protocol, size)]
        rows = []
        for options in SETTINGS:
            cpu, rounds, visits, cg, restarts, planes = 0.0, 0, 0, 0, 0, 0.0
            for oracle, lam, reg, s, warm, w_prev in bounds:
                best = float("inf")
                for _ in range(args.repeats):
                    start = time.process_time()
                    r = sdm(oracle, lam, regularizer=reg, sample_weight=s, tol=protocol["tol"], warm=warm,
                            w_prev=w_prev, random_state=1, warn=False, **options)
                    best = min(best, time.process_time() - start)
                assert r.converged, (options, r.gap, r.primal)
                cpu, rounds = cpu + best, rounds + r.n_passes
                visits, cg = visits + r.info["block_visits"], cg + r.info["cg_iterations"]
                restarts, planes = restarts + r.info["cg_restarts"], planes + r.info["planes"] / oracle.n_samples
            n = len(bounds)
            rows.append(dict(options=", ".join(f"{k}={v}" for k, v in options.items()) or "defaults",
                             bounds=n, cpu_s=cpu, rounds=rounds / n, block_visits=visits / n, cg_iterations=cg / n,
                             cg_restarts=restarts / n, planes_per_image=planes / n))
        for r in rows:
            r["/ defaults"] = r["cpu_s"] / rows[0]["cpu_s"]
    print(format_table(rows, floatfmt="{:.4g}"))


if __name__ == "__main__":
    main()
