"""Run time of every experiment at its command-line defaults, as a new user's first run meets it; `--write` stores it
as the estimate `latent-mm` announces.

Each experiment runs as a new user runs it, `latent-mm reproduce NAME --out FOLDER` in a fresh folder (nothing to
resume), one at a time, twice: first with an empty numba cache (`NUMBA_CACHE_DIR` a fresh folder), so that it
compiles the kernels it needs as after a fresh install, then again in another fresh folder with the cache that run
filled. The second run's wall time is the run time; the first run's extra time is the compilation a new user waits
for once. Printed per experiment: the announced estimate, both wall times, the compilation, the CPU time of the
commands and of their worker processes, the load average before and after, and the ratio of the announced estimate
to the measured run time. On a shared machine the wall times grow with other jobs' load.

`--write` merges the measurements into the package's `latent_mm/data/run_times.json` (name -> seconds, compile_seconds,
first_run_seconds, cpu_seconds, load, date), which `latent-mm list` reads; the experiments' code does not
hold its run time, so writing it changes no code fingerprint.

    python benchmarks/run_times.py [NAME ...] [--json FILE] [--write]
"""
import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from latent_mm.cli import experiments
from latent_mm.sweeps.experiment import RUN_TIMES


def children_cpu() -> float:
    "CPU seconds (user + system) of every finished and waited-for descendant so far."
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(name: str, folder: Path, cache: Path) -> float:
    "Wall seconds of `latent-mm reproduce name --out folder` with numba's cache in `cache`."
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "import sys; from latent_mm.cli import main; sys.exit(main())",
                           "reproduce", name, "--out", str(folder)], capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "Agg", "NUMBA_CACHE_DIR": str(cache)})
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def measure(name: str, tmp: Path) -> dict:
    "Run experiment `name` at its defaults from an empty numba cache, then again from the filled one; times and load."
    load0, cpu0 = os.getloadavg()[0], children_cpu()
    first = run(name, tmp / "first", tmp / "numba-cache")
    wall = run(name, tmp / "second", tmp / "numba-cache")
    return dict(name=name, first=round(first, 1), wall=round(wall, 1), compile=round(max(first - wall, 0.0), 1),
                cpu=round(children_cpu() - cpu0, 1), load_before=load0, load_after=os.getloadavg()[0])


def write(measured: list) -> Path:
    "Merge the measurements into the package's run-time file; return its path."
    path = Path(__file__).resolve().parents[1] / "latent_mm" / "data" / RUN_TIMES
    data = json.loads(path.read_text()) if path.is_file() else {}
    for m in measured:
        data[m["name"]] = dict(seconds=m["wall"], compile_seconds=m["compile"], first_run_seconds=m["first"],
                               cpu_seconds=m["cpu"], load=round(max(m["load_before"], m["load_after"]), 1),
                               measured=datetime.date.today().isoformat())
    path.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="experiments to run (default: all, shortest announced first)")
    parser.add_argument("--json", help="also append each measurement to this JSON-lines file")
    parser.add_argument("--write", action="store_true", help="merge the measurements into latent_mm/data/run_times.json")
    args = parser.parse_args(argv)
    found = experiments()
    unknown = [n for n in args.names if n not in found]
    if unknown:
        parser.error(f"unknown experiments {unknown}; registered: {', '.join(found)}")
    names = args.names or sorted(found, key=lambda n: found[n].seconds or 0.0)
    print(f"{'experiment':22s} {'announced':>9s} {'first':>8s} {'wall':>8s} {'compile':>8s} {'cpu':>8s} {'ann/wall':>8s}  load")
    measured = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            m = measure(name, Path(tmp))
        announced = found[name].seconds or float("nan")
        print(f"{name:22s} {announced:9.0f} {m['first']:8.1f} {m['wall']:8.1f} {m['compile']:8.1f} {m['cpu']:8.1f} "
              f"{announced / m['wall']:8.2f}  {m['load_before']:.1f} -> {m['load_after']:.1f}",
              flush=True)
        measured.append(m)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(m) + "\n")
        if args.write:
            write([m])
    if args.write:
        print(f"wrote {len(measured)} run times to latent_mm/data/{RUN_TIMES}")


if __name__ == "__main__":
    main()
