"""A run setting as it is declared once: its flags and older spellings, its `ralph.yaml` key,
whether `--continue` keeps it, its help; how a value of it is checked, whoever gave it; and the
one precedence rule (flag, then saved, then ralph.yaml: an agent's own entry, then the rest; then
the default).

A model is a frozen dataclass whose fields are made with `setting(...)` (run/settings.py):
the field's type says what a value is (bool, int, float, str, a Literal of choices, a tuple of
them for a repeatable option). No Typer here: cli.py builds its options from `declared(model)`.
This module is read at every start-up: it imports nothing heavy.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import MISSING, field, fields
from functools import cache
from typing import Any, NamedTuple

# The declarations are named tuples: read at every start-up, they cost a tenth of a dataclass
# to define (bench: `ralph --help`).


class Alias(NamedTuple):
    """An older spelling of a setting that keeps working: `key` is its parameter's name (and
    the key an older ralph saved it under), `means` its value in the setting's own spelling
    (`junit={}`; for a flag, the value it stands for), `choices` a value-by-value translation."""

    key: str
    flags: tuple[str, ...]
    means: str = "{}"
    metavar: str | None = None  # None: a flag, which takes no value
    choices: Mapping[str, str] | None = None

    def value_of(self, given: Any) -> str | None:
        """What `given` (this spelling's value) means for the setting; None: nothing."""
        if given is None or given is False:
            return None
        if self.metavar is None:
            return self.means
        if self.choices is not None:
            return self.choices.get(str(given), str(given))  # an unknown one is refused later
        return self.means.format(given)

    def said(self) -> str:
        """The spelling as --help shows it: `--junit FILE (junit=FILE)`."""
        flags = " or ".join(self.flags)
        if self.metavar is None:
            return f"{flags} ({self.means})"
        if self.choices is not None:
            return ", ".join(f"{flags} {k} ({v})" for k, v in self.choices.items())
        return f"{flags} {self.metavar} ({self.means.format(self.metavar)})"


class Setting(NamedTuple):
    """What a field of a settings model declares beside its type and default."""

    flags: tuple[str, ...]  # the longest is its name in messages
    help: str
    yaml: str | None = None  # the ralph.yaml key (dotted) whose value applies when not given
    # the key of an agent's own entry in ralph.yaml (`agents:`) that sets it for that agent,
    # before the `yaml` key: each agent of a pool may have its own
    each_agent: str | None = None
    kept: bool = True  # `--continue` takes it from the saved run (every run setting, today)
    metavar: str | None = None
    minimum: float | None = None  # the least value allowed
    above: float | None = None  # values must be more than this
    group: str | None = None  # settings of one group exclude each other (--quiet, --verbose)
    kinds: tuple[str, ...] = ()  # KIND=VALUE items: one value per kind, merged kind by kind
    aliases: tuple[Alias, ...] = ()

    @property
    def name(self) -> str:
        return max(self.flags, key=len)

    def described(self) -> str:
        """What --help says of it: its help, its ralph.yaml key, its older spellings."""
        text = self.help
        keys = [f"an agent's own {self.each_agent}"] if self.each_agent else []
        keys += [self.yaml] if self.yaml else []
        if keys:
            text = f"{text.removesuffix('.')} (ralph.yaml: {', else '.join(keys)})."
        said = "; ".join(alias.said() for alias in self.aliases)
        return f"{text} Also {said}." if said else text


def setting(*flags: str, help: str, default: Any = MISSING, **more: Any) -> Any:
    """A field of a settings model. Without a default, ralph.yaml's value (or its default)
    applies: the setting has a `yaml` key, and ralph.yaml's own default is the only one."""
    meta = {"setting": Setting(flags, help, **more)}
    return field(metadata=meta) if default is MISSING else field(default=default, metadata=meta)


class Declared(NamedTuple):
    """One field of a settings model, with what its type says."""

    name: str
    kind: type  # bool, int, float or str
    many: bool  # a repeatable option: a tuple of values
    choices: tuple[str, ...]
    setting: Setting


@cache
def declared(model: type) -> tuple[Declared, ...]:
    hints = typing.get_type_hints(model)
    found = []
    for f in fields(model):
        kind, many, choices = _shape(hints[f.name])
        found.append(Declared(f.name, kind, many, choices, f.metadata["setting"]))
    return tuple(found)


def _shape(hint: Any) -> tuple[type, bool, tuple[str, ...]]:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):  # X | None
        return _shape(args[0])
    if origin is tuple:
        kind, _, choices = _shape(args[0])
        return kind, True, choices
    if origin is typing.Literal:
        return str, False, tuple(args)
    return hint, False, ()


