"""`ralph schema [NAME]`: the JSON Schema of one of ralph's machine outputs, or their list."""

from __future__ import annotations

from ralph.errors import UsageError, docs_page
from ralph.schemas.catalog import SCHEMAS, UnknownSchema, schema_text


def schema(name: str | None) -> None:
    if name is None:
        width = max(map(len, SCHEMAS))
        for known, what in SCHEMAS.items():
            print(f"{known:<{width}}  {what}")
        return
    try:
        text = schema_text(name)
    except UnknownSchema:
        raise UsageError(
            f"ralph schema: no schema named {name!r}",
            f"name one of: {', '.join(SCHEMAS)} ({docs_page('reference/json.md')})",
        ) from None
    print(text, end="")
