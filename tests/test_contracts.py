"""Every model of the library, and the user-model page's, passes one shared contract check; the check can fail, and
when it does it names the method that breaks the contract, with the rule."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from latent_mm.experiments.localization import make_localization
from latent_mm.experiments.spl_motif import make_motif_data, motif_features
from latent_mm.lssvm import (ClassBlockBound, LatentBinary, LatentModel, LatentMulticlass, ModelContractError,
                             MultipleInstance, check_model, toy_bags, toy_localization)
from latent_mm.lssvm.check import PartialCheckWarning
from latent_mm.lssvm.group_norm import LatentStateBlocks, toy_states
from latent_mm.scene import RBoWModel, toy_scenes
from latent_mm.solvers import Augmented

ROOT = Path(__file__).resolve().parents[1]


def localization(n=10):
    X, y, _ = toy_localization(n=n, random_state=1)
    return X, y


def scenes(grid=(2, 2)):
    data = toy_scenes(n_per_class=2, n_pairs=3, grid=grid, n_features=3, random_state=1)
    return data["X"], data["y"]


def page_cells():
    "The code cells of the user-model page, as a reader copies them."
    nb = json.loads((ROOT / "nbs" / "13_your_model.ipynb").read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def page_model():
    "The page's model class and data, defined as the page defines them (its cells run here from the notebook itself)."
    cells, env = page_cells(), {}
    exec(next(c for c in cells if "from latent_mm" in c and "import" in c), env)
    exec(next(c for c in cells if c.startswith("def shifted_templates")), env)
    exec(next(c for c in cells if c.startswith("class ShiftedTemplate(LatentModel)")), env)
    X, y, _ = env["shifted_templates"](n=12, random_state=0)
    return env, X, y


def cases():
    X, y = localization()
    yield "multiclass", LatentMulticlass(len(np.unique(y))), X, y
    yield "binary", LatentBinary(), X, (y == 0).astype(int)
    loc = make_localization(n_per_class=2, n_classes=3, n_random=0, random_state=0)
    yield "localization experiment", LatentMulticlass(3), loc["X"], loc["y"]
    motif = make_motif_data(n=8, length=14, motif_length=4, random_state=0)
    yield "motif experiment", LatentBinary(), motif_features(motif["seqs"], 4), motif["y"]
    bags, yb, _ = toy_bags(n=10, max_size=4, random_state=1)
    yield "multiple instance, bags", MultipleInstance(), bags, yb
    yield "multiclass, bags", LatentMulticlass(2), bags, yb
    yield "binary, bags", LatentBinary(), bags, yb
    Xs, ys, _ = toy_states(n=8, random_state=1)
    yield "state blocks", LatentStateBlocks(2), Xs, ys
    yield "state blocks, null class", LatentStateBlocks(2, null_class=0), Xs, ys
    Xr, yr = scenes()
    K = len(np.unique(yr))
    for filters in ("shared", "class"):
        for assignment in ("part", "region"):
            yield f"scene {filters} {assignment}", RBoWModel(2, K, (2, 2), filters=filters, assignment=assignment), Xr, yr


@pytest.mark.parametrize("name, model, X, y", list(cases()), ids=[c[0] for c in cases()])
def test_every_library_model_passes_the_contract(name, model, X, y):
    for seed in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PartialCheckWarning)
            report = check_model(model, X, y, random_state=seed)
        assert report["partial"] == {} and report["skipped"] == {}       # everything checked in full
        for method in ("scores", "objective_terms", "decision_scores", "predict"):
            assert f"{type(model).__name__}.{method}" in report["checked"]
        assert any(m.endswith(".enumerate") for m in report["checked"])


def test_the_user_model_page_model_passes():
    env, X, y = page_model()
    report = check_model(env["ShiftedTemplate"](3), X, y)
    assert report["partial"] == {} and report["skipped"] == {}


def test_the_user_model_page_hides_no_cell_and_checks_behaviour():
    "No cell of the page is hidden (copied top to bottom, it runs as a script) and it asserts behaviour, not types."
    nb = json.loads((ROOT / "nbs" / "13_your_model.ipynb").read_text())
    hidden = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith("#|")]
    assert not hidden
    source = "\n".join(page_cells())
    assert "isinstance" not in source                                     # checks of behaviour, not of types
    assert "check_model(ShiftedTemplate(" in source and "except ModelContractError" in source


# Broken models: each breaks one method of the contract. The check before this suite let every one of them through,
# or named another method (noted on each), or stopped at a raw numpy error.

class ShuffledTrueScores(LatentMulticlass):
    "objective_terms' S lists the true class's scores in reverse latent order (before: passed)."
    def objective_terms(self, X, y, w):
        top, S = super().objective_terms(X, y, w)
        return top, S[:, ::-1]


class OneValueWrongScenes(RBoWModel):
    "objective_terms' S of a model with several latent variables is off for one (variable, value) (before: passed)."
    def objective_terms(self, X, y, w):
        top, S = super().objective_terms(X, y, w)
        S = S.copy()
        S[:, 1, 0] += 0.5
        return top, S


class MeanDecision(LatentMulticlass):
    "decision_scores averages over the latent values instead of maximising (before: passed)."
    def decision_scores(self, X, w): return self.scores(X, w).mean(1)


class WorstPredict(LatentMulticlass):
    "predict returns the worst class (before: passed)."
    def predict(self, X, w): return self.decision_scores(X, w).argmin(1)


class DropsLast(ClassBlockBound):
    def enumerate(self, i):
        Phi, L = super().enumerate(i)
        return Phi[:-1], L[:-1]


class DropsLastOutput(LatentMulticlass):
    "The oracle's enumerate leaves one output out (before: passed)."
    def oracle(self, X, y, z): return DropsLast(self, X, y, z)


class LatentOnlyKey(ClassBlockBound):
    def loss_augmented(self, w, i):
        out = super().loss_augmented(w, i)
        return Augmented(out.phi, out.loss, out.key // self.model.n_classes)


class KeyWithoutClass(LatentMulticlass):
    "The oracle's key names the latent value only, so two classes share a key (before: passed)."
    def oracle(self, X, y, z): return LatentOnlyKey(self, X, y, z)


class UnscaledScenes(RBoWModel):
    "Scores of a model with several latent variables, not divided by the regions (before: passed, scores unchecked)."
    def scores(self, X, w): return super().scores(X, w) * np.shape(X)[1]


class LossBlind(LatentMulticlass):
    "Loss-augmented inference that ignores the loss (before: named objective_terms)."
    def loss_augmented_inference(self, X, y, w): return self.inference(X, w)


@pytest.mark.parametrize("model, data, method", [
    (ShuffledTrueScores(3), localization, "ShuffledTrueScores.objective_terms: example"),
    (OneValueWrongScenes(2, 3, (2, 2)), scenes, "OneValueWrongScenes.objective_terms: example"),
    (MeanDecision(3), localization, "MeanDecision.decision_scores: "),
    (WorstPredict(3), localization, "WorstPredict.predict: example"),
    (DropsLastOutput(3), localization, "DropsLast.enumerate: example 0: 17 outputs listed but the scores give 18"),
    (KeyWithoutClass(3), localization, "LatentOnlyKey.loss_augmented: example"),
    (UnscaledScenes(2, 3, (2, 2)), scenes, "UnscaledScenes.scores or joint_features: sum_v S["),
    (LossBlind(3), localization, "LossBlind.loss_augmented_inference: example"),
], ids=lambda v: v.split(":")[0] if isinstance(v, str) else None)
def test_a_broken_method_is_named(model, data, method):
    X, y = data()
    with pytest.raises(ModelContractError) as caught:
        check_model(model, X, y)
    assert str(caught.value).startswith(method), str(caught.value)


def test_a_model_whose_objective_terms_move_a_constant_between_latent_variables_passes():
    "S_true may move a constant between latent variables: only its sums over the variables are the contract."
    class MovedConstant(RBoWModel):
        def with_n_classes(self, n_classes):
            return type(self)(self.n_parts, n_classes, self.grid, self.filters, self.assignment)
        def objective_terms(self, X, y, w):
            top, S = super().objective_terms(X, y, w)
            S = S.copy()
            S[:, 0] += 1.0
            S[:, 1] -= 1.0
            return top, S
    check_model(MovedConstant(2, 3, (2, 2)), *scenes())


class FiniteNegatives(LatentBinary):
    "Label 0 scored at every latent value, where its joint feature refuses h > 0 with a ValueError."
    def scores(self, X, w):
        S = super().scores(X, w)
        S[:, 1:, 0] = S[:, :1, 0]
        return S


def test_an_error_a_method_raises_is_reported_with_the_method_and_chained():
    "Before: the ValueError was swallowed as 'no such output' and the scores were blamed for a -inf joint feature."
    X, y = localization()
    with pytest.raises(ModelContractError) as caught:
        check_model(FiniteNegatives(), X, (y == 0).astype(int))
    assert str(caught.value).startswith("FiniteNegatives.feature_rows raised ValueError on outputs of example 0 that "
                                        "the scores give a finite score")
    assert "label 0 has the single latent value 0" in str(caught.value)
    assert isinstance(caught.value.__cause__, ValueError)


def test_beyond_max_configurations_the_check_says_what_it_sampled():
    "Before: a silent fall-back to one-variable changes. Now a warning and the result name what was sampled."
    X, y = scenes(grid=(2, 4))                                       # 3 ** 8 = 6561 part labellings per class
    with pytest.warns(PartialCheckWarning, match=r"RBoWModel.scores compared with joint_features on \d+ of the 6561"):
        report = check_model(RBoWModel(3, len(np.unique(y)), (2, 4)), X, y)
    assert list(report["partial"]) == ["RBoWModel.scores"]
    assert "6561" in report["partial"]["RBoWModel.scores"]
    assert list(report["skipped"]) == ["RBoWBound.enumerate"]
    assert "RBoWModel.latent" in report["checked"] and "RBoWBound.enumerate" not in report["checked"]


def test_a_broken_model_is_still_caught_beyond_max_configurations():
    X, y = scenes(grid=(2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartialCheckWarning)
        with pytest.raises(ModelContractError, match=r"^UnscaledScenes.scores or joint_features: "):
            check_model(UnscaledScenes(3, len(np.unique(y)), (2, 4)), X, y)


# The mistakes of a first model: a binary detector with one template of d weights (label 1 scores w . x_h, label 0
# scores 0 at its single latent value h = 0).

class OneTemplate(LatentModel):
    def __init__(self, n_classes=2): super().__init__(2)
    def coef_shape(self, X): return (np.shape(X)[-1],)
    def feature_block(self, X, y, h): return np.where(np.asarray(y) == 1, 0, -1)
    def scores(self, X, w):
        X = np.asarray(X, float)
        S = np.full(X.shape[:2] + (2,), -np.inf)
        S[:, 0, 0] = 0.0
        S[:, :, 1] = X @ w
        return S


class NoFeatureBlock(OneTemplate):
    "feature_block left out: the default block is the class, and label 1 has no block 1 (before: IndexError)."
    def feature_block(self, X, y, h): return LatentModel.feature_block(self, X, y, h)


class ScoresWithoutClasses(OneTemplate):
    "scores of shape (n, n_latent), no class axis (before: IndexError: too many indices for array)."
    def scores(self, X, w): return np.asarray(X, float) @ w


class NoLabelZeroScore(OneTemplate):
    "Label 0's score forgotten: -inf everywhere (before: named inference; a fit stops at 'F(w0)=inf is not finite')."
    def scores(self, X, w):
        S = super().scores(X, w)
        S[:, 0, 0] = -np.inf
        return S


def test_the_first_model_written_right_passes():
    X, y = localization()
    check_model(OneTemplate(), X, (y == 0).astype(int))


@pytest.mark.parametrize("model, message", [
    (NoFeatureBlock(), "NoFeatureBlock.feature_block: output (y=1, h=0) of example 0 writes into block 1 but the D=5 "
                       "weights hold 1 block(s) of d=5"),
    (ScoresWithoutClasses(), "ScoresWithoutClasses.scores: returned shape (10, 6); the contract's is (n,) + latent_shape "
                             "+ (n_latent_values, n_classes) = (10, 6, 2)"),
    (NoLabelZeroScore(), "NoLabelZeroScore.scores: example 1 of class y=0 has no output: its score is -inf at every "
                         "latent value; the true class needs a finite score"),
], ids=["feature_block left out", "scores without a class axis", "label 0 score forgotten"])
def test_a_first_model_mistake_is_named_with_its_rule(model, message):
    X, y = localization()
    with pytest.raises(ModelContractError) as caught:
        check_model(model, X, (y == 0).astype(int))
    assert str(caught.value).startswith(message), str(caught.value)


def test_with_n_classes_must_keep_the_model_settings():
    "A model whose with_n_classes drops a setting of __init__ trains another model once fit sizes it."
    env, X, y = page_model()

    class ForgetsWidth(env["ShiftedTemplate"]):
        def with_n_classes(self, n_classes): return type(self)(n_classes)

    with pytest.raises(ModelContractError, match=r"^ForgetsWidth.with_n_classes: "):
        check_model(ForgetsWidth(3, width=5), X, y)


def test_the_page_broken_model_is_named():
    env, X, y = page_model()
    cells = page_cells()
    exec(next(c for c in cells if c.startswith("class SlippedTemplate")), env)   # the page's cell asserts the name


def _unused_parameters_and_ignored_returns(source) -> list:
    "The functions of `source` that take a parameter they never read, or return a value every caller ignores."
    import ast
    tree = ast.parse(source)
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]
    ignored = {id(e.value) for e in ast.walk(tree) if isinstance(e, ast.Expr)}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    used = {n.func.id for n in calls if id(n) not in ignored}
    found = []
    for f in functions:
        read = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
        found += [f"{f.name}({a.arg})" for a in f.args.args + f.args.kwonlyargs if a.arg not in read | {"self"}]
        returns = any(isinstance(r, ast.Return) and r.value is not None for r in ast.walk(f))
        if returns and any(n.func.id == f.name for n in calls) and f.name not in used:
            found.append(f"{f.name} -> ignored")
    return found


def test_the_check_has_no_unused_parameter_or_ignored_return():
    "Every parameter of the check's functions is read, and every value one of its functions returns is used somewhere."
    import inspect
    import latent_mm.lssvm.check as check
    assert _unused_parameters_and_ignored_returns(inspect.getsource(check)) == []
    assert _unused_parameters_and_ignored_returns("def f(a, b):\n    return a\n\nf(1, 2)\n") == ["f(b)", "f -> ignored"]
