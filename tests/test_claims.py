"""The experiment pages' claims: a check that could not have failed is never read as a finding."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from latent_mm.report import paired, pair_rows

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "nbs" / "experiments").glob("0*.ipynb"))


def cells(page):
    return [(c["cell_type"], "".join(c["source"])) for c in json.loads(page.read_text(encoding="utf-8"))["cells"]]


def test_no_difference_on_too_few_units_fails():
    few = paired([1.0, 2.0, 3.0, 4.0], [1.5, 1.0, 3.5, 3.0])          # four pairs: no 95 % interval exists
    assert few.reads() == "not testable"
    with pytest.raises(AssertionError, match="cannot fail"):
        few.check("none")
    with pytest.raises(AssertionError, match="cannot fail"):
        few.check("within", margin=10.0)
    few.check("not testable")


def test_settings_on_one_training_set_count_once():
    rows = [dict(method=m, pair=p, C=C, F=1.0 - 0.01 * (m == "b") * (1 + p)) for p in range(3) for C in range(7)
            for m in ("a", "b")]
    assert pair_rows(rows, "F", "b", "a", by=("pair", "C")).effect() == -1
    assert pair_rows(rows, "F", "b", "a", by=("pair", "C"), unit=("pair",)).reads() == "not testable"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_a_page_that_claims_not_testable_says_so(page):
    "A page whose checks find a comparison not testable says so in its text, instead of reporting no difference."
    code = "\n".join(s for t, s in cells(page) if t == "code")
    prose = "\n".join(s for t, s in cells(page) if t == "markdown")
    if re.search(r"""check\(\s*["']not testable["']""", code) or '"not testable"' in code:
        assert "not testable" in prose, f"{page.name} checks a comparison as not testable but its text never says so"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_pages_use_no_hand_counted_spread(page):
    "Spreads are compared with `spread` (an interval), not by counting which sample standard deviation is smaller."
    code = "\n".join(s for t, s in cells(page) if t == "code")
    assert not re.search(r'\["std"\]\s*<\s*[\d.]*\s*\*?\s*cell\(', code), f"{page.name} counts smaller standard deviations"
