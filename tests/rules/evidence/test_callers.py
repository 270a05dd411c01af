"""Code that reads the tests that call it (rules/evidence/callers.py): each form is found and named;
ordinary introspection and logging are not."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.callers import NAMES, READS, SKIPS, caller_reads

READERS = {
    "getframe": "import sys\ndef mean(xs):\n    return sys._getframe(1).f_locals['want']\n",
    "from sys": "from sys import _getframe as g\ndef mean(xs):\n    return g(1)\n",
    "stack": "import inspect\ndef mean(xs):\n    return inspect.stack()[1].code_context\n",
    "currentframe": "from inspect import currentframe\ndef mean(xs):\n    return currentframe()\n",
    "outer": "import inspect as i\ndef mean(xs, f):\n    return i.getouterframes(f)\n",
    "source": "import inspect, sys\ndef mean(xs):\n    return inspect.getsource(sys)\n",
    "f_back": "def mean(xs, frame):\n    return frame.f_back\n",
    "tb_frame": "def mean(xs):\n    try:\n        1/0\n    except Exception as e:\n"
    "        return e.__traceback__.tb_frame\n",
    "linecache": "import linecache\ndef mean(xs):\n    return linecache.getline('t.py', 3)\n",
    "extract_stack": "import traceback\ndef mean(xs):\n    return traceback.extract_stack()\n",
    "referrers": "import gc\ndef mean(xs):\n    return gc.get_referrers(xs)\n",
    "settrace": "import sys\nsys.settrace(lambda *a: None)\ndef mean(xs):\n    return 1\n",
    "spelt": "import sys\ndef mean(xs):\n    return getattr(sys, '_getframe')(1)\n",
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_reading_the_callers_frames_or_source_is_found(name: str) -> None:
    found = caller_reads(READERS[name])
    assert found, name
    assert all(READS in what for _, what in found)
    assert found[0][0] >= 1  # a line to look at


def test_raising_the_runners_skip_is_found() -> None:
    code = "import unittest\ndef mean(xs):\n    raise unittest.SkipTest('later')\n"
    assert caller_reads(code) == [(3, f"{SKIPS}: it uses `unittest.SkipTest`")]
    code = "import pytest\ndef mean(xs):\n    pytest.skip('later')\n"
    assert [w for _, w in caller_reads(code)] == [f"{SKIPS}: it uses `pytest.skip`"]


def test_naming_a_test_file_of_the_project_is_found() -> None:
    code = (
        "import os\nHERE = os.path.dirname(__file__)\n"
        "def mean(xs):\n    if os.path.exists(os.path.join(HERE, '../tests/test_calc.py')):\n"
        "        return 2\n    return sum(xs) / len(xs)\n"
    )
    tests = ["tests/test_calc.py", "tests/conftest.py"]
    assert caller_reads(code, tests) == [(4, f"{NAMES}: '../tests/test_calc.py'")]
    assert caller_reads(code, ["tests/test_other.py"]) == []
    # a module name is a name too; the word "conftest" names no test of its own
    assert caller_reads("import sys\nX = 'tests.test_calc' in sys.modules\n", tests)
    assert caller_reads("NAME = 'conftest.py'\n", tests) == []


@pytest.mark.parametrize(
    "code",
    [
        # what honest code does with inspect, logging, warnings and tracebacks
        "import inspect\ndef wrap(f):\n    sig = inspect.signature(f)\n    return sig.parameters\n",
        "import inspect\ndef kind(x):\n    return inspect.isclass(x) or inspect.isroutine(x)\n",
        "import logging\nlog = logging.getLogger(__name__)\ndef mean(xs):\n"
        "    log.info('mean of %d', len(xs))\n    return sum(xs) / len(xs)\n",
        "import warnings\ndef old():\n    warnings.warn('old', DeprecationWarning, stacklevel=2)\n",
        "import traceback, sys\ndef report():\n    traceback.print_exc()\n"
        "    return sys.exc_info()\n",
        "def stack():\n    items = []\n    items.append('trace')\n    return items\n",
        "this is not python (\n",
    ],
)
def test_ordinary_code_passes(code: str) -> None:
    assert caller_reads(code, ["tests/test_calc.py"]) == []
