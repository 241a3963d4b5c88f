"""What the docs tests and the notebook tests share: the build folder, this test run's id and a file lock."""
import contextlib
import fcntl
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "docs_build"
SITE_STAMP = BUILD / "site_run"       # the id of the run that built the site, then "ok" or the build's error
EXECUTED = BUILD / "executed"         # the notebooks the site build executed (latent_mm.docs.build_site)


def run_id():
    "The id of this pytest run, the same in every xdist worker."
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"


@contextlib.contextmanager
def file_lock(path):
    "An exclusive lock on `path`, shared by the processes of a test run."
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try: yield
        finally: fcntl.flock(f, fcntl.LOCK_UN)
