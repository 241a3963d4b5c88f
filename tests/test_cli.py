"""The command line as a new user meets it: bad options and bad results files refused in one line before any work,
Ctrl-C, --version, help, and what `verify` says before it starts."""
import inspect
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from latent_mm import __version__, cli
from latent_mm.cli import experiments, main
from latent_mm.sweeps import at_least, experiment, register_trial, run_trials
from latent_mm.sweeps.experiment import measured_run_times

EXPERIMENTS = experiments()
CANDIDATES = ("0", "-1", "", "x", "nan")          # values a rule may refuse; each option must refuse one


def refuses(rule, text) -> bool:
    "Whether an option's rule (allowed values, or text -> value) refuses `text`."
    if not callable(rule):
        return text not in map(str, rule)
    try:
        rule(text)
    except ValueError:
        return True
    return False


def value_options(exp):
    "The options of `exp` that take a value (flags take none)."
    return [p for p in inspect.signature(exp.func).parameters.values()
            if p.default is not p.empty and not isinstance(p.default, bool)]


def run_cli(argv, capsys):
    "Exit status and stderr of `latent-mm argv`."
    with pytest.raises(SystemExit) as stop:
        main(argv)
    return stop.value.code, capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_option_refuses_a_bad_value_in_one_line_before_any_work(name, tmp_path, capsys):
    exp = EXPERIMENTS[name]
    for p in value_options(exp):
        rule = exp.options.get(p.name)
        assert rule is not None, f"{name}: option {p.name} has no rule"
        bad = [c for c in CANDIDATES if refuses(rule, c)]
        assert bad, f"{name}: option {p.name} refuses none of {CANDIDATES}"
        flag = "--" + p.name.replace("_", "-")
        out = tmp_path / p.name
        for value in bad:
            argv = ["reproduce", name, flag, value] + (["--out", str(out)] if p.name != "out" else [])
            code, err = run_cli(argv, capsys)
            assert code == 2, (argv, code, err)
            assert err.count("\n") == 1 and flag in err and ("must be" in err or "invalid choice" in err), (argv, err)
            assert not out.exists(), f"{argv} started work"


