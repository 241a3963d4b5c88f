"""The random bounds' sampler: its compiled walk has the law of a plain reference, its samples stay within the
budget, and its product-law start comes close to the uniform law on the valid set."""
import warnings
from itertools import product

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from latent_mm._kernels import metropolis, scan_rows
from latent_mm.selection import random_walk, touching_configuration


def reference_walk(R, budget, z, n_steps, rng):
    "Random-scan Metropolis on the uniform law of the valid set, one step at a time in numpy."
    z = np.array(z, copy=True)
    S = [np.flatnonzero(row <= budget) for row in R]
    movable = [i for i in range(len(R)) if len(S[i]) > 1]
    slack = budget - R[np.arange(len(R)), z].sum()
    for _ in range(n_steps):
        i = movable[rng.integers(len(movable))]
        j = rng.choice(S[i][S[i] != z[i]])
        if R[i, j] - R[i, z[i]] <= slack:
            slack -= R[i, j] - R[i, z[i]]
            z[i] = j
    return z


def compiled_walk(R, budget, z, n_steps, rng):
    touch, count, start, cand = scan_rows(R, budget, np.empty(0, np.int64))
    movable = np.flatnonzero(count > 1)
    z = np.array(z, dtype=np.int64)
    metropolis(R, budget, z, budget - R[np.arange(len(R)), z].sum(), movable, start, cand, n_steps,
                np.full(1, rng.integers(2**63), np.uint64))
    return z


def instance(seed, n=4, m=10):
    rng = np.random.default_rng(seed)
    R = rng.exponential(size=(n, m)) * rng.uniform(0.2, 1.0, size=(n, 1))
    R[rng.random((n, m)) < 0.2] = np.inf
    R[np.arange(n), rng.integers(0, m, n)] = 0.0
    return R - R.min(1, keepdims=True), rng.uniform(0.3, 1.2)


@pytest.mark.parametrize("seed", range(4))
def test_compiled_walk_has_the_reference_law(seed):
    R, budget = instance(seed)
    z0 = touching_configuration(R)
    rng = np.random.default_rng(seed)
    ours = [tuple(compiled_walk(R, budget, z0, 4, rng)) for _ in range(4000)]
    ref = [tuple(reference_walk(R, budget, z0, 4, rng)) for _ in range(4000)]
    seen = sorted(set(ours) | set(ref))
    table = np.array([[s.count(c) for c in seen] for s in (ours, ref)])
    table = table[:, table.sum(0) >= 10]                      # chi-square needs populated cells
    assert chi2_contingency(table).pvalue > 1e-3


@pytest.mark.parametrize("seed", range(3))
def test_selector_law_is_close_to_uniform(seed):
    R, budget = instance(seed, n=5, m=4)
    confs = np.array(list(product(range(4), repeat=5)))
    valid = confs[R[np.arange(5), confs].sum(1) <= budget]
    exact = np.stack([np.bincount(valid[:, i], minlength=4) for i in range(5)]) / len(valid)
    rng = np.random.default_rng(seed)
    Z = np.array([random_walk(16)(R, budget, None, rng)[0] for _ in range(8000)])
    assert (R[np.arange(5), Z].sum(1) <= budget + 1e-12).all()
    emp = np.stack([np.bincount(Z[:, i], minlength=4) for i in range(5)]) / len(Z)
    assert 0.5 * np.abs(emp - exact).sum(1).max() < 0.03


def test_reproducible_and_edge_cases():
    R, budget = instance(0, n=200, m=30)
    a = random_walk()(R, budget, None, np.random.default_rng(3))
    b = random_walk()(R, budget, None, np.random.default_rng(3))
    np.testing.assert_array_equal(a[0], b[0])
    z, info = random_walk()(R, np.inf, None, np.random.default_rng(0))       # no limit: every allowed value
    assert np.isfinite(R[np.arange(200), z]).all() and info["beta"] == 0.0
    z, info = random_walk()(np.zeros((1, 1)), 0.0, None, np.random.default_rng(0))
    assert z.tolist() == [0] and info["movable"] == 0
    R32 = R.astype(np.float32)                                                   # float32 regrets: exact sums
    for budget32 in (0.1, 1.0, 10.0):
        z, _ = random_walk(50)(R32, budget32, None, np.random.default_rng(1))
        assert R32[np.arange(200), z].sum(dtype=np.float64) <= budget32
    with pytest.raises(ValueError, match="z_prev must hold 200 values"):
        random_walk()(R, budget, np.full(200, 30), np.random.default_rng(0))
    shifted = R.copy()
    shifted[7] += 0.5                                                            # row 7 has no zero: not regrets
    with pytest.raises(ValueError, match=r"R\[7\] has least value 0.5.*a zero in every row"):
        random_walk()(shifted, budget, None, np.random.default_rng(0))
    shifted[7] -= 1.0                                                            # a negative regret
    with pytest.raises(ValueError, match=r"R\[7\] has least value -0.5"):
        random_walk()(shifted, budget, None, np.random.default_rng(0))
    holed = R.copy()
    holed[4, np.argmax(R[4])] = np.nan                                           # a NaN beside the row's zero
    with pytest.raises(ValueError, match=r"R\[4\] has least value 0.0 and a NaN: .* no NaN"):
        random_walk()(holed, budget, None, np.random.default_rng(0))
    holed[4] = np.nan                                                            # a row of NaN: no warning either
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"R\[4\] has least value nan and a NaN"):
            random_walk()(holed, budget, None, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"R must be a 2-D array with at least one value per latent variable"):
        random_walk()(np.zeros((3, 0)), budget, None, np.random.default_rng(0))
