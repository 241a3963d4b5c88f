"""Packaging for latent_mm, driven by `settings.ini` (nbdev's single source of metadata)."""
from configparser import ConfigParser
from pathlib import Path

import setuptools

here = Path(__file__).parent
config = ConfigParser(delimiters=["="])
config.read(here / "settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
statuses = ["1 - Planning", "2 - Pre-Alpha", "3 - Alpha", "4 - Beta", "5 - Production/Stable",
            "6 - Mature", "7 - Inactive"]
py_versions = "3.10 3.11 3.12 3.13".split()
min_python = cfg["min_python"]
lic = licenses[cfg["license"].lower()]

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=(here / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    author=cfg["author"],
    author_email=cfg["author_email"],
    url=cfg["git_url"],
    license=lic[0],
    keywords=cfg["keywords"].split(),
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"]) - 1],
        "Intended Audience :: " + cfg["audience"],
        "License :: " + lic[1],
        "Natural Language :: " + cfg["language"],
    ] + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]],
    packages=setuptools.find_packages(include=[cfg["lib_path"], cfg["lib_path"] + ".*"]),
    package_data={cfg["lib_path"]: [p.split("/", 1)[1] for p in cfg.get("package_data", "").split()]},
    include_package_data=True,
    python_requires=">=" + min_python,
    install_requires=cfg.get("requirements", "").split(),
    extras_require={"dev": cfg.get("dev_requirements", "").split()},
    entry_points={"console_scripts": cfg.get("console_scripts", "").split(),
                  "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
    zip_safe=False,
)
