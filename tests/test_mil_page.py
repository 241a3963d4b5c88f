"""The MIL experiment page's pieces: splits, bag scores, the recomputed objective, the choice of C, one trial and the
command line's options."""
import numpy as np
import pytest

from latent_mm.datasets import load_mil
from latent_mm.experiments.mil import (CS, METHODS, bag_scores, chosen_C, fold_indices, mi_svm_objective, mil_split,
                                       mil_trial, run_mil)


def test_folds_partition_the_bags_and_are_stratified():
    _, y = load_mil("musk2")
    tests = [fold_indices(y, 3, f)[1] for f in range(10)]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(len(y)))
    assert all(abs(y[t].mean() - y.mean()) < 0.15 for t in tests)


def test_split_is_standardised_by_the_training_instances_only():
    bags, y, test_bags, y_test = mil_split("musk1", 1, 4)
    rows = np.vstack(bags)
    assert np.allclose(rows.mean(0), 0, atol=1e-9)
    assert np.allclose(rows.std(0)[rows.std(0) > 0], 1)
    assert len(bags) + len(test_bags) == 92 and not np.allclose(np.vstack(test_bags).mean(0), 0, atol=1e-3)


def test_bag_scores_are_each_bags_best_instance_and_the_objective_its_hinge():
    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(m, 4)) for m in (1, 5, 2, 7, 3)]
    y = np.array([1, 0, 1, 0, 1])
    for _ in range(5):
        w = rng.normal(size=5)
        best = np.array([max(b @ w[:4]) for b in bags]) + w[4]
        assert np.allclose(bag_scores(w, bags), best)
        hinge = np.maximum(0, 1 - np.where(y == 1, 1, -1) * best)
        assert np.isclose(mi_svm_objective(w, bags, y, 3.0), w @ w / 6.0 + hinge.mean())


def test_chosen_C_takes_the_best_inner_accuracy_and_the_smaller_C_at_a_tie():
    rows = [dict(dataset="musk1", repeat=0, fold=0, C=C, accuracy=a) for C, a in ((1.0, 0.8), (10.0, 0.9), (100.0, 0.9))]
    rows += [dict(dataset="musk1", repeat=0, fold=1, C=C, accuracy=a) for C, a in ((1.0, 0.7), (10.0, 0.6), (100.0, 0.5))]
    assert chosen_C(rows) == {("musk1", 0, 0): 10.0, ("musk1", 0, 1): 1.0}


def test_a_trial_obeys_the_invariants_and_its_objective_is_recomputed():
    r = mil_trial("G-MM biased", "musk1", 0, 3, 10.0)
    assert r["invariants"] == "" and np.isclose(r["objective"], r["objective_check"], rtol=0, atol=1e-9)
    assert r["train_accuracy"] > r["majority"]


def test_the_inner_cross_validation_sets_one_C_per_split_for_every_method():
    rows = run_mil(("musk1",), 1, Cs=(1.0, 100.0), folds=(5,))
    assert len(rows) == len(METHODS) and len({r["C"] for r in rows}) == 1 and rows[0]["C"] in (1.0, 100.0)


@pytest.mark.parametrize("argv, says", [
    (["--datasets", "musk3"], "invalid choice: 'musk3'"),
    (["--repeats", "0"], "'0' must be an integer >= 1"),
    (["--Cs", "10", "-1"], "'-1' must be a finite number > 0"),
])
def test_bad_options_are_refused_before_any_work(argv, says, tmp_path, capsys):
    from latent_mm.cli import main
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["reproduce", "mil", "--out", str(out), *argv])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and says in err and err.count("\n") == 1, err
    assert not out.exists()
