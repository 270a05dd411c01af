"""Every check a spec's front matter may declare: one of ralph's own methods (their models in
specs/checkconfig.py), or a method a person's plugin registers (`ralph_check_methods`), whose
`config:` the model the plugin gives (its method's `config_model`, a Pydantic model) reads.

Only a check naming a method ralph does not have asks the plugins: they are imported then,
never for ralph's own methods (`ralph status` and `--help` start without them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Discriminator, Field, Tag, ValidationError, field_validator
from pydantic import ValidationInfo as Info
from pydantic_core import PydanticCustomError

from ralph.specs.checkconfig import (
    OWN_METHODS,
    ExternalCheck,
    MultiStageCheck,
    MutationCheck,
    NonEmpty,
    OwnCheck,
    RevertCheck,
    SemanticCheck,
    StringMatchCheck,
    _CheckBase,
)


class PluginCheck(_CheckBase):
    """A check whose method a plugin registers; `config` is read by that plugin's model."""

    method: NonEmpty
    config: Any = Field(default=None, validate_default=True)

    @field_validator("method")
    @classmethod
    def _registered(cls, value: str) -> str:
        plugin_method(value)  # an unknown name: one line saying which methods there are
        return value

    @field_validator("config", mode="before")
    @classmethod
    def _by_plugin(cls, value: Any, info: Info) -> Any:
        method = info.data.get("method")  # absent: its own error is said
        return value if method is None else plugin_config(method, value)


def _member(value: Any) -> str:
    """The union member a check is read as: ralph's own by its `method:`, else a plugin's."""
    method = value.get("method") if isinstance(value, dict) else getattr(value, "method", None)
    return method if isinstance(method, str) and method in OWN_METHODS else "plugin"


AnyCheck = OwnCheck | PluginCheck
Check = Annotated[
    Annotated[ExternalCheck, Tag("external")]
    | Annotated[SemanticCheck, Tag("semantic")]
    | Annotated[StringMatchCheck, Tag("string_match")]
    | Annotated[MultiStageCheck, Tag("multi_stage")]
    | Annotated[MutationCheck, Tag("mutation")]
    | Annotated[RevertCheck, Tag("revert")]
    | Annotated[PluginCheck, Tag("plugin")],
    Discriminator(_member),
]


def plugin_method(name: str) -> Any:
    """The method a plugin registered under `name` (the person's plugins loaded first, when no
    command has loaded them yet, for the project the folder ralph started in belongs to: none
    from inside it); an error naming the methods there are when none has."""
    from ralph.plugins.manager import plugins
    from ralph.store.disk.root import find_root

    found = plugins()
    if not found.roots:
        found.load_installed(find_root(Path.cwd().resolve()))
    theirs: list[str] = []
    for _, offered in found.collect("ralph_check_methods"):
        if isinstance(offered, dict):
            if name in offered:
                return offered[name]
            theirs += [str(n) for n in offered if n not in OWN_METHODS]
    raise PydanticCustomError(
        "unknown_method",
        "unknown check method '{name}': there are {known}; a plugin's method needs that plugin "
        "installed in ralph's environment",
        {"name": name, "known": ", ".join([*OWN_METHODS, *theirs])},
    )


def plugin_config(name: str, value: Any) -> BaseModel | None:
    """`value` read by the model of the plugin method `name` (None: a method without one takes
    no `config:`); an error naming the key when it is wrong."""
    model = getattr(plugin_method(name), "config_model", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        if value is not None:
            raise PydanticCustomError("no_config", "{name} takes no config:", {"name": name})
        return None
    try:
        return model.model_validate({} if value is None else value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        said = {"where": f"{where}: " if where else "", "msg": first["msg"]}
        raise PydanticCustomError("plugin_config", "{where}{msg}", said) from None
