"""rules/environment/treecode.py: where a Python environment puts a project's code on the import
path,
and the same places in a copy of the project (pure)."""

from __future__ import annotations

from ralph.rules.environment.treecode import mapped_modules, pth_paths


def test_the_texts_an_editable_install_leaves() -> None:
    assert pth_paths("# comment\nimport x; x.install()\n\nrel\n/abs/src\n", "/site") == [
        "/site/rel",
        "/abs/src",
    ]
    editables = "from editables.redirector import RedirectingFinder as F\nF.install()\n"
    editables += "F.map_module('pkg', '/p/src/pkg/__init__.py')\n"
    assert mapped_modules(editables) == {"pkg": "/p/src/pkg/__init__.py"}
    assert mapped_modules("MAPPING = {'a': '/p/a'}") == {"a": "/p/a"}
    assert mapped_modules("not python (") == {}
