"""The trial runner on a local Dask cluster (loopback), and resuming after an interruption."""
import json

import numpy as np
import pytest

from latent_mm.sweeps import (ResultsFile, StaleResultsError, code_fingerprint, load_results, record_digest, run_trials,
                              verify_results)


def square(seed, scale=1.0):
    return dict(value=float(scale * seed ** 2), draws=np.random.default_rng(seed).normal(size=2))


def test_dask_backend_matches_serial(tmp_path):
    distributed = pytest.importorskip("distributed")
    configs = [dict(seed=s) for s in range(6)]
    serial = run_trials(square, configs, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0",
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


def test_complete_last_record_without_newline_is_kept(tmp_path):
    calls, path = tmp_path / "calls.txt", tmp_path / "r.jsonl"
    configs = [dict(seed=s, calls=str(calls)) for s in range(4)]
    run_trials(counting, configs[:2], results=path, progress=False)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))          # a record written by a tool that ends no line
    rows = run_trials(counting, configs, results=path, progress=False)
    assert calls.read_text().split() == ["0", "1", "2", "3"]     # nothing ran twice
    assert [r["value"] for r in rows] == [0, 1, 4, 9]
    assert sorted(r["config"]["seed"] for r in load_results(path).values()) == [0, 1, 2, 3]
    assert len(path.read_text().splitlines()) == 4


SHARED_SWEEP = """
import os, sys, time
from pathlib import Path
from latent_mm.sweeps import run_trials

folder = Path(sys.argv[1])
def slow(seed):
    with open(folder / "calls.txt", "a") as f:
        f.write(f"{seed}\\n")
    time.sleep(0.15)
    return dict(value=seed ** 2, sweep=os.environ["SWEEP_PROCESS"])

os.environ["SWEEP_PROCESS"] = str(os.getpid())      # inherited by the worker processes
(folder / f"ready-{os.getpid()}").touch()                   # start together: wait for the other process
while len(list(folder.glob("ready-*"))) < 2:
    time.sleep(0.01)
rows = run_trials(slow, [dict(seed=s) for s in range(12)], results=folder / "r.jsonl", n_jobs=int(sys.argv[2]),
                  progress=False)
print(sorted(r["value"] for r in rows))
"""


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_two_processes_share_one_results_file(tmp_path, n_jobs):
    import subprocess
    import sys
    script = tmp_path / "sweep.py"
    script.write_text(SHARED_SWEEP)
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path), str(n_jobs)], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    expected = str([s ** 2 for s in range(12)])
    assert [o.strip() for o in outs] == [expected, expected]      # each process returns the whole sweep
    calls = (tmp_path / "calls.txt").read_text().split()
    assert sorted(map(int, calls)) == list(range(12))              # every trial ran once
    records = load_results(tmp_path / "r.jsonl")
    assert len(records) == 12 and len((tmp_path / "r.jsonl").read_text().splitlines()) == 12
    assert len({r["result"]["sweep"] for r in records.values()}) == 2   # both processes did some of the work
    assert not list(tmp_path.glob(".r.jsonl.*.claim"))              # claim files go with their trials


def test_multiprocessing_backend(tmp_path):
    configs = [dict(seed=s) for s in range(5)]
    rows = run_trials(square, configs, results=tmp_path / "r.jsonl", n_jobs=2, backend="multiprocessing",
                      progress=False)
    assert rows == run_trials(square, configs, progress=False)
    assert len(load_results(tmp_path / "r.jsonl")) == 5


@pytest.mark.parametrize("bad, says", [(b'{"seed": 2, "value": 4}', "line 2: a record must be a JSON object"),
                                       (b'{"config": {"seed": 2}, "result": "\xff"}', "line 2: not UTF-8"),
                                       (b'{"config": {"seed": 2}, "result"', "line 2: not valid JSON")])
def test_a_bad_line_is_named(tmp_path, bad, says):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in (0, 1)], results=path, progress=False)
    first, second = path.read_bytes().splitlines()
    path.write_bytes(first + b"\n" + bad + b"\n" + second + b"\n")
    for load in (lambda: load_results(path), lambda: run_trials(square, [dict(seed=0)], results=path, progress=False)):
        with pytest.raises(ValueError, match=f"r.jsonl, {says}"):
            load()


