"""plugins/hookspecs.py: the hooks a plugin may implement; every observer hook is one of them
and takes the one JSON argument."""

from __future__ import annotations

import inspect

from ralph.plugins import hookspecs


def _specs() -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in vars(hookspecs).items()
        if name.startswith("ralph_") and callable(fn)
    }


def test_every_observer_is_a_hook_with_one_event_argument() -> None:
    specs = _specs()
    assert set(hookspecs.OBSERVERS) <= set(specs)
    for name in hookspecs.OBSERVERS:
        assert list(specs[name].parameters) == ["event"], name
    # what ralph can run takes nothing and returns the things themselves
    for name in ("ralph_agents", "ralph_check_methods", "ralph_sandbox_backends"):
        assert list(specs[name].parameters) == [], name


def test_every_hook_says_what_it_is() -> None:
    for name in _specs():
        assert (getattr(hookspecs, name).__doc__ or "").strip(), name
