"""`ralph report --html` and `ralph run --report-html`: one self-contained HTML file that tells
the latest run (during the run too), escapes whatever the run recorded, stays under 2 MB for
100 rotations, and renders in a real headless Chromium without a console error."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser import chromium, colours, render
from tests.conftest import SCRIPTED_AGENT, Project

HOSTILE = "<img src=x onerror=alert(1)>&\"'"


SPEC = "# goal\n- [x] the work\n"


needs_browser = pytest.mark.skipif(
    chromium() is None,
    reason="chromium not installed (tests/install_browser.sh installs it as root with apt-get)",
)


posix_names = pytest.mark.skipif(sys.platform == "win32", reason='< > " in a file name')


def _self_contained(html: str) -> None:
    """Nothing is loaded from anywhere: no script, no link, no remote source, a CSP that
    forbids the rest."""
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    lowered = html.lower()
    for banned in ("<script", "<link", "<iframe", "@import", "url(", 'src="http', 'href="http'):
        assert banned not in lowered, banned


def test_run_writes_the_report_of_a_finished_run(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": SPEC, "specs/b.spec.md": "# b\n"})
    page = tmp_path / "out" / "run.html"
    res = git_project.run("run", "--agent", "demo", "--report-html", str(page))
    assert res.exit_code == 0, res
    html = page.read_text()
    _self_contained(html)
    assert "every spec verified" in html
    for spec in ("PROMPT.md", "specs/b.spec.md"):
        assert f"<code>{spec}</code>" in html
    # every rotation in the timeline, the final verification's included
    rotations = len(git_project.rotation_ends()) + 1
    assert html.count('<tr><td class="num">') == rotations
    assert "VERIFY_PASS" in html and "<h2>Final verification</h2>" in html
    assert html.count("<details>") == rotations  # each rotation's log opens without script
    assert "Counter path" in html and '<svg class="steps"' in html
    # `ralph report` afterwards tells the same run
    again = tmp_path / "again.html"
    res = git_project.run("report", "--html", str(again))
    assert res.exit_code == 0 and f"wrote {again}" in res.stdout
    assert again.read_text().count("VERIFY_PASS") == html.count("VERIFY_PASS")


def test_refusals_checks_and_test_counts_are_shown(git_project: Project, tmp_path: Path) -> None:
    spec = "---\ntest_command: 'exit 1'\n---\n# goal\n- [x] the work\n"
    git_project.write({"PROMPT.md": spec})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "-n", "2", "--report-html", str(tmp_path / "r.html"))
    assert res.exit_code == 3, res
    html = (tmp_path / "r.html").read_text()
    assert "REFUSED" in html and "DONE refused:" in html
    assert "FAILED</span> test_command" in html
    assert "exit 3" in html  # the outcome: max iterations


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process")
@pytest.mark.slow
def test_a_live_run_is_reported_as_far_as_it_has_got(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": SPEC})
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"*": [{"signal": "CONTINUE"}, {"sleep": 60}]}))
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ralph",
            "run",
            "--headless",
            "--agent-command",
            f"{sys.executable} {SCRIPTED_AGENT} {script}",
        ],
        cwd=git_project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        worklog = git_project.root / ".ralph" / "worklog.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if worklog.exists() and '"rotation_start", "iteration": 2' in worklog.read_text():
                break
            time.sleep(0.2)
        res = git_project.run("report", "--html", str(tmp_path / "live.html"))
        assert res.exit_code == 0, res
        html = (tmp_path / "live.html").read_text()
        assert "Run in progress" in html
        assert html.count('<tr><td class="num">') == 2  # the one done, and the one going
        assert "CONTINUE" in html and ">running<" in html
    finally:
        run.send_signal(signal.SIGINT)
        assert run.wait(60) == 130


@posix_names
@pytest.mark.slow
def test_a_hundred_rotation_report_stays_under_2_mb_and_escapes_everything(
    git_project: Project, tmp_path: Path
) -> None:
    name = f"specs/{HOSTILE}.spec.md"
    git_project.write({"PROMPT.md": SPEC, name: SPEC})
    noise = "".join(f"{n:04d} </pre><script>alert(2)</script> {'x' * 400}\n" for n in range(300))
    cmd = git_project.fake({"*": [{"say": noise, "signal": "CONTINUE"}]})
    page = tmp_path / "big.html"
    res = git_project.run("run", *cmd, "-n", "100", "--report-html", str(page))
    assert res.exit_code == 3, res
    html = page.read_text()
    assert html.count('<tr><td class="num">') == 100
    assert len(html.encode()) < 2_000_000, len(html.encode())
    _self_contained(html)
    assert HOSTILE not in html and "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#x27;" in html
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert not re.search(
        r"<(?!/?(?:html|head|meta|title|style|body|h[1-3]|p|div|table|tr|th|td|"
        r"code|span|ul|li|b|details|summary|pre|svg|polyline|line|text|rect)\b)"
        r"[a-z]",
        html,
    )
    if chromium() is not None:  # the same page in a browser: nothing runs, nothing complains
        shown = render(page)
        assert shown.console == [], shown.console


@needs_browser
@posix_names
def test_the_report_renders_in_headless_chromium(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": SPEC, f"specs/{HOSTILE}.spec.md": SPEC})
    page = tmp_path / "run.html"
    res = git_project.run("run", "--agent", "demo", "--report-html", str(page))
    assert res.exit_code == 0, res
    shown = render(page)
    assert shown.console == [], shown.console  # no error, no refused load, no script
    assert colours(shown.png) >= 8  # text, tables, the outcome's colour: not a blank page


@needs_browser
def test_the_browser_checks_see_errors_and_blank_pages(tmp_path: Path) -> None:
    """The control: a page with a console error and a blank page are caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><script>console.error("boom")</script></body></html>')
    shown = render(bad)
    assert any("boom" in line for line in shown.console)
    assert colours(shown.png) < 8


