"""The scene model's batched oracle, compiled, against the numpy one it replaced, on the same images and weights.

    python benchmarks/rbow_batch_oracle.py [--repeats 200] [--threads 1]

`RBoWBound.loss_augmented_batch` is the sequential dual method's oracle: one call per oracle round, every training
image at once. It now runs one matrix product (the part filters' responses) and one compiled pass
(`latent_mm.scene._kernels.rbow_oracle`: the classes' scores, the parts, the joint features as CSR rows). `numpy_batch`
below is the numpy version it replaced, kept here as the peer: elementwise maxima over the parts, a sum over the
regions, a sparse-dense product for the filter sums, dense rows handed to the solver's compiled dense-to-CSR scan.

For each reading of the model with one region-to-part score per class and part (`READINGS["shared"]` and
`READINGS["class"]`, the two the numpy version served) at the scene experiment's full size (`FULL`: 60 training
images, 10 x 10 regions, 8 parts, 6 classes), with w random and with w after three CCCP iterations, both oracles run
alternately; printed: CPU microseconds per call (median of `--repeats` rounds), the ratio, and whether the two
give the same CSR rows and losses bit for bit.
"""
import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from latent_mm.solvers._sdm_kernels import dense_to_csr
from latent_mm.experiments.scene import FULL, READINGS, scene_trial
from latent_mm.lssvm import LatentSSVM
from latent_mm.scene import RBoWModel, initial_parts, toy_scenes


def numpy_batch(bound, w, idx):
    "The numpy batched oracle (dense rows) that `RBoWBound.loss_augmented_batch` replaced, then the dense-to-CSR scan."
    model = bound.model
    X, y, m = bound.X[idx], bound.y[idx], len(idx)
    P, K, V, d, S = model.n_parts, model.n_classes, bound.n_regions, bound.d, model.n_filter_sets
    A, U = model.part_scores(X, w)
    u = U[:, 0]                                                  # (K, P): one score per class and part
    M = A[..., 0] + u[:, 0]
    for p in range(1, A.shape[-1]):
        np.maximum(M, A[..., p] + u[:, p], out=M)
    y_hat = (M.sum(1) / A.shape[1] + (np.arange(K) != y[:, None])).argmax(1)
    parts = model.class_part_scores(A, U, y_hat).argmax(-1)
    key = (np.arange(m)[:, None] * P + parts).ravel()
    scatter = sp.csc_matrix((np.ones(m * V), key, np.arange(m * V + 1)), shape=(m * P, m * V))
    Phi = np.zeros((m, bound.n_features))
    f = S * P * d
    Phi[:, :f].reshape(m, S, P * d)[np.arange(m), model.filter_set(y_hat)] = (
        (scatter @ X.reshape(-1, d)).reshape(m, P * d) / V)
    Phi[:, f:].reshape(m, K, P)[np.arange(m), y_hat] = np.bincount(key, minlength=m * P).reshape(m, P) / V
    indptr, indices, data = dense_to_csr(Phi)
    return sp.csr_matrix((data, indices, indptr), shape=Phi.shape), (y_hat != y).astype(float)


def same(a, b) -> bool:
    "The same CSR rows (structure and values, bit for bit) and the same losses."
    (A, La), (B, Lb) = a, b
    return (np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)
            and np.array_equal(A.data, B.data) and np.array_equal(La, Lb))


def main(repeats, threads):
    data = toy_scenes(FULL["n_train"] + FULL["n_test"], n_pairs=FULL["n_pairs"], grid=FULL["grid"],
                      separation=FULL["separation"], context=FULL["context"], random_state=0)
    train = np.isin(np.arange(len(data["y"])),
                    np.concatenate([np.flatnonzero(data["y"] == k)[:FULL["n_train"]] for k in np.unique(data["y"])]))
    X, y = data["X"][train], data["y"][train]
    z = initial_parts(X, FULL["n_parts"], FULL["grid"], "kmeans", 0.0, random_state=0)
    idx = np.arange(len(X))
    scene_trial("CCCP", "kmeans", grid=(5, 5), n_pairs=3, n_train=4, n_test=4, n_parts=6, max_iter=2,
                solver="sdm")                                              # compile the kernels first
    print(f"scene stand-in at full size: {len(X)} training images, {FULL['grid'][0]} x {FULL['grid'][1]} regions, "
          f"{FULL['n_parts']} parts, {len(data['classes'])} classes; BLAS threads {threads}; median of {repeats}")
    print("| reading | w | compiled us | numpy us | numpy / compiled | same rows and losses |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(threads, user_api="blas"):
        for reading in ("shared", "class"):
            protocol = READINGS[reading]
            model = RBoWModel(FULL["n_parts"], len(data["classes"]), FULL["grid"], filters=protocol["filters"])
            bound = model.oracle(X, y, z)
            trained = LatentSSVM(model, C=protocol["C"], max_iter=3, solver="sdm", random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")                         # three iterations: not converged, by design
                trained.fit(X, y, h0=z)
            for name, w in (("random", np.random.default_rng(0).normal(scale=0.1, size=bound.n_features)),
                            ("3 CCCP iterations", trained.coef_)):
                oracles = {"compiled": bound.loss_augmented_batch, "numpy": lambda w, i: numpy_batch(bound, w, i)}
                times = {k: [] for k in oracles}
                for _ in range(repeats):                                 # the two take turns
                    for key, f in oracles.items():
                        start = time.process_time()
                        f(w, idx)
                        times[key].append(time.process_time() - start)
                fast, slow = (float(np.median(times[k])) for k in ("compiled", "numpy"))
                ok = same(bound.loss_augmented_batch(w, idx), numpy_batch(bound, w, idx))
                print(f"| {reading} | {name} | {fast * 1e6:.0f} | {slow * 1e6:.0f} | {slow / fast:.2f} | {ok} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed rounds (default: 200)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default: 1)")
    args = parser.parse_args()
    if args.repeats < 1 or args.threads < 1:
        parser.error("--repeats and --threads must be at least 1")
    main(args.repeats, args.threads)
