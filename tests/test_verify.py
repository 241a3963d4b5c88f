"""The committed results still come from today's code: `latent-mm verify` reruns the quickest trial (and the quickest
of every method) of every committed results file whose sample took seconds, and every record of every committed file's
stratified sample is current under today's code (computed or reproduced by it). Then verification itself: the
stratified sample, `--all`, a restamp that stamps only the records it reran, the exit status of a mismatch."""
import json
from pathlib import Path

import pytest

from latent_mm.cli import experiments, main
from latent_mm.sweeps import (OLDER_KEYS, code_fingerprint, is_current, load_results, record_digest, register_trial,
                              registered_trial, run_trials, sample_trials, verification_status, verify_results)

RESULTS = Path(__file__).resolve().parents[1] / "nbs" / "experiments" / "results"
FILES = sorted(RESULTS.glob("*.jsonl"))
experiments()        # registers the experiments' trial functions, which the records name
QUICK = 2.0          # recorded seconds of a file's quickest trials, at most, for CI to rerun them
ALWAYS = {"lssvm_first_bound",    # slower when recorded, under a second today: a trial function no notebook test runs
          "scene_full"}           # 1-3 s: its quickest trials repeat the first solve at tighter tolerances


def records(path):
    return list(load_results(path).values())


def quick(path) -> bool:
    "Whether CI reruns `path`: its quickest trials took at most QUICK seconds when recorded, or it is in ALWAYS."
    return path.stem in ALWAYS or sum(r["seconds"] for r in sample_trials(records(path), strata=("quickest",))) <= QUICK


@pytest.mark.parametrize("path", [p for p in FILES if quick(p)], ids=lambda p: p.stem)
def test_committed_trials_reproduce(path, capsys):
    status = main(["verify", str(path), "--strata", "quickest", "--no-progress"])
    assert status == 0, capsys.readouterr().out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_committed_stratified_samples_are_current(path):
    """A change to code an experiment runs leaves a file unverified until its stratified sample is rerun and found equal
    (`latent-mm verify NAME --restamp`) or the file is rerun."""
    rs = records(path)
    assert all(r.get("fingerprint", "") != "" and r.get("trial") for r in rs)
    today = {t: code_fingerprint(registered_trial(t)) for t in {r["trial"] for r in rs}}
    sample = sample_trials(rs)
    stale = [r["config"] for r in sample if not is_current(r, today[r["trial"]])]
    assert not stale, (f"{path.name}: {len(stale)} of the {len(sample)} records of its stratified sample are not "
                       f"current under today's code, e.g. {stale[0]}; run `latent-mm verify {path.stem} --restamp`")
    assert verification_status(path).sample_current


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_committed_records_claim_no_file_wide_verification(path):
    "The committed files are in today's format: no record carries the older restamp's `computed_by` or `verified`."
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert not [k for r in lines for k in OLDER_KEYS if k in r]
    assert all(r["digest"] == record_digest(r) for r in lines)


def test_ci_reruns_some_committed_files():
    rerun = {p.stem for p in FILES if quick(p)}
    assert {"kmeans_table1", "scene_full", "lssvm_first_bound"} <= rerun, rerun


# Verification of a file: tiny registered trial functions in temporary folders.

@register_trial
def timed(seed, method="a"):
    return dict(value=seed * (2 if method == "a" else 3))


@register_trial
def other(seed):
    return dict(value=-seed)


def _signed(record, **changes):
    "`record` with `changes`, signed again (as the code that wrote it would have)."
    new = {k: v for k, v in record.items() if k != "digest"} | changes
    return new | dict(digest=record_digest(new))


def _write(path, rs):
    path.write_text("".join(json.dumps(r) + "\n" for r in rs))


def _key(record):
    return json.dumps(record["config"], sort_keys=True)


SECONDS = {("a", 0): 3.0, ("a", 1): 1.0, ("a", 2): 2.0, ("a", 3): 9.0, ("a", 4): 5.0, ("b", 0): 4.0, ("b", 1): 8.0,
           ("b", 2): 6.0}


def _sweep(path, fingerprint=None):
    """A file of 10 records: `timed` for methods a (5) and b (3) and `other` (2), with the recorded times of SECONDS
    (others: 0.5 and 7.0), optionally as computed by other code (`fingerprint`)."""
    run_trials(timed, [dict(seed=s, method=m) for m, s in SECONDS], results=path, progress=False)
    run_trials(other, [dict(seed=s) for s in range(2)], results=path, progress=False)
    def seconds(config):
        return SECONDS[config["method"], config["seed"]] if "method" in config else [0.5, 7.0][config["seed"]]
    rs = [_signed(r, seconds=seconds(r["config"]), **({} if fingerprint is None else dict(fingerprint=fingerprint)))
          for r in records(path)]
    _write(path, rs)
    return rs


def _picked(rs):
    return sorted((r["trial"].rsplit(".", 1)[1], r["config"].get("method"), r["seconds"]) for r in rs)


