"""Bound solvers: every solver of the registry reaches the cvxpy optimum (with a true certificate where it has one) from
C = 1 to C = 10^6; the oracle's defaults, the regularizers' contract, the warm state a run carries, the registry's
errors; the sequential dual method on the models' bounds, with warm starts across latent values."""
import functools
import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from latent_mm.lssvm.group_norm import LatentStateBlocks, block_groups, toy_states
from latent_mm.lssvm import (ClassBlockBound, FixedLatentBound, LatentBinary, LatentMulticlass, LatentSSVM,
                             toy_localization)
from latent_mm.scene import RBoWModel
from latent_mm.solvers import (BCFW, SDM, SOLVERS, AutoSolver, BoundSolver, CuttingPlane, EnumeratedSSVM, GroupL2, L2,
                               Oracle, Regularizer, SDMState, SolverRun, Subgradient, bcfw, bcfw_then_cutting_plane,
                               cutting_plane, make_solver,
                               primal_objective, random_ssvm, sdm, simplex_qp, solve_cvxpy, solve_ssvm,
                               solver_options, subgradient_descent)

CS = [1.0, 1e2, 1e4, 1e6]


def toy_bound(seed, n=30, n_classes=3, n_latent=4, d=3):
    """One bound of a latent multiclass SVM (windows fixed) on toy localization data, its outputs listed: output
    (k, g) of example i puts x_ig in the weight block of class k; its loss is [k != y_i]."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2.0, size=(n_classes, d))
    y, h = np.arange(n) % n_classes, rng.integers(0, n_latent, n)
    X = rng.normal(size=(n, n_latent, d))
    X[np.arange(n), h] += means[y]
    Phi = np.zeros((n, n_classes, n_latent, n_classes, d))
    for k in range(n_classes):
        Phi[:, k, :, k] = X
    Delta = np.repeat((np.arange(n_classes)[None] != y[:, None]).astype(float), n_latent, axis=1)
    return EnumeratedSSVM(Phi.reshape(n, n_classes * n_latent, -1), Delta, y * n_latent + h)


REGULARIZERS = {"L2": L2(), "group, ridge 1": GroupL2([[0, 1], [2, 3]], mu=0.3),
                "group, ridge 0.5": GroupL2([[0, 1], [2, 3]], mu=0.3, ridge=0.5),
                "group, ridge 0": GroupL2([[0, 1], [2, 3]], mu=0.3, ridge=0.0)}


@functools.lru_cache(maxsize=None)
def reference(seed, lam, reg_name, weighted):
    "The problem, its weights and cvxpy's optimum P*."
    problem = random_ssvm(n=25, n_outputs=5, n_features=4, random_state=seed)
    s = np.random.default_rng(seed).uniform(0, 2, 25) if weighted else None
    s = None if s is None else np.where(np.arange(25) % 7 == 0, 0.0, s)     # some examples removed
    reg = REGULARIZERS[reg_name]
    return problem, s, primal_objective(problem, solve_cvxpy(problem, lam, sample_weight=s, regularizer=reg), lam, s, reg)


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("reg_name", list(REGULARIZERS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed,lam", [(0, 1.0), (1, 0.1)])
def test_every_solver_agrees_with_cvxpy(name, reg_name, weighted, seed, lam):
    """At tol 1e-4: the certified solvers reach P* within their certificate, which is a true lower bound; the
    subgradient method within 1e-3 of P* with a ridge and 1e-2 without (stated, looser margins), its bound (6) a true
    lower bound too where R is strongly convex; the dual solvers refuse the plain group norm (ridge 0)."""
    problem, s, P_ref = reference(seed, lam, reg_name, weighted)
    reg = REGULARIZERS[reg_name]
    solver = make_solver(name, tol=1e-4, max_passes=5000)
    if reg_name == "group, ridge 0" and name != "subgradient":
        with pytest.raises(ValueError, match=r"ridge=0.0: \w+ needs ridge > 0"):
            solver.solve(problem, lam, reg, s, random_state=np.random.default_rng(seed))
        return
    res = solver.solve(problem, lam, reg, s, random_state=np.random.default_rng(seed))
    assert P_ref * (1 - 1e-6) <= res.primal
    np.testing.assert_allclose(primal_objective(problem, res.w, lam, s, reg), res.primal, rtol=1e-12)
    if name == "subgradient":                                     # certified only if (6) says so; a true bound
        assert res.state is None and res.converged == bool(res.gap <= 1e-4 * res.primal)
        assert np.isnan(res.gap) if reg.strong_convexity == 0 else res.dual <= P_ref * (1 + 1e-7)
        assert res.primal <= P_ref * (1 + (1e-2 if reg_name == "group, ridge 0" else 1e-3))
    else:
        assert res.converged and -1e-12 <= res.gap <= 1e-4 * res.primal
        assert res.dual <= P_ref * (1 + 1e-7)                     # the certificate is a true lower bound
        assert res.primal - P_ref <= 1e-4 * P_ref


@pytest.mark.parametrize("C", CS)
@pytest.mark.parametrize("seed", range(2))
def test_cutting_plane_auto_and_sdm_agree_with_cvxpy_at_large_C(C, seed):
    problem = toy_bound(seed)
    s = np.random.default_rng(seed).uniform(0.5, 2, problem.n_samples)
    P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C, sample_weight=s), 1 / C, s)
    for name in ("cutting-plane", "auto", "sdm"):
        res = make_solver(name, tol=1e-6).solve(problem, 1 / C, sample_weight=s, random_state=np.random.default_rng(0))
        assert res.converged and res.gap <= 1e-6 * res.primal
        assert res.dual <= P_ref + 1e-7 * P_ref                 # the certificate is a true lower bound
        assert abs(res.primal - P_ref) <= 1e-5 * P_ref
        np.testing.assert_allclose(primal_objective(problem, res.w, 1 / C, s), res.primal, rtol=1e-12)


@pytest.mark.parametrize("C", [1.0, 1e2])
def test_bcfw_agrees_where_it_is_fast(C):
    problem = toy_bound(0)
    res = bcfw(problem, 1 / C, tol=1e-5, max_passes=5000, random_state=0)
    P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C), 1 / C)
    assert res.converged and abs(res.primal - P_ref) <= 1e-4 * P_ref


def test_group_norm_cutting_plane():
    problem = random_ssvm(n=20, n_outputs=4, n_features=4, random_state=3)
    for reg in (GroupL2([[0, 1], [2, 3]], mu=0.3), GroupL2([[0, 1], [2, 3]], mu=0.3, ridge=2.0)):
        for C in (1.0, 1e4):
            res = cutting_plane(problem, 1 / C, regularizer=reg, tol=1e-6)
            P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C, regularizer=reg), 1 / C, None, reg)
            assert res.converged and abs(res.primal - P_ref) <= 1e-5 * P_ref


@pytest.mark.parametrize("ridge", [0.25, 4.0])
def test_bcfw_step_scales_with_the_ridge(ridge):
    "A pure ridge r (mu = 0) at lam is 1/2 ||w||^2 at lam * r: BCFW takes the same steps (up to rounding)."
    problem = random_ssvm(n=30, n_outputs=5, n_features=4, random_state=0)
    ridged = bcfw(problem, 0.05, regularizer=GroupL2([[0, 1], [2, 3]], mu=0.0, ridge=ridge), tol=1e-6,
                  max_passes=300, random_state=0, warn=False)
    plain = bcfw(problem, 0.05 * ridge, tol=1e-6, max_passes=300, random_state=0, warn=False)
    assert ridged.n_passes == plain.n_passes
    np.testing.assert_allclose(ridged.w, plain.w, rtol=1e-9, atol=1e-12)


def test_uncertified_solve_warns_and_the_object_does_not():
    problem = toy_bound(1)
    with pytest.warns(ConvergenceWarning, match="max_passes=3"):
        res = solve_ssvm(problem, 1e-6, tol=1e-9, max_passes=3)
    assert not res.converged
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        again = AutoSolver(tol=1e-9, max_passes=3).solve(problem, 1e-6, random_state=np.random.default_rng(0))
    assert not again.converged


def test_simplex_qp_singular_and_large_C():
    rng = np.random.default_rng(0)
    A = np.vstack([np.zeros(3), rng.normal(size=(20, 3))])
    A[4] = A[2]
    G, b = A @ A.T, np.r_[0.0, rng.uniform(0, 1, 20)]
    for C in (1.0, 1e6):
        u, _ = simplex_qp(G, b, C)
        g = G @ u - b
        on = u > 0
        assert np.all(u >= 0) and abs(u.sum() - C) <= 1e-9 * C
        assert np.ptp(g[on]) <= 1e-8 * max(1.0, np.abs(g).max())          # KKT: equal gradients on the face
        assert np.all(g[~on] >= g[on].min() - 1e-8 * max(1.0, np.abs(g).max()))


def test_warm_started_cutting_plane_adds_no_duplicate_cut():
    "A state last solved by the cutting-plane method already holds its dual point: chained solves add no copy."
    problem = random_ssvm(n=30, n_outputs=5, n_features=6, random_state=0)
    state = None
    for lam in (1.0, 0.5, 0.25, 0.125):
        state = cutting_plane(problem, lam, tol=1e-6, warm=state, warn=False).state
        Q = state.cuts.Q
        assert len(np.unique(Q.round(12), axis=0)) == len(Q), f"{len(Q) - len(np.unique(Q, axis=0))} duplicate cuts"


def test_auto_takes_the_dual_method_for_the_elastic_form():
    "'auto' is the sequential dual method for L2 and a group norm with a ridge; the earlier rule keeps BCFW for the group norm."
    problem = random_ssvm(n=40, n_outputs=5, n_features=6, random_state=0)
    plain = AutoSolver(tol=1e-4, max_passes=200).solve(problem, 1e-3, random_state=np.random.default_rng(0))
    D = len(plain.w)
    R = GroupL2([np.arange(D // 2), np.arange(D // 2, D)], 0.1)
    grouped = AutoSolver(tol=1e-4, max_passes=200).solve(problem, 1e-3, R, random_state=np.random.default_rng(0))
    assert plain.solver == "sdm" and grouped.solver == "sdm" and plain.converged and grouped.converged
    earlier = make_solver("bcfw+cutting-plane", tol=1e-4, max_passes=200)
    assert earlier.solve(problem, 1e-3, random_state=np.random.default_rng(0)).solver == "bcfw+cutting-plane"
    # the cutting-plane method would solve every restricted dual of a group norm with cvxpy: BCFW alone
    assert earlier.solve(problem, 1e-3, R, random_state=np.random.default_rng(0)).solver == "bcfw"


class Listed(Oracle):
    "An oracle with the required methods only: the contract's defaults do the rest."

    def __init__(self, problem):
        self.problem, self.n_samples, self.n_features = problem, problem.n_samples, problem.n_features

    def positive_features(self): return self.problem.positive_features()
    def max_augmented(self, w): return self.problem.max_augmented(w)
    def loss_augmented(self, w, i): return self.problem.loss_augmented(w, i)


@pytest.mark.parametrize("seed", range(5))
def test_oracle_defaults_equal_brute_force(seed):
    problem = toy_bound(seed, n=12)
    rng = np.random.default_rng(seed)
    w, s = rng.normal(size=problem.n_features), rng.uniform(0, 2, 12) * (rng.random(12) < 0.7)
    hinge, G = Listed(problem).hinge_and_subgradient(w, s)
    phi_sum, L_sum = Listed(problem).loss_augmented_sum(w, s)
    pos = problem.positive_features()
    G_brute, phi_brute, L_brute = np.zeros(problem.n_features), np.zeros(problem.n_features), 0.0
    for i in range(12):
        Phi, L = problem.enumerate(i)
        j = np.argmax(Phi @ w + L)
        np.testing.assert_allclose(hinge[i], max(0.0, (Phi @ w + L)[j] - pos[i] @ w), atol=1e-12)
        phi_brute += s[i] * Phi[j]
        L_brute += s[i] * L[j]
        if hinge[i] > 0:
            G_brute += s[i] * (Phi[j] - pos[i]) / 12
    np.testing.assert_allclose(G, G_brute, atol=1e-12)
    np.testing.assert_allclose(phi_sum, phi_brute, atol=1e-12)
    np.testing.assert_allclose(L_sum, L_brute)
    for a, b in zip(problem.hinge_and_subgradient(w, s), (hinge, G)):       # the vectorised overrides agree
        np.testing.assert_allclose(a, b, atol=1e-12)
    res = cutting_plane(Listed(problem), 0.1, tol=1e-6)                       # a solver needs nothing more
    np.testing.assert_allclose(res.primal, cutting_plane(problem, 0.1, tol=1e-6).primal, rtol=1e-6)


def algorithm_1(oracle, C, groups, mu, ridge, s, w0, tol, max_steps):
    """Chen et al.'s Algorithm 1 as written: subgradient steps on Omega(w) + C/n sum_i s_i xi_i(w), step 1/(eta + 1)
    with eta the increases so far, the group norms taken group by group; returns the best point and the steps."""
    n = oracle.n_samples

    def omega(w): return 0.5 * ridge * float(w @ w) + float(mu @ np.array([np.linalg.norm(w[g]) for g in groups]))

    def omega_subgradient(w):
        g = ridge * np.asarray(w, float)
        for m, idx in zip(mu, groups):
            norm = np.linalg.norm(w[idx])
            if norm > 0:
                g[idx] += m * w[idx] / norm
        return g

    def value_and_step(w):
        hinge, G = oracle.hinge_and_subgradient(w, s)
        return omega(w) + C * float(s @ hinge) / n, omega_subgradient(w) + C * G

    w = np.array(w0, dtype=float)
    L, grad = value_and_step(w)
    best_w, best_L, eta = w, L, 0
    for step in range(1, max_steps + 1):
        w = w - grad / (eta + 1)
        L_new, grad = value_and_step(w)
        eta += L_new > L
        if L_new < best_L:
            best_w, best_L = w, L_new
        if abs(L_new - L) <= tol * abs(L):
            break
        L = L_new
    return best_w, step


@pytest.mark.parametrize("C,ridge", [(2.0, 1.0), (10.0, 0.0), (0.5, 0.7)])
def test_subgradient_steps_are_algorithm_1(C, ridge):
    "The same iterates, bit for bit, as Algorithm 1 on the paper's scale (for C with 1/(1/C) == C)."
    problem = toy_bound(2, n=20)
    rng = np.random.default_rng(0)
    groups = [np.arange(k * 3, k * 3 + 3) for k in range(3)]
    mu, s, w0 = rng.uniform(0, 0.5, 3), rng.uniform(0, 2, 20), rng.normal(size=9)
    w_ref, steps = algorithm_1(problem, C, groups, mu, ridge, s, w0, 1e-7, 3000)
    res = Subgradient(tol=1e-7, max_passes=3000).solve(problem, 1 / C, GroupL2(groups, mu, ridge), s, w_prev=w0)
    assert res.n_passes == steps and np.array_equal(res.w, w_ref)
    direct = subgradient_descent(problem, 1 / C, regularizer=GroupL2(groups, mu, ridge), sample_weight=s, w_prev=w0,
                                 tol=1e-7, max_passes=3000, warn=False)
    assert np.array_equal(direct.w, w_ref)


@pytest.mark.parametrize("name", ["bcfw", "cutting-plane", "auto", "sdm"])
def test_solver_run_carries_the_warm_state(name):
    "A run's second bound (five latent values moved) starts from the first's state: fewer passes than from cold."
    problem = random_ssvm(n=40, n_outputs=6, n_features=5, random_state=1)
    problem.Delta[:, 1] = 0.0                                  # outputs 0 and 1: the right label, two latent values
    run = SolverRun(make_solver(name, tol=1e-4, max_passes=5000), random_state=0)
    assert run.first is None and run.last is None and run.warm is None and run.n_solves == 0
    one = run.solve(problem, 0.01)
    moved = EnumeratedSSVM(problem.Phi, problem.Delta, problem.truth.copy())
    moved.truth[:5] = 1
    two = run.solve(moved, 0.01, w_prev=one.w)
    cold = make_solver(name, tol=1e-4, max_passes=5000).solve(moved, 0.01, random_state=np.random.default_rng(0))
    assert two.converged and two.n_passes < cold.n_passes
    assert abs(two.primal - cold.primal) <= 1e-4 * cold.primal
    assert run.first is one and run.last is two and run.warm is two.state and run.n_solves == 2
    assert run.unconverged == []


def test_solver_run_logs_uncertified_solves():
    problem = toy_bound(0)
    run = SolverRun("bcfw", random_state=np.random.default_rng(0))
    assert isinstance(run.solver, BCFW) and run.solver.max_passes == 200
    run = SolverRun(BCFW(tol=1e-9, max_passes=3), random_state=0)
    results = [run.solve(problem, lam) for lam in (1e-3, 1e-4)]
    assert run.unconverged == [(3, r.gap / r.primal) for r in results] and run.n_solves == 2
    assert run.first is results[0] and run.last is results[1]
    sub = SolverRun(Subgradient(tol=1e-12, max_passes=4))
    res = sub.solve(problem, 0.1)
    assert sub.unconverged == [(4, res.gap / res.primal)] and np.isfinite(res.gap)   # the bound (6), above tol
    assert sub.warm is None and not res.converged
    plain = SolverRun(Subgradient(tol=1e-12, max_passes=4))
    plain.solve(problem, 0.1, GroupL2([[0, 1]], mu=0.3, ridge=0.0))
    assert len(plain.unconverged) == 1 and np.isnan(plain.unconverged[0][1])          # no ridge: no bound at all


def test_solver_defaults_are_the_functions():
    "Each solver's default tol and budget are those of the function it calls; make_solver passes only what is given."
    budgets = {"bcfw": (bcfw, "max_passes"), "cutting-plane": (cutting_plane, "max_passes"),
               "auto": (solve_ssvm, "max_passes"), "sdm": (sdm, "max_passes"),
               "bcfw+cutting-plane": (bcfw_then_cutting_plane, "max_passes"),
               "subgradient": (subgradient_descent, "max_passes")}
    assert set(budgets) == set(SOLVERS)
    for name, (func, budget) in budgets.items():
        params = inspect.signature(func).parameters
        solver = make_solver(name)
        assert type(solver) is SOLVERS[name] and solver.name == name
        assert (solver.tol, solver.max_passes) == (params["tol"].default, params[budget].default)
        assert make_solver(name, tol=1e-2).max_passes == params[budget].default
        assert make_solver(name, max_passes=7).tol == params["tol"].default


def test_make_solver_errors():
    rule = "must be one of 'auto', 'bcfw', 'bcfw+cutting-plane', 'cutting-plane', 'sdm', 'subgradient' or a BoundSolver"
    for bad in ("newton", "BCFW", None, 3, BCFW, ["bcfw"]):
        with pytest.raises(ValueError, match=re.escape(f"solver={bad!r} {rule}")):
            make_solver(bad)
    custom = CuttingPlane(inactive=5)
    assert make_solver(custom) is custom                           # an object keeps its own settings
    with pytest.raises(ValueError, match="tol given with the solver object"):
        make_solver(custom, tol=1e-2)
    for kw, message in [(dict(tol=-1.0), "tol=-1.0 must be a finite number >= 0"),
                        (dict(tol=np.nan), "tol=nan must be"), (dict(tol=True), "tol=True must be"),
                        (dict(max_passes=0), "max_passes=0 must be an integer >= 1"),
                        (dict(max_passes=2.0), "max_passes=2.0 must be an integer >= 1")]:
        with pytest.raises(ValueError, match=message):
            make_solver("bcfw", **kw)
    with pytest.raises(ValueError, match="inactive=0 must be an integer >= 1"):
        CuttingPlane(inactive=0)
    with pytest.raises(NotImplementedError, match="BoundSolver does not implement _solve"):
        BoundSolver().solve(toy_bound(0), 1.0)


class Seen(BoundSolver):
    "A solver that implements `_solve` only and keeps what it was given."
    name = "seen"

    def _solve(self, oracle, lam, regularizer, s, warm, *, w_prev, random_state):
        self.given = (lam, regularizer, s, warm, w_prev, random_state)
        return None


@pytest.mark.parametrize("name", list(SOLVERS) + ["seen"])
def test_solve_validates_once_for_every_solver(name):
    "`BoundSolver.solve` checks lam, the weights and renamed keywords for every solver, with the same messages."
    problem = toy_bound(0, n=10)
    solver = Seen() if name == "seen" else make_solver(name)
    where = type(solver).__name__
    bad = [(dict(lam=0.0), ValueError, "lam=0.0 must be a finite number > 0 (lambda = 1/C"),
           (dict(lam=np.inf), ValueError, "lam=inf must be a finite number > 0"),
           (dict(lam=1.0, sample_weight=np.ones(3)), ValueError, "sample_weight has shape (3,); it must be (10,)"),
           (dict(lam=1.0, sample_weight=-np.ones(10)), ValueError, "sample_weight[0]=-1.0 must be finite and >= 0"),
           (dict(lam=1.0, rng=0), TypeError, f"{where}.solve: rng= is now random_state=; write random_state=0"),
           (dict(lam=1.0, seed=0), TypeError, f"{where}.solve got unexpected keyword arguments ['seed']")]
    for kw, error, message in bad:
        with pytest.raises(error, match=re.escape(message)):
            solver.solve(problem, **kw)
    assert list(inspect.signature(type(solver).solve).parameters) == ["self", "oracle", "lam", "regularizer",
                                                                     "sample_weight", "warm", "w_prev",
                                                                     "random_state", "old"]
    assert type(solver).solve is BoundSolver.solve                      # one template; subclasses implement `_solve`
    if name == "seen":
        solver.solve(problem, 2, w_prev=None, random_state=3)
        lam, reg, s, warm, w_prev, random_state = solver.given
        assert type(lam) is float and lam == 2.0 and isinstance(reg, L2) and np.array_equal(s, np.ones(10))
        assert (warm, w_prev, random_state) == (None, None, 3)


def test_group_l2_contract():
    rng = np.random.default_rng(0)
    groups = [[0, 1, 2], [5, 3], [7]]
    for ridge in (1.0, 0.4):
        reg = GroupL2(groups, mu=[0.5, 1.0, 0.2], ridge=ridge)
        assert reg.strong_convexity == ridge and not reg.exact_line_search
        for v in rng.normal(size=(10, 8)) * 2:
            w = reg.prox(v)
            np.testing.assert_allclose(reg.value(w) + reg.conjugate(v), w @ v)     # Fenchel-Young equality
            for _ in range(5):                                                      # w maximises v.w - R(w)
                u = w + 1e-3 * rng.normal(size=8)
                assert v @ u - reg.value(u) <= v @ w - reg.value(w) + 1e-12
    plain = GroupL2(groups, mu=0.5, ridge=0)
    assert plain.ridge == 0.0 and np.isclose(plain.value(np.ones(8)), 0.5 * (np.sqrt(3) + np.sqrt(2) + 1))
    for method in ("prox", "conjugate"):
        with pytest.raises(ValueError, match=f"ridge=0.0: {method} needs ridge > 0"):
            getattr(plain, method)(np.ones(8))
    for kw, message in [(dict(groups=[[0, 1], [1]]), "groups overlap: weight 1 is in 2 groups"),
                        (dict(groups=[[0.0, 1.0]]), "groups\\[0\\]=\\[0.0, 1.0\\] must be a 1-D array of integer"),
                        (dict(groups=[[0], [-2]]), "groups\\[1\\] has index -2 outside"),
                        (dict(groups=[[0], [1]], mu=[1.0]), "mu has shape \\(1,\\): it must be a scalar or one weight "
                                                             "per group, \\(2,\\)"),
                        (dict(groups=[[0]], mu=np.inf), "mu=inf must be finite and >= 0"),
                        (dict(groups=[[0]], ridge=-0.5), "ridge=-0.5 must be a finite number >= 0"),
                        (dict(groups=[[0]], ridge="1"), "ridge='1' must be a finite number >= 0")]:
        with pytest.raises(ValueError, match=message):
            GroupL2(**kw)


def certified(res, P_ref, tol):
    "A certified solve: converged, gap <= tol P(w), the dual a true lower bound, P within the certificate of P*."
    assert res.converged and -1e-12 <= res.gap <= tol * res.primal
    assert res.dual <= P_ref * (1 + 1e-7) + 1e-12
    assert res.primal - P_ref <= tol * P_ref + 1e-12


@pytest.mark.parametrize("ridge", [0.5, 3.0])
@pytest.mark.parametrize("C", [1.0, 1e3])
def test_sdm_ridge_and_features_outside_the_groups(ridge, C):
    "Any ridge, weights (some 0), features 6 and 7 in no group, against cvxpy; mu = 0 is the ridge alone."
    problem = random_ssvm(n=25, n_outputs=5, n_features=8, random_state=4)
    s = np.where(np.arange(25) % 6 == 0, 0.0, np.random.default_rng(1).uniform(0.5, 2.0, 25))
    for reg in (GroupL2([np.arange(0, 3), np.arange(3, 6)], mu=[0.5, 2.0], ridge=ridge),
                GroupL2([np.arange(8)], mu=0.0, ridge=ridge)):
        res = sdm(problem, 1 / C, sample_weight=s, regularizer=reg, tol=1e-4, random_state=0)
        P_ref = primal_objective(problem, solve_cvxpy(problem, 1 / C, sample_weight=s, regularizer=reg), 1 / C, s, reg)
        certified(res, P_ref, 1e-4)
        np.testing.assert_allclose(primal_objective(problem, res.w, 1 / C, s, reg), res.primal, rtol=1e-12)


def test_sdm_refuses_what_it_cannot_solve():
    class Huber(Regularizer):
        def value(self, w): return float(np.sum(np.minimum(w ** 2, np.abs(w))))

    problem = random_ssvm(n=10, random_state=0)
    with pytest.raises(TypeError, match="regularizer=.*sdm needs R\\(w\\) = ridge/2 \\|\\|w\\|\\|\\^2"):
        sdm(problem, 1.0, regularizer=Huber())
    with pytest.raises(ValueError, match="warm has n=10, D=4; this oracle has n_samples=12"):
        sdm(random_ssvm(n=12, random_state=0), 1.0, warm=sdm(problem, 1.0).state)
    res = sdm(problem, 1.0, sample_weight=np.zeros(10))               # no example counts: w = 0
    assert res.converged and res.primal == 0.0 and not res.w.any() and res.n_passes == 0


def test_sdm_keeps_a_better_previous_point_and_is_reproducible():
    problem = random_ssvm(n=20, random_state=0)
    best = solve_cvxpy(problem, 0.1)
    res = sdm(problem, 0.1, tol=1e-2, w_prev=best, random_state=0)
    assert np.array_equal(res.w, best) or res.primal < primal_objective(problem, best, 0.1)
    assert res.primal == pytest.approx(primal_objective(problem, res.w, 0.1), rel=1e-12)
    again = [SDM(tol=1e-6).solve(problem, 1e-3, random_state=np.random.default_rng(5)).w for _ in range(2)]
    assert np.array_equal(*again)


def test_sdm_working_sets_grow_past_their_capacity():
    X, y, h = toy_localization(n=30, n_latent=12, random_state=3)
    bound = LatentMulticlass(n_classes=3).oracle(X, y, h)
    res = sdm(bound, 1e-3, tol=1e-4, capacity=2, random_state=0)
    P_ref = primal_objective(bound, solve_cvxpy(bound, 1e-3), 1e-3)
    certified(res, P_ref, 1e-4)
    assert res.state.M > 2 and res.info["capacity"] == res.state.M


def _multiclass():
    X, y, h = toy_localization(n=40, n_latent=4, random_state=1)
    return LatentMulticlass(n_classes=3).oracle(X, y, h), None


def _state_blocks():
    X, y, h = toy_states(n=40, n_latent=3, d=4, random_state=0)
    bound = LatentStateBlocks(n_classes=3, null_class=0).oracle(X, y % 3, h)
    return bound, GroupL2(block_groups(bound.n_features // 4, 4), mu=0.2)


def _scenes(filters="shared"):
    rng = np.random.default_rng(0)
    X, y, z = rng.normal(size=(12, 3, 2)), np.arange(12) % 2, rng.integers(0, 2, (12, 3))
    return RBoWModel(n_parts=2, n_classes=2, grid=(1, 3), filters=filters).oracle(X, y, z), None


def _scenes_class():
    return _scenes("class")


@pytest.mark.parametrize("make", [_multiclass, _state_blocks, _scenes, _scenes_class],
                         ids=["multiclass", "state-blocks", "rbow", "rbow-class"])
def test_sdm_on_the_models_bounds_agrees_with_bcfw(make):
    """The batched oracles (CSR rows of one block, CSR rows with empty ones for a null class, dense rows) give the
    optimum that BCFW certifies, both at tol 1e-6 (C = 20)."""
    bound, reg = make()
    s = np.random.default_rng(2).uniform(0.5, 1.5, bound.n_samples)
    res = sdm(bound, 0.05, sample_weight=s, regularizer=reg, tol=1e-6, random_state=0)
    ref = bcfw(bound, 0.05, sample_weight=s, regularizer=reg, tol=1e-6, max_passes=20_000, random_state=0)
    assert res.converged and ref.converged and res.gap <= 1e-6 * res.primal
    assert abs(res.primal - ref.primal) <= 1e-6 * ref.primal
    assert res.dual <= ref.primal * (1 + 1e-9) and ref.dual <= res.primal * (1 + 1e-9)


@pytest.mark.parametrize("name", sorted(set(SOLVERS) - {"subgradient"}))
@pytest.mark.parametrize("filters", ["shared", "class"])
def test_certified_solvers_on_the_scene_bound_agree_with_cvxpy(name, filters):
    """Both readings of the scene model (part filters shared by the classes, or one set per class): every certified
    solver reaches cvxpy's optimum within its certificate at tol 1e-4."""
    bound, _ = _scenes(filters)
    P_ref = primal_objective(bound, solve_cvxpy(bound, 0.05), 0.05)
    res = make_solver(name, tol=1e-4, max_passes=5000).solve(bound, 0.05, random_state=np.random.default_rng(0))
    certified(res, P_ref, 1e-4)


