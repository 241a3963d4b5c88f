"""Every model of the library, and the user-model page's, passes one shared contract check; the check can fail."""
import numpy as np
import pytest

from latent_mm.lssvm import LatentBinary, LatentMulticlass, ModelContractError, check_model, toy_localization
from latent_mm.lssvm.group_norm import LatentStateBlocks, toy_states
from latent_mm.scene import RBoWModel, toy_scenes


def localization(n=10):
    X, y, _ = toy_localization(n=n, random_state=1)
    return X, y


def cases():
    X, y = localization()
    yield "multiclass", LatentMulticlass(len(np.unique(y))), X, y
    yield "binary", LatentBinary(), X, (y == 0).astype(int)
    Xs, ys, _ = toy_states(n=8, random_state=1)
    yield "state blocks", LatentStateBlocks(2), Xs, ys
    yield "state blocks, null class", LatentStateBlocks(2, null_class=0), Xs, ys
    scenes = toy_scenes(n_per_class=2, n_pairs=3, grid=(2, 2), n_features=3, random_state=1)
    K = len(np.unique(scenes["y"]))
    for filters in ("shared", "class"):
        for assignment in ("part", "region"):
            yield f"scene {filters} {assignment}", RBoWModel(2, K, (2, 2), filters=filters, assignment=assignment), \
                scenes["X"], scenes["y"]


@pytest.mark.parametrize("name, model, X, y", list(cases()), ids=[c[0] for c in cases()])
def test_every_library_model_passes_the_contract(name, model, X, y):
    for seed in range(3):
        checked = check_model(model, X, y, random_state=seed)["checked"]
        assert ("scores" in checked) == (tuple(model.latent_shape(X)) == ())   # per-value scores checked where defined


def test_the_user_model_page_model_passes(tmp_path):
    "The page's model, defined as the page defines it (its cell is run here from the notebook itself)."
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parents[1] / "nbs" / "13_your_model.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    env = {}
    exec(next(c for c in cells if "from latent_mm" in c and "import" in c), env)
    exec(next(c for c in cells if c.startswith("def shifted_templates")), env)
    exec(next(c for c in cells if c.startswith("class ShiftedTemplate")), env)
    X, y, _ = env["shifted_templates"](n=12, random_state=0)
    check_model(env["ShiftedTemplate"](3), X, y)


class WrongJointFeature(LatentMulticlass):
    def feature_rows(self, X, y, h): return super().feature_rows(X, y, np.zeros_like(h))


class NoLossInAugmented(LatentMulticlass):
    def augment(self, S, y): return S


@pytest.mark.parametrize("broken, method", [(WrongJointFeature, "WrongJointFeature.scores"),
                                            (NoLossInAugmented, "NoLossInAugmented.")])
def test_a_broken_model_is_named(broken, method):
    X, y = localization()
    with pytest.raises(ModelContractError, match=method):
        check_model(broken(len(np.unique(y))), X, y)
