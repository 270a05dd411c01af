"""rules/evidence/harnesspatch.py: code that patches the test harness, read from Python source
(pure,
`ast`)."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.harnesspatch import harness_patches


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("import unittest\nunittest.TestCase.assertEqual = lambda *a: None\n", "assigns"),
        ("from unittest import TestCase\nTestCase.assertEqual = lambda *a: None\n", "assigns"),
        ("from unittest import TestCase as T\nsetattr(T, 'assertEqual', print)\n", "setattr"),
        ("from unittest import case\ncase.TestCase.assertTrue = print\n", "assigns"),
        ("import unittest.case\nunittest.case.TestCase.fail = print\n", "assigns"),
        ("import unittest as u\nu.TestCase.__dict__['x'] = 1\n", "assigns"),
        ("import unittest\nvars(unittest.TestCase)['x'] = 1\n", "assigns"),
        ("import unittest\ndel unittest.TestCase.assertEqual\n", "deletes"),
        ("import unittest\ndelattr(unittest.TestCase, 'assertEqual')\n", "delattr"),
        ("import pytest\npytest.fail = print\n", "assigns"),
        ("import _pytest.outcomes\n_pytest.outcomes.fail = print\n", "assigns"),
        ("import builtins\nbuiltins.AssertionError = Exception\n", "assigns"),
        ("__builtins__['print'] = len\n", "assigns"),
        ("import sys\nsys.modules['calc'] = object()\n", "assigns"),
        ("import sys\nsys.modules.update(calc=None)\n", ".update()"),
        ("import sys\nsys.exit = print\n", "assigns `sys.exit`"),
        ("import os\nos._exit = print\n", "assigns `os._exit`"),
        ("AssertionError = Exception\n", "assigns `AssertionError`"),
        ("class AssertionError(Exception):\n    pass\n", "redefines `AssertionError`"),
        (
            "from unittest import mock, TestCase\nmock.patch.object(TestCase, 'fail').start()\n",
            "patches",
        ),
        ("import unittest\nobject.__setattr__(unittest.TestCase, 'x', 1)\n", "__setattr__"),
    ],
)
def test_code_that_patches_the_harness(source: str, what: str) -> None:
    found = harness_patches(source)
    assert found and what in found[0][1], found


@pytest.mark.parametrize(
    "source",
    [
        "import unittest\n\nclass T(unittest.TestCase):\n    maxDiff = None\n",
        "import sys\nsys.path.insert(0, 'x')\nsys.modules[__name__] = object()\n",
        "import os\nos._exit(0)\n",  # calls it: the vanished summary catches that
        "from unittest import mock\nwith mock.patch('calc.io.open'):\n    pass\n",
        "pytest = 1\npytest.x = 2\n",  # a local name, not the module
        "def f(:\n",  # not Python
        "x = {}\nx.update(a=1)\nx.pop('a')\n",
    ],
)
def test_honest_code_patches_nothing(source: str) -> None:
    assert harness_patches(source) == []


def test_a_test_file_may_patch_inside_its_tests_not_while_it_is_imported() -> None:
    inside = "import builtins\n\ndef test_input(monkeypatch):\n    builtins.input = str\n"
    assert harness_patches(inside, at_import=True) == []
    assert harness_patches(inside) != []  # in code under test, anywhere is a patch
    at_import = "import unittest\n\nunittest.TestCase.assertEqual = print\n"
    assert harness_patches(at_import, at_import=True) == [
        (3, "assigns `unittest.TestCase.assertEqual`")
    ]
    redefined = "class AssertionError(Exception):\n    pass\n"
    assert harness_patches(redefined, at_import=True) == [(1, "redefines `AssertionError`")]