def checked(d: Declared, value: Any) -> Any:
    """`value` as setting `d` takes it; ValueError saying what is wrong (its caller says whose
    value it was: the command line's or the saved run's)."""
    if not d.many:
        return _one(d, value)
    if isinstance(value, str):  # saved by a ralph from before the option could be repeated
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{value!r}: expected a list")
    return tuple(_one(d, item) for item in value)


def _one(d: Declared, value: Any) -> Any:
    s = d.setting
    if d.kind is bool and not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    if d.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{value!r} is not a whole number")
    if d.kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{value!r} is not a number")
        value = float(value)
    if d.kind is str and not isinstance(value, str):
        raise ValueError(f"{value!r} is not text")
    if d.choices:
        value = value.lower()
        if value not in d.choices:
            raise ValueError(f"{value!r} is not one of {', '.join(map(repr, d.choices))}")
    if s.minimum is not None and value < s.minimum:
        raise ValueError(f"must be at least {s.minimum:g}, got {value}")
    if s.above is not None and not value > s.above:
        raise ValueError(f"must be more than {s.above:g}, got {value}")
    if s.kinds:
        kind, _, rest = value.partition("=")
        if kind not in s.kinds:
            raise ValueError(f"{value!r}: the kind is one of {', '.join(s.kinds)} ({s.metavar})")
        if not rest.strip():
            raise ValueError(f"{value!r}: no path after {kind}= ({s.metavar})")
    return value


def spoken(model: type, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Values by setting, from values by spelling (a setting's own name or an alias's key, as
    the command line gives them and as any ralph saved them): each alias's value said in its
    setting's spelling. A repeatable setting takes them all, its own first; a choice given by
    several spellings at once takes the one listed last among its choices (`--headless
    --log-format json` is json). Keys no setting knows are left out."""
    out: dict[str, Any] = {}
    for d in declared(model):
        said: list[Any] = []
        if raw.get(d.name) is not None:
            own = raw[d.name]
            said += list(own) if d.many and isinstance(own, (list, tuple)) else [own]
        for alias in d.setting.aliases:
            values = raw.get(alias.key)
            for value in values if isinstance(values, (list, tuple)) else [values]:
                meant = alias.value_of(value)
                said += [] if meant is None else [meant]
        if not said:
            continue
        if d.many:
            out[d.name] = said
        elif len(said) > 1 and d.choices:
            out[d.name] = max(said, key=lambda v: _rank(d.choices, v))
        else:
            out[d.name] = said[-1]
    return out


def _rank(choices: Sequence[str], value: Any) -> int:
    return choices.index(value) if value in choices else len(choices)


def yaml_level(model: type, config: Any) -> dict[str, Any]:
    """The values ralph.yaml gives (its defaults included) for the settings that have a key."""
    out: dict[str, Any] = {}
    for d in declared(model):
        if d.setting.yaml is None:
            continue
        value = config
        for part in d.setting.yaml.split("."):
            value = getattr(value, part)
        if value is not None:
            out[d.name] = value
    return out


def agent_level(model: type, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The values an agent's own ralph.yaml entry gives (`entry`: the keys it sets, None
    included) for the settings an agent may set for itself."""
    out: dict[str, Any] = {}
    for d in declared(model):
        key = d.setting.each_agent
        if key is not None and key in entry:
            out[d.name] = entry[key]
    return out


def layered(model: type, levels: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The one precedence rule: each setting takes its value from the first level that has it
    (the command line, then the saved run, then an agent's own ralph.yaml entry, then the rest
    of ralph.yaml; the model's default else). A
    KIND=VALUE setting takes each kind so (`--report json=...` again keeps the saved junit
    report). A level that sets one setting of a group hides the group's others below it
    (`-q` again replaces a saved `-v`)."""
    by_name = {d.name: d for d in declared(model)}
    out: dict[str, Any] = {}
    hidden: set[str] = set()
    for level in levels:
        for name, value in level.items():
            d = by_name.get(name)
            if d is None or name in hidden:
                continue
            if d.setting.kinds:
                out[name] = _by_kind(out.get(name, ()), value)
            elif name not in out:
                out[name] = value
        for name in level:
            group = by_name[name].setting.group if name in by_name else None
            hidden |= {d.name for d in by_name.values() if group and d.setting.group == group}
    return out


def _by_kind(upper: Sequence[str], lower: Sequence[str]) -> tuple[str, ...]:
    """KIND=VALUE items: the upper level's, then the lower one's of the kinds it lacks; within
    one level the last of a kind."""
    kinds = {item.partition("=")[0]: item for item in upper}
    below = {item.partition("=")[0]: item for item in lower}
    return tuple({**kinds, **{k: v for k, v in below.items() if k not in kinds}}.values())
