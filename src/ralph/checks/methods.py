"""Completion checks: what must be true on disk before a DONE counts.

`run_gate` runs a spec's checks (its front matter: `test_command`, `checks:`, the per-role
criteria, the strict tier's checkbox claim) and returns a `GateResult`. The loop calls it when an
agent says DONE; the final verification calls it too, so a VERIFY_PASS never overrides a failing
check. Methods (the completion-criteria seed):

- `string_match`: `<promise>X</promise>` in the agent's own output (an echoed prompt never counts);
- `external`: a command, run through `ralph.process.run_process` (own timeout, working dir, its
  whole process tree killed), judged by exit code and output; one that cannot start has failed;
- `semantic`: negative patterns reject first; then an agent judges the criteria (VERIFIED /
  NOT_VERIFIED); when the judge fails, string matching decides instead;
- `multi_stage`: named stages in order; required ones gate, optional ones only warn.

External results are cached by tree state: an unchanged tree is not tested again.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.claims import STRICT, Boxes, Claim, VerificationMachine, VState, count_boxes
from ralph.errors import AgentError
from ralph.process.request import ProcessRequest
from ralph.process.runner import run_process
from ralph.specs.frontmatter import (
    ACCEPTANCE_PLACEHOLDER,
    AnyCheck,
    AnyRole,
    ExternalCheck,
    ExternalConfig,
    ExternalRole,
    MultiStageCheck,
    MultiStageConfig,
    SemanticCheck,
    SemanticConfig,
    SpecMeta,
    StringMatchCheck,
    StringMatchConfig,
    parse_front_matter,
    split_front_matter,
)

if TYPE_CHECKING:
    from ralph.agents.command import CommandAgent

OUTPUT_TAIL_LINES = 20  # lines of a failed check's output shown to the agent and the user
OUTPUT_TAIL_BYTES = 4 << 20  # how much of a check's output is searched for output_contains
JUDGE_OUTPUT_CHARS = 5000  # the seed's output[:5000]: what the judge reads of the agent's report
KILL_GRACE = 5.0
ROLES_BY_MODE: Mapping[str, tuple[str, ...]] = {
    # The coder's criteria gate the implementing DONE, the reviewer's a reviewing DONE; the
    # tester and QA criteria gate every DONE. The final verification (VERIFY) has no promise.
    "IMPLEMENT": ("coder", "tester", "qa"),
    "REVIEW": ("reviewer", "tester", "qa"),
}
PROMISE = re.compile(r"<promise>\s*(.+?)\s*</promise>", re.IGNORECASE | re.DOTALL)
VERDICT = re.compile(r"^[\W_]*(NOT_VERIFIED|VERIFIED)\b[\W_]*(?P<reason>.*)$")


@dataclass(frozen=True)
class CheckResult:
    name: str
    method: str  # string_match, external, semantic, multi_stage, strict (the checkbox claim)
    passed: bool
    required: bool = True
    summary: str = ""  # one line: why it passed or failed
    output: str = ""  # the end of a command's output (failed checks only)
    cached: bool = False
    skipped: bool = False  # not run: not applicable, or an earlier required check failed
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()  # optional stages that failed
    interrupted: bool = False

    @property
    def blocking(self) -> bool:
        return self.required and not self.passed

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "method": self.method,
            "passed": self.passed,
            "required": self.required,
            "summary": self.summary,
            "cached": self.cached,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class GateResult:
    """The verdict on one DONE: `passed` only when every required check passed."""

    passed: bool
    results: tuple[CheckResult, ...] = ()
    interrupted: bool = False  # Ctrl-C (or a cancel) stopped a check: the verdict is void

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.blocking and not r.skipped)

    @property
    def reasons(self) -> tuple[str, ...]:
        """One line per failed required check: which one, and why."""
        return tuple(f"{r.name}: {r.summary}" for r in self.failed)

    @property
    def warnings(self) -> tuple[str, ...]:
        out = [f"{r.name}: {r.summary}" for r in self.results if not r.required and not r.passed]
        for r in self.results:
            out.extend(f"{r.name}: {w}" for w in r.warnings)
        return tuple(out)

    def report(self) -> str:
        """The failures with the end of each one's output, for the handoff and the prompt."""
        parts: list[str] = []
        for r in self.failed:
            parts.append(f"- {r.name} ({r.method}): {r.summary}")
            if r.output.strip():
                tail = "\n".join(f"      {line}" for line in r.output.rstrip().splitlines())
                parts.append(tail)
        return "\n".join(parts)


