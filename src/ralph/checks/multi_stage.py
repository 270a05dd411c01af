"""The `multi_stage` method: named stages in order, each run by its own method; required
stages gate (`require_all`: stop at the first that fails), optional ones only warn."""

from __future__ import annotations

import time

from ralph.checks.context import CheckItem, Dispatch, GateInput, Phase
from ralph.checks.result import CheckResult
from ralph.plugins.hookspecs import hookimpl
from ralph.specs.checkconfig import MultiStageConfig


class MultiStage:
    phase: Phase = "costly"

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        cfg, name, required = item.config, item.name, item.required
        assert isinstance(cfg, MultiStageConfig)
        started = time.perf_counter()
        warnings: list[str] = []
        failed: list[str] = []
        outputs: list[str] = []
        for i, stage in enumerate(cfg.stages):
            stage_name = stage.name or f"stage {i + 1}"
            res = dispatch(
                CheckItem(
                    f"{name}/{stage_name}",
                    stage.method,
                    stage.config,
                    stage.required,
                    stage.cache,
                )
            )
            if res.interrupted:
                return CheckResult(
                    name, "multi_stage", False, required, "interrupted", interrupted=True
                )
            if res.passed:
                continue
            line = f"stage {stage_name!r}: {res.why}"
            if not stage.required:
                warnings.append(line)
                continue
            failed.append(line)
            if res.output:
                outputs.append(res.output)
            if cfg.require_all:
                break
        seconds = time.perf_counter() - started
        if failed:
            return CheckResult(
                name,
                "multi_stage",
                False,
                required,
                "; ".join(failed),
                "\n".join(outputs),
                seconds=seconds,
                warnings=tuple(warnings),
            )
        passed = f"all {len(cfg.stages)} stages passed"
        if warnings:
            passed += f" ({len(warnings)} optional failed)"
        return CheckResult(
            name, "multi_stage", True, required, passed, seconds=seconds, warnings=tuple(warnings)
        )


@hookimpl
def ralph_check_methods() -> dict[str, MultiStage]:
    return {"multi_stage": MultiStage()}
