"""Run time of every experiment at its command-line defaults, against the estimate `latent-mm` announces.

Each experiment runs as a new user runs it, `latent-mm reproduce NAME --out FOLDER` in a fresh folder (nothing to
resume), one at a time. Printed per experiment: the announced estimate (`Experiment.seconds`), the wall time, the
CPU time of the command and of its worker processes, the load average before and after, and the ratios of the
announced estimate to the wall time and to CPU time / 2 (what two idle cores would take when both are busy
throughout). On a shared machine the wall time grows with other jobs' load; the CPU time mostly does not.

    python benchmarks/run_times.py [NAME ...] [--json FILE]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from latent_mm.cli import experiments


def children_cpu() -> float:
    "CPU seconds (user + system) of every finished and waited-for descendant so far."
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(name: str, folder: Path) -> dict:
    "Run experiment `name` at its defaults with results in `folder`; its wall and CPU seconds and the load."
    load0, cpu0, start = os.getloadavg()[0], children_cpu(), time.perf_counter()
    run = subprocess.run([sys.executable, "-c", "import sys; from latent_mm.cli import main; sys.exit(main())", "reproduce", name, "--out", str(folder)],
                         capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"})
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu0
    if run.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{run.stderr[-3000:]}")
    return dict(name=name, wall=round(wall, 1), cpu=round(cpu, 1), load_before=load0, load_after=os.getloadavg()[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="experiments to run (default: all, shortest announced first)")
    parser.add_argument("--json", help="also append each measurement to this JSON-lines file")
    args = parser.parse_args(argv)
    found = experiments()
    names = args.names or sorted(found, key=lambda n: found[n].seconds)
    print(f"{'experiment':22s} {'announced':>9s} {'wall':>8s} {'cpu/2':>8s} {'ann/wall':>8s} {'ann/(cpu/2)':>11s}  load")
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            m = measure(name, Path(tmp) / name)
        m["announced"] = found[name].seconds
        print(f"{name:22s} {m['announced']:9.0f} {m['wall']:8.1f} {m['cpu'] / 2:8.1f} {m['announced'] / m['wall']:8.2f} "
              f"{m['announced'] / (m['cpu'] / 2):11.2f}  {m['load_before']:.1f} -> {m['load_after']:.1f}", flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(m) + "\n")


if __name__ == "__main__":
    main()