@dataclass
class CheckCache:
    """Check results by tree state: an unchanged tree is not re-tested (within a run)."""

    entries: dict[tuple[str, str], CheckResult] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, tree: str | None, key: str) -> CheckResult | None:
        if tree is None:
            return None
        with self.lock:
            return self.entries.get((tree, key))

    def put(self, tree: str | None, key: str, result: CheckResult) -> None:
        if tree is None or result.interrupted:
            return
        with self.lock:
            self.entries[(tree, key)] = result


# --------------------------------------------------------------------------- the judge


@dataclass(frozen=True)
class JudgeAnswer:
    verdict: bool | None  # None: the judge failed (could not run, no answer)
    reason: str


Judge = Callable[[str, float, "str | None"], JudgeAnswer]  # (prompt, timeout, model)


class AgentJudge:
    """A semantic check's judge: an agent run through the same path as every rotation
    (`CommandAgent.run`, so `run_process`), asked to answer VERIFIED or NOT_VERIFIED."""

    def __init__(
        self,
        agent: CommandAgent,
        root: Path,
        state_dir: Path,
        spec: str,
        iteration: int,
        cancel: threading.Event | None = None,
    ) -> None:
        self.cancel = cancel  # set: the judge's process tree is stopped (ralph cancel --now)
        self.agent = agent
        self.root = root
        self.state_dir = state_dir
        self.spec = spec
        self.iteration = iteration

    def __call__(self, prompt: str, timeout: float, model: str | None) -> JudgeAnswer:
        from ralph.agents.request import AgentRequest

        agent = self.agent
        if model is not None:
            agent = copy.copy(agent)
            agent.extra_env = {**agent.extra_env, "RALPH_JUDGE_MODEL": model}
        prompt_file = self.state_dir / "judge-prompt.md"
        prompt_file.write_text(prompt, encoding="utf-8")
        request = AgentRequest(
            prompt=prompt,
            prompt_file=prompt_file.resolve(),
            root=self.root,
            spec=self.spec,
            mode="JUDGE",
            iteration=self.iteration,
            state_dir=self.state_dir.resolve(),
            handoff_file=(self.state_dir / "judge-handoff.md").resolve(),
            timeout=timeout,
            kill_grace=KILL_GRACE,
        )
        try:
            result = agent.run(request, lambda stream, lines: None, cancel=self.cancel)
        except AgentError as exc:
            return JudgeAnswer(None, f"the judge ({agent.name}) could not start: {exc.message}")
        if result.process.interrupted:
            raise KeyboardInterrupt
        if result.failure is not None:
            return JudgeAnswer(None, f"the judge ({agent.name}) failed: {result.failure}")
        text = result.final_text
        if text is None:
            text = result.output_text.replace(prompt, "\n")
        return parse_verdict(text, agent.name)


def agent_words(output: str, prompt: str, final_text: str | None) -> str:
    """What the agent itself said: its final message where its CLI reports one, otherwise its
    output without verbatim copies of the prompt (an echo is not the agent's word)."""
    if final_text is not None:
        return final_text
    text = output.replace("\r\n", "\n")
    if prompt:
        text = text.replace(prompt.replace("\r\n", "\n"), "\n")
    return text


def parse_verdict(text: str, who: str = "judge") -> JudgeAnswer:
    """The last VERIFIED / NOT_VERIFIED line of the judge's answer."""
    found: JudgeAnswer | None = None
    for line in text.splitlines():
        match = VERDICT.match(line.strip())
        if match is not None:
            reason = match["reason"].strip().strip("*`").strip()
            ok = match.group(1) == "VERIFIED"
            found = JudgeAnswer(ok, reason or ("verified" if ok else "not verified"))
    if found is None:
        return JudgeAnswer(None, f"the judge ({who}) gave no VERIFIED or NOT_VERIFIED answer")
    return found


def judge_prompt(spec_path: str, spec_text: str, criteria: Sequence[str], report: str) -> str:
    listed = "\n".join(f"- {c}" for c in criteria) or "- (everything the spec asks for)"
    return f"""\
# ralph: independent judgement of {spec_path}

You are an independent reviewer. Another agent says the spec below is done. Decide whether
these criteria are really met, by reading the project's files as they are now (run its tests if
that helps). Do not edit any file: you judge, you do not fix.

## Criteria to verify
{listed}

## The spec ({spec_path})
{spec_text.rstrip()}

## The end of the other agent's report
{report[-JUDGE_OUTPUT_CHARS:].strip() or "(it printed nothing)"}

## Your answer
Explain briefly, then end with one line that is exactly `VERIFIED` when every criterion is met,
or `NOT_VERIFIED: <what is missing>` when any is not.
"""


