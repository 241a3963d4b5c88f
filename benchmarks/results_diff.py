"""A committed results file against its version at git revision REV, trial by trial: after a rerun meant to change
only speed, which result fields moved, and how the trial time changed.

    python benchmarks/results_diff.py REV NAME [NAME ...] [--dir nbs/experiments/results]

Trials are matched by their configuration. Printed per file: trials in each version and in both, every result field
that differs (with both values; floats compared bit for bit), and the sum of the records' `seconds` in each version.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path


def by_config(lines) -> dict:
    "Records keyed by their configuration."
    out = {}
    for line in lines:
        if line.strip():
            r = json.loads(line)
            out[json.dumps(r["config"], sort_keys=True)] = r
    return out


def same(a, b) -> bool:
    "Equal, NaN equal to NaN, containers compared element by element."
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def main(rev, names, folder):
    root = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                               check=True).stdout.strip())
    for name in names:
        path = (Path(folder) / f"{name}.jsonl").resolve()
        if not path.is_file():
            sys.exit(f"results_diff.py: NAME={name!r}: {path} does not exist (a results file without .jsonl, "
                     "e.g. scene_class)")
        rel = path.relative_to(root).as_posix()
        shown = subprocess.run(["git", "show", f"{rev}:{rel}"], capture_output=True, text=True, cwd=root)
        if shown.returncode != 0:
            sys.exit(f"results_diff.py: REV={rev!r}: git cannot show {rel} there: {shown.stderr.strip()}")
        old = by_config(shown.stdout.splitlines())
        new = by_config(path.read_text().splitlines())
        both = sorted(set(old) & set(new))
        moved = [(json.loads(k), f, old[k]["result"][f], new[k]["result"].get(f))
                 for k in both for f in old[k]["result"]
                 if f not in new[k]["result"] or not same(old[k]["result"][f], new[k]["result"][f])]
        added = sorted({f for k in both for f in new[k]["result"]} - {f for k in both for f in old[k]["result"]})
        t_old, t_new = (sum(d[k]["seconds"] for k in both) / 60 for d in (old, new))
        print(f"{name}: {len(old)} trials at {rev}, {len(new)} now, {len(both)} in both")
        print(f"  result fields that differ: {len(moved)} (of {sum(len(old[k]['result']) for k in both)})"
              + (f"; fields only now: {', '.join(added)}" if added else ""))
        for config, field, a, b in moved[:20]:
            short = {k: config[k] for k in ("method", "init", "lam", "seed", "run", "fold", "protein") if k in config}
            print(f"    {short} {field}: {a!r} -> {b!r}")
        print(f"  trial time of the common trials: {t_old:.1f} -> {t_new:.1f} minutes ({t_new / t_old:.3f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="a git revision, e.g. HEAD")
    parser.add_argument("names", nargs="+", help="results files without .jsonl, e.g. scene_class")
    parser.add_argument("--dir", default="nbs/experiments/results", help="their folder")
    args = parser.parse_args()
    main(args.rev, args.names, args.dir)
