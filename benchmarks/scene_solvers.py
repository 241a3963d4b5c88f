"""Which bound solver the scene tables should use, on the same trials, the solvers taking turns.

    python benchmarks/scene_solvers.py [--reading shared|class] [--max-iter 20] [--blas-threads 1]

`--reading shared` (the default): the sequential dual method ('auto') against BCFW handing over to the cutting-plane
method ('bcfw+cutting-plane', `latent_mm.experiments.scene.SOLVER`) under the shared reading's protocol
(`READINGS["shared"]`: C = 1000, relative gap 1e-2, 5000 passes) on CCCP and G-MM random (one walk) from the k-means
start with lambda = 0, and CCCP from lambda = 1 (whose first solve is repeated at tighter tolerances).

`--reading class`: the sequential dual method with the class reading's options (`READINGS["class"]`: no
conjugate-gradient steps, planes without weight dropped after one oracle round) against its default options, under
that reading's protocol (C = 100, relative gap 1e-3), on CCCP from the k-means start with lambda = 0 and on G-MM
biased and G-MM random (one walk) from random start 0.

Each trial of the scene experiment's full size (`FULL`) runs once per solver with `max_iter` capped so that the runs
are the same length. Printed per trial and solver: CPU seconds of the process, iterations, objective, accuracy,
repeated first solves and uncertified solves; then the ratio of the first solver's time to the second's. Both
solvers certify the same bounds to the same gap, so the objectives differ only within the certificate (the paths
may part).
"""
import argparse
import os
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reading", choices=("shared", "class"), default="shared")
    ap.add_argument("--max-iter", type=int, default=20)
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits
    from latent_mm.experiments.scene import FULL, READINGS, SOLVER, scene_trial
    from latent_mm.report import format_table

    size = {k: v for k, v in FULL.items() if k not in ("seeds", "prototype_seeds", "runs")}
    protocol = READINGS[args.reading]
    if args.reading == "shared":
        trials = [("CCCP", "kmeans", 0.0), ("G-MM random", "kmeans", 0.0), ("CCCP", "kmeans", 1.0)]
        solvers = {"auto": dict(solver="auto"), SOLVER: dict(solver=SOLVER)}
    else:
        trials = [("CCCP", "kmeans", 0.0), ("G-MM biased", "random", 0.0), ("G-MM random", "random", 0.0)]
        options = protocol["solver_options"]
        solvers = {"sdm, " + ", ".join(f"{k}={v}" for k, v in options.items()): dict(solver="sdm"),
                   "sdm, default options": dict(solver="sdm", solver_options=None)}
    first, second = solvers
    ratio = "auto / SOLVER" if args.reading == "shared" else "options / default"
    rows = []
    with threadpool_limits(args.blas_threads):
        scene_trial("CCCP", "kmeans", grid=(5, 5), n_pairs=3, n_train=4, n_test=4, n_parts=6, max_iter=2,
                    solver="sdm")                                            # compile the kernels first
        for method, init, lam in trials:
            seconds = {}
            for name, solver in solvers.items():
                start = time.process_time()
                r = scene_trial(method, init, lam, seed=0, run=0, max_iter=args.max_iter, **size,
                                **dict(protocol, **solver))
                seconds[name] = time.process_time() - start
                rows.append(dict(trial=f"{method}, {init if init == 'random' else f'λ={lam:g}'}", solver=name,
                                 cpu_s=seconds[name], iterations=r["n_iter"], objective=r["objective"],
                                 accuracy=100 * r["accuracy"], repeated=r["tightened"],
                                 uncertified=r["uncertified"], **{ratio: None}))
            rows[-1][ratio] = seconds[first] / seconds[second]
    print(format_table(rows, floatfmt="{:.4g}"))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
