"""OpenTelemetry traces of a real run, received by a real OTLP/HTTP receiver on 127.0.0.1
(tests/otlp.py decodes the exporter's protobuf): the span tree matches the worklog one for one,
each agent process gets the TRACEPARENT of its rotation's span, and no attribute holds a
secret."""

from __future__ import annotations

import pytest

from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

pytest.importorskip("opentelemetry.proto", reason="the otel extra is not installed")

from tests.otlp import receiving

KEY = "sk-ant-api03-" + "Q" * 40  # the shape of an Anthropic key, printed by a check
SPECS = {
    "specs/a.spec.md": f"---\ntest_command: echo {KEY}; test -f a.txt\n---\n# a\n- [ ] a.txt\n",
    "specs/b.spec.md": "# b\n- [ ] b.txt\n",
}
STEPS = {
    "specs/a.spec.md": [
        {"signal": "DONE"},  # refused: a.txt is missing
        {"write": {"a.txt": "a\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ],
    "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "signal": "DONE"}, {"signal": "DONE"}],
}


@pytest.mark.slow
def test_a_runs_trace_matches_its_worklog(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    lanes_project(project, SPECS)
    with receiving() as got:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", got.endpoint)
        cmd = project.script(STEPS)
        res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 0, res
    assert set(got.paths) == {"/v1/traces"}
    spans = got.spans
    (run,) = got.named("ralph run")
    assert run.parent_id == "" and {s.trace_id for s in spans} == {run.trace_id}
    by_id = {s.span_id: s for s in spans}

    # a span per spec, under the run; lanes side by side
    specs = {s.attributes["ralph.spec"]: s for s in got.named("spec ")}
    assert set(specs) == set(SPECS)
    assert all(s.parent_id == run.span_id for s in specs.values())
    a, b = specs["specs/a.spec.md"], specs["specs/b.spec.md"]
    assert a.start < b.end and b.start < a.end  # the lanes overlap in time
    assert {s.attributes.get("ralph.lane") for s in specs.values()} != {None}

    # a span per rotation, one for one with the worklog's rotation records
    ends = project.worklog("rotation_end")
    rotations = {int(s.attributes["ralph.iteration"]): s for s in got.named("rotation ")}
    assert sorted(rotations) == sorted(int(e["iteration"]) for e in ends)
    for e in ends:
        span = rotations[int(e["iteration"])]
        assert by_id[span.parent_id] is specs[e["spec"]]
        assert span.attributes["ralph.signal"] == e["signal"]
        assert span.attributes["ralph.files_changed"] == e["files_changed"]
        assert span.attributes["gen_ai.operation.name"] == "invoke_agent"
    refused = [e for e in ends if e["signal"] == "REFUSED"]
    assert len(refused) == 1
    assert [n for n, _ in rotations[int(refused[0]["iteration"])].events] == ["refusal"]
    assert sum(len(s.events) for s in got.named("rotation ")) == 1

    # a span per check ralph ran, under its rotation or the final verification
    checks = project.worklog("check")
    assert len(got.named("check ")) == len(checks) > 0
    for span in got.named("check "):
        assert by_id[span.parent_id].name.startswith(("rotation ", "final verification"))
        assert isinstance(span.attributes["ralph.check.passed"], bool)
        assert span.attributes["ralph.check.method"]
    (final,) = got.named("final verification")
    assert final.parent_id == run.span_id and final.attributes["ralph.passed"] is True

    # each agent process got the TRACEPARENT of its own rotation's span
    for call in project.calls():
        span = rotations[int(call["iteration"])]
        assert call["traceparent"].startswith(f"00-{run.trace_id}-{span.span_id}-")
    assert project.verify_calls()[0]["traceparent"].split("-")[2] == final.span_id

    # nothing secret: the key the check printed is redacted in every attribute
    texts = [repr(v) for s in spans for v in (*s.attributes.values(), *s.events)]
    assert not [t for t in texts if KEY in t]


@pytest.mark.slow
def test_without_an_exporter_no_trace_and_no_traceparent(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the control: the same run, untraced, is verified the same way and its agents get nothing
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_EXPORTER", "TRACEPARENT"):
        monkeypatch.delenv(name, raising=False)
    lanes_project(project, SPECS)
    res = project.run("run", "--agent-command", project.script(STEPS), "--headless")
    assert res.exit_code == 0, res
    assert [c["traceparent"] for c in project.all_calls()] == [None] * len(project.all_calls())
    assert [e["signal"] for e in project.worklog("rotation_end")].count("REFUSED") == 1
