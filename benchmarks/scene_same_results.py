"""Does this checkout reproduce the committed scene results? Reruns the quickest committed trials of the scene
experiment (`nbs/experiments/results/scene_full.jsonl`: `scene_trial`, and `scene_first_bound.jsonl`:
`first_bound`) with this checkout, and with git revision REV if given (a temporary worktree), and compares every
number of every result with the record and with REV's.

    python benchmarks/scene_same_results.py [REV] [--max-seconds 60] [--blas-threads 1]

A trial is rerun when its recorded time is below `--max-seconds` (the time it took on the machine that recorded
it). Floats are compared exactly; a result that differs is listed with each differing number and its relative
change. The committed trials ran in worker processes with one BLAS thread each (`latent-mm reproduce scene
--n-jobs 2`); a matrix product with another thread count may sum in another order, so the rerun limits BLAS to
`--blas-threads` threads as well. With REV, the exit status says whether every result is identical to REV's;
without, to the record's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "nbs" / "experiments" / "results"
FILES = {"scene_full.jsonl": "scene_trial", "scene_first_bound.jsonl": "first_bound"}


def chosen(max_seconds) -> list:
    "(file, function, record) of every committed trial recorded as faster than `max_seconds`."
    out = []
    for name, function in FILES.items():
        for line in (RESULTS / name).read_text().splitlines():
            record = json.loads(line)
            if record["seconds"] < max_seconds:
                out.append((name, function, record))
    return out


def record(max_seconds, blas_threads):
    "Rerun the chosen trials with the importable latent_mm: one JSON line each."
    from threadpoolctl import threadpool_limits
    import latent_mm
    import latent_mm.experiments.scene as scene
    warnings.simplefilter("ignore")
    print(json.dumps(dict(module=str(Path(latent_mm.__file__).parent))), flush=True)
    for name, function, rec in chosen(max_seconds):
        start = time.perf_counter()
        with threadpool_limits(blas_threads, user_api="blas"):
            result = getattr(scene, function)(**rec["config"])
        print(json.dumps(dict(file=name, config=rec["config"], result=result, seconds=time.perf_counter() - start)),
              flush=True)


def differences(old, new, path="") -> list:
    "(key, old, new) of every number or value of `old` that `new` does not hold exactly."
    if isinstance(old, dict):
        out = [(f"{path}.{k}".lstrip("."), old[k], "missing") for k in old if k not in new]
        for k in old:
            if k in new:
                out += differences(old[k], new[k], f"{path}.{k}")
        return out
    if isinstance(old, list):
        if not isinstance(new, list) or len(old) != len(new):
            return [(path, f"list of {len(old)}", f"{type(new).__name__} of {len(new)}")]
        return [d for j, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{path}[{j}]")]
    if isinstance(old, float) and isinstance(new, float) and old != old and new != new:
        return []                                                # NaN on both sides
    return [] if old == new and type(old) is type(new) else [(path, old, new)]


def relative(old, new) -> str:
    try:
        return f"{abs(new - old) / max(abs(old), 1e-300):.1e}"
    except TypeError:
        return "-"


def run_under(path, max_seconds, blas_threads) -> list:
    env = dict(os.environ, PYTHONPATH=str(path))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--record", "--max-seconds", str(max_seconds),
                          "--blas-threads", str(blas_threads)], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["module"].startswith(str(path)), f"the wrong latent_mm ran: {lines[0]['module']}"
    return lines[1:]


def report(label, diff, limit=8):
    print(f"    {label}: {'identical' if not diff else f'{len(diff)} number(s) differ'}")
    for key, a, b in diff[:limit]:
        print(f"        {key}: {a!r} -> {b!r} (relative change {relative(a, b)})")


def main(rev, max_seconds, blas_threads):
    here = Path(__file__).resolve().parent.parent
    records = chosen(max_seconds)
    new = run_under(here, max_seconds, blas_threads)
    old = None
    if rev is not None:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "old"
            subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(tree), rev], check=True,
                           capture_output=True)
            try:
                old = run_under(tree, max_seconds, blas_threads)
            finally:
                subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(tree)], check=True)
    same_record = same_rev = 0
    worst, discrete = (0.0, ""), 0                          # against the record: largest float change, other changes
    for k, ((name, _, rec), now) in enumerate(zip(records, new)):
        assert now["config"] == rec["config"]
        what = {key: v for key, v in rec["config"].items() if key in ("method", "init", "lam", "seed", "run", "C", "tol")}
        print(f"{name} {json.dumps(what)}: {now['seconds']:.1f} s (recorded {rec['seconds']:.1f} s)")
        diff = differences(rec["result"], now["result"])
        same_record += not diff
        for key, a, b in diff:
            if isinstance(a, float) and isinstance(b, float):
                worst = max(worst, (abs(b - a) / max(abs(a), 1e-300), f"{key} of {name} {json.dumps(what)}"))
            else:
                discrete += 1
        report("this checkout against the record", diff)
        if old is not None:
            diff = differences(old[k]["result"], now["result"])
            same_rev += not diff
            report(f"this checkout against {rev}", diff)
    print(f"{len(records)} committed trials rerun with BLAS limited to {blas_threads} thread(s): {same_record} identical "
          f"to the record in every number" + (f", {same_rev} identical to {rev}'s" if old is not None else "") + ".")
    print(f"Against the record: {discrete} value(s) other than floats differ; the largest relative change of a float "
          f"is {worst[0]:.1e}" + (f" ({worst[1]})" if worst[1] else "") + ".")
    return same_rev == len(records) if old is not None else same_record == len(records)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", help="a git revision to compare with as well")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="rerun the trials recorded as faster than this (default: 60)")
    parser.add_argument("--blas-threads", type=int, default=1, help="BLAS threads of the rerun (default: 1)")
    parser.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.max_seconds > 0:
        parser.error(f"--max-seconds {args.max_seconds}: must be > 0")
    if args.blas_threads < 1:
        parser.error(f"--blas-threads {args.blas_threads}: at least 1")
    if args.record:
        record(args.max_seconds, args.blas_threads)
    elif args.rev is not None and subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"],
                                                 capture_output=True, cwd=os.path.dirname(os.path.abspath(__file__))
                                                 ).returncode != 0:
        parser.error(f"{args.rev!r} is not a commit of this repository")
    else:
        sys.exit(0 if main(args.rev, args.max_seconds, args.blas_threads) else 1)
