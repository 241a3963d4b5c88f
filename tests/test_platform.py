"""The numeric platform: records name the one they were computed on; `latent-mm reproduce` and `verify` start again
on the reference platform of the committed records where this processor can reach it, unless told 'native'."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from latent_mm.cli import main
from latent_mm.sweeps import register_trial, run_trials
from latent_mm.sweeps.platform import PINS, REFERENCE, pinned_environment, platform_choice, platform_tag

ROOT = Path(__file__).resolve().parents[1]
QUICKEST = ROOT / "nbs" / "experiments" / "results" / "lssvm_first_bound.jsonl"   # its quickest trial takes 0.2 s


@register_trial
def platform_probe(seed):
    return dict(value=float(seed))


def _shell(**extra):
    "A user's shell: this environment without the platform pins the test suite runs under, plus `extra`."
    return {k: v for k, v in os.environ.items() if k not in PINS} | extra


def _python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.strip()


def test_a_record_names_its_platform(tmp_path):
    run_trials(platform_probe, [dict(seed=1)], results=tmp_path / "r.jsonl", progress=False)
    record = json.loads((tmp_path / "r.jsonl").read_text())
    assert record["platform"] == platform_tag() and record["platform"].split(" ")[1] == "numpy"


def test_the_choice_is_checked():
    assert platform_choice({}) == "reference" and platform_choice({"LATENT_MM_PLATFORM": "native"}) == "native"
    with pytest.raises(ValueError, match="LATENT_MM_PLATFORM='fast'.*'reference'.*'native'"):
        platform_choice({"LATENT_MM_PLATFORM": "fast"})


def test_native_and_a_users_own_pins_are_respected():
    assert pinned_environment(_shell(LATENT_MM_PLATFORM="native")) is None
    assert pinned_environment(_shell(OPENBLAS_CORETYPE="Prescott")) is None


def test_the_pins_reach_the_reference_platform():
    "A process started with the pins a user's shell gets computes on the reference platform, or cannot and says so."
    pins = json.loads(_python("import json; from latent_mm.sweeps.platform import reference_environment as r; "
                              "print(json.dumps(r()))", _shell()))
    probe = "from latent_mm.sweeps.platform import on_reference as o, platform_note as n; print(o()); print(n())"
    on, note = _python(probe, _shell(**(pins or {}))).splitlines()
    if pins is None:
        assert on == "False" and "cannot run it" in note
    else:
        assert on == "True" and REFERENCE["numpy"] in note and "the reference platform of the committed" in note


def test_the_console_script_pins_itself_and_reproduces_a_record():
    """`latent-mm verify` from a user's shell: one line says it starts again on the reference platform (when the
    processor is not on it already) and the rerun matches its committed record; 'native' leaves a note instead."""
    needed = _python("from latent_mm.sweeps.platform import pinned_environment as p; print(p() is not None)", _shell())
    cmd = [sys.executable, "-c", "import sys; from latent_mm.cli import main; sys.exit(main())", "verify",
           str(QUICKEST), "--strata", "quickest", "--no-progress"]
    done = subprocess.run(cmd, env=_shell(), capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("computing on the reference platform of the committed records" in done.stderr) == (needed == "True")
    native = subprocess.run(cmd, env=_shell(LATENT_MM_PLATFORM="native"), capture_output=True, text=True, cwd=ROOT)
    assert "computing on the reference platform" not in native.stderr
    if needed == "True":
        assert "not the reference of the committed records" in native.stderr, native.stderr


def test_a_bad_choice_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LATENT_MM_PLATFORM", "fast")
    monkeypatch.setattr(sys, "argv", ["latent-mm", "verify", str(tmp_path / "none.jsonl")])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2 and "LATENT_MM_PLATFORM='fast'" in capsys.readouterr().err
