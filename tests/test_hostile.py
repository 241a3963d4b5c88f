"""Hostile inputs: what a results file from elsewhere, a corrupt file or a careless caller must never do."""
import json
import re

import pytest

from latent_mm.cli import main
from latent_mm.sweeps import registered_trial, verify_results


CALLS = {  # a function a record might name, and the configuration that makes it create the marker file
    "subprocess.run": lambda marker: dict(args=["touch", str(marker)]),
    "os.system": lambda marker: dict(command=f"touch {marker}"),
    "latent_mm.report.write_csv": lambda marker: dict(rows=[dict(a=1)], path=str(marker)),
}


def injection(folder, marker, trial="subprocess.run"):
    "A results file whose record asks verify to call `trial` with arguments that would create `marker`."
    path = folder / "x.jsonl"
    path.write_text(json.dumps(dict(config=CALLS[trial](marker), result=dict(x=1), trial=trial)) + "\n")
    return path


@pytest.mark.parametrize("trial", sorted(CALLS))
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
    with pytest.raises(SystemExit) as stop:
        main(["verify", str(injection(tmp_path, marker)), "--trial", "subprocess.run"])
    assert stop.value.code == 2 and "must be a registered trial function" in capsys.readouterr().err
    assert not marker.exists()


def test_experiments_register_their_trials():
    from latent_mm.cli import experiments
    experiments()
    assert registered_trial("latent_mm.experiments.kmeans.kmeans_trial").__name__ == "kmeans_trial"


# The engine: a false alarm where the objective reaches 0, and errors that name the value and the rule.

def test_zero_objective_is_not_an_invalid_bound():
    import numpy as np
    from latent_mm.kmeans import GMMKMeans
    X = np.repeat(np.random.default_rng(0).normal(size=(5, 300)), 6, 0)      # every point has 5 exact copies
    for bound in ("random", "biased"):
        est = GMMKMeans(5, bound=bound, eta=0.1, random_state=0).fit(X)
        assert est.objective_ < 1e-9


def _toy():
    import numpy as np
    from latent_mm.theory import MinOfQuadratics
    return MinOfQuadratics(n=20, n_values=3, random_state=0), np.zeros(2)


@pytest.mark.parametrize("select, says", [("touching", "make_selector('touching')"), (None, "select=None must be a Selector")])
def test_gmm_names_a_selector_that_is_not_one(select, says):
    from latent_mm.core import gmm
    problem, w0 = _toy()
    with pytest.raises(TypeError, match=re.escape(says)):
        gmm(problem, w0, select)


def test_gmm_names_a_selector_that_returns_no_pair():
    from latent_mm.core import gmm
    problem, w0 = _toy()
    with pytest.raises(TypeError, match="a selector returns a pair"):
        gmm(problem, w0, lambda R, budget, z_prev, rng: R.argmin(1))


def test_gmm_names_a_bad_random_state():
    from latent_mm.core import gmm
    from latent_mm.selection import random_walk
    problem, w0 = _toy()
    with pytest.raises(ValueError, match="random_state='abc' must be None, an integer seed or a numpy Generator"):
        gmm(problem, w0, random_walk(), eta=0.5, random_state="abc")


def test_a_problem_without_regrets_is_named():
    import numpy as np
    from latent_mm.core import LatentProblem, gmm

    class NoRegrets(LatentProblem):
        def objective(self, w): return float(w @ w)
        def minimize_bound(self, z, w_prev): return w_prev

    with pytest.raises(NotImplementedError, match="NoRegrets does not implement regrets"):
        gmm(NoRegrets(), np.ones(2), lambda R, budget, z_prev, rng: (R.argmin(1), {}))


def test_minimize_bound_of_the_wrong_shape_is_named():
    from latent_mm.core import gmm
    from latent_mm.selection import touching
    problem, w0 = _toy()
    problem.minimize_bound = lambda z, w_prev: w_prev[:1]
    with pytest.raises(ValueError, match=r"minimize_bound returned shape \(1,\); the point has shape \(2,\)"):
        gmm(problem, w0, touching())


def test_gmm_refuses_the_old_name_of_h0():
    import numpy as np
    from latent_mm.core import gmm
    from latent_mm.selection import touching
    problem, w0 = _toy()
    with pytest.raises(TypeError, match="gmm: z0= is now h0="):
        gmm(problem, w0, touching(), z0=np.zeros(20, int))


@pytest.mark.parametrize("s", [1e200, 1e-200])
def test_kmeans_plus_plus_seeding_at_extreme_scales_is_the_same_fit(s):
    import warnings
    import numpy as np
    from latent_mm.datasets import load_d31
    from latent_mm.kmeans import GMMKMeans
    X, _ = load_d31()
    ref = GMMKMeans(31, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)          # the objective itself may leave float64's range
        fit = GMMKMeans(31, random_state=0).fit(X * s)
    assert np.array_equal(fit.labels_, ref.labels_)


def test_given_centres_at_an_extreme_scale_keep_their_units():
    import numpy as np
    from latent_mm.datasets import load_d31
    from latent_mm.kmeans import GMMKMeans
    X, _ = load_d31()
    centres = X[:31].copy()
    ref = GMMKMeans(31, init=centres).fit(X)
    fit = GMMKMeans(31, init=centres * 1e13).fit(X * 1e13)
    assert fit.scale_ != 1.0
    np.testing.assert_array_equal(fit.init_centers_, centres * 1e13)
    assert np.array_equal(fit.labels_, ref.labels_)
