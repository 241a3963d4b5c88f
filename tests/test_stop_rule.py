"""The stopping rules of the latent SSVM estimators: G-MM's gap, and the objective's decrease of CCCP as Yu and
Joachims and SPL's paper state it."""
import warnings

import numpy as np
import pytest

from latent_mm.experiments.spl_motif import motif_fold
from latent_mm.lssvm import GroupNormSSVM, LatentBinary, LatentSSVM


def _fit(stop, **kw):
    _, X, y, train, _, h0 = motif_fold("P1", 0, 0, n=160)
    est = LatentSSVM(LatentBinary(), C=150.0, eps=1e-3 / 150, tol=1e-6, max_iter=60, stop=stop, random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X[train], y[train], h0=h0)


def test_from_random_motif_starts_the_gap_stops_at_once_and_the_decrease_goes_on():
    gap, decrease = _fit("gap"), _fit("decrease")
    assert gap.n_iter_ == 1 and gap.trace_.gap[0] < 1e-3 / 150            # re-imputing at w_1 gains almost nothing
    F = np.r_[decrease.trace_.bound_prev[0], decrease.trace_.F]           # F(w_0) (the first bound touches), F(w_t)
    steps = -np.diff(F)
    assert decrease.n_iter_ > 1 and decrease.converged_
    assert np.all(steps[:-1] >= 1e-3 / 150) and steps[-1] < 1e-3 / 150   # it stops at the first small decrease
    assert decrease.objective_ < gap.objective_ - 0.05


def test_the_decrease_rule_is_refused_with_bounds_that_do_not_touch():
    with pytest.raises(ValueError, match=r"stop='decrease' with bound='random', eta=0.1: .*MM's stopping rule"):
        _fit("decrease", bound="random", eta=0.1)
    with pytest.raises(ValueError, match="stop"):
        _fit("objective")
    assert GroupNormSSVM(stop="decrease").get_params()["stop"] == "decrease"
