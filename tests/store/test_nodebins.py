"""store/nodebins.py: a command of the built node_modules named like one on PATH, and new since
the start, is refused; a package's own command and the person's are not."""

from __future__ import annotations

from pathlib import Path

from ralph.store.nodebins import shadowing


def test_a_new_command_named_like_one_on_path_is_refused(tmp_path: Path) -> None:
    modules, start, bin_ = tmp_path / "nm", tmp_path / "start", tmp_path / "bin"
    for folder in (modules / ".bin", start / ".bin", bin_):
        folder.mkdir(parents=True)
    for name in ("node", "sh", "tape"):
        (bin_ / name).write_text("")
        (bin_ / name).chmod(0o755)
    env = {"PATH": str(bin_)}
    (modules / ".bin" / "tape").symlink_to("../tape/bin/tape")  # its own name: the control
    (modules / ".bin" / "sh").symlink_to("../sh-helper/x.js")
    (start / ".bin" / "sh").symlink_to("../sh-helper/x.js")  # the person's, from the start
    assert shadowing(modules, start, env) is None
    (modules / ".bin" / "node").symlink_to("../@evil/pkg/fake.sh")
    assert shadowing(modules, start, env) == (
        "a declared package's command shadows one on PATH: node_modules/.bin/node (from @evil/pkg)"
    )
    assert shadowing(modules, start, {"PATH": str(tmp_path / "none")}) is None
