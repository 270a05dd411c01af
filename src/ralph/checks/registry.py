"""Every check method by the name a spec's front matter gives it: the one place methods are
listed. A new method is one module and one line here (and its model in the front matter)."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.checks.context import Method
from ralph.checks.external import External
from ralph.checks.multi_stage import MultiStage
from ralph.checks.mutation import Mutation
from ralph.checks.revert import Revert
from ralph.checks.semantic import Semantic
from ralph.checks.string_match import StringMatch

METHODS: Mapping[str, Method] = {
    "string_match": StringMatch(),
    "external": External(),
    "semantic": Semantic(),
    "multi_stage": MultiStage(),
    "mutation": Mutation(),
    "revert": Revert(),
}
