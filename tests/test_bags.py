"""Bags of any size: the container, the models and estimators on bags against a padded reference and brute force,
the errors, and the memory of a fit on Musk2-shaped data."""
import itertools
import tracemalloc
import warnings

import numpy as np
import pytest

from latent_mm.lssvm import (Bags, GroupNormSSVM, LatentBinary, LatentMulticlass, LatentSSVM, LatentSSVMProblem, MultipleInstance,
                             SelfPacedSSVM, check_latent_data, check_model, toy_bags)
from latent_mm.lssvm.bias import multifold_mil
from latent_mm.lssvm.criteria import Entropy, slack
from latent_mm.theory import check_trace


def _ragged(n=12, max_size=5, d=3, random_state=0):
    rng = np.random.default_rng(random_state)
    return [rng.normal(size=(int(m), d)) for m in rng.integers(1, max_size + 1, n)]


def _pad(bags):
    "The padded 3-D reference: every bag padded to the longest with zero rows; the last feature flags padding."
    L, d = max(len(b) for b in bags), bags[0].shape[1]
    X = np.zeros((len(bags), L, d + 1))
    X[:, :, -1] = 1.0
    for i, b in enumerate(bags):
        X[i, :len(b), :d], X[i, :len(b), -1] = b, 0.0
    return X


class PaddedMI(MultipleInstance):
    "MI-SVM on padded bags: the flag feature is dropped, a padding row scores -inf."
    def coef_shape(self, X): return (1, np.shape(X)[-1])

    def feature_rows(self, X, y, h): return super().feature_rows(np.asarray(X, float)[..., :-1], y, h)

    def scores(self, X, w):
        X = np.asarray(X, float)
        S = super().scores(X[..., :-1], w)
        S[:, :, 1] = np.where(X[..., -1] == 1, -np.inf, S[:, :, 1])
        return S


class PaddedMulticlass(LatentMulticlass):
    "The class-block model on padded bags: the flag feature is dropped, a padding row scores -inf for every class."
    def coef_shape(self, X): return (self.n_classes, np.shape(X)[-1] - 1)

    def feature_rows(self, X, y, h): return super().feature_rows(np.asarray(X, float)[..., :-1], y, h)

    def scores(self, X, w):
        X = np.asarray(X, float)
        return np.where(X[..., -1:] == 1, -np.inf, super().scores(X[..., :-1], w))


# ---------------------------------------------------------------- the container

def test_bags_index_like_the_list():
    parts = _ragged(n=9, max_size=6)
    B = Bags.from_list(parts)
    assert len(B) == 9 and B.shape == (9, max(len(p) for p in parts), 3) and B.ndim == 3
    assert B.n_latent.tolist() == [len(p) for p in parts] and B.rows.shape == (sum(map(len, parts)), 3)
    for i in (0, 4, -1):
        np.testing.assert_array_equal(B[i], parts[i])
    for key in (slice(2, 7), slice(None, None, -2), slice(5, 2), np.array([8, 0, 0, 3]), np.arange(9) % 3 == 0):
        sub, want = B[key], (list(np.array(parts, dtype=object)[key]) if not isinstance(key, slice) else parts[key])
        assert len(sub) == len(want)
        for a, b in zip([sub[k] for k in range(len(sub))], want):
            np.testing.assert_array_equal(a, b)
    h = np.array([len(p) - 1 for p in parts])
    np.testing.assert_array_equal(B[np.arange(9), h], np.stack([p[-1] for p in parts]))
    with pytest.raises(IndexError, match="out of range for bag"):
        B[np.arange(9), h + 1]
    P = B.pad(B.rows[:, 1])
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(P[i, :len(p)], p[:, 1])
        assert np.all(np.isneginf(P[i, len(p):]))
    np.testing.assert_allclose(B.mean(), np.stack([p.mean(0) for p in parts]))


def test_equal_sizes_stay_the_3d_array():
    X = np.random.default_rng(0).normal(size=(6, 4, 3))
    Xc, _, _ = check_latent_data(list(X))
    assert isinstance(Xc, np.ndarray) and Xc.shape == (6, 4, 3)
    Xb, _, _ = check_latent_data(_ragged())
    assert isinstance(Xb, Bags)


def test_bags_of_one_size_fit_as_the_3d_array():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 4, 3)), np.arange(30) % 3
    X[np.arange(30), rng.integers(0, 4, 30)] += 2.0 * np.eye(3)[y]
    a = LatentSSVM(LatentMulticlass(), C=2.0, random_state=0).fit(X, y)
    b = LatentSSVM(LatentMulticlass(), C=2.0, random_state=0).fit(Bags.from_list(list(X)), y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.latent_, b.latent_)


