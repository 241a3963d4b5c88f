"""The latent SSVM family as one contract: every estimator fits with every bound rule and every bound solver of the
registry, with traces that obey Algorithm 1's invariants; the multi-fold MIL bias serves every model."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from latent_mm.lssvm import LatentBinary, LatentMulticlass, LatentSSVM, toy_localization
from latent_mm.lssvm.bias import multifold_mil
from latent_mm.lssvm.group_norm import GroupNormSSVM, LatentStateBlocks, toy_states
from latent_mm.lssvm.spl import SelfPacedSSVM
from latent_mm.scene import RBoWModel, toy_scenes
from latent_mm.solvers import SOLVERS
from latent_mm.theory import check_trace

BOUNDS = {"touching": {}, "random": dict(eta=0.2), "subset": dict(eta=0.2),
          "biased": dict(eta=0.2, bias=multifold_mil(n_folds=3, max_passes=50))}


def _data():
    X, y, h = toy_localization(n=36, n_classes=3, n_latent=4, d=4, signal=3.0, random_state=0)
    rng = np.random.default_rng(0)
    return X, y, np.where(rng.random(len(X)) < 0.6, h, rng.integers(0, 4, len(X)))


def _estimator(kind, bound, solver):
    options = dict(C=5.0, bound=bound, solver=solver, max_iter=4, random_state=0, **BOUNDS[bound])
    if solver == "subgradient":
        options.update(tol=1e-4, max_passes=200)
    if kind == "LatentSSVM":
        return LatentSSVM(LatentMulticlass(), **options)
    if kind == "SelfPacedSSVM":
        return SelfPacedSSVM(LatentMulticlass(), max_inner=2, init_iters=1, max_stages=3,
                             **{k: v for k, v in options.items() if k != "max_iter"})
    return GroupNormSSVM(LatentStateBlocks(), mu=0.05, **options)


def _runs(est):
    "The G-MM runs of a fit: one, or one per self-paced stage."
    return getattr(est, "stages_", None) or [est.result_]


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("bound", sorted(BOUNDS))
@pytest.mark.parametrize("kind", ["LatentSSVM", "SelfPacedSSVM", "GroupNormSSVM"])
def test_every_estimator_bound_and_solver(kind, bound, solver):
    X, y, h0 = _data()
    est = _estimator(kind, bound, solver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y, h0=h0)
    runs = _runs(est)
    assert runs and all(len(r.trace) >= 1 for r in runs)
    for r in runs:
        check_trace(r, eta=est.eta if r is not runs[0] or kind != "SelfPacedSSVM" else 1.0)
    assert est.coef_.size == est.model_.size_joint_feature(X)
    assert np.all(np.isfinite(est.coef_)) and np.any(est.coef_)
    assert np.mean(est.predict(X) == y) > 0.5                   # three classes: far above chance


def _binary():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5, 4))
    y = np.arange(30) % 2
    h = rng.integers(0, 5, 30)
    X[y == 1, h[y == 1]] += 3.0
    return LatentBinary(), X, y, np.where(y == 1, h, 0)


def _states():
    X, y, h = toy_states(n=40, n_latent=4, random_state=0)
    return LatentStateBlocks(), X, y, h


def _scene(filters="shared"):
    data = toy_scenes(n_per_class=3, n_pairs=3, grid=(3, 3), n_features=4, jitter=0, random_state=0)
    model = RBoWModel(n_parts=6, n_classes=3, grid=(3, 3), filters=filters)
    return model, data["X"], data["y"], data["parts"]


def _scene_class():
    return _scene("class")


@pytest.mark.parametrize("make", [_binary, _states, _scene, _scene_class],
                         ids=["binary", "state-blocks", "rbow", "rbow-class"])
def test_multifold_mil_bias_serves_every_model(make):
    model, X, y, h0 = make()
    est = LatentSSVM(model, C=5.0, bound="biased", eta=0.2, bias=multifold_mil(n_folds=3, max_passes=50),
                     max_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y, h0=h0)
    check_trace(est.result_, eta=0.2)
    assert est.latent_.shape == h0.shape


def test_solver_names_mean_the_bound_solver_everywhere():
    X, y, h0 = _data()
    for est in (LatentSSVM(solver="newton"), SelfPacedSSVM(solver="newton"), GroupNormSSVM(solver="newton")):
        with pytest.raises(ValueError, match="'solver' parameter"):
            est.fit(X, y, h0=h0)


def test_zero_weights_keep_impossible_values_impossible():
    "An example of weight 0 (one self-paced learning leaves out) has regret 0 for its values and +inf for the others."
    from latent_mm.lssvm import LatentSSVMProblem
    model, X, y, h0 = _binary()
    s = np.where(np.arange(len(X)) % 3 == 0, 0.0, 1.0)
    R = LatentSSVMProblem(model, X, y, C=5.0, sample_weight=s).regrets(np.ones(2 * X.shape[2]))
    assert not np.isnan(R).any()
    negative = (y == 0)
    assert np.isinf(R[negative, 1:]).all() and (R[negative, 0] == 0).all()
    assert (R[(s == 0) & (y == 1)] == 0).all()
    est = SelfPacedSSVM(model, C=5.0, bound="random", eta=0.1, max_stages=4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y, h0=h0)
    for stage in est.stages_[1:]:
        check_trace(stage, eta=0.1)
