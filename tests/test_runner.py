"""The trial runner on a local Dask cluster (loopback), and resuming after an interruption."""
import json

import numpy as np
import pytest

from latent_mm.runner import load_results, run_trials


def square(seed, scale=1.0):
    return dict(value=float(scale * seed ** 2), draws=np.random.default_rng(seed).normal(size=2))


def test_dask_backend_matches_serial(tmp_path):
    distributed = pytest.importorskip("distributed")
    configs = [dict(seed=s) for s in range(6)]
    serial = run_trials(square, configs, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as cluster, distributed.Client(cluster):
        on_dask = run_trials(square, configs, results=tmp_path / "r.jsonl", n_jobs=2, backend="dask", progress=False)
    assert on_dask == serial
    assert len(load_results(tmp_path / "r.jsonl")) == 6


def test_resume_never_recomputes(tmp_path):
    calls = tmp_path / "calls.txt"
    configs = [dict(seed=s, calls=str(calls)) for s in range(5)]
    run_trials(counting, configs[:3], results=tmp_path / "r.jsonl", progress=False)
    rows = run_trials(counting, configs, results=tmp_path / "r.jsonl", progress=False)
    assert calls.read_text().split() == ["0", "1", "2", "3", "4"]
    assert [r["value"] for r in rows] == [0, 1, 4, 9, 16]
    assert all(json.loads(line)["seconds"] >= 0 for line in (tmp_path / "r.jsonl").read_text().splitlines())


def counting(seed, calls):
    with open(calls, "a") as f:
        f.write(f"{seed}\n")
    return dict(value=seed ** 2)