# ---------------------------------------------------------------- against the padded reference

@pytest.mark.parametrize("model, padded", [(MultipleInstance, PaddedMI), (lambda: LatentMulticlass(3),
                                                                            lambda: PaddedMulticlass(3))])
def test_problem_terms_match_the_padded_reference(model, padded):
    bags = _ragged(n=15, max_size=6)
    y = np.arange(15) % (2 if model is MultipleInstance else 3)
    X, _, _ = check_latent_data(bags, y)
    p, q = LatentSSVMProblem(model(), X, y, C=3.0), LatentSSVMProblem(padded(), _pad(bags), y, C=3.0)
    rng = np.random.default_rng(1)
    for _ in range(3):
        w = rng.normal(size=p.model.size_joint_feature(X))
        np.testing.assert_allclose(p.objective(w), q.objective(w), rtol=1e-12)
        np.testing.assert_allclose(p.regrets(w), q.regrets(w), rtol=1e-12)
        z = p.regrets(w).argmin(1)
        np.testing.assert_allclose(p.bound(z, w), q.bound(z, w), rtol=1e-12)
        for crit in (slack, Entropy()):
            np.testing.assert_allclose(crit(p, w, z), crit(q, w, z), rtol=1e-12)
        yp, hp = p.model.loss_augmented_inference(X, y, w)
        yq, hq = q.model.loss_augmented_inference(q.X, y, w)
        np.testing.assert_array_equal(yp, yq), np.testing.assert_array_equal(hp, hq)


@pytest.mark.parametrize("model, padded", [(MultipleInstance, PaddedMI), (lambda: LatentMulticlass(3),
                                                                            lambda: PaddedMulticlass(3))])
def test_fit_matches_the_padded_reference(model, padded):
    if model is MultipleInstance:
        bags, y, _ = toy_bags(n=40, random_state=2)
    else:
        bags, y = _ragged(n=45, max_size=6, random_state=2), np.arange(45) % 3
        for i, b in enumerate(bags):
            b[len(b) // 2] += 2.0 * np.eye(3)[y[i]]
    a = LatentSSVM(model(), C=5.0, tol=1e-6, random_state=0).fit(bags, y)
    b = LatentSSVM(padded(), C=5.0, tol=1e-6, random_state=0).fit(_pad(bags), y)
    np.testing.assert_array_equal(a.latent_, b.latent_)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)
    np.testing.assert_array_equal(a.predict(bags), b.predict(_pad(bags)))