# --------------------------------------------------------------------------- the gate


@dataclass(frozen=True)
class GateInput:
    root: Path
    spec_path: str
    spec_text: str
    meta: SpecMeta
    mode: str = "VERIFY"  # IMPLEMENT, REVIEW or VERIFY: which role criteria apply
    output: str = ""  # the agent's own output (echoes of the prompt already removed)
    prompt: str = ""  # the rotation's prompt: lines of it quoted back never count as a promise
    judge: Judge | None = None
    cache: CheckCache | None = None
    tree: str | None = None  # the tree state's key; None: never cached
    env: Mapping[str, str] | None = None  # the check commands' environment (default: ralph's)
    on_transition: Callable[[VState, VState], None] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)


def run_gate(
    spec_path: str,
    root: Path,
    *,
    spec_text: str | None = None,
    meta: SpecMeta | None = None,
    mode: str = "VERIFY",
    output: str = "",
    prompt: str = "",
    judge: Judge | None = None,
    cache: CheckCache | None = None,
    tree: str | None = None,
    env: Mapping[str, str] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    on_transition: Callable[[VState, VState], None] | None = None,
    cancel: threading.Event | None = None,
) -> GateResult:
    """Run every check of `spec_path` (read from disk unless `spec_text` is given). `cancel`
    set (`ralph cancel --now`) stops the running checks: the verdict is then void.

    A spec without front matter passes at once. Bad front matter raises SpecError.
    """
    if spec_text is None:
        spec_text = (root / spec_path).read_text(encoding="utf-8")
    if meta is None:
        meta = parse_front_matter(spec_path, spec_text)
        if meta is None:
            return GateResult(True)
    gi = GateInput(
        root=root,
        spec_path=spec_path,
        spec_text=spec_text,
        meta=meta,
        mode=mode,
        output=output,
        prompt=prompt,
        judge=judge,
        cache=cache,
        tree=tree,
        env=env,
        on_transition=on_transition,
        cancel=cancel if cancel is not None else threading.Event(),
    )
    return _Gate(gi, on_result).run()


