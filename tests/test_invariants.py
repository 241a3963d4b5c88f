"""Property tests: every selector, on random toy problems, seeds and eta, produces a run obeying Algorithm 1."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning

from latent_mm.core import InvalidBoundError, gmm
from latent_mm.selection import biased, random_walk, subset_update, touching, touching_configuration
from latent_mm.theory import InvariantError, MinOfQuadratics, SmoothDC, check_trace, random_anchor


def random_bias(R, z_prev, rng):
    return rng.normal(size=R.shape)


SELECTORS = {
    "touching": lambda: touching(),
    "random_walk": lambda: random_walk(),
    "random_walk_long": lambda: random_walk(n_steps=500),
    "biased": lambda: biased(random_bias),
    "subset": lambda: subset_update(0.2, 1.5),
}

etas = st.one_of(st.just(1.0), st.floats(0.01, 1.0))
problems = st.builds(MinOfQuadratics, n=st.integers(1, 40), n_values=st.integers(1, 6), dim=st.integers(1, 3),
                     mu=st.floats(0.1, 5.0), random_state=st.integers(0, 2**31))


@pytest.mark.parametrize("name", SELECTORS)
@settings(max_examples=25, deadline=None)
@given(problem=problems, eta=etas, seed=st.integers(0, 2**31))
def test_invariants_every_selector(name, problem, eta, seed):
    w0 = np.random.default_rng(seed).normal(size=problem.a.shape[-1])
    res = gmm(problem, w0, SELECTORS[name](), eta=eta, eps=1e-9, max_iter=3000, random_state=seed)
    assert res.converged
    check_trace(res, eta=eta, eps=1e-9)
    assert res.F <= res.trace.v0 + 1e-9 * max(1, abs(res.trace.v0))   # never worse than the start


@settings(max_examples=20, deadline=None)
@given(dim=st.integers(1, 6), eta=etas, seed=st.integers(0, 2**31), scale=st.floats(0.01, 5.0))
def test_invariants_smooth_dc(dim, eta, seed, scale):
    problem = SmoothDC(dim=dim, random_state=seed)
    res = gmm(problem, np.zeros(dim), random_anchor(scale), eta=eta, eps=1e-11, max_iter=20000, random_state=seed)
    check_trace(res, eta=eta)
    assert np.linalg.norm(problem.gradient(res.w)) < 1e-4     # Theorem 2: a stationary limit


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), m=st.integers(1, 6), budget=st.floats(0, 3), seed=st.integers(0, 2**31))
def test_selectors_stay_within_budget(n, m, budget, seed):
    rng = np.random.default_rng(seed)
    R = rng.exponential(size=(n, m)) * (rng.random((n, m)) < 0.8)
    R[rng.random((n, m)) < 0.1] = np.inf
    R[np.arange(n), rng.integers(0, m, n)] = 0.0
    R -= R.min(1, keepdims=True)

    z_prev = touching_configuration(R)
    for sel in (touching(), random_walk(), random_walk(n_steps=200), biased(random_bias), subset_update(0.3)):
        z, info = sel(R, budget, z_prev, rng)
        assert isinstance(info, dict)
        assert R[np.arange(n), z].sum() <= budget + 1e-9
    # zero budget: every rule picks zero-regret values only (moves between tied values are free)
    for sel in (random_walk(), biased(random_bias)):
        z, _ = sel(R, 0.0, z_prev, rng)
        np.testing.assert_array_equal(R[np.arange(n), z], 0.0)


def test_random_walk_moves_freely_between_ties():
    R = np.zeros((500, 3))
    z, info = random_walk(n_steps=20 * 500)(R, 0.0, np.zeros(500, int), np.random.default_rng(0))
    assert info["movable"] == 500
    assert 0.5 < np.mean(z != 0) < 0.8                         # uniform over 3 tied values: 2/3 move


def test_engine_rejects_invalid_bounds_and_bad_input():
    problem = MinOfQuadratics(n=10, random_state=0)

    def worst(R, budget, z_prev, rng):
        return R.argmax(1), {}

    with pytest.raises(InvalidBoundError, match="iteration 1"):
        gmm(problem, np.zeros(2), worst)
    for eta in (0.0, -0.5, 1.01, float("nan")):
        with pytest.raises(ValueError, match="eta"):
            gmm(problem, np.zeros(2), touching(), eta=eta)
    with pytest.raises(ValueError, match="NaN"):
        gmm(problem, np.array([0.0, np.nan]), touching())
    with pytest.raises(ValueError, match="max_iter"):
        gmm(problem, np.zeros(2), touching(), max_iter=0)


def test_max_iter_warns_and_reports():
    problem = MinOfQuadratics(n=30, random_state=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = gmm(problem, np.zeros(2), random_walk(), eta=0.01, eps=0.0, max_iter=2, random_state=0)
    assert not res.converged and res.n_iter == 2
    assert any(issubclass(c.category, ConvergenceWarning) for c in caught)


def test_check_trace_catches_a_broken_trace():
    problem = MinOfQuadratics(n=30, random_state=2)
    res = gmm(problem, np.zeros(2), random_walk(), eta=0.3, random_state=0)
    check_trace(res, eta=0.3)
    res.trace.v[0] += 1.0                     # a threshold that does not follow the update rule
    with pytest.raises(InvariantError, match="threshold"):
        check_trace(res, eta=0.3)
    res = gmm(problem, np.zeros(2), random_walk(), eta=0.3, random_state=0)
    with pytest.raises(InvariantError):
        check_trace(res, eta=1.0)             # checked against the wrong eta


def test_mm_equals_touching_gmm_and_random_walk_with_zero_budget():
    problem = MinOfQuadratics(n=50, n_values=5, random_state=3)
    a = gmm(problem, np.ones(2), touching(), eta=1.0)
    b = gmm(problem, np.ones(2), random_walk(), eta=1.0, random_state=5)
    np.testing.assert_array_equal(a.z, b.z)
    np.testing.assert_allclose(a.w, b.w)


def test_cli_theory(tmp_path, capsys):
    from latent_mm.cli import main
    main(["reproduce", "theory", "--out", str(tmp_path), "--seeds", "1"])
    printed = capsys.readouterr().out
    assert "invariants_ok" in printed and "False" not in printed
    assert (tmp_path / "theory.png").stat().st_size > 10_000
    assert (tmp_path / "theory.csv").read_text().count("\n") > 10
