"""rules/environment/configparts.py: the test-steering part of a mixed configuration file, and
putting the
person's back (pure)."""

from __future__ import annotations

import json

import pytest

from ralph.rules.environment.configparts import merge, steering

PYPROJECT = """\
# the person's project
[project]
name = "calc"
dependencies = ["attrs"]

[tool.pytest.ini_options]
addopts = "-q"  # quiet
testpaths = ["tests"]

[tool.ruff]
line-length = 100
"""


def test_a_dependency_added_to_pyproject_is_the_agents() -> None:
    now = PYPROJECT.replace('["attrs"]', '["attrs", "numpy"]')
    assert merge("pyproject.toml", PYPROJECT, now) == now


def test_a_k_option_added_to_pyproject_is_put_back() -> None:
    now = PYPROJECT.replace('addopts = "-q"', 'addopts = "-q -k not mean"')
    assert merge("pyproject.toml", PYPROJECT, now) == PYPROJECT


def test_both_at_once_keep_the_dependency_and_the_persons_options() -> None:
    now = PYPROJECT.replace('["attrs"]', '["attrs", "numpy"]').replace(
        'addopts = "-q"', 'addopts = "--deselect tests/test_calc.py::test_mean"'
    )
    merged = merge("pyproject.toml", PYPROJECT, now)
    assert merged is not None
    assert '"numpy"' in merged and "--deselect" not in merged and 'addopts = "-q"' in merged


def test_crlf_and_comments_are_kept_byte_for_byte() -> None:
    base = PYPROJECT.replace("\n", "\r\n")
    now = base.replace("line-length = 100", "line-length = 120  # wider")
    now = now.replace('testpaths = ["tests"]', 'testpaths = ["nothing"]')
    merged = merge("pyproject.toml", base, now)
    assert merged == base.replace("line-length = 100", "line-length = 120  # wider")


def test_a_pytest_table_at_the_end_without_a_final_newline() -> None:
    base = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"'
    now = '[project]\nname = "calc2"\n\n[tool.pytest.ini_options]\naddopts = "-k x"'
    assert merge("pyproject.toml", base, now) == base.replace("calc", "calc2")


def test_a_pytest_table_the_agent_added_goes() -> None:
    base = '[project]\nname = "calc"\n'
    now = base + '\n[tool.pytest.ini_options]\naddopts = "--collect-only"\n'
    assert merge("pyproject.toml", base, now) == base + "\n"


def test_a_pytest_table_the_agent_removed_comes_back() -> None:
    now = PYPROJECT.replace('[tool.pytest.ini_options]\naddopts = "-q"  # quiet\n', "")
    now = now.replace('testpaths = ["tests"]\n\n', "")
    merged = merge("pyproject.toml", PYPROJECT, now)
    assert merged is not None
    assert 'addopts = "-q"' in merged and 'testpaths = ["tests"]' in merged
    assert merged.count("[tool.pytest.ini_options]") == 1


@pytest.mark.parametrize(
    "sneak",
    [
        '[tool]\npytest.ini_options.addopts = "-k nothing"\n',  # a dotted key
        '[ tool . "pytest" . ini_options ]\naddopts = "-k nothing"\n',  # spaces and quotes
        '[tool.tox]\nlegacy_tox_ini = "[testenv]\\ncommands = true"\n',
        '[tool.hatch.envs.default.scripts]\ntest = "echo ok"\n',
    ],
)
def test_steering_written_any_other_way_is_put_back(sneak: str) -> None:
    base = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    merged = merge("pyproject.toml", base, base + "\n" + sneak)
    assert merged is not None
    assert "nothing" not in merged and "echo ok" not in merged and "commands" not in merged


def test_a_header_inside_a_multiline_string_cannot_hide_a_setting() -> None:
    base = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    now = (
        '[project]\nname = "calc"\ndescription = """\n[tool.pytest.ini_options]\n"""\n'
        '[tool.pytest.ini_options]\naddopts = "-k nothing"\n'
    )
    merged = merge("pyproject.toml", base, now)
    assert merged is not None and "nothing" not in merged