class _Gate:
    def __init__(self, gi: GateInput, on_result: Callable[[CheckResult], None] | None) -> None:
        self.gi = gi
        self.on_result = on_result
        self.results: list[CheckResult] = []
        self.interrupted = False

    def add(self, result: CheckResult) -> None:
        self.results.append(result)
        if result.interrupted:
            self.interrupted = True
        if self.on_result is not None:
            self.on_result(result)

    def blocked(self) -> bool:
        return self.interrupted or any(r.blocking for r in self.results)

    def run(self) -> GateResult:
        gi, meta = self.gi, self.gi.meta
        roles = [
            (name, role)
            for name in ROLES_BY_MODE.get(gi.mode, ())
            if (role := meta.role(name)) is not None
        ]
        # 1. cheap and local: the checkbox claim, the promises
        if meta.verification == STRICT:
            self.add(self.claim())
        for check in meta.checks:
            if isinstance(check, StringMatchCheck):
                self.add(
                    self.string_match(check_name(check, meta), check.config.promise, check.required)
                )
        for name, role in roles:
            self.add(self.string_match(f"{name}.promise", role.promise, True))
        # 2. commands: every one runs, so the agent learns about all failures at once
        externals: list[tuple[str, ExternalConfig, bool, bool]] = []
        if meta.test_command:
            cfg = ExternalConfig(command=meta.test_command, timeout=meta.test_timeout)
            externals.append(("test_command", cfg, True, True))
        for check in meta.checks:
            if isinstance(check, ExternalCheck):
                externals.append(
                    (check_name(check, meta), check.config, check.required, check.cache)
                )
        for name, role in roles:
            if isinstance(role, ExternalRole) and not self.promise_failed(name):
                externals.append((name, role.verification_config, True, True))
        if not self.interrupted:
            for result in self.externals(externals, parallel=meta.parallel_checks):
                self.add(result)
        # 3. the expensive ones (an agent as judge) only when everything so far passed
        costly: list[tuple[str, AnyCheck | AnyRole, bool]] = [
            (check_name(c, meta), c, c.required)
            for c in meta.checks
            if isinstance(c, (SemanticCheck, MultiStageCheck))
        ]
        costly += [
            (name, role, True)
            for name, role in roles
            if role.verification_method in ("semantic", "multi_stage")
            and not self.promise_failed(name)
        ]
        for name, item, required in costly:
            method = _method(item)
            if self.blocked():
                why = "interrupted" if self.interrupted else "an earlier required check failed"
                self.add(
                    CheckResult(name, method, False, required, f"skipped: {why}", skipped=True)
                )
                continue
            promise: str | None = getattr(item, "promise", None)  # roles have one, checks not
            config = _config(item)
            if isinstance(config, SemanticConfig):
                self.add(
                    self.semantic(name, config, required, promise, getattr(item, "cache", True))
                )
            elif isinstance(config, MultiStageConfig):
                self.add(self.multi_stage(name, config.stages, config.require_all, required))
        passed = not self.interrupted and not any(r.blocking for r in self.results)
        return GateResult(passed, tuple(self.results), self.interrupted)

    def promise_failed(self, role: str) -> bool:
        return any(r.name == f"{role}.promise" and not r.passed for r in self.results)

    # ------------------------------------------------------------------ methods

    def claim(self) -> CheckResult:
        """The strict tier: DONE claims every acceptance box is ticked; read the disk."""
        gi = self.gi
        path = gi.root / gi.spec_path

        def read() -> Boxes | None:
            try:
                text = path.read_bytes().decode("utf-8", errors="replace")
            except FileNotFoundError:
                return None
            try:
                _, body = split_front_matter(text)
            except ValueError:
                body = text
            return count_boxes(body)

        started = time.perf_counter()
        out = VerificationMachine(read, on_transition=gi.on_transition).run(Claim())
        seconds = time.perf_counter() - started
        if out.passed:
            return CheckResult(
                "checkboxes", "strict", True, summary="every box ticked", seconds=seconds
            )
        return CheckResult(
            "checkboxes", "strict", False, summary=out.details or "", seconds=seconds
        )

    def string_match(self, name: str, promise: str | None, required: bool) -> CheckResult:
        if promise is None:
            return CheckResult(name, "string_match", False, required, "no promise configured")
        if self.gi.mode not in ROLES_BY_MODE:
            # The final verification judges the work, not what the coder printed back then.
            return CheckResult(
                name, "string_match", True, required, "not applicable here", skipped=True
            )
        if promise.casefold() in self.promises():
            return CheckResult(
                name, "string_match", True, required, f"<promise>{promise}</promise>"
            )
        return CheckResult(
            name,
            "string_match",
            False,
            required,
            f"the agent did not print <promise>{promise}</promise>",
        )

    def promises(self) -> set[str]:
        """The promises the agent itself printed: prompt lines quoted back do not count."""
        quoted = {line.strip() for line in self.gi.prompt.splitlines() if PROMISE.search(line)}
        own = "\n".join(line for line in self.gi.output.splitlines() if line.strip() not in quoted)
        return {m.group(1).strip().casefold() for m in PROMISE.finditer(own)}

    def externals(
        self, items: list[tuple[str, ExternalConfig, bool, bool]], *, parallel: bool
    ) -> list[CheckResult]:
        if not parallel or len(items) < 2:
            out: list[CheckResult] = []
            for name, cfg, required, cache in items:
                if self.interrupted or any(r.interrupted for r in out):
                    break
                out.append(self.external(name, cfg, required, cache))
            return out
        workers = min(len(items), os.cpu_count() or 2)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ralph-check") as pool:
            futures = [pool.submit(self.external, *item) for item in items]
            try:
                return [f.result() for f in futures]
            except KeyboardInterrupt:
                # only the main thread sees Ctrl-C: stop every running check, then report
                self.gi.cancel.set()
                results = [f.result() for f in futures]
                return [replace(r, interrupted=True) for r in results]

    def external(
        self, name: str, cfg: ExternalConfig, required: bool = True, cacheable: bool = True
    ) -> CheckResult:
        gi = self.gi
        key = json.dumps([gi.spec_path, cfg.model_dump()], sort_keys=True)
        if cacheable and gi.cache is not None:
            hit = gi.cache.get(gi.tree, key)
            if hit is not None:
                return replace(hit, name=name, required=required, cached=True, seconds=0.0)
        # A check can tell which spec and check it runs for (one script for several checks).
        env = {**(gi.env if gi.env is not None else os.environ)}
        env.update({"RALPH_SPEC": gi.spec_path, "RALPH_CHECK": name})
        result = run_command(cfg, gi.root, env, gi.cancel, name=name, required=required)
        if cacheable and gi.cache is not None:
            gi.cache.put(gi.tree, key, result)
        return result

    def semantic(
        self,
        name: str,
        cfg: SemanticConfig,
        required: bool,
        promise: str | None,
        cacheable: bool = True,
    ) -> CheckResult:
        gi = self.gi
        started = time.perf_counter()
        text = gi.output.casefold()
        for pattern in cfg.negative_patterns:
            if pattern.casefold() in text:
                return CheckResult(
                    name,
                    "semantic",
                    False,
                    required,
                    f"negative pattern in the agent's output: {pattern!r}",
                    seconds=time.perf_counter() - started,
                )
        criteria = self.criteria(cfg)
        # VERIFIED is about the tree: while the tree is unchanged it stands, and the agent call
        # (the costly part) is not repeated. NOT_VERIFIED is asked again (maybe of another
        # judge: fresh eyes); a failed judge is never cached.
        key = json.dumps([gi.spec_path, "judge", criteria, cfg.model], sort_keys=True)
        hit = gi.cache.get(gi.tree, key) if cacheable and gi.cache is not None else None
        if hit is not None:
            return replace(hit, name=name, required=required, cached=True, seconds=0.0)
        answer = JudgeAnswer(None, "no judge available")
        if gi.judge is not None:
            prompt = judge_prompt(gi.spec_path, gi.spec_text, criteria, gi.output)
            try:
                answer = gi.judge(prompt, float(cfg.timeout), cfg.model)
            except KeyboardInterrupt:
                return CheckResult(
                    name, "semantic", False, required, "interrupted", interrupted=True
                )
        seconds = time.perf_counter() - started
        if answer.verdict is not None:
            verdict = "VERIFIED" if answer.verdict else "NOT_VERIFIED"
            judged = CheckResult(
                name,
                "semantic",
                answer.verdict,
                required,
                f"{verdict}: {answer.reason}",
                seconds=seconds,
            )
            if answer.verdict and cacheable and gi.cache is not None:
                gi.cache.put(gi.tree, key, judged)
            return judged
        # The judge failed: string matching decides for this DONE (the seed's fallback).
        fallback = self.fallback(criteria, promise)
        return CheckResult(
            name,
            "semantic",
            fallback is None,
            required,
            f"{answer.reason}; fell back to string matching: {fallback or 'matched'}",
            seconds=seconds,
        )

    def criteria(self, cfg: SemanticConfig) -> list[str]:
        meta = self.gi.meta
        if isinstance(cfg.check_for, str):
            if cfg.check_for.strip() == ACCEPTANCE_PLACEHOLDER:
                return list(meta.criteria)
            return [cfg.check_for]
        return list(cfg.check_for) or list(meta.criteria)

    def fallback(self, criteria: Sequence[str], promise: str | None) -> str | None:
        """None when string matching accepts; else what is missing."""
        if promise is not None:
            if promise.casefold() in self.promises():
                return None
            return f"no <promise>{promise}</promise> in the agent's output"
        if not criteria:
            return "no criteria and no promise to match"
        text = self.gi.output.casefold()
        missing = [c for c in criteria if c.casefold() not in text]
        return f"not evident in the agent's output: {missing[0]}" if missing else None

    def multi_stage(
        self, name: str, stages: Sequence[AnyCheck], require_all: bool, required: bool
    ) -> CheckResult:
        started = time.perf_counter()
        warnings: list[str] = []
        failed: list[str] = []
        outputs: list[str] = []
        for i, stage in enumerate(stages):
            stage_name = stage.name or f"stage {i + 1}"
            if isinstance(stage, ExternalCheck):
                res = self.external(
                    f"{name}/{stage_name}", stage.config, stage.required, stage.cache
                )
            elif isinstance(stage, SemanticCheck):
                res = self.semantic(
                    f"{name}/{stage_name}", stage.config, stage.required, None, stage.cache
                )
            else:
                assert isinstance(stage, StringMatchCheck)
                res = self.string_match(
                    f"{name}/{stage_name}", stage.config.promise, stage.required
                )
            if res.interrupted:
                return CheckResult(
                    name, "multi_stage", False, required, "interrupted", interrupted=True
                )
            if res.passed:
                continue
            line = f"stage {stage_name!r}: {res.summary}"
            if not stage.required:
                warnings.append(line)
                continue
            failed.append(line)
            if res.output:
                outputs.append(res.output)
            if require_all:
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
        return CheckResult(
            name,
            "multi_stage",
            True,
            required,
            f"all {len(stages)} stages passed"
            + (f" ({len(warnings)} optional failed)" if warnings else ""),
            seconds=seconds,
            warnings=tuple(warnings),
        )