def test_the_default_sample_is_stratified_by_trial_function_and_method(tmp_path):
    rs = _sweep(tmp_path / "r.jsonl")
    # of `timed` (8 records): 1, 5 (its median), 9; of `other`: 0.5 and 7; of method a: 1, 3, 9; of b: 4, 6, 8;
    # of the records without a method (those of `other`): the same two; and the quickest of the file, 0.5
    expected = [("other", None, 0.5), ("other", None, 7.0), ("timed", "a", 1.0), ("timed", "a", 3.0), ("timed", "a", 5.0),
                ("timed", "a", 9.0), ("timed", "b", 4.0), ("timed", "b", 6.0), ("timed", "b", 8.0)]
    assert _picked(sample_trials(rs)) == expected
    check = verify_results(tmp_path / "r.jsonl")                  # reruns exactly that sample
    assert check.ok and sorted(r["recorded_s"] for r in check.rows) == sorted(s for *_, s in expected)
    assert check.covered == dict(quickest=0.5, median=5.0, slowest=9.0)
    assert _picked(sample_trials(rs, sample=3, strata=("slowest",))) == [
        ("other", None, 0.5), ("other", None, 7.0), ("timed", "a", 1.0), ("timed", "a", 2.0), ("timed", "a", 9.0),
        ("timed", "b", 8.0)]


def test_all_reruns_every_record(tmp_path, capsys):
    _sweep(tmp_path / "r.jsonl")
    assert len(verify_results(tmp_path / "r.jsonl", all_records=True).rows) == 10
    assert main(["verify", "--all", "--dir", str(tmp_path), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "r.jsonl: 10 of 10 trials rerun (recorded 0.5, 5, 9 s: quickest, median, slowest), all match" in captured.out
    assert captured.err.startswith("latent-mm verify: 10 trials of 1 results files to rerun; their recorded run times "
                                   "sum to about 45 s")


def test_restamp_stamps_only_the_records_it_reran(tmp_path):
    path = tmp_path / "r.jsonl"
    before = {_key(r): r for r in _sweep(path, fingerprint="0.0.0+older")}
    assert verification_status(path) == (10, 0, 0, False)
    check = verify_results(path, restamp=True)
    assert check.ok and check.stamped == 9 and check.current == 9 and abs(check.share_current - 0.9) < 1e-12
    after = {_key(r): r for r in records(path)}
    rerun = {_key(r) for r in sample_trials(list(before.values()))}
    assert len(rerun) == 9
    for key, r in after.items():
        today = code_fingerprint(registered_trial(r["trial"]))
        assert r["fingerprint"] == "0.0.0+older"                       # the code that computed it, always
        if key in rerun:
            assert r["verified_by"] == today and r["digest"] == record_digest(r)
            assert {k: v for k, v in r.items() if k not in ("verified_by", "digest")} == \
                   {k: v for k, v in before[key].items() if k != "digest"}
        else:
            assert r == before[key] and "verified_by" not in r        # not rerun: untouched, not verified
    assert verification_status(path) == (10, 9, 9, True)
    assert [r["value"] for r in run_trials(timed, [dict(seed=s, method=m) for m, s in SECONDS], results=path,
                                            progress=False)] == [timed(s, m)["value"] for m, s in SECONDS]


def test_restamp_leaves_a_record_that_differs(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    rs = _sweep(path, fingerprint="0.0.0+older")
    slowest = max(rs, key=lambda r: r["seconds"])
    _write(path, [_signed(r, result=dict(value=r["result"]["value"] + 1)) if r is slowest else r for r in rs])
    status = main(["verify", "--dir", str(tmp_path), "--restamp", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "r.jsonl: 9 of 10 trials rerun" in out and "1 differ; 8 of 10 records (80%) current under today's code " \
                                                      "(8 stamped now)" in out, out
    assert "0 of 1 results files reproduced; not: r.jsonl" in out
    stored = {_key(r): r for r in records(path)}
    assert "verified_by" not in stored[_key(slowest)] and stored[_key(slowest)]["fingerprint"] == "0.0.0+older"


def test_a_mismatch_exits_nonzero(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    rs = _sweep(path)
    quickest = min(rs, key=lambda r: r["seconds"])
    _write(path, [_signed(r, result=dict(value=41)) if r is quickest else r for r in rs])
    assert main(["verify", str(path), "--no-progress"]) == 1
    assert "value: 41 -> 0" in capsys.readouterr().out
    assert main(["verify", str(path), "--strata", "slowest", "--no-progress"]) == 1      # the quickest is always in


def test_a_corrupt_middle_line_is_one_line_in_verify(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    _sweep(path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4] + [lines[4][:30]] + lines[5:]) + "\n")
    assert main(["verify", "--dir", str(tmp_path), "--no-progress"]) == 1
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if "not verified" in line]
    assert len(said) == 1 and f"{path}, line 5: not valid JSON" in said[0], out
    assert "Traceback" not in out


def test_verification_status_of_a_file(tmp_path):
    path = tmp_path / "r.jsonl"
    _sweep(path)
    assert verification_status(path) == (10, 10, 0, True)
    status = verification_status(path)
    assert (status.records, status.current, status.verified, status.sample_current) == (10, 10, 0, True)