def test_an_html_report_inside_the_project_is_not_a_change_for_the_next_run(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    agent = git_project.fake({"*": [{"signal": "DONE"}]})
    first = git_project.run("run", *agent, "--report-html", "out/run.html")
    assert first.exit_code == 0, first
    again = git_project.run("run", "--continue", *agent)  # --continue keeps --report-html
    assert again.exit_code == 0, again
    assert "files changed since the last run" not in again.stdout
    assert git_project.counts() == {"PROMPT.md": 3}
    assert (git_project.root / "out/run.html").stat().st_size > 0


def test_a_run_that_cannot_start_reports_that_not_the_run_before(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    assert git_project.run("run", "--agent", "demo").exit_code == 0  # a run before, verified
    git_project.write({"ralph.yaml": "max_iterations: lots\n"})
    page = tmp_path / "r.html"
    res = git_project.run("run", "--agent", "demo", "--report-html", str(page))
    assert res.exit_code == 1, res
    html = page.read_text()
    assert "exit 1" in html and "ralph.yaml" in html
    assert "VERIFY_PASS" not in html  # the run before is not this run


@posix_names
def test_an_html_report_through_a_link_in_the_project_is_refused(
    git_project: Project, tmp_path: Path
) -> None:
    """Like the other reports: a link the agent could have planted in the project is never
    followed out of it; the run keeps its exit code."""
    outside = tmp_path / "outside.html"
    git_project.write({"PROMPT.md": SPEC})
    (git_project.root / "out.html").symlink_to(outside)
    res = git_project.run("run", "--agent", "demo", "--report-html", "out.html")
    assert res.exit_code == 0, res
    assert not outside.exists()
    assert "report" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.slow
def test_report_tells_the_last_run_that_did_work_and_any_archived_run(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": "test_command: python -c pass\n"})
    assert git_project.run("run", "--agent", "demo").exit_code == 0
    again = git_project.run("run", "--agent", "demo")  # nothing to do: every spec verified
    assert again.exit_code == 0, again
    page = tmp_path / "r.html"
    assert git_project.run("report", "--html", str(page)).exit_code == 0
    html = page.read_text()
    assert "VERIFY_PASS" in html and html.count('<tr><td class="num">') == 4
    # the final verification says what ralph itself ran: the command and its result
    verification = html.split("<h2>Final verification</h2>", 1)[1].split("<h2>", 1)[0]
    assert "ralph ran" in verification and "<code>python -c pass</code>" in verification
    assert "passed</span>" in verification
    # an archived run by its id; an unknown id is a usage error that lists the ids
    (archived,) = [
        p.name for p in (git_project.root / ".ralph/archive").iterdir() if p.name[0].isdigit()
    ]
    old = tmp_path / "old.html"
    res = git_project.run("report", "--html", str(old), "--run", archived)
    assert res.exit_code == 0, res
    assert "VERIFY_PASS" in old.read_text()
    res = git_project.run("report", "--html", str(old), "--run", "../../etc")
    assert res.exit_code == 2 and archived in res.stderr and "Traceback" not in res.stderr


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a shell wrapper stands in for claude")
def test_a_log_excerpt_reads_as_ralph_history_shows_it(
    git_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude's stream-json log becomes its words in the report, as in `ralph history N`."""
    from tests.conftest import FAKES

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{FAKES / "fake_claude.py"}" "$@"\n'
    )
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    script = tmp_path / "claude.json"
    script.write_text(json.dumps([{"kind": "done", "input": 10, "output": 1, "cost": 0.01}]))
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))
    git_project.write({"PROMPT.md": SPEC})
    page = tmp_path / "r.html"
    res = git_project.run("run", "--agent", "claude", "-n", "1", "--report-html", str(page))
    assert res.exit_code == 3, res
    shown = git_project.run("history", "1").stdout
    html = page.read_text()
    excerpt = html.split("<pre>", 1)[1].split("</pre>", 1)[0]
    assert '{"type"' not in excerpt and "&quot;type&quot;" not in excerpt, excerpt
    last_words = [line for line in shown.splitlines() if "<ralph>DONE</ralph>" in line]
    assert last_words and "&lt;ralph&gt;DONE&lt;/ralph&gt;" in excerpt
