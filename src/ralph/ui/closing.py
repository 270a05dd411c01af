"""The context-manager plumbing every display shares: leaving the `with` block closes it."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from types import TracebackType

_D = TypeVar("_D", bound="Closing")


class Closing:
    """Context-manager plumbing shared by the displays."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _D) -> _D:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
