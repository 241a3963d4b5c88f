"""Hostile inputs: what a results file from elsewhere, a corrupt file or a careless caller must never do."""
import json
import re

import numpy as np
import pytest

from latent_mm.cli import main
from latent_mm.sweeps import record_digest, registered_trial, verify_results


CALLS = {  # a function a record might name, and the configuration that makes it create the marker file
    "subprocess.run": lambda marker: dict(args=["touch", str(marker)]),
    "os.system": lambda marker: dict(command=f"touch {marker}"),
    "latent_mm.report.write_csv": lambda marker: dict(rows=[dict(a=1)], path=str(marker)),
}


def injection(folder, marker, trial="subprocess.run"):
    "A results file whose record asks verify to call `trial` with arguments that would create `marker`."
    path = folder / "x.jsonl"
    record = dict(config=CALLS[trial](marker), result=dict(x=1), trial=trial)
    record["digest"] = record_digest(record)            # a digest is no secret: an attacker signs the record too
    path.write_text(json.dumps(record) + "\n")
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


# The latent SSVM estimators: degenerate fits, unfitted use, odd inputs and options that would be dropped.

def _loc(n=30, n_classes=2):
    from latent_mm.datasets import toy_localization
    return toy_localization(n, n_classes, random_state=0)[:2]


def _scene(n=10, s=1.0):
    import numpy as np
    return np.random.default_rng(0).normal(size=(n, 4, 3)) * s, np.arange(n) % 2


def test_a_fit_on_one_class_is_refused():
    import numpy as np
    from latent_mm.lssvm import LatentSSVM
    from latent_mm.lssvm.model import LatentBinary
    from latent_mm.scene.model import RBoWModel
    X, _ = _loc()
    with pytest.raises(ValueError, match=re.escape("y has 1 class(es) [0]; at least 2 are needed")):
        LatentSSVM(LatentBinary()).fit(X, np.zeros(30, int))
    Xs, _ = _scene()
    with pytest.raises(ValueError, match=re.escape("y has 1 class(es) [0]; at least 2 are needed")):
        LatentSSVM(RBoWModel(2, 2, (2, 2))).fit(Xs, np.zeros(10, int))


@pytest.mark.parametrize("name", ["LatentSSVM", "SelfPacedSSVM"])
def test_eta_with_touching_bounds_is_warned(name):
    import latent_mm.lssvm as L
    X, y = _loc()
    with pytest.warns(UserWarning, match="eta=0.5 has no effect with bound='touching'"):
        getattr(L, name)(eta=0.5, random_state=0).fit(X, y)


@pytest.mark.parametrize("name", ["LatentSSVM", "SelfPacedSSVM"])
def test_random_state_takes_a_generator(name):
    import numpy as np
    import latent_mm.lssvm as L
    X, y = _loc()
    seeded = getattr(L, name)(random_state=0).fit(X, y)
    drawn = getattr(L, name)(random_state=np.random.default_rng(0)).fit(X, y)
    np.testing.assert_array_equal(drawn.coef_, seeded.coef_)


def _unfitted():
    from latent_mm.lssvm import GroupNormSSVM, LatentSSVM, SelfPacedSSVM
    from latent_mm.scene.model import RBoWModel
    return [(LatentSSVM(), _loc()), (SelfPacedSSVM(), _loc()), (GroupNormSSVM(), _loc()),
            (LatentSSVM(RBoWModel(2, 2, (2, 2))), _scene())]


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("method", ["score", "predict", "decision_function"])
def test_use_before_fit_raises_not_fitted(k, method):
    from sklearn.exceptions import NotFittedError
    est, (X, y) = _unfitted()[k]
    with pytest.raises(NotFittedError):
        getattr(est, method)(X, y) if method == "score" else getattr(est, method)(X)


def test_one_sparse_matrix_is_refused_with_the_way_to_pass_it_as_bags():
    import scipy.sparse as sp
    from latent_mm.lssvm import Bags, LatentMulticlass, LatentSSVM
    X, y = _loc()
    with pytest.raises(ValueError, match=r"which rows belong to which example: pass Bags\(X, offsets\)"):
        LatentSSVM().fit(sp.csr_matrix(X.reshape(len(X), -1)), y)
    # the advice works: one latent value per example, the rows kept sparse, the same fit as the dense 3-D array
    rng = np.random.default_rng(0)
    Z = sp.random(40, 30, density=0.2, random_state=0, format="csr")
    labels = rng.integers(0, 3, 40)
    sparse = LatentSSVM(LatentMulticlass(3), C=10.0, tol=1e-9).fit(Bags(Z, np.arange(41)), labels)
    dense = LatentSSVM(LatentMulticlass(3), C=10.0, tol=1e-9).fit(Z.toarray()[:, None, :], labels)
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-8)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-4)


