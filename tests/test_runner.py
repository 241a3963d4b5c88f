"""The trial runner: a local Dask cluster (loopback), resuming after an interruption, and results files that hold one signed
record per trial, refused in one line (file and line) when they do not."""
import json

import numpy as np
import pytest

from latent_mm.sweeps import (OLDER_KEYS, ResultsFile, ResultsFileError, StaleResultsError, code_fingerprint,
                              load_results, migrate_results, record_digest, run_trials, sample_trials)


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


def _signed(record, **changes):
    "`record` with `changes`, signed again (as the code that wrote it would have)."
    new = {k: v for k, v in record.items() if k != "digest"} | changes
    return new | dict(digest=record_digest(new))


def _loads(path):
    "Every way the runner reads a results file."
    return [lambda: load_results(path), lambda: run_trials(square, [dict(seed=0)], results=path, progress=False),
            lambda: ResultsFile(path)]


def test_a_record_without_its_digest_is_refused_with_its_line(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    records = _records(path)
    unsigned = {k: v for k, v in records[1].items() if k != "digest"}
    path.write_text("".join(json.dumps(r) + "\n" for r in [records[0], unsigned, records[2]]))
    for load in _loads(path):
        with pytest.raises(ResultsFileError, match=r"r.jsonl, line 2: the record has no digest") as refused:
            load()
        assert "\n" not in str(refused.value)


def test_an_edited_value_whose_digest_was_removed_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    records = _records(path)
    edited = {k: v for k, v in records[2].items() if k != "digest"} | dict(result={**records[2]["result"], "value": 5.0})
    path.write_text("".join(json.dumps(r) + "\n" for r in records[:2] + [edited]))
    for load in _loads(path):
        with pytest.raises(ResultsFileError, match=r"r.jsonl, line 3: the record has no digest"):
            load()


def test_two_records_of_one_configuration_are_refused_naming_both_lines(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    records = _records(path)
    again = _signed(records[0], seconds=records[0]["seconds"] + 1, result={**records[0]["result"], "value": 7.0})
    path.write_text("".join(json.dumps(r) + "\n" for r in records + [again]))
    for load in _loads(path):
        with pytest.raises(ResultsFileError, match=r'r.jsonl, lines 1 and 4: two records of one configuration, '
                                                   r'\{"seed": 0\}') as refused:
            load()
        assert "\n" not in str(refused.value)


def test_no_sweep_writes_a_second_record_of_a_configuration(tmp_path, monkeypatch):
    calls, path = tmp_path / "calls.txt", tmp_path / "r.jsonl"
    configs = [dict(seed=s, calls=str(calls)) for s in range(4)]
    run_trials(counting, configs[:2], results=path, progress=False)                    # then resumed
    run_trials(counting, configs, results=path, progress=False)
    _write(path, [{**r, "fingerprint": "0.0.0+older"} for r in _records(path)])          # stale, then rerun
    run_trials(counting, configs, results=path, progress=False, stale="rerun")
    lines = _records(path)
    assert len(lines) == 4 and len({json.dumps(r["config"], sort_keys=True) for r in lines}) == 4
    store = ResultsFile(path)                      # a record of a stored configuration replaces it
    store.append(_signed(lines[0], seconds=9.0))
    assert [r["seconds"] for r in _records(path)][0] == 9.0 and len(_records(path)) == 4
    with pytest.raises(ValueError, match="one signed record per configuration"):
        store.rewrite(lambda records: records + records[:1])
    assert len(_records(path)) == 4


def test_a_last_record_without_newline_is_checked_and_kept(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    whole = path.read_bytes().rstrip(b"\n")
    path.write_bytes(whole)
    assert len(load_results(path)) == 3                                       # a record, kept
    first, second, last = whole.split(b"\n")
    path.write_bytes(first + b"\n" + second + b"\n" + last.replace(b'"value": 4.0', b'"value": 5.0'))
    for load in _loads(path):                                                # parses, but its digest does not check
        with pytest.raises(ResultsFileError, match="r.jsonl, line 3: the record does not match its digest"):
            load()
    path.write_bytes(first + b"\n" + second + b"\n" + last[:-20])          # a write cut short: not a record
    with pytest.warns(UserWarning, match="r.jsonl, line 3: ignoring a truncated last line"):
        assert len(load_results(path)) == 2
    with pytest.warns(UserWarning, match="line 3: ignoring a truncated last line"):
        rows = run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    assert [r["value"] for r in rows] == [0.0, 1.0, 4.0] and len(path.read_text().splitlines()) == 3


def test_a_file_whose_stratified_sample_is_current_vouches_for_older_records(tmp_path):
    calls, path = tmp_path / "calls.txt", tmp_path / "r.jsonl"
    configs = [dict(seed=s, calls=str(calls)) for s in range(6)]
    run_trials(counting, configs, results=path, progress=False)
    older = [_signed(r, fingerprint="0.0.0+older") for r in _records(path)]
    _write(path, older)
    with pytest.raises(StaleResultsError) as stop:
        run_trials(counting, configs, results=path, progress=False)
    message = str(stop.value)
    assert f"`latent-mm verify {path} --restamp` reruns 3 trials" in message and "\n" not in message
    sampled = {json.dumps(r["config"]) for r in sample_trials(older)}
    today = code_fingerprint(counting)
    _write(path, [_signed(r, verified_by=today) if json.dumps(r["config"]) in sampled else r for r in older])
    assert [r["value"] for r in run_trials(counting, configs, results=path, progress=False)] == [s ** 2 for s in range(6)]
    assert len(calls.read_text().split()) == 6                               # reused: nothing ran again
    assert {r["fingerprint"] for r in _records(path)} == {"0.0.0+older"}     # and still named as older code's


def test_files_of_the_older_format_are_read_with_a_warning_and_migrated(tmp_path):
    path = tmp_path / "r.jsonl"
    run_trials(square, [dict(seed=s) for s in range(3)], results=path, progress=False)
    records = _records(path)
    restamped = [_signed(r, fingerprint="0.0.0+restamp", computed_by=c, verified=dict(sample=1, of=3))
                 for r, c in zip(records, [records[0]["fingerprint"], None, "0.0.0+computed"])]
    _write(path, restamped)
    with pytest.warns(UserWarning, match="3 records of the older format"):
        read = list(load_results(path).values())
    assert [r["fingerprint"] for r in read] == [records[0]["fingerprint"], None, "0.0.0+computed"]
    assert not any(k in r for r in read for k in OLDER_KEYS) and all(r["digest"] == record_digest(r) for r in read)
    assert migrate_results(path) == 3
    assert _records(path) == read
    assert migrate_results(path) == 0
