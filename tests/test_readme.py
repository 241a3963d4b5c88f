"""README.md as read on a source forge: its links lead to files of the repository, its install line works."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_relative_link_leads_to_a_file_of_the_repository():
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    relative = [l.partition("#")[0] for l in links if not re.match(r"[a-z][\w+.-]*:|#", l)]
    assert len(relative) >= 20, relative                      # the pages' tables
    missing = [l for l in relative if not (ROOT / l).is_file()]
    assert not missing, f"README.md links to files that are not in the repository: {missing}"


def install_line() -> str:
    "The README's shell line that installs the system packages."
    (line,) = [l for l in README.splitlines() if "apt-get install" in l and not l.startswith(("|", "`"))]
    return line


def run_install(tmp_path, with_npm: bool, with_sudo: bool = True) -> list[str]:
    """The apt-get commands the install line runs on a machine that has npm or not, and sudo or not (a root shell
    without sudo); each recorded with whether it ran through sudo."""
    bin_ = tmp_path / f"npm{with_npm}-sudo{with_sudo}"
    bin_.mkdir()
    log = bin_ / "apt.log"
    (bin_ / "sudo").write_text(f'#!/bin/sh\necho sudo >> {log}\nexec "$@"\n')
    (bin_ / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    tools = ["apt-get"] + (["sudo"] if with_sudo else []) + (["npm"] if with_npm else [])
    if not with_sudo:
        (bin_ / "sudo").unlink()
    if with_npm:
        (bin_ / "npm").write_text("#!/bin/sh\n")
    for t in tools:
        (bin_ / t).chmod(0o755)
    subprocess.run(["/bin/bash", "-c", install_line()], env={"PATH": str(bin_)}, check=True)
    lines = log.read_text().splitlines()
    return [("sudo " if a == "sudo" else "") + b for a, b in zip([""] + lines, lines) if b != "sudo"]


def test_install_line_adds_npm_only_where_it_is_missing(tmp_path):
    assert run_install(tmp_path, with_npm=False) == ["sudo update", "sudo install -y chromium", "sudo install -y npm"]
    assert run_install(tmp_path, with_npm=True) == ["sudo update", "sudo install -y chromium"]


def test_install_line_works_as_root_without_sudo(tmp_path):
    assert run_install(tmp_path, with_npm=False, with_sudo=False) == ["update", "install -y chromium", "install -y npm"]
