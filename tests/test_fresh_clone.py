"""The package as a new user meets it: run from the folder that holds a clone named `latent_mm`."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_data_found_from_the_folder_holding_the_clone(tmp_path):
    (tmp_path / "latent_mm").symlink_to(ROOT, target_is_directory=True)   # as after `git clone .../latent_mm`
    code = "from latent_mm.datasets import load_d31; print(load_d31()[0].shape)"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "(3100, 2)"
