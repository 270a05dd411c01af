"""rules/environment/declares.py: which declaring file of a tree names a package."""

from __future__ import annotations

from ralph.rules.environment.declares import declaring_file, is_declaring

SETUP_CFG = """\
[metadata]
name = dates

[options]
install_requires =
    isodate>=0.6
    python-dateutil

[options.extras_require]
test = pytest-cov
"""

PYPROJECT = """\
[project]
name = "x"
dependencies = ["Requests[socks]>=2"]
[project.optional-dependencies]
yaml = ["ruamel.yaml"]
[dependency-groups]
dev = ["hypothesis", {include-group = "lint"}]
lint = ["ruff"]
[tool.poetry.dependencies]
python = "^3.10"
arrow = "*"
"""

PACKAGE = '{"dependencies": {"timestring": "^7"}, "devDependencies": {"@scope/tap": "1"}}'


def test_every_standard_place_declares() -> None:
    files = {"setup.cfg": SETUP_CFG, "pyproject.toml": PYPROJECT, "package.json": PACKAGE}
    for package, where in {
        "isodate": "setup.cfg",
        "python_dateutil": "setup.cfg",  # names compare as pip compares them
        "pytest-cov": "setup.cfg",
        "requests": "pyproject.toml",
        "ruamel": None,  # the import name of `ruamel.yaml` is not a distribution's
        "ruamel.yaml": "pyproject.toml",
        "hypothesis": "pyproject.toml",
        "arrow": "pyproject.toml",
        "python": None,  # Poetry's interpreter entry is no package
        "timestring": "package.json",
        "@scope/tap": "package.json",
        "left-pad": None,
    }.items():
        assert declaring_file(package, files) == where, package
    reqs = {"requirements-dev.txt": "# tools\n-r requirements.txt\nfreezegun==1.5 # time\n"}
    assert declaring_file("freezegun", reqs) == "requirements-dev.txt"
    assert declaring_file("tools", reqs) is None  # a comment declares nothing


def test_a_file_that_does_not_parse_declares_nothing() -> None:
    broken = {"package.json": "{", "pyproject.toml": "[project\n", "setup.cfg": "[options\nx"}
    assert declaring_file("isodate", broken) is None
    assert declaring_file("isodate", {**broken, "requirements.txt": "isodate\n"}) == (
        "requirements.txt"
    )


def test_which_names_declare() -> None:
    for name in (
        "package.json",
        "pyproject.toml",
        "setup.cfg",
        "requirements.txt",
        "requirements-dev.txt",
    ):
        assert is_declaring(name)
    for name in ("README.md", "setup.py", "requirements.in", "package-lock.json"):
        assert not is_declaring(name)
