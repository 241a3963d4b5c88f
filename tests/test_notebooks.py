"""Every notebook is a test: its cells run top to bottom (cells flagged `slow` are skipped, as in `nbdev_test`)."""
from pathlib import Path

import pytest
from nbdev.config import get_config
from nbdev.test import test_nb as run_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and not p.name.startswith("_"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[str(p.relative_to(ROOT / "nbs")) for p in NOTEBOOKS])
def test_notebook(nb):
    cfg = get_config(path=ROOT)
    ok, _ = run_notebook(nb, skip_flags=cfg.tst_flags.split(), basepath=ROOT)
    assert ok, f"{nb.name} failed; its traceback is printed above"


def test_every_notebook_found():
    assert {"00_core.ipynb", "01_theory.ipynb", "02_selection.ipynb", "index.ipynb"} <= {p.name for p in NOTEBOOKS}
