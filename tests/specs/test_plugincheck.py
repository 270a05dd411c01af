"""specs/plugincheck.py: a spec's front matter names a check method a plugin registers, and that
plugin's own model reads its `config:`; an unknown method or a wrong key is one line; ralph's
own methods never ask the plugins."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from ralph.errors import SpecError
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import plugins
from ralph.specs.checkconfig import ExternalCheck
from ralph.specs.frontmatter import parse_front_matter
from ralph.specs.plugincheck import PluginCheck

NAME = "test-plugincheck"


class WordsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    words: int


class Words:
    phase = "local"
    config_model = WordsConfig


class Bare:
    phase = "local"  # no config_model: takes no config


class _Plugin:
    @hookimpl
    def ralph_check_methods(self) -> dict[str, Any]:
        return {"words": Words(), "bare": Bare()}


@pytest.fixture
def registered() -> Iterator[None]:
    found = plugins()
    nowhere = Path("/nonexistent-project")
    added = not found.roots
    if added:  # as if a command had loaded the person's plugins: none are, here
        found.roots.add(nowhere)
    found.register_own(_Plugin(), NAME)
    try:
        yield
    finally:
        found.drop_own(NAME)
        if added:
            found.roots.discard(nowhere)


def _spec(checks: str) -> str:
    return f"---\nchecks:\n{checks}---\n# a\n"


def test_a_plugins_method_is_read_by_its_model(registered: None) -> None:
    meta = parse_front_matter("a.md", _spec("  - method: words\n    config: {words: 3}\n"))
    assert meta is not None
    (check,) = meta.checks
    assert isinstance(check, PluginCheck) and isinstance(check.config, WordsConfig)
    assert (check.method, check.config.words, check.required) == ("words", 3, True)
    bare = parse_front_matter("a.md", _spec("  - method: bare\n"))
    assert bare is not None and bare.checks[0].config is None


@pytest.mark.parametrize(
    ("checks", "said"),
    [
        ("  - method: words\n    config: {words: many}\n", "checks[0].config: words: Input"),
        ("  - method: words\n    config: {words: 3, wrods: 4}\n", "checks[0].config: wrods:"),
        ("  - method: words\n", "checks[0].config: words: Field required"),
        ("  - method: bare\n    config: {a: 1}\n", "checks[0].config: bare takes no config:"),
        ("  - method: nope\n", "checks[0].method: unknown check method 'nope': there are "),
    ],
)
def test_a_wrong_config_or_method_is_one_line(registered: None, checks: str, said: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_front_matter("specs/a.md", _spec(checks))
    assert f"specs/a.md: front matter: {said}" in caught.value.message
    assert "\n" not in caught.value.message


def test_the_unknown_method_line_names_the_plugins_methods_too(registered: None) -> None:
    with pytest.raises(SpecError) as caught:
        parse_front_matter("a.md", _spec("  - method: nope\n"))
    assert "mutation, revert, words, bare;" in caught.value.message


def test_ralphs_own_methods_never_ask_the_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: a spec with ralph's own methods reads as ever, the plugins untouched."""
    from ralph.specs import plugincheck

    def asked(name: str) -> Any:
        raise AssertionError(f"asked the plugins for {name}")

    monkeypatch.setattr(plugincheck, "plugin_method", asked)
    meta = parse_front_matter("a.md", _spec("  - method: external\n    config: {command: t}\n"))
    assert meta is not None and isinstance(meta.checks[0], ExternalCheck)