def test_sdm_warm_starts_across_latent_values_and_weights():
    """A CCCP step: the next bound (latent completion at the first solution) warm-started from the first state takes
    fewer oracle rounds than cold to the same optimum (cvxpy's); then other weights (some 0); the first state is left
    as it was."""
    X, y, _ = toy_localization(n=60, n_latent=6, random_state=2)
    model = LatentMulticlass(n_classes=3)
    first = sdm(model.oracle(X, y, np.zeros(60, int)), 1e-2, tol=1e-4, random_state=0)
    kept = first.state.copy()
    z = model.latent(X, y, first.w)
    assert (z != 0).sum() > 20
    second = model.oracle(X, y, z)
    cold = sdm(second, 1e-2, tol=1e-4, random_state=0)
    warm = sdm(second, 1e-2, tol=1e-4, warm=first.state, w_prev=first.w, random_state=0)
    assert isinstance(warm.state, SDMState) and warm.n_passes < cold.n_passes
    certified(warm, primal_objective(second, solve_cvxpy(second, 1e-2), 1e-2), 1e-4)
    s = (np.arange(60) % 3 != 0).astype(float)
    again = sdm(second, 1e-2, sample_weight=s, tol=1e-4, warm=warm.state, random_state=0)
    certified(again, primal_objective(second, solve_cvxpy(second, 1e-2, sample_weight=s), 1e-2, s), 1e-4)
    for name in ("alpha", "ws", "cnt", "pidx", "pval"):
        assert np.array_equal(getattr(first.state, name), getattr(kept, name))
    assert np.allclose(first.state.alpha.sum(1), 1.0)