def test_multifold_bias_when_a_fold_lacks_the_longest_bag():
    "The bias's scores on bags whose longest bag sits in one fold equal the padded reference's, and a fit runs."
    bags, y, _ = toy_bags(n=40, random_state=3)
    bags[0] = np.vstack([bags[0]] + [bags[0][-1:] + 0.01 * k for k in range(1, 20)])   # one bag far longest
    X, _, _ = check_latent_data(bags, y)
    assert np.sum(X.n_latent == X.n_latent.max()) == 1
    scores = []
    for model, data in ((MultipleInstance(), bags), (PaddedMI(), _pad(bags))):
        est = LatentSSVM(model, C=5.0, bound="biased", bias=multifold_mil(n_folds=4, random_state=0), eta=0.5,
                         max_iter=3, random_state=0).fit(data, y)
        problem, rng = est.problem_, np.random.default_rng(0)
        w = est.coef_.ravel()
        R = problem.regrets(w)
        scores.append((R, multifold_mil(n_folds=4, random_state=0).start(problem, rng).scores(R, None, rng)))
        check_trace(est.result_, eta=0.5)
    (R, G), (Rp, Gp) = scores
    real = np.isfinite(R)
    np.testing.assert_array_equal(real, np.isfinite(Rp))
    assert np.all(np.isfinite(G[real])) and np.all(G[~real] == -np.inf)
    np.testing.assert_allclose(G[real], Gp[real], rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------- against brute force

@pytest.mark.parametrize("model", [MultipleInstance, LatentBinary, lambda: LatentMulticlass(3)])
def test_objective_and_inference_against_brute_force(model):
    bags = _ragged(n=6, max_size=3, random_state=4)
    y = np.array([1, 0, 1, 1, 0, 0]) if model in (MultipleInstance, LatentBinary) else np.arange(6) % 3
    X, y, _ = check_latent_data(bags, y)
    m = model()
    problem = LatentSSVMProblem(m, X, y, C=2.0)
    rng = np.random.default_rng(5)
    w = rng.normal(size=m.size_joint_feature(X))
    exists = np.isfinite(m.scores(X, np.zeros_like(w)))
    choices = [np.flatnonzero(exists[i, :, y[i]]) for i in range(len(y))]
    np.testing.assert_allclose(problem.objective(w),
                               min(problem.bound(np.array(z), w) for z in itertools.product(*choices)), rtol=1e-12)
    y_hat, h_hat = m.loss_augmented_inference(X, y, w)
    latent = m.latent(X, y, w)
    for i, b in enumerate(bags):
        outs = [(k, h) for k in range(m.n_classes) for h in range(len(b)) if exists[i, h, k]]
        val = [w @ m.joint_feature(b, k, h) + (k != y[i]) for k, h in outs]
        assert outs[int(np.argmax(val))] == (y_hat[i], h_hat[i])
        true = [w @ m.joint_feature(b, y[i], h) for h in choices[i]]
        assert choices[i][int(np.argmax(true))] == latent[i]
    oracle = m.oracle(X, y, latent)
    for i in range(len(y)):
        Phi, L = oracle.enumerate(i)
        out = oracle.loss_augmented(w, i)
        np.testing.assert_allclose(out.phi @ w + out.loss, np.max(Phi @ w + L), rtol=1e-12)


# ---------------------------------------------------------------- the estimators

def test_estimators_fit_bags_of_different_sizes():
    bags, y, witness = toy_bags(n=80, random_state=0)
    assert len({len(b) for b in bags}) > 3
    test_bags, test_y, _ = toy_bags(n=200, max_size=12, random_state=0)
    cccp = LatentSSVM(MultipleInstance(), C=10.0, random_state=0).fit(bags, y)
    check_trace(cccp.result_, eta=1.0)
    spl = SelfPacedSSVM(MultipleInstance(), C=10.0, random_state=0).fit(bags, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = LatentSSVM(MultipleInstance(), C=10.0, bound="biased", bias=multifold_mil(n_folds=4), eta=0.5,
                        max_iter=10, random_state=0).fit(bags, y)
    check_trace(gm.result_, eta=0.5)
    for est in (cccp, spl, gm):
        assert est.coef_.shape == (1, 6) and est.score(bags, y) >= 0.9
        assert est.predict(test_bags).shape == (200,)                   # new bags, longer ones too
        assert est.decision_function(test_bags[:3]).shape == (3,)
    found = cccp.predict_latent(bags, y)
    assert np.all(found < np.array([len(b) for b in bags]))
    assert np.mean(found[y == 1] == witness[y == 1]) >= 0.9
    assert set(check_model(MultipleInstance(), bags[:12], y[:12])["skipped"]) == set()


def test_binary_model_on_bags_of_one_size_is_the_3d_model():
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(30, 5, 3)), np.arange(30) % 2
    X[np.arange(30), rng.integers(0, 5, 30)] += 2.5 * y[:, None]
    a = LatentSSVM(LatentBinary(), C=2.0, random_state=0).fit(X, y)
    b = LatentSSVM(LatentBinary(), C=2.0, random_state=0).fit(Bags.from_list(list(X)), y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    np.testing.assert_array_equal(a.latent_, b.latent_)
    ragged = [x[:2 + i % 4] for i, x in enumerate(X)]
    assert LatentSSVM(LatentBinary(), C=2.0, random_state=0).fit(ragged, y).score(ragged, y) >= 0.8


def test_multiclass_fits_bags_from_the_default_start():
    bags, y = _ragged(n=60, max_size=7, random_state=6), np.arange(60) % 3
    rng = np.random.default_rng(6)
    for i, b in enumerate(bags):
        b[rng.integers(len(b))] += 3.0 * np.eye(3)[y[i]]
    est = LatentSSVM(C=5.0, random_state=0).fit(bags, y)
    assert est.score(bags, y) >= 0.9


# ---------------------------------------------------------------- errors

def test_errors_name_the_bag_and_the_rule():
    est = LatentSSVM(MultipleInstance())
    ok = [np.ones((2, 3)), np.ones((4, 3))]
    with pytest.raises(ValueError, match=r"X\[1\] has shape \(0, 3\): an empty bag"):
        est.fit([ok[0], np.ones((0, 3))], [1, 0])
    with pytest.raises(ValueError, match=r"X\[1\] has shape \(4, 2\) but X\[0\] has shape \(2, 3\)"):
        est.fit([ok[0], np.ones((4, 2))], [1, 0])
    with pytest.raises(ValueError, match=r"X\[1\] has shape \(4,\)"):
        est.fit([ok[0], np.ones(4)], [1, 0])
    with pytest.raises(ValueError, match=r"NaN or infinite feature\(s\) \(first in example 1, row 2\)"):
        est.fit([ok[0], np.where(np.arange(4)[:, None] == 2, np.nan, ok[1])], [1, 0])
    with pytest.raises(ValueError, match=r"h0\[0\]=2 is out of range for bag 0 of 2 latent values"):
        LatentSSVM().fit(ok, [1, 0], h0=np.array([2, 0]))
    with pytest.raises(ValueError, match="offsets run from 0 to 5"):
        check_latent_data(Bags(np.ones((6, 3)), [0, 2, 5]))
    with pytest.raises(ValueError, match=r"X\[1\] has shape \(0, 3\)"):
        check_latent_data(Bags(np.ones((6, 3)), [0, 2, 2, 6]))
    with pytest.raises(ValueError, match="one weight block per \\(class, latent state\\)"):
        GroupNormSSVM().fit(ok, [1, 0])
    with pytest.raises(ValueError, match="MultipleInstance is binary"):
        MultipleInstance().with_n_classes(3)


# ---------------------------------------------------------------- memory

def musk2_shaped(random_state=0):
    "102 bags of 1 to 1044 instances (6598 in all) of 166 features, half positive with one witness each."
    rng = np.random.default_rng(random_state)
    sizes = np.round(np.exp(rng.uniform(0, np.log(1044), 102))).astype(int)
    sizes[:2] = 1, 1044
    s = np.maximum(np.floor(sizes[2:] * ((6598 - 1045) / sizes[2:].sum())).astype(int), 1)
    s[np.argmax(s)] += 6598 - 1045 - s.sum()
    sizes[2:] = s
    y = np.arange(102) % 2
    concept = rng.normal(size=166)
    concept *= 4 / np.linalg.norm(concept)
    bags = [rng.normal(size=(m, 166)) for m in sizes]
    for i in np.flatnonzero(y == 1):
        bags[i][rng.integers(len(bags[i]))] += concept
    return bags, y


def test_memory_of_a_musk2_shaped_fit():
    bags, y = musk2_shaped()
    assert sum(map(len, bags)) == 6598 and max(map(len, bags)) == 1044 and min(map(len, bags)) == 1
    instances = sum(b.nbytes for b in bags)
    LatentSSVM(MultipleInstance(), random_state=0, max_iter=1).fit(bags[:6], y[:6])     # compile first
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            LatentSSVM(MultipleInstance(), C=1.0, random_state=0).fit(bags, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * instances, (peak, instances)        # the data's one copy as Bags plus small working arrays


# ---------------------------------------------------------------- sparse bags

def test_sparse_bags_fit_as_the_dense_ones():
    import scipy.sparse as sp
    bags, y, _ = toy_bags(n=40, random_state=3)
    bags = [np.where(np.abs(b) < 0.5, 0.0, b) for b in bags]             # sparse-ish features
    sparse = [sp.csr_matrix(b) for b in bags]
    X, _, _ = check_latent_data(sparse, y)
    assert isinstance(X, Bags) and sp.issparse(X.rows) and X.rows.nnz == sum(np.count_nonzero(b) for b in bags)
    np.testing.assert_array_equal(X[np.arange(40), np.zeros(40, int)], np.stack([b[0] for b in bags]))
    np.testing.assert_allclose(X.mean(1), np.stack([b.mean(0) for b in bags]))
    a = LatentSSVM(MultipleInstance(), C=5.0, random_state=0).fit(bags, y)
    b = LatentSSVM(MultipleInstance(), C=5.0, random_state=0).fit(sparse, y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    np.testing.assert_array_equal(a.latent_, b.latent_)
    np.testing.assert_array_equal(a.predict(bags), b.predict(sparse))
    equal = [sp.csr_matrix(b[:1]) for b in bags]                        # one shape, sparse: still bags
    assert isinstance(check_latent_data(equal)[0], Bags)
    bad = [s.copy() for s in sparse]
    bad[5].data[0] = np.nan
    with pytest.raises(ValueError, match=r"first in example 5, row"):
        check_latent_data(bad, y)
