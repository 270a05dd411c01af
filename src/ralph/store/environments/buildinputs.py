"""What ralph's build of the checks' environment installs, written in the build's own folder:
the requirements by name, and the files of the sources a person accepted, copied through the
one reader. uv reads these, never the tree."""

from __future__ import annotations

from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.environment.declarations import Source
from ralph.store.disk.reader import read_bytes
from ralph.store.environments.declared import MAX_ARTIFACT, Declared


def build_inputs(tree: Path, declared: Declared, folder: Path) -> list[str] | str:
    """The files uv installs from, written in the build's folder (the arguments naming them;
    [] when there is nothing to install), or why not."""
    d = declared.declaration
    lines, constraints = [*d.options, *d.installable()], list(d.constraints)
    for source in d.sources:
        line = _source_line(tree, source, folder)
        if line is None:
            continue
        if line.startswith("!"):
            return line[1:]
        (constraints if source.option == "constraint" else lines).append(line)
    args: list[str] = []
    if constraints:
        (folder / "constraints.txt").write_text("".join(f"{c}\n" for c in constraints))
        args += ["-c", str(folder / "constraints.txt")]
    if not any(not line.startswith("-") for line in lines):
        return []
    (folder / "requirements.txt").write_text("".join(f"{line}\n" for line in lines))
    return [*args, "-r", str(folder / "requirements.txt")]


def _source_line(tree: Path, source: Source, folder: Path) -> str | None:
    """The requirements line of an accepted source, what it names copied into the build's
    folder; None when it adds none (settings files); "!why" when it cannot be used."""
    if source.option in ("index-url", "extra-index-url", "no-index", "trusted-host"):
        return source.line
    if source.file in ("uv.toml", "pip.conf", "pip.ini") and not source.option:
        return None  # settings: the tree's uv.toml is the build's --config-file
    if source.line.startswith("[tool.uv] "):
        return None  # said in the docs: [tool.uv] settings apply as a uv.toml only
    copies: list[Path] = []
    for path in source.paths:
        here = tree / path
        if here.is_dir() and not here.is_symlink() and source.option != "find-links":
            return f"!{source.describe()}: a folder to build; ralph installs wheels only"
        files = sorted(p for p in here.iterdir()) if here.is_dir() else [here]
        for file in files:
            rel = file.relative_to(tree).as_posix()
            try:
                data = read_bytes(file, limit=MAX_ARTIFACT, root=tree)
            except (OSError, RalphError) as exc:
                return f"!{source.describe()}: {rel}: {str(exc).splitlines()[0]}"
            copy = folder / "files" / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            copies.append(copy)
    if source.option == "find-links":
        return f"--find-links {folder / 'files' / source.paths[0]}" if source.paths else source.line
    if not source.paths:
        return source.line.split(": ", 1)[-1]  # a URL: as the person accepted it
    name, at, _ = source.line.split(": ", 1)[-1].partition(" @ ")
    return f"{name} @ file://{copies[0]}" if at else str(copies[0])