def test_a_new_pyproject_loses_its_test_settings_only() -> None:
    now = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-k x"\n'
    assert merge("pyproject.toml", None, now) == '[project]\nname = "calc"\n\n'
    assert merge("pyproject.toml", None, '[project]\nname = "x"\n') == '[project]\nname = "x"\n'


SETUP_CFG = """\
[metadata]
name = calc

[options]
install_requires =
    attrs

[tool:pytest]
addopts = -q
; a comment
testpaths = tests

[flake8]
max-line-length = 100
"""


def test_an_ignore_option_in_setup_cfg_is_put_back() -> None:
    now = SETUP_CFG.replace("addopts = -q", "addopts = -q --ignore=tests/test_calc.py")
    now = now.replace("    attrs\n", "    attrs\n    numpy\n")
    assert merge("setup.cfg", SETUP_CFG, now) == SETUP_CFG.replace(
        "    attrs\n", "    attrs\n    numpy\n"
    )


@pytest.mark.parametrize(
    "header", ["[tool:pytest]  # again", "  [tool:pytest]", "[tool:pytest] ; x]", "[testenv]"]
)
def test_a_second_pytest_or_tox_section_in_setup_cfg_goes(header: str) -> None:
    now = SETUP_CFG + f"\n{header}\naddopts = --collect-only\ncommands = true\n"
    merged = merge("setup.cfg", SETUP_CFG, now)
    assert merged is not None and "--collect-only" not in merged and "commands" not in merged


def test_a_default_section_that_reaches_the_test_sections_makes_it_the_persons_file() -> None:
    # an INI parser (tox's) gives every section the [DEFAULT] keys it does not set itself
    now = "[DEFAULT]\ncommands = true\n\n" + SETUP_CFG.replace("    attrs\n", "    numpy\n")
    assert merge("setup.cfg", SETUP_CFG, now) == SETUP_CFG


PACKAGE = {
    "name": "calc",
    "scripts": {"test": "jest", "build": "tsc"},
    "dependencies": {"left-pad": "1.0.0"},
    "jest": {"testMatch": ["**/*.test.js"]},
}


def test_package_json_scripts_and_jest_are_the_persons_dependencies_the_agents() -> None:
    base = json.dumps(PACKAGE, indent=2) + "\n"
    agent = dict(PACKAGE, dependencies={"left-pad": "1.0.0", "lodash": "4"})
    agent["scripts"] = {"test": "echo ok"}
    agent["jest"] = {"testMatch": ["nothing"]}
    agent["mocha"] = {"spec": "x"}
    merged = merge("package.json", base, json.dumps(agent, indent=4))
    assert merged is not None
    data = json.loads(merged)
    assert data["scripts"] == PACKAGE["scripts"] and data["jest"] == PACKAGE["jest"]
    assert data["dependencies"] == {"left-pad": "1.0.0", "lodash": "4"}
    assert "mocha" not in data


def test_package_json_unchanged_in_its_scripts_is_left_byte_for_byte() -> None:
    base = json.dumps(PACKAGE, indent=2) + "\n"
    now = json.dumps(dict(PACKAGE, version="2.0.0"), indent=4)
    assert merge("package.json", base, now) == now


def test_package_json_the_agent_broke_is_the_persons() -> None:
    base = json.dumps(PACKAGE)
    assert merge("package.json", base, "{not json") == base


def test_steering_shows_only_the_test_part() -> None:
    assert steering("pyproject.toml", PYPROJECT).startswith("[tool.pytest.ini_options]")
    assert "dependencies" not in steering("pyproject.toml", PYPROJECT)
    assert steering("setup.cfg", SETUP_CFG).startswith("[tool:pytest]")
    assert json.loads(steering("package.json", json.dumps(PACKAGE))) == {
        "scripts": PACKAGE["scripts"],
        "jest": PACKAGE["jest"],
    }
