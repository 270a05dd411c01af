"""The docs site: the generated reference pages are what the code generates now, every key has a
description, the site builds strictly (a dead link or an orphan page fails it), and every page a
hint names exists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ralph.errors import DOCS_URL
from ralph.specs import checkconfig, frontmatter, frontmatterkeys, plugincheck
from ralph.store.person import config, configkeys
from tests import docs_gen

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("page", sorted(docs_gen.PAGES))
def test_generated_pages_match_the_code(page: str) -> None:
    committed = (REPO / page).read_text(encoding="utf-8")
    assert committed == docs_gen.PAGES[page](), (
        f"{page} differs from what the code generates: run `make docs-gen` (python -m "
        "tests.docs_gen) and commit the page"
    )


def test_the_cli_reference_names_every_command_and_option() -> None:
    page = docs_gen.cli_page()
    for name in ("init", "run", "status", "history", "schema", "plan", "accept", "doctor"):
        assert f"## ralph {name}\n" in page
    for option in ("--agent NAME", "--report-json FILE", "--parallel", "--json", "-C, --project"):
        assert option in page, option


def test_a_changed_option_help_is_drift(monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: change one option's help in the code and the committed page no longer matches
    from inspect import Signature

    from ralph import cli
    from ralph.rules.environment import setting
    from ralph.run.settings import RunSettings

    first, *rest = setting.declared(RunSettings)
    changed = first._replace(setting=first.setting._replace(help="Something else entirely."))
    monkeypatch.setattr(setting, "declared", lambda model: (changed, *rest))
    monkeypatch.setattr(cli.run, "__signature__", Signature(cli._run_parameters()))
    assert docs_gen.cli_page() != (REPO / "docs/reference/cli.md").read_text(encoding="utf-8")


def test_each_ralph_yaml_key_a_run_option_overrides_says_so_from_its_declaration() -> None:
    # the option's yaml key (run/settings.py) is the one statement; the page follows it
    found = docs_gen.overriding_options()
    assert found["RalphConfig.max_cost"] == "--max-cost"
    assert found["PoolConfig.rotation"] == "--rotation"
    assert found["AgentConfig.timeout"] == "--timeout" and found["AgentConfig.model"] == "--model"
    assert "RalphConfig.test_command" not in found  # the control: ralph.yaml's alone
    page = docs_gen.config_page()
    for flag in found.values():
        assert f"({flag} overrides it)" in page, flag
    assert page.count("overrides it)") == len(set(found.items()))


def test_every_key_has_a_description_and_none_is_left_over() -> None:
    for module, table, root in (
        (config, configkeys.DESCRIPTIONS, config.RalphConfig),
        (frontmatter, frontmatterkeys.DESCRIPTIONS, frontmatter.SpecMeta),
    ):
        pages = docs_gen.config_page() + docs_gen.front_matter_page()
        used: set[str] = set()
        models = [root, *(model for _, model, *_ in docs_gen.CONFIG_SECTIONS)]
        models += [model for _, model, _ in docs_gen.FRONT_MATTER_SECTIONS]
        for model in models:
            used |= docs_gen.described_keys(model, table)
        assert set(table) - used == set(), f"{module.__name__}: descriptions of no key"
        for key, text in table.items():
            assert text and "\n" not in text, key
            assert docs_gen.cell(text) in pages, key


def test_a_key_without_a_description_fails_the_generation() -> None:
    class Later(BaseModel):
        new_key: int = 1

    with pytest.raises(KeyError, match=r"Later\.new_key has no description"):
        docs_gen.model_table(Later, configkeys.DESCRIPTIONS)


def test_every_page_a_hint_names_exists() -> None:
    named: set[str] = set()
    for source in (REPO / "src" / "ralph").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        named |= set(re.findall(r"docs_page\(['\"]([^'\"]+)['\"]\)", text))
        named |= set(re.findall(r"\bdocs/([\w/.-]+\.md)\b", text))
    assert {"reference/ralph-yaml.md", "reference/front-matter.md", "how-to/sandbox.md"} <= named
    for page in named:
        assert (REPO / "docs" / page).is_file(), page
    assert DOCS_URL.endswith("/docs/")


def test_every_page_is_in_the_nav() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert {page for page in pages if f": {page}\n" not in nav} == set()


def models_inside(root: type[BaseModel]) -> set[type[BaseModel]]:
    """Every model a key of `root` holds, however deep (lists, unions, Annotated)."""
    import typing

    found: set[type[BaseModel]] = set()
    todo: list[Any] = [root]
    while todo:
        kind = todo.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if kind in found:
                continue
            found.add(kind)
            todo += [info.annotation for info in kind.model_fields.values()]
        else:
            todo += list(typing.get_args(kind))
    return found - {root}


def test_every_section_of_ralph_yaml_and_the_front_matter_has_its_table() -> None:
    # a model added inside ralph.yaml (`notify:`, say) gets its own table, or its keys go unseen
    shown = {model for _, model in docs_gen.CONFIG_SECTIONS}
    assert models_inside(config.RalphConfig) <= shown
    shown = {model for _, model, _ in docs_gen.FRONT_MATTER_SECTIONS}
    # each check (role) model differs from ExternalCheck (ExternalRole) only by method and config
    same = {checkconfig.SemanticCheck, checkconfig.StringMatchCheck, checkconfig.MultiStageCheck}
    same |= {checkconfig.MutationCheck}
    same.add(checkconfig.RevertCheck)
    same |= {checkconfig.SemanticRole, checkconfig.StringMatchRole, checkconfig.MultiStageRole}
    # a person's plugin's method: its config is the plugin's own model (docs/how-to/write-a-plugin)
    same.add(plugincheck.PluginCheck)
    assert models_inside(frontmatter.SpecMeta) - same <= shown