@pytest.mark.parametrize("n_jobs", [0, 1.5, True])
def test_n_jobs_is_checked(n_jobs):
    with pytest.raises(ValueError, match=f"n_jobs={n_jobs!r} must be a nonzero integer"):
        run_trials(square, [dict(seed=0)], n_jobs=n_jobs)


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path, records):
    "Write records as another version of the code would have: each with a digest of what it holds."
    path.write_text("".join(json.dumps({**r, "digest": record_digest({k: v for k, v in r.items() if k != "digest"})})
                            + "\n" for r in records))


def test_records_carry_provenance_and_a_digest(tmp_path):
    run_trials(square, [dict(seed=2)], results=tmp_path / "r.jsonl", progress=False)
    (record,) = _records(tmp_path / "r.jsonl")
    assert record["trial"] == f"{square.__module__}.square"
    assert record["resolved"] == dict(seed=2, scale=1.0)            # the default the configuration left out
    assert record["fingerprint"] == code_fingerprint(square)
    assert record["digest"] == record_digest(record)


def test_a_hand_edited_record_is_refused_with_its_line(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"value": 1.0', '"value": 1.5')
    path.write_text("\n".join(lines) + "\n")
    for load in (lambda: load_results(path), lambda: run_trials(square, [dict(seed=0)], results=path, progress=False)):
        with pytest.raises(ValueError, match="r.jsonl, line 2: the record does not match its digest"):
            load()


def test_stale_records_stop_the_sweep_or_rerun(tmp_path, monkeypatch):
    calls, path = tmp_path / "calls.txt", tmp_path / "r.jsonl"
    configs = [dict(seed=s, calls=str(calls)) for s in range(3)]
    run_trials(counting, configs, results=path, progress=False)
    _write(path, [{**r, "fingerprint": "0.0.0+older"} for r in _records(path)])    # computed by other code
    with pytest.raises(StaleResultsError) as stop:
        run_trials(counting, configs, results=path, progress=False)
    message = str(stop.value)
    assert message.startswith(f"{path}: 3 of this sweep's 3 stored trials do not stand for today's code (line 1: "
                              "it was computed by code 0.0.0+older") and "\n" not in message
    assert calls.read_text().split() == ["0", "1", "2"]                 # nothing ran
    monkeypatch.setenv("LATENT_MM_STALE", "rerun")
    assert [r["value"] for r in run_trials(counting, configs, results=path, progress=False)] == [0, 1, 4]
    assert calls.read_text().split() == ["0", "1", "2"] * 2
    assert [r["fingerprint"] for r in _records(path)] == [code_fingerprint(counting)] * 3   # replaced, not added


def test_a_changed_default_makes_a_record_stale(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=1)], results=path, progress=False)
    (record,) = _records(path)
    _write(path, [{**record, "resolved": {**record["resolved"], "scale": 2.0}}])
    with pytest.raises(StaleResultsError, match="its configuration resolved scale to 2.0, today's code to 1.0"):
        run_trials(square, [dict(seed=1)], results=path, progress=False)


def test_a_rewrite_is_seen_by_a_file_opened_before_it(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    before, rewriter = ResultsFile(path), ResultsFile(path)
    rewriter.rewrite(lambda records: records[1:])                      # drops the trial of seed 0
    seven = {k: v for k, v in _records(path)[0].items() if k != "digest"} | dict(config=dict(seed=7))
    before.append(seven | dict(digest=record_digest(seven)))           # appends to the new file, not the replaced one
    assert sorted(r["config"]["seed"] for r in before.done.values()) == [1, 2, 7]
    assert sorted(r["config"]["seed"] for r in load_results(path).values()) == [1, 2, 7]


def test_verify_restamps_a_file_only_when_its_trials_reproduce(tmp_path):
    legacy = tmp_path / "legacy.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=tmp_path / "r.jsonl", progress=False)
    records = _records(tmp_path / "r.jsonl")
    legacy.write_text("".join(json.dumps({k: r[k] for k in ("config", "result", "seconds")}) + "\n" for r in records))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(legacy.read_text().replace('"value": 4.0', '"value": 5.0'))
    check = verify_results(wrong, sample=3, trial=square, restamp=True)
    assert not check.ok and not check.stamped and sorted(r["differ"] for r in check.rows) == [0, 0, 1]
    assert all("fingerprint" not in r for r in _records(wrong))
    check = verify_results(legacy, trial=square, restamp=True)
    assert check.ok and check.stamped and check.current == 3
    stamped = _records(legacy)
    assert {(r["fingerprint"], r["computed_by"], r["verified"]["of"]) for r in stamped} == {
        (code_fingerprint(square), None, 3)}
    assert run_trials(square, [dict(seed=s) for s in range(3)], results=legacy, progress=False)   # reused, not stale
