"""The sequential dual method's block passes between two oracle rounds (`max_inner`): CPU seconds (best of
`--repeats`, one BLAS thread) and oracle rounds of a certified solve, for 50, 100 and 200 passes, on the toy and
localization bounds of `ssvm.py` (C = 1 to 10^6, relative gap 1e-3) and on digits as the Crammer-Singer SVM
(C = 1 to 10^4, gap 1e-4).

Usage: python benchmarks/sdm_inner.py [--repeats 2] [--values 50,100,200]"""
import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from latent_mm.experiments.localization import initial_latents, make_localization, standardise
from latent_mm.lssvm import LatentMulticlass, toy_localization
from latent_mm.solvers import sdm


def bounds():
    X, y, h = toy_localization(n=60, random_state=0)
    toy = LatentMulticlass(n_classes=3).oracle(X, y, h)
    data = make_localization(n_per_class=20, n_random=100, random_state=0)
    X, y = data["X"][:96], data["y"][:96]
    X, _ = standardise(X, X[:1])
    loc = LatentMulticlass(n_classes=6).oracle(X, y, initial_latents("center", 96, data["grid"]))
    d = load_digits()
    Xd = StandardScaler().fit_transform(d.data)[:, None, :]
    digits = LatentMulticlass(n_classes=10).oracle(Xd, d.target, np.zeros(len(Xd), int))
    return ([("toy n=60, D=15", toy, C, 1e-3) for C in (1.0, 1e2, 1e4, 1e6)]
            + [("localization n=96, D=1086", loc, C, 1e-3) for C in (1.0, 1e2, 1e4, 1e6)]
            + [("digits n=1797, D=640", digits, C, 1e-4) for C in (1.0, 1e2, 1e4)])


def counts(text):
    "Comma-separated integers >= 1."
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = [0]
    if min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be integers >= 1, separated by commas")
    return values


def count(text):
    "An integer >= 1."
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be an integer >= 1")
    return int(text)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=count, default=2, help="an integer >= 1")
    ap.add_argument("--values", type=counts, default=[50, 100, 200], help="max_inner values, comma-separated")
    args = ap.parse_args(argv)
    values = args.values
    warnings.simplefilter("ignore")
    cases = bounds()
    sdm(cases[0][1], 1.0, tol=1e-3)                            # compiled before any timing
    print("| bound | C | " + " | ".join(f"max_inner={v}: s (rounds)" for v in values) + " |")
    print("|---|---|" + "---|" * len(values))
    with threadpool_limits(1):
        for name, bound, C, tol in cases:
            cells = []
            for v in values:
                best = np.inf
                for _ in range(args.repeats):
                    t = time.process_time()
                    res = sdm(bound, 1.0 / C, tol=tol, max_inner=v, random_state=0, warn=False)
                    best = min(best, time.process_time() - t)
                cells.append(f"{best:.3g} ({res.n_passes}{'' if res.converged else ', not certified'})")
            print(f"| {name} | {C:g} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
