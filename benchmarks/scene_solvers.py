"""Which bound solver the scene tables should use: the sequential dual method ('auto') against BCFW handing over to
the cutting-plane method ('bcfw+cutting-plane', `latent_mm.experiments.scene.SOLVER`), on the same trials.

    python benchmarks/scene_solvers.py [--max-iter 20] [--blas-threads 1]

Each trial of the scene experiment's full size (`FULL`) under the shared reading (`READINGS["shared"]`: C = 1000,
relative gap 1e-2, 5000 passes) runs once per solver, the solvers taking turns, with `max_iter` capped so that the
runs are the same length: CCCP and G-MM random (one walk) from the k-means start with lambda = 0, and CCCP from
lambda = 1 (whose first solve is repeated at tighter tolerances). Printed per trial and solver: CPU seconds of the
process, iterations, objective, accuracy and uncertified solves; then the ratio 'auto' / SOLVER. The two solvers
certify the same bounds to the same gap, so the objectives differ only within the certificate (the paths may part).
"""
import argparse
import os
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-iter", type=int, default=20)
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits
    from latent_mm.experiments.scene import FULL, READINGS, SOLVER, scene_trial
    from latent_mm.theory import format_table

    size = {k: v for k, v in FULL.items() if k not in ("seeds", "prototype_seeds", "runs")}
    trials = [("CCCP", 0.0), ("G-MM random", 0.0), ("CCCP", 1.0)]
    rows = []
    with threadpool_limits(args.blas_threads):
        scene_trial("CCCP", "kmeans", grid=(5, 5), n_pairs=3, n_train=4, n_test=4, n_parts=6, max_iter=2,
                    solver="auto")                                           # compile the kernels first
        for method, lam in trials:
            seconds = {}
            for solver in ("auto", SOLVER):
                start = time.process_time()
                r = scene_trial(method, "kmeans", lam, seed=0, run=0, max_iter=args.max_iter, **size,
                                **dict(READINGS["shared"], solver=solver))
                seconds[solver] = time.process_time() - start
                rows.append(dict(trial=f"{method}, λ={lam:g}", solver=solver, cpu_s=seconds[solver],
                                 iterations=r["n_iter"], objective=r["objective"], accuracy=100 * r["accuracy"],
                                 repeated=r["tightened"], uncertified=r["uncertified"], **{"auto / SOLVER": None}))
            rows[-1]["auto / SOLVER"] = seconds["auto"] / seconds[SOLVER]
    print(format_table(rows, floatfmt="{:.4g}"))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
