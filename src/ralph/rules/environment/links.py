"""Where a link in a copied tree leads, its whole chain resolved within the tree (pure).

A link is judged by where it leads, not by its own text alone: `lk/e -> ../lk/a/up/../..`
stays inside as written, yet `lk/a` and `lk/a/up` may be links themselves, and `..` after a
link is taken from where that link leads. So the target is walked part by part as the system
walks it: every link met on the way (another link of the tree) is followed from its own
folder, every `..` leaves the folder reached so far; a walk that climbs above the tree's root,
meets an absolute target, or follows more links than the system would (a loop) leaves it;
so does one that enters a top folder whose contents are not the tree's (a room's environment
folders hold links out of it: a `..` taken there leaves the room).
"""

from __future__ import annotations

from collections.abc import Mapping

MAX_FOLLOWED = 40  # the system's own limit (Linux: ELOOP after 40 links)


def resolved(
    rel: str, links: Mapping[str, str], foreign: frozenset[str] = frozenset()
) -> str | None:
    """Where the link at `rel` (root-relative, posix) leads, as a root-relative path ("" for
    the root itself), with every link of `links` (path -> its target as written) on the way
    followed; None when the walk leaves the tree, loops, or enters a top folder of `foreign`."""
    followed = 0
    at: list[str] = rel.split("/")[:-1]  # the folder the link is in
    first = _parts(links[rel])
    if first is None:
        return None
    todo = first
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not at:
                return None
            at.pop()
            continue
        here = "/".join((*at, part))
        target = links.get(here)
        if target is None:
            at.append(part)
            if at[0] in foreign:
                return None
            continue
        followed += 1
        more = _parts(target)
        if followed > MAX_FOLLOWED or more is None:
            return None
        todo = more + todo  # from the link's own folder, `at` as it is
    return "/".join(at)


def _parts(target: str) -> list[str] | None:
    """A target's parts; None for an absolute one (a drive, a root, a UNC path)."""
    text = target.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        return None
    return text.split("/")
