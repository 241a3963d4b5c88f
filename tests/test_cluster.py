"""Trials on a Dask cluster of separate processes (a scheduler and two workers on this machine, as `dask scheduler` and
`dask worker` start them): `latent-mm reproduce NAME --scheduler ADDRESS` and `latent-mm verify --all --scheduler
ADDRESS` run the trials on the workers, resume like a local run, and write the records a local run writes."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from latent_mm import cli                                                        # noqa: E402
from latent_mm.cli import main                                                   # noqa: E402
from latent_mm.sweeps import at_least, experiment, load_results, register_trial, run_trials   # noqa: E402

TRIALS = '''
import os
from pathlib import Path

import numpy as np


def square(seed, scale=1.0):
    "A trial that notes the process that ran it (in CLUSTER_CALLS, which only the workers have)."
    if "CLUSTER_CALLS" in os.environ:
        (Path(os.environ["CLUSTER_CALLS"]) / f"{os.getpid()}-{seed}").touch()
    return dict(value=float(scale * seed ** 2), draws=np.random.default_rng(seed).normal(size=2))
'''


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    "The trial module, the scheduler's address and the folder where the workers note their trials."
    where = tmp_path_factory.mktemp("cluster")
    (where / "cluster_trials.py").write_text(TRIALS)
    calls = where / "calls"
    calls.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(where), os.environ.get("PYTHONPATH")])),
           "CLUSTER_CALLS": str(calls)}
    dask = [sys.executable, "-m", "dask"]
    started = [subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                        "--scheduler-file", str(where / "scheduler.json")],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 120
        while not (where / "scheduler.json").exists():
            assert time.monotonic() < deadline and started[0].poll() is None, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads((where / "scheduler.json").read_text())["address"]
        started += [subprocess.Popen(dask + ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                             "--host", "127.0.0.1", "--memory-limit", "0"],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
        from distributed import Client
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        sys.path.insert(0, str(where))
        import cluster_trials
        register_trial(cluster_trials.square)
        yield cluster_trials, address, calls
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if str(where) in sys.path:
            sys.path.remove(str(where))


def _content(path):
    "The records of a results file, by configuration, without what differs between runs (the time and its digest)."
    return {k: {f: v for f, v in r.items() if f not in ("seconds", "digest")} for k, r in load_results(path).items()}


def test_reproduce_and_verify_on_a_cluster(cluster, tmp_path, monkeypatch, capsys):
    trials, address, calls = cluster

    @experiment("squares", summary="squares", options=dict(seeds=at_least(1)))
    def squares(out: str = "squares", seeds: int = 6, n_jobs: int = 1):
        run_trials(trials.square, [dict(seed=s) for s in range(seeds)], results=Path(out) / "trials.jsonl",
                   n_jobs=n_jobs, progress=False)

    monkeypatch.setattr(cli, "experiments", lambda: {"squares": squares.experiment})
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert main(["reproduce", "squares", "--out", str(local)]) == 0                         # all of it, locally
    assert main(["reproduce", "squares", "--out", str(remote), "--seeds", "2"]) == 0        # a start, locally
    started = (remote / "trials.jsonl").read_text().splitlines()
    assert not list(calls.iterdir())                                                         # nothing ran on workers
    assert main(["reproduce", "squares", "--out", str(remote), "--scheduler", address]) == 0
    assert "trials run on the Dask cluster at " + address in capsys.readouterr().err
    ran = sorted(p.name for p in calls.iterdir())
    assert sorted(name.split("-")[1] for name in ran) == ["2", "3", "4", "5"]                # only the rest, resumed
    assert str(os.getpid()) not in {name.split("-")[0] for name in ran}                      # on the workers
    lines = (remote / "trials.jsonl").read_text().splitlines()
    assert lines[:2] == started and len(lines) == 6
    assert _content(remote / "trials.jsonl") == _content(local / "trials.jsonl")            # a local run's records

    for p in calls.iterdir():
        p.unlink()
    status = main(["verify", "--all", "--scheduler", address, "--dir", str(remote), "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "trials.jsonl: 6 of 6 trials rerun" in out and "all match" in out, out
    assert sorted(p.name.split("-")[1] for p in calls.iterdir()) == [str(s) for s in range(6)]
