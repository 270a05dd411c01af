"""The `external` method: a command judged by its exit code and output, cached by tree state
(an unchanged tree is not tested again unless the check says `cache: false`)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

from ralph.checks.command import run_command
from ralph.checks.context import CheckItem, Dispatch, GateInput, Phase
from ralph.checks.result import CheckResult
from ralph.plugins.hookspecs import hookimpl
from ralph.specs.checkconfig import ExternalConfig


class External:
    phase: Phase = "command"

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        cfg, name = item.config, item.name
        assert isinstance(cfg, ExternalConfig)
        key = json.dumps([gi.spec_path, cfg.model_dump()], sort_keys=True)
        if item.cache and gi.cache is not None:
            hit = gi.cache.get(gi.tree, key)
            if hit is not None:
                return replace(hit, name=name, required=item.required, cached=True, seconds=0.0)
        # A check can tell which spec and check it runs for (one script for several checks).
        env = {**(gi.env if gi.env is not None else os.environ)}
        env.update({"RALPH_SPEC": gi.spec_path, "RALPH_CHECK": name})
        where = gi.run_root if gi.run_root is not None else gi.root
        result = run_command(
            cfg,
            where,
            env,
            gi.cancel,
            name=name,
            required=item.required,
            room=gi.run_root,
            launcher=gi.launcher,
        )
        if item.cache and gi.cache is not None:
            gi.cache.put(gi.tree, key, result)
        return result


@hookimpl
def ralph_check_methods() -> dict[str, External]:
    return {"external": External()}