@pytest.mark.parametrize("argv, says", [
    (["spl-motif", "--C", "-1"], "--C: '-1' must be a finite number > 0"),
    (["spl-motif", "--n", "0"], "--n: '0' must be an integer >= 4"),
    (["spl-motif", "--n-seeds", "0"], "--n-seeds: '0' must be an integer >= 1"),
    (["spl-digits", "--Cs", "25", "-5"], "--Cs: '-5' must be a finite number > 0"),
    (["spl-digits", "--pairs", "7"], "--pairs: '7' must be two different digits"),
    (["spl-localization", "--n-random", "0"], "--n-random: '0' must be an integer >= 1"),
    (["group-norm-digits", "--lam", "-1"], "--lam: '-1' must be a finite number >= 0"),
    (["group-norm-components", "--n-test", "0"], "--n-test: '0' must be an integer >= 1"),
    (["group-norm-components", "--n-fixed", "1", "0"], "--n-fixed: '0' must be an integer from 1 to 40"),
    (["theory", "--out", ""], "--out: '' must be a folder (not empty)"),
    (["kmeans", "--out", " "], "--out: ' ' must be a folder (not empty)"),
])
def test_bad_options_a_new_user_might_pass_are_refused(argv, says, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                     # an empty --out would write here
    code, err = run_cli(["reproduce", *argv], capsys)
    assert code == 2 and says in err and err.count("\n") == 1, err
    assert not any(tmp_path.iterdir())


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"latent-mm {__version__}"


def test_reproduce_help_lists_the_experiments_with_their_run_times(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["reproduce", "--help"])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    for name, exp in EXPERIMENTS.items():
        assert any(line.startswith(name + " ") and line.endswith(exp.run_time) for line in out.splitlines()), (name, out)


def test_every_experiment_announces_a_run_time_and_whether_it_was_measured():
    for name, exp in EXPERIMENTS.items():
        assert exp.seconds > 0 and exp.run_time.startswith("about "), (name, exp.run_time)
        assert exp.run_time.endswith("(an estimate, not yet measured)") == (exp.measured is None), (name, exp.run_time)
    assert set(measured_run_times()) == set(EXPERIMENTS)        # no measurement of an experiment that is gone


def test_ctrl_c_ends_in_one_line_and_keeps_the_finished_trials(tmp_path):
    out = tmp_path / "motif"
    cli = [sys.executable, "-c", "import sys; from latent_mm.cli import main; sys.exit(main())"]
    run = subprocess.Popen(cli + ["reproduce", "spl-motif", "--out", str(out), "--n", "120"], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                           env={**os.environ, "MPLBACKEND": "Agg"},   # Ctrl-C as in a terminal, even where the
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # test runner ignores it
    trials = out / "trials.jsonl"
    while run.poll() is None and not (trials.exists() and trials.read_text().strip()):
        time.sleep(0.2)
    assert run.poll() is None, run.communicate()[1]
    os.killpg(run.pid, signal.SIGINT)               # Ctrl-C reaches the whole foreground process group
    _, err = run.communicate()
    lines = [l for l in err.replace("\r", "\n").splitlines() if l.strip() and "it/s]" not in l and "s/it]" not in l]
    assert run.returncode == 130, err
    assert len(lines) == 2 and lines[0].startswith("latent-mm reproduce spl-motif:"), "\n".join(lines)
    assert lines[1] == (f"latent-mm reproduce spl-motif: interrupted; the finished trials are kept in {out}, "
                        "and the same command resumes from them"), lines
    assert len(trials.read_text().splitlines()) >= 1


def test_ctrl_c_in_verify_ends_in_one_line(tmp_path, capsys, monkeypatch):
    run_trials(square, [dict(seed=1)], results=tmp_path / "toy.jsonl", progress=False)
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "verify_results", interrupted)
    code, err = run_cli(["verify", "--dir", str(tmp_path), "--no-progress"], capsys)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == ("latent-mm verify: interrupted; no results file was changed but those "
                                            "reported above with records stamped now")


# A small experiment of squares, as `latent-mm reproduce toy`.

def square(seed):
    return dict(value=seed ** 2)


@experiment("toy", summary="squares", options=dict(seeds=at_least(1)))
def toy(out: str = "toy_results", seeds: int = 3, n_jobs: int = 1):
    run_trials(square, [dict(seed=s) for s in range(seeds)], results=Path(out) / "trials.jsonl", n_jobs=n_jobs,
               progress=False)


def reproduce_toy(out, monkeypatch, capsys, *extra):
    "Exit status and error output of `latent-mm reproduce toy --out OUT EXTRA`."
    monkeypatch.setattr(cli, "experiments", lambda: {"toy": toy.experiment})
    try:
        status = main(["reproduce", "toy", "--out", str(out), *extra])
    except SystemExit as e:
        status = e.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("spoil, says", [
    (lambda lines: lines[:1] + [lines[1][:25]] + lines[2:], "trials.jsonl, line 2: not valid JSON"),
    (lambda lines: lines + lines[:1], "trials.jsonl, lines 1 and 4: two records of one configuration"),
    (lambda lines: lines[:2] + [json.dumps({k: v for k, v in json.loads(lines[2]).items() if k != "digest"})],
     "trials.jsonl, line 3: the record has no digest")])
def test_a_bad_results_file_stops_reproduce_in_one_line(tmp_path, monkeypatch, capsys, spoil, says):
    assert reproduce_toy(tmp_path, monkeypatch, capsys)[0] == 0
    trials = tmp_path / "trials.jsonl"
    trials.write_text("\n".join(spoil(trials.read_text().splitlines())) + "\n")
    status, err = reproduce_toy(tmp_path, monkeypatch, capsys)
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 2 and lines[0].startswith("latent-mm reproduce toy:"), err
    assert lines[1].startswith("latent-mm reproduce toy: ") and says in lines[1] and "Traceback" not in err, err


def test_verify_says_what_it_will_rerun_then_shows_one_bar_over_every_file(tmp_path, capsys):
    for name, seeds in (("a", 4), ("b", 2)):
        run_trials(square, [dict(seed=s) for s in range(seeds)], results=tmp_path / f"{name}.jsonl", progress=False)
    register_trial(square)
    assert main(["verify", "--dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert first.startswith("latent-mm verify: 5 trials of 2 results files to rerun; their recorded run times sum to "
                            "about "), captured.err
    assert "verify:   0%|" in captured.err and "0/5 [" in captured.err, captured.err      # one bar, over both files
    assert "a.jsonl: 3 of 4 trials rerun" in captured.out and "b.jsonl: 2 of 2 trials rerun" in captured.out


def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path, monkeypatch, capsys):
    status, err = reproduce_toy(tmp_path, monkeypatch, capsys, "--scheduler", "tcp://127.0.0.1:9")
    assert status == 1 and "no Dask scheduler answers at 'tcp://127.0.0.1:9'" in err and err.count("\n") == 2, err
    assert not (tmp_path / "trials.jsonl").exists()