@pytest.mark.parametrize("make", ["multiclass", "binary", "state blocks", "state blocks, null class"])
def test_class_block_oracle_is_the_generic_oracle(make):
    "`ClassBlockBound.loss_augmented` returns what the contract's oracle returns, ties (w = 0, integer w) included."
    X, y, h = toy_localization(n=30, random_state=1)
    model = {"multiclass": LatentMulticlass(n_classes=3), "binary": LatentBinary(),
             "state blocks": LatentStateBlocks(n_classes=3), "state blocks, null class": LatentStateBlocks(3, 0)}[make]
    if make == "binary":
        y = (y > 0).astype(np.int64)
        h = np.where(y == 1, h, 0)
    fast, generic = ClassBlockBound(model, X, y, h), FixedLatentBound(model, X, y, h)
    rng = np.random.default_rng(0)
    for w in (np.zeros(fast.n_features), np.round(rng.normal(size=fast.n_features)), rng.normal(size=fast.n_features)):
        for i in range(len(y)):
            a, b = fast.loss_augmented(w, i), generic.loss_augmented(w, i)
            assert np.array_equal(a.phi, b.phi) and a.loss == b.loss and type(a.loss) is float
            y_hat, h_hat = model.loss_augmented_inference(X[i:i + 1], y[i:i + 1], w)
            assert a.key == int(h_hat[0]) * model.n_classes + int(y_hat[0])