def check_name(check: AnyCheck, meta: SpecMeta) -> str:
    """The name a check is reported by: its `name`, else its method (numbered when repeated)."""
    if check.name:
        return check.name
    same = [c for c in meta.checks if c.method == check.method]
    return check.method if len(same) == 1 else f"{check.method}-{same.index(check) + 1}"


def _method(item: AnyCheck | AnyRole) -> str:
    if isinstance(item, (ExternalCheck, SemanticCheck, StringMatchCheck, MultiStageCheck)):
        return item.method
    return item.verification_method


def _config(
    item: AnyCheck | AnyRole,
) -> ExternalConfig | SemanticConfig | StringMatchConfig | MultiStageConfig:
    if isinstance(item, (ExternalCheck, SemanticCheck, StringMatchCheck, MultiStageCheck)):
        return item.config
    return item.verification_config


# --------------------------------------------------------------------------- external commands


def shell_argv(command: str) -> tuple[str, ...]:
    """The command line run by the platform's shell (argv[0] absolute, as run_process wants)."""
    if sys.platform == "win32":
        return (
            os.environ.get("COMSPEC", r"C:\Windows\System32\cmd.exe"),
            "/d",
            "/s",
            "/c",
            command,
        )
    sh = "/bin/sh" if Path("/bin/sh").exists() else (shutil.which("sh") or "/bin/sh")
    return (sh, "-c", command)


