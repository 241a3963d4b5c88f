"""Whole fits: one full-size trial of each latent SSVM experiment, run twice in this process, once with the bound
solver that was the default before the sequential dual method and once with today's default, in CPU seconds (one
BLAS thread), and their results compared value by value.

Usage: python benchmarks/fits.py [--only localization,spl-motif,...] [--rtol 1e-3]

Each trial is a committed record of the experiment's full-size results file (its configuration, rerun by its trial
function), the same one for both solvers. "Before" makes 'auto' mean `bcfw_then_cutting_plane` (BCFW, handing over to
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

# experiment: (trial function, results file, the record to rerun: a predicate on its configuration, the solver
# 'auto' meant before)
E = "latent_mm.experiments."
TRIALS = {
    "localization": (E + "localization.localization_trial", "lssvm_localization_full.jsonl",
                     lambda c: c["method"] == "CCCP" and c["init"] == "center" and c["fold"] == 0,
                     solvers.BCFWThenCuttingPlane),
    "spl-motif": (E + "spl_motif.motif_trial", "spl_motif_full.jsonl",
                  lambda c: c["method"] == "SPL" and c["protein"] == "P1" and c["fold"] == 0 and c["seed"] == 0,
                  solvers.BCFWThenCuttingPlane),
    "spl-digits": (E + "spl_digits.digits_trial", "spl_digits_full.jsonl",
                   lambda c: c["method"] == "SPL" and list(c["pair"]) == [1, 7] and c["C"] == 100.0,
                   solvers.BCFWThenCuttingPlane),
    "spl-localization": (E + "spl_localization.spl_localization_trial", "spl_localization_full.jsonl",
                         lambda c: c["method"] == "SPL" and c["fold"] == 0, solvers.BCFWThenCuttingPlane),
    "group-norm-digits": (E + "group_norm_digits.digits_trial", "group_norm_digits.jsonl", lambda c: c.get("seed", 0) == 0, solvers.BCFW),
    "scene": (E + "scene.scene_trial", "scene_full.jsonl", lambda c: c["method"] == "CCCP" and c["init"] == "prototypes" and c["seed"] == 0
              and c.get("lam", 0.0) == 0.0, solvers.BCFWThenCuttingPlane),
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


def record(path, pick):
    for line in open(path):
        r = json.loads(line)
        if pick(r["config"]):
            return r
    raise LookupError(f"{path}: no record matches")


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
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| experiment | trial | before: s | after: s | after / before | objective before | objective after "
          "| values differing (of) |")
    print("|---|---|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for name in args.only.split(","):
            trial, file, pick, before_cls = TRIALS[name]
            r = record(RESULTS / file, pick)
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