def test_sdm_options_are_checked_and_shown():
    "Every option of `SDM` is checked by the shared rules (the message names it, its value and the rule) and in its repr."
    options = solver_options("sdm")
    assert set(options) == {"cg_iter", "max_age", "max_inner", "inner_ratio", "cg_rtol", "cg_every", "max_smo",
                            "rounds", "capacity"}
    defaults = {k: p.default for k, p in inspect.signature(SDM).parameters.items()}
    text = repr(SDM())
    assert text.startswith("SDM(tol=0.0001, max_passes=1000, ")
    for k in options:
        assert f"{k}={defaults[k]!r}" in text
    changed = SDM(inner_ratio=0.25, capacity=16, rounds=1)
    assert "inner_ratio=0.25" in repr(changed) and "capacity=16" in repr(changed) and "rounds=1" in repr(changed)
    counts = {"cg_iter": 0, "max_age": 0, "max_inner": 1, "cg_every": 1, "max_smo": 1, "rounds": 1, "capacity": 1}
    for k, low in counts.items():
        for bad in (low - 1, 2.5, True, "3", None):
            with pytest.raises(ValueError, match=re.escape(f"{k}={bad!r} must be an integer >= {low}")):
                SDM(**{k: bad})
        assert getattr(SDM(**{k: np.int64(low)}), k) == low
    for k, bad, rule in [("inner_ratio", -0.5, "a finite number >= 0"), ("inner_ratio", np.nan, "a finite number >= 0"),
                         ("cg_rtol", 1.5, "a finite number >= 0 and <= 1"), ("cg_rtol", -1e-3, "a finite number >= 0"),
                         ("cg_rtol", "0.1", "a finite number >= 0")]:
        with pytest.raises(ValueError, match=re.escape(f"{k}={bad!r} must be {rule}")):
            SDM(**{k: bad})


