"""Peak memory of k-means fits at n = 200,000, k = 200, d = 2 (three iterations), against scikit-learn, in one run.

Each fit runs in a fresh process, after one small fit that leaves the random walk's compiled kernels in numba's
on-disk cache (a process that compiles them holds about 0.05 GiB more). Two numbers per fit: the process's peak resident set size (data, imports and
the fit), and what the fit adds to the resident size just before it, whether numpy or compiled code (scikit-learn's)
allocated it. Prints both and the ratios of process peaks

  GMMKMeans(bound="touching") / sklearn KMeans     (target <= 2)
  GMMKMeans(bound="random")   / sklearn KMeans     (target <= 3)

    python benchmarks/kmeans_memory.py [--n 200000] [--k 200]
"""
import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, warnings
import numpy as np
n, k, which = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
X = np.random.default_rng(0).normal(size=(n, 2))
init = X[np.random.default_rng(1).choice(n, k, replace=False)]
warnings.simplefilter("ignore")
if which == "sklearn":
    from sklearn.cluster import KMeans
    est = KMeans(k, init=init, n_init=1, max_iter=3, algorithm="lloyd")
else:
    from latent_mm.kmeans import GMMKMeans
    est = GMMKMeans(k, init=init, max_iter=3, eta=0.02 if which == "random" else 1.0, bound=which, random_state=0)
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()
est.fit(X[:2 * k])                       # load every lazily imported module before measuring
before = rss()
est.fit(X)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps([peak - before, peak]))
"""


def peak(n, k, which):
    "(bytes added by one fit, peak bytes of its process), the fit in its own process."
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(k), which], check=True, capture_output=True,
                         text=True, env={"OMP_NUM_THREADS": "1", "PATH": ""})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(n=200_000, k=200):
    peak(2 * k, k, "random")          # compile the walk's kernels into numba's cache first: no measured fit compiles
    runs = {which: peak(n, k, which) for which in ("sklearn", "touching", "random")}
    for which, (added, whole) in runs.items():
        print(f"{which:9s} added by the fit {added / 2**30:.3f} GiB, process peak {whole / 2**30:.3f} GiB")
    for which, target in (("touching", 2), ("random", 3)):
        print(f"{which} / sklearn: process peak {runs[which][1] / runs['sklearn'][1]:.2f} (target <= {target}), "
              f"added by the fit {runs[which][0] / runs['sklearn'][0]:.1f}")
    print(f"one (n, k) float64 array: {n * k * 8 / 2**30:.3f} GiB")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--k", type=int, default=200)
    main(**vars(ap.parse_args()))
