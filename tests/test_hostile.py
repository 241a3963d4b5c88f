"""Hostile inputs: what a results file from elsewhere, a corrupt file or a careless caller must never do."""
import json

import pytest

from latent_mm.cli import main
from latent_mm.runner import registered_trial, verify_results


def injection(folder, marker, trial="subprocess.run"):
    "A results file whose record asks verify to call `trial` with arguments that would create `marker`."
    path = folder / "x.jsonl"
    path.write_text(json.dumps(dict(config=dict(args=["touch", str(marker)]), result=dict(x=1), trial=trial)) + "\n")
    return path


@pytest.mark.parametrize("trial", ["subprocess.run", "os.system", "latent_mm.runner.write_csv", "builtins.exec"])
def test_verify_never_runs_what_a_results_file_names(tmp_path, capsys, trial):
    marker = tmp_path / "ran"
    status = main(["verify", str(injection(tmp_path, marker, trial))])
    out = capsys.readouterr().out
    assert status != 0
    assert not marker.exists()
    assert "is not a registered trial function" in out
    assert len([line for line in out.splitlines() if "not verified" in line]) == 1      # said in one line


def test_verify_from_python_refuses_unregistered_names(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(ValueError, match="not a registered trial function"):
        verify_results(injection(tmp_path, marker))
    with pytest.raises(ValueError, match="not a registered trial function"):
        verify_results(injection(tmp_path, marker), trial="subprocess.run")
    assert not marker.exists()


def test_the_trial_option_takes_only_registered_names(tmp_path, capsys):
    marker = tmp_path / "ran"
    with pytest.raises(SystemExit):
        main(["verify", str(injection(tmp_path, marker)), "--trial", "subprocess.run"])
    assert not marker.exists()


def test_experiments_register_their_trials():
    from latent_mm.cli import experiments
    experiments()
    assert registered_trial("latent_mm.experiments.kmeans.kmeans_trial").__name__ == "kmeans_trial"