def test_subgradient_reports_no_success_it_did_not_certify():
    "At C = 100 on the toy localization data the subgradient fit ends far above the certified optimum: it says so."
    X, y, h = toy_localization(n=60, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sub = LatentSSVM(C=100, solver="subgradient", random_state=0).fit(X, y, h0=h)
    certified = LatentSSVM(C=100, random_state=0).fit(X, y, h0=h)
    assert certified.converged_ and sub.objective_ > certified.objective_ + 0.05
    assert not sub.converged_ and any(issubclass(c.category, ConvergenceWarning) for c in caught)
    first = sub.run_.first                                   # the bound (6) holds: P(w) - P* <= gap, so dual <= P*
    oracle = LatentMulticlass(n_classes=3).oracle(X, y, h)
    P_star = primal_objective(oracle, solve_cvxpy(oracle, 1e-2), 1e-2)
    assert np.isfinite(first.gap) and first.dual <= P_star * (1 + 1e-6) and first.gap > 1e-3 * first.primal
    with pytest.warns(ConvergenceWarning, match=r"without a certificate: its bound \(6\) on P\(w\) - P\*"):
        subgradient_descent(oracle, 1e-2)
    with pytest.warns(ConvergenceWarning, match="without a certificate: R is not strongly convex"):
        plain = subgradient_descent(oracle, 1e-2, regularizer=GroupL2(block_groups(3, 5), mu=0.1, ridge=0.0))
    assert np.isnan(plain.gap) and np.isnan(plain.dual) and not plain.converged
