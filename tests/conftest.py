import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")

# The suite compares reruns with committed records bit for bit, so it computes on their numeric platform (numpy's
# AVX2 loops, OpenBLAS's Haswell kernels) wherever this processor can: the pins go to the environment before the
# worker processes start, and a run without workers starts itself again with them.
from latent_mm.sweeps.platform import pinned_environment  # noqa: E402

_PINS = pinned_environment()
if _PINS is not None:
    os.environ.update(_PINS)


def pytest_configure(config):
    in_process = not getattr(config.option, "numprocesses", None) and not os.environ.get("PYTEST_XDIST_WORKER")
    if _PINS is not None and in_process:
        os.execve(sys.executable, [sys.executable, "-m", "pytest", *sys.argv[1:]], os.environ)
