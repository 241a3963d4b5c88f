"""Whole fits: one full-size trial of each latent SSVM experiment, run twice in this process, once with the bound
solver that was the default before the sequential dual method and once with today's default, in CPU seconds (one
BLAS thread), and their results compared value by value.

Usage: python benchmarks/fits.py [--only localization,spl-motif,...] [--rtol 1e-3] [--which median|slowest]

Each trial is the committed record of median (or, `--which slowest`, largest) recorded time in the experiment's
full-size results file (its configuration, rerun by its trial function), the same one for both solvers. "Before" is
the experiment's `SOLVER`, the solver of its committed runs (`bcfw+cutting-plane`, BCFW handing over to the
cutting-plane method, or BCFW for the group norm: the defaults before the sequential dual method), and it is checked
against the record (rtol 1e-6); "after" is today's default 'auto', the sequential dual method for these
regularizers. Before and after are compared with `latent_mm.sweeps.compare_results` at a relative tolerance `--rtol`:
a fit whose bound solutions differ within the certificate can take other latent values and another path."""
import argparse
import json
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

from threadpoolctl import threadpool_limits

from latent_mm.cli import experiments as load_experiments
from latent_mm.sweeps import compare_results, registered_trial

RESULTS = Path(__file__).resolve().parents[1] / "nbs" / "experiments" / "results"

# experiment: (trial function, results file)
E = "latent_mm.experiments."
TRIALS = {
    "localization": (E + "localization.localization_trial", "lssvm_localization_full.jsonl"),
    "spl-motif": (E + "spl_motif.motif_trial", "spl_motif_full.jsonl"),
    "spl-digits": (E + "spl_digits.digits_trial", "spl_digits_full.jsonl"),
    "spl-localization": (E + "spl_localization.spl_localization_trial", "spl_localization_full.jsonl"),
    "group-norm-digits": (E + "group_norm_digits.digits_trial", "group_norm_digits.jsonl"),
    "scene": (E + "scene.scene_trial", "scene_full.jsonl"),
}


@contextmanager
def solver_is(module, name):
    "Within the block, the experiment `module` solves its bounds with the solver `name`."
    before = module.SOLVER
    module.SOLVER = name
    try:
        yield
    finally:
        module.SOLVER = before


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


def experiments(text):
    "A comma-separated list of names of `TRIALS`."
    names = text.split(",")
    if not names or any(n not in TRIALS for n in names):
        raise argparse.ArgumentTypeError(f"{text!r} must be names among {', '.join(TRIALS)}, separated by commas")
    return names


def positive(text):
    "A number > 0."
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number > 0")
    return value


def main(argv=None):
    load_experiments()                  # registers the trial functions named below
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", type=experiments, default=list(TRIALS), help="comma-separated experiments")
    ap.add_argument("--rtol", type=positive, default=1e-3)
    ap.add_argument("--which", choices=("median", "slowest"), default="median", help="the record to rerun")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| experiment | trial | before = record | before: s | after: s | after / before | objective before | objective after "
          "| values differing (of) |")
    print("|---|---|---|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for name in args.only:
            trial, file = TRIALS[name]
            r = pick_record(RESULTS / file, args.which)
            func = registered_trial(trial)
            old, t_old = cpu(lambda: func(**r["config"]))
            with solver_is(sys.modules[func.__module__], "auto"):
                new, t_new = cpu(lambda: func(**r["config"]))
            n, differ, _ = compare_results(old, new, rtol=args.rtol)
            same = not compare_results(r["result"], old)[1]
            config = ", ".join(f"{k}={v}" for k, v in r["config"].items() if k in
                               ("method", "init", "fold", "protein", "seed", "pair", "C", "lam"))
            obj = lambda res: f"{res['objective']:.6g}" if isinstance(res.get("objective"), float) else "-"
            print(f"| {name} | {config} | {'yes' if same else 'NO'} | {t_old:.1f} | {t_new:.1f} | {t_new / t_old:.2f} | {obj(old)} | {obj(new)} "
                  f"| {len(differ)} ({n}){': ' + ', '.join(p for p, *_ in differ[:4]) if differ else ''} |",
                  flush=True)


if __name__ == "__main__":
    main()
