"""Every notebook is a test: its cells run top to bottom (cells flagged `slow` are skipped, as in `nbdev_test`).

A notebook that the docs site build of this test run has already executed without error (`tests/test_docs.py`,
which executes every page of the sidebar) is not executed a second time; any other notebook, or one whose
execution failed there, runs here, where its traceback is printed."""
from pathlib import Path

import pytest
from nbdev.config import get_config
from nbdev.test import test_nb as run_notebook

from shared import EXECUTED, SITE_STAMP, file_lock, run_id

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and not p.name.startswith("_"))


def executed_by_site_build(nb) -> bool:
    "Whether this run's docs build executed `nb` without error (waits for a build in progress)."
    with file_lock(SITE_STAMP.parent / "site.lock"):
        run = SITE_STAMP.read_text().partition("\n")[0] if SITE_STAMP.exists() else ""
    return run == run_id() and (EXECUTED / nb.relative_to(ROOT / "nbs")).exists()


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[str(p.relative_to(ROOT / "nbs")) for p in NOTEBOOKS])
def test_notebook(nb):
    if executed_by_site_build(nb):
        return
    cfg = get_config(path=ROOT)
    ok, _ = run_notebook(nb, skip_flags=cfg.tst_flags.split(), basepath=ROOT)
    assert ok, f"{nb.name} failed; its traceback is printed above"


def test_every_notebook_found():
    assert {"00_core.ipynb", "01_theory.ipynb", "02_selection.ipynb", "index.ipynb"} <= {p.name for p in NOTEBOOKS}


def test_no_slow_cell_imports():
    """nbdev's docs processing (`exec_show_docs`) executes every cell that holds an import statement, whatever its
    flags, so an import in a `slow` cell would run its full-size sweep in every docs build: imports go above."""
    import ast
    import json
    found = []
    for nb in NOTEBOOKS:
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            src = "".join(cell["source"])
            if cell["cell_type"] != "code" or "slow" not in src.split("\n", 1)[0]:
                continue
            body = "\n".join(line for line in src.splitlines() if not line.startswith("#|"))
            if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(ast.parse(body))):
                found.append(f"{nb.name}, cell {i}")
    assert not found, found
