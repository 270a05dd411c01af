"""The check registry is the one place methods are listed: every method a spec's front matter
accepts (in `checks:`, a role's `verification_method:` or a stage) has exactly one entry."""

from __future__ import annotations

from typing import get_args

from ralph.checks.registry import METHODS
from ralph.specs.checkconfig import OWN_METHODS, AnyRole


def _tags(models: object, field: str) -> set[str]:
    return {get_args(m.model_fields[field].annotation)[0] for m in get_args(models)}


def test_every_front_matter_method_is_registered() -> None:
    assert set(METHODS) == set(OWN_METHODS)  # any other is a plugin's (specs/plugincheck.py)
    # a role's criteria take the methods that judge a promise; the ones that judge the tests
    # (mutation, revert: what the work changed) are checks only
    assert set(METHODS) - {"mutation", "revert"} == _tags(AnyRole, "verification_method")


def test_every_method_names_a_phase_of_the_gate() -> None:
    assert {name: m.phase for name, m in METHODS.items()} == {
        "string_match": "local",
        "external": "command",
        "semantic": "costly",
        "multi_stage": "costly",
        "mutation": "costly",
        "revert": "costly",
    }


def test_every_method_is_registered_through_the_hook() -> None:
    from ralph.checks import registry
    from ralph.plugins.manager import plugins

    hooked = {i.plugin_name for i in plugins().manager.hook.ralph_check_methods.get_hookimpls()}
    assert {m.__name__ for m in registry.BUILTIN} <= hooked
    offered = [n for m in registry.BUILTIN for n in m.ralph_check_methods()]
    assert list(registry.methods()) == offered == list(METHODS)


def test_the_front_matter_reference_names_every_registered_method() -> None:
    # the generated reference's words for `method:` and `verification_method:` (kept in
    # specs/frontmatterkeys.py, below the checks: it cannot ask the plugins) say the registry
    import re

    from ralph.specs.frontmatterkeys import DESCRIPTIONS

    def named(key: str) -> set[str]:
        head = re.sub(r"\(.*?\)", "", DESCRIPTIONS[key].split(":", 1)[1]).split(";")[0]
        return set(re.findall(r"[a-z_]+", head)) - {"or"}

    assert named("ExternalCheck.method") == set(METHODS)
    assert named("ExternalRole.verification_method") == set(METHODS) - {"mutation", "revert"}
