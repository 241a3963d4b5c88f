"""Peak memory and time of MI-SVM fits on the shipped MIL benchmarks, against the size of their instance matrices.

Each fit runs in a fresh child process (one BLAS thread): load the data, fit once on a tenth of the bags (the compiled
kernels loaded, not counted), reset the peak (`/proc/self/clear_refs`), then fit on all bags and report the peak
resident set above the resident set just before the fit (`VmHWM - VmRSS`, kB from `/proc/self/status`). The fits are
`LatentSSVM(MultipleInstance())` (CCCP), G-MM random (`bound="random", eta=0.1`) and `SelfPacedSSVM(MultipleInstance())`
at C = 1, eps = 1e-3, tol = 1e-3, on the bags as a list (stored as `Bags`, never padded), every feature standardised
over all instances as the MIL page does. Printed beside: the instance
matrix (all rows, float64) and the 3-D array a padded fit would need (n bags x the largest bag x d, float64).

    python benchmarks/mil_memory.py [--data musk1,musk2] [--fits cccp,gmm,spl]
"""
import argparse
import json
import subprocess
import sys
import time

from sdm_scale import rss          # a /proc/self/status field in kB (this folder's scripts share it)


def fitter(which):
    from latent_mm.lssvm import LatentSSVM, MultipleInstance, SelfPacedSSVM
    kw = dict(C=1.0, tol=1e-3, random_state=0)
    if which == "cccp":
        return LatentSSVM(MultipleInstance(), eps=1e-3, **kw)
    if which == "gmm":
        return LatentSSVM(MultipleInstance(), eps=1e-3, bound="random", eta=0.1, **kw)
    if which == "spl":
        return SelfPacedSSVM(MultipleInstance(), min_decrease=1e-3, **kw)
    raise ValueError(f"fit {which!r} must be cccp, gmm or spl")


def child(spec):
    "In a fresh process: load, warm up on a tenth of the bags, reset the peak, fit all bags; print peak and time."
    import warnings
    from threadpoolctl import threadpool_limits
    from latent_mm.datasets import load_mil
    a = json.loads(spec)
    import numpy as np
    bags, y = load_mil(a["data"])
    rows = np.concatenate(bags)
    mu, sd = rows.mean(0), rows.std(0) + 1e-12
    bags = [(b - mu) / sd for b in bags]                    # standardised features, as the MIL page fits them
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        fitter(a["fit"]).fit(bags[::10], y[::10])
        est = fitter(a["fit"])
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = rss("VmRSS")
        start = time.process_time()
        est.fit(bags, y)
        seconds = time.process_time() - start
        print(json.dumps(dict(peak_mb=(rss("VmHWM") - before) / 1024, seconds=seconds, n_iter=int(est.n_iter_))))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="musk1,musk2")
    ap.add_argument("--fits", default="cccp,gmm,spl")
    ap.add_argument("--child", default="")
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child)
    from latent_mm.datasets import MIL_DATASETS, load_mil
    bad = [d for d in args.data.split(",") if d not in MIL_DATASETS] + \
          [f for f in args.fits.split(",") if f not in ("cccp", "gmm", "spl")]
    if bad:
        ap.error(f"{bad[0]!r} is neither a shipped MIL data set ({', '.join(MIL_DATASETS)}) nor a fit (cccp, gmm, spl)")
    print("| data | bags | instances x d | instance matrix (MB) | padded 3-D array (MB) | fit | CPU s | iterations | "
          "peak above the data (MB) | peak / instance matrix |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for data in args.data.split(","):
        bags, y = load_mil(data)
        N, d = sum(len(b) for b in bags), bags[0].shape[1]
        matrix, padded = N * d * 8 / 2**20, len(bags) * max(len(b) for b in bags) * d * 8 / 2**20
        for fit in args.fits.split(","):
            spec = json.dumps(dict(data=data, fit=fit))
            out = subprocess.run([sys.executable, __file__, "--child", spec], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"| {data} | {len(bags)} | {N} x {d} | {matrix:.1f} | {padded:.1f} | {fit} | {r['seconds']:.2f} | "
                  f"{r['n_iter']} | {r['peak_mb']:.1f} | {r['peak_mb'] / matrix:.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
