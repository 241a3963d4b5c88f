"""The shipped multiple-instance benchmarks: published counts, labels, values, names, and the provenance record."""
import configparser
import fnmatch
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from latent_mm.datasets import DATA_DIR, MIL_DATASETS, _bags_from_rows, load_mil

ROOT = Path(__file__).resolve().parents[1]

# Dietterich, Lathrop & Lozano-Perez 1997 and the UCI documentation (clean1.info, clean2.info):
# bags, positive bags, instances, features; and the smallest and largest bag of the UCI files
PUBLISHED = {"musk1": (92, 47, 476, 166), "musk2": (102, 39, 6598, 166)}
BAG_SIZES = {"musk1": (2, 40), "musk2": (1, 1044)}


@pytest.fixture(scope="module", params=MIL_DATASETS)
def mil(request):
    return request.param, *load_mil(request.param)


def test_the_shipped_names_are_the_published_sets_and_the_data_files():
    assert MIL_DATASETS == ("musk1", "musk2")
    assert sorted(p.name for p in DATA_DIR.glob("mil_*")) == [f"mil_{n}.txt.gz" for n in sorted(MIL_DATASETS)]


def test_counts_are_the_published_ones(mil):
    name, bags, y = mil
    n_bags, n_pos, n_inst, d = PUBLISHED[name]
    assert len(bags) == len(y) == n_bags
    assert int(y.sum()) == n_pos and int((y == 0).sum()) == n_bags - n_pos
    assert sum(len(b) for b in bags) == n_inst
    assert {b.shape[1] for b in bags} == {d}
    assert (min(map(len, bags)), max(map(len, bags))) == BAG_SIZES[name]


def test_bags_are_finite_float_matrices_and_labels_are_0_1_ints(mil):
    _, bags, y = mil
    assert isinstance(bags, list) and all(isinstance(b, np.ndarray) for b in bags)
    assert all(b.dtype == np.float64 and b.ndim == 2 and len(b) > 0 for b in bags)
    assert all(np.isfinite(b).all() for b in bags)
    assert y.dtype.kind == "i" and y.shape == (len(bags),) and set(y.tolist()) == {0, 1}


def test_values_are_the_raw_integer_features(mil):
    _, bags, _ = mil
    X = np.vstack(bags)
    assert np.array_equal(X, np.round(X))              # UCI's features are integers, not standardised
    assert X.min() < -300 and X.max() > 300


def test_the_order_is_the_source_order_and_stable():
    bags, y = load_mil("musk1")
    assert (len(bags[0]), y[0]) == (4, 1)              # MUSK-188, the first molecule of clean1.data
    np.testing.assert_array_equal(bags[0][0, :5], [42, -198, -109, -75, -117])
    np.testing.assert_array_equal(bags[0][0, -4:], [48, -37, 6, 30])
    assert y[-1] == 0                                  # clean1.data lists the musks first
    assert np.all(np.diff(y) <= 0)
    again, y2 = load_mil("musk1")
    assert all(np.array_equal(a, b) for a, b in zip(bags, again)) and np.array_equal(y, y2)


def test_musk2_is_not_musk1():
    b1, _ = load_mil("musk1")
    b2, _ = load_mil("musk2")
    assert not np.array_equal(b1[0], b2[0][: len(b1[0])])


@pytest.mark.parametrize("bad", ["Musk1", "musk", "elephant", "fox", "tiger", "", None, 1, ("musk1",)])
def test_an_unknown_name_is_refused_with_the_known_names(bad):
    with pytest.raises(ValueError) as e:
        load_mil(bad)
    assert f"name={bad!r}" in str(e.value)
    assert all(n in str(e.value) for n in MIL_DATASETS)


def test_rows_split_into_bags_in_order():
    bags, y = _bags_from_rows([7, 7, 3, 5, 5, 5], [1, 1, 0, 1, 1, 1], np.arange(12.0).reshape(6, 2))
    assert [len(b) for b in bags] == [2, 1, 3] and y.tolist() == [1, 0, 1]
    np.testing.assert_array_equal(bags[2], [[6, 7], [8, 9], [10, 11]])


@pytest.mark.parametrize("bag, label, message", [
    ([1, 2, 1], [0, 0, 0], "contiguous"),
    ([1, 1, 2], [0, 1, 1], "bag's label"),
])
def test_malformed_rows_are_refused(bag, label, message):
    with pytest.raises(ValueError, match=message):
        _bags_from_rows(bag, label, np.zeros((3, 2)))


def test_sources_record_each_file_with_its_checksum():
    text = (DATA_DIR / "SOURCES.md").read_text()
    sums = dict((f, h) for h, f in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, flags=re.M))
    for name in MIL_DATASETS:
        f = f"mil_{name}.txt.gz"
        assert f"`{f}`" in text
        assert sums[f] == hashlib.sha256((DATA_DIR / f).read_bytes()).hexdigest()


def test_the_files_are_package_data():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    patterns = cfg["DEFAULT"]["package_data"].split()
    for name in MIL_DATASETS:
        assert any(fnmatch.fnmatch(f"latent_mm/data/mil_{name}.txt.gz", p) for p in patterns)