def test_w_zero_warning_names_the_features_scale():
    import warnings
    from latent_mm.lssvm import LatentSSVM
    X, y = _loc()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LatentSSVM(max_passes=50).fit(X * 1e10, y)
    said = [str(c.message) for c in caught if "training ended at w = 0" in str(c.message)]
    assert said and "largest |x| is" in said[0] and "standardise" in said[0]


def test_features_whose_products_overflow_are_named():
    from latent_mm.lssvm import LatentSSVM
    from latent_mm.scene.model import RBoWModel
    X, y = _scene(s=1e200)
    with pytest.raises(ValueError, match=r"X's largest \|x\| is .*e\+200"):
        LatentSSVM(RBoWModel(2, 2, (2, 2))).fit(X, y)


@pytest.mark.parametrize("make, says", [
    (lambda L, X, y: L.LatentSSVM(model=L.LatentMulticlass).fit(X, y), "model=LatentMulticlass is a class"),
    (lambda L, X, y: L.LatentSSVM().fit(X, None), "y=None"),
    (lambda L, X, y: L.LatentSSVM().fit(X, np.array([1, "a"] * 15, dtype=object)), "y mixes labels of types"),
    (lambda L, X, y: L.LatentSSVM().fit(X + 1j, y), "X is complex"),
    (lambda L, X, y: L.LatentSSVM(L.LatentMulticlass()).set_params(model__n_classes=3), "model__n_classes"),
])
def test_unclear_estimator_errors_name_the_value(make, says):
    import latent_mm.lssvm as L
    X, y = _loc()
    with pytest.raises((TypeError, ValueError), match=re.escape(says)):
        make(L, X, y)


def test_a_grid_that_is_not_a_pair_is_named():
    from latent_mm.scene.model import RBoWModel
    with pytest.raises(ValueError, match=re.escape("grid=6 must be (rows, cols)")):
        RBoWModel(3, 3, 6)


def test_a_callable_init_may_return_labels():
    import numpy as np
    from latent_mm.kmeans import GMMKMeans
    X = np.random.default_rng(0).normal(size=(30, 2))
    labels = np.arange(30) % 3
    fit = GMMKMeans(3, init=lambda X, k, rs: labels, random_state=0).fit(X)
    ref = GMMKMeans(3, init=labels, random_state=0).fit(X)
    np.testing.assert_array_equal(fit.labels_, ref.labels_)


def test_tol_and_max_passes_beside_a_solver_object_are_warned_once():
    import warnings
    from latent_mm.lssvm import LatentSSVM
    from latent_mm.solvers import make_solver
    X, y = _loc()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LatentSSVM(solver=make_solver("auto"), tol=1e-6, random_state=0).fit(X, y)
    said = [str(c.message) for c in caught if "ignored" in str(c.message)]
    assert len(said) == 1 and "tol=1e-06" in said[0]


@pytest.mark.parametrize("kw, says", [(dict(tol=-1.0), "tol=-1.0"), (dict(max_passes=0), "max_passes=0")])
def test_multifold_mil_checks_its_solver_budget(kw, says):
    from latent_mm.lssvm.bias import multifold_mil
    with pytest.raises(ValueError, match=re.escape(says)):
        multifold_mil(**kw)


def test_a_pickled_estimator_is_small_and_predicts_the_same_elsewhere(tmp_path):
    import pickle
    import subprocess
    import sys
    import numpy as np
    from latent_mm.lssvm import LatentSSVM
    X, y = _loc(200)
    est = LatentSSVM(random_state=0).fit(X, y)
    blob = pickle.dumps(est)
    assert len(blob) < 20_000 and X.nbytes > 40_000
    (tmp_path / "est.pkl").write_bytes(blob)
    np.save(tmp_path / "X.npy", X)
    code = ("import pickle, numpy as np; e = pickle.load(open('est.pkl', 'rb')); X = np.load('X.npy'); "
            "np.save('p.npy', e.predict(X)); np.save('d.npy', e.decision_function(X))")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
    np.testing.assert_array_equal(np.load(tmp_path / "p.npy"), est.predict(X))
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), est.decision_function(X))
    assert est.run_ is est.problem_.run                                   # one copy of the fit's solver run
    back = pickle.loads(blob)                                             # its log survives, its warm state not
    assert back.run_.n_solves == est.run_.n_solves and back.run_.warm is None and est.run_.warm is not None


def test_self_paced_ssvm_carries_only_its_own_parameters():
    from latent_mm.lssvm import SelfPacedSSVM
    est = SelfPacedSSVM(max_stages=5, min_decrease=1e-2)
    assert not hasattr(est, "max_iter") and not hasattr(est, "eps")
    assert "max_iter" not in est.get_params() and est.set_params(max_stages=7).max_stages == 7


def test_the_potts_bias_reports_its_weight():
    import numpy as np
    from latent_mm.scene.potts import potts_budgeted_argmax
    R = np.random.default_rng(0).random((8, 3))
    R -= R.min(1, keepdims=True)
    _, info = potts_budgeted_argmax(R, 0.5, (2, 2))
    assert "weight" in info and "lam" not in info
