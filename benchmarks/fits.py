"""Whole fits: one full-size trial of each latent SSVM experiment, run twice in this process, once with the bound
solver that was the default before the sequential dual method and once with today's default, in CPU seconds (one
BLAS thread), and their results compared value by value.

Usage: python benchmarks/fits.py [--only localization,spl-motif,...] [--rtol 1e-3] [--which median|slowest]

Each trial is the committed record of median (or, `--which slowest`, largest) recorded time in the experiment's
full-size results file (its configuration, rerun by its trial function), the same one for both solvers. "Before" makes 'auto' mean `bcfw_then_cutting_plane` (BCFW, handing over to
the cutting-plane method), and the group-norm estimator's default mean BCFW, as they were; "after" is today's 'auto',
the sequential dual method for these regularizers. The results are compared with `latent_mm.runner.compare_results`
at a relative tolerance `--rtol`: results that agree within the bound solver's certificate match; a fit whose bound
solutions differ within the certificate can still take other latent values and another path."""
import argparse
import json
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

from threadpoolctl import threadpool_limits

from latent_mm import solvers
from latent_mm.runner import compare_results, import_trial

RESULTS = Path(__file__).resolve().parents[1] / "nbs" / "experiments" / "results"

# experiment: (trial function, results file, the solver 'auto' meant before)
E = "latent_mm.experiments."
TRIALS = {
    "localization": (E + "localization.localization_trial", "lssvm_localization_full.jsonl", solvers.BCFWThenCuttingPlane),
    "spl-motif": (E + "spl_motif.motif_trial", "spl_motif_full.jsonl", solvers.BCFWThenCuttingPlane),
    "spl-digits": (E + "spl_digits.digits_trial", "spl_digits_full.jsonl", solvers.BCFWThenCuttingPlane),
    "spl-localization": (E + "spl_localization.spl_localization_trial", "spl_localization_full.jsonl",
                         solvers.BCFWThenCuttingPlane),
    "group-norm-digits": (E + "group_norm_digits.digits_trial", "group_norm_digits.jsonl", solvers.BCFW),
    "scene": (E + "scene.scene_trial", "scene_full.jsonl", solvers.BCFWThenCuttingPlane),
}


@contextmanager
def auto_is(cls):
    "Within the block, the solver name 'auto' makes a `cls`."
    before = solvers.SOLVERS["auto"]
    solvers.SOLVERS["auto"] = cls
    try:
        yield
    finally:
        solvers.SOLVERS["auto"] = before


def pick_record(path, which="median"):
    "The record of median (a typical trial of the file) or largest recorded seconds."
    records = sorted((json.loads(line) for line in open(path) if line.strip()), key=lambda r: r.get("seconds", 0.0))
    return records[len(records) // 2 if which == "median" else -1]


def cpu(f):
    "f()'s result as JSON values, and its CPU time."
    t = time.process_time()
    out = f()
    t = time.process_time() - t
    return json.loads(json.dumps(out, default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x))), t


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(TRIALS), help="comma-separated experiments")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--which", choices=("median", "slowest"), default="median", help="the record to rerun")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| experiment | trial | before: s | after: s | after / before | objective before | objective after "
          "| values differing (of) |")
    print("|---|---|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for name in args.only.split(","):
            trial, file, before_cls = TRIALS[name]
            r = pick_record(RESULTS / file, args.which)
            func = import_trial(trial)
            with auto_is(before_cls):
                old, t_old = cpu(lambda: func(**r["config"]))
            new, t_new = cpu(lambda: func(**r["config"]))
            n, differ, _ = compare_results(old, new, rtol=args.rtol)
            config = ", ".join(f"{k}={v}" for k, v in r["config"].items() if k in
                               ("method", "init", "fold", "protein", "seed", "pair", "C", "lam"))
            obj = lambda res: f"{res['objective']:.6g}" if isinstance(res.get("objective"), float) else "-"
            print(f"| {name} | {config} | {t_old:.1f} | {t_new:.1f} | {t_new / t_old:.2f} | {obj(old)} | {obj(new)} "
                  f"| {len(differ)} ({n}){': ' + ', '.join(p for p, *_ in differ[:4]) if differ else ''} |",
                  flush=True)


if __name__ == "__main__":
    main()