def run_command(
    cfg: ExternalConfig,
    root: Path,
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
    *,
    name: str = "external",
    required: bool = True,
) -> CheckResult:
    """Run one external check. Never raises for the command's sake: a command that cannot
    start, times out or fails is a failed check, with the reason in its summary."""
    started = time.perf_counter()

    def fail(summary: str, output: str = "", *, interrupted: bool = False) -> CheckResult:
        return CheckResult(
            name,
            "external",
            False,
            required,
            summary,
            _tail(output),
            seconds=time.perf_counter() - started,
            interrupted=interrupted,
        )

    cwd = (root / cfg.working_dir).resolve()
    if not cwd.is_dir():
        return fail(f"cannot start: working directory {cfg.working_dir} does not exist")
    try:
        res = run_process(
            ProcessRequest(
                argv=shell_argv(cfg.command),
                cwd=cwd,
                env=dict(env if env is not None else os.environ),
                timeout=float(cfg.timeout),
                kill_grace=KILL_GRACE,
                tail_bytes=OUTPUT_TAIL_BYTES,
            ),
            lambda stream, chunk: None,
            cancel=cancel,
        )
    except AgentError as exc:
        return fail("cannot start: " + exc.message.removeprefix("cannot start agent: "))
    except OSError as exc:  # pragma: no cover -- run_process reports start failures as AgentError
        return fail(f"cannot start: {exc.strerror or exc}")
    output = (res.stdout_tail + res.stderr_tail).decode("utf-8", errors="replace")
    if res.interrupted:
        return fail("interrupted", output, interrupted=True)
    if res.timed_out:
        return fail(
            f"timed out after {float(cfg.timeout):g} s (its process tree was killed)", output
        )
    if res.exit_code != cfg.success_exit_code:
        return fail(f"exit code {res.exit_code}, expected {cfg.success_exit_code}", output)
    if cfg.output_contains is not None and cfg.output_contains not in output:
        return fail(f"output does not contain {cfg.output_contains!r}", output)
    if cfg.output_not_contains is not None and cfg.output_not_contains in output:
        return fail(f"output contains {cfg.output_not_contains!r}", output)
    return CheckResult(
        name,
        "external",
        True,
        required,
        f"exit code {res.exit_code}",
        seconds=time.perf_counter() - started,
    )


def _tail(output: str) -> str:
    lines = output.rstrip().splitlines()[-OUTPUT_TAIL_LINES:]
    return "\n".join(line if len(line) <= 300 else line[:300] + " …" for line in lines)
