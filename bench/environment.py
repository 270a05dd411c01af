"""`make bench`: what ralph's own environment costs (store/environments/envcopy.py,
store/environments/envbuild.py).

- The copy of the project's `.venv` when a run starts, for a site-packages of 1k, 5k and 20k
  files: the first run (every file copied) and a run after an unchanged one (one `lstat` per
  file, nothing copied).
- A deciding DONE after an honest dependency change: the tree's `requirements.txt` names a
  new package (a wheel in a local folder, as `UV_FIND_LINKS` gives it): the first DONE builds
  the environment with uv, a later one on the same declarations reuses it.
- The same for Node: package.json and package-lock.json name a new package from the person's
  registry (a tiny HTTP registry on 127.0.0.1, tests/fakes/npmregistry.py): the first DONE
  builds node_modules with `npm ci`, a later one reuses it (skipped, with a line, without npm).
Best of 3 (the first run: of fresh stores); milliseconds."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ralph.store.environments.envbuild import environments
from ralph.store.environments.envcopy import envs_dir, record_start_envs, start_envs
from ralph.store.environments.uvsettings import record_person_uv

SIZES = (1_000, 5_000, 20_000)
PER_PACKAGE = 50  # files per distribution, in folders of 10, as real packages are


def site_packages(root: Path, files: int) -> None:
    """A `.venv` made by the interpreter running the bench, with `files` more files."""
    import venv

    venv.create(root / ".venv", with_pip=False)
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    for n in range(files // PER_PACKAGE):
        info = site / f"pkg{n}-1.0.dist-info"
        info.mkdir(parents=True)
        names = [f"pkg{n}/sub{i // 10}/m{i}.py" for i in range(PER_PACKAGE - 2)]
        for name in names:
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_text("x = 1\n")
        (info / "METADATA").write_text(f"Name: pkg{n}\n")
        (info / "RECORD").write_text("".join(f"{name},,\n" for name in names))


def wheel(folder: Path) -> None:
    info = "tinydep-1.0.dist-info"
    files = {
        "tinydep/__init__.py": "def total(xs):\n    return sum(xs)\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(folder / "tinydep-1.0-py3-none-any.whl", "w") as z:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            z.writestr(name, text)


def best(run: Callable[[], object], before: Callable[[], object] = lambda: None) -> float:
    out = []
    for _ in range(3):
        before()
        started = time.perf_counter()
        run()
        out.append(time.perf_counter() - started)
    return min(out) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")  # a store of the bench's own
        for size in SIZES:
            root = Path(tmp) / f"p{size}"
            site_packages(root, size)
            time.sleep(2.5)  # as old as a real one: a file of the last 2 s is copied again
            first = best(
                partial(record_start_envs, root),
                partial(shutil.rmtree, start_envs(root), ignore_errors=True),
            )
            again = best(partial(record_start_envs, root))
            print(
                f"the environment copied at a run's start, {size:>6} files: first run "
                f"{first:7.1f} ms, a run after an unchanged one {again:6.1f} ms"
            )
        root = Path(tmp) / f"p{SIZES[0]}"
        wheels = Path(tmp) / "wheels"
        wheels.mkdir()
        wheel(wheels)
        config = Path(tmp) / "config"  # the person's uv settings: no index, the wheels here
        (config / "uv").mkdir(parents=True)
        (config / "uv" / "uv.toml").write_text(f"no-index = true\nfind-links = [{str(wheels)!r}]\n")
        env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
        env["UV_CACHE_DIR"] = str(Path(tmp) / "uv-cache")
        record_person_uv(root, env)  # as a run's start does
        (root / "requirements.txt").write_text("tinydep\n")

        def build() -> None:
            found = environments(root, root, env)
            assert found.why is None and found.built is not None, found.why

        def fresh() -> None:
            for folder in envs_dir(root).iterdir():
                if folder.is_dir() and folder.name != "start":
                    shutil.rmtree(folder)

        first = best(build, fresh)
        again = best(build)
        print(
            f"a DONE after a new dependency ({sys.version_info[0]}.{sys.version_info[1]}, uv): "
            f"first {first:7.1f} ms, a later DONE on the same declarations {again:6.1f} ms"
        )
        if shutil.which("bwrap") is None:
            print("the same in the bwrap sandbox: skipped (bubblewrap is not installed)")
        else:
            boxed_build(root, env, fresh)
        node(Path(tmp))


def boxed_build(root: Path, env: dict[str, str], fresh: Callable[[], object]) -> None:
    """The same build, uv confined in the bwrap sandbox."""
    from ralph.commands.sandboxing import start_sandbox
    from ralph.process.launcher import Launcher
    from ralph.process.request import Confinement
    from ralph.store.person.config import SandboxConfig

    box = start_sandbox(root, "bwrap", SandboxConfig(), [])
    boxed = Launcher(Confinement(box))

    def build_boxed() -> None:
        found = environments(root, root, env, boxed)
        assert found.why is None and found.built is not None, found.why

    first = best(build_boxed, fresh)
    again = best(build_boxed)
    print(
        f"the same, uv confined in the bwrap sandbox: first {first:7.1f} ms, a later DONE "
        f"on the same declarations {again:6.1f} ms"
    )


def node(tmp: Path) -> None:
    """A deciding DONE after a new npm dependency: the first builds, a later one reuses."""
    if shutil.which("npm") is None:
        print("a DONE after a new npm dependency: skipped (npm is not installed)")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' registry
    from tests.fakes.npmregistry import TINYDEP, Registry

    from ralph.store.environments.nodebuild import record_node_start

    root = tmp / "node"
    root.mkdir()
    package: dict[str, object] = {"name": "calc", "version": "1.0.0"}
    (root / "package.json").write_text(json.dumps(package))
    with Registry({"tinydep": {"index.js": TINYDEP}}) as registry:
        env = {**os.environ, "npm_config_registry": registry.url}
        env["npm_config_cache"] = str(tmp / "npm-cache")
        record_start_envs(root)
        record_node_start(root, env, keep=False)
        package["dependencies"] = {"tinydep": "1.0.0"}
        entry = {"node_modules/tinydep": registry.lock_entry("tinydep")}
        lock = {"lockfileVersion": 3, "packages": {"": package, **entry}}
        (root / "package.json").write_text(json.dumps(package))
        (root / "package-lock.json").write_text(json.dumps(lock))

        def build() -> None:
            found = environments(root, root, env)
            assert found.why is None, found.why

        def fresh() -> None:
            for folder in envs_dir(root).iterdir():
                if folder.is_dir() and folder.name != "start":
                    shutil.rmtree(folder)

        first = best(build, fresh)
        again = best(build)
    print(
        f"a DONE after a new npm dependency (npm ci): first {first:7.1f} ms, a later DONE on "
        f"the same declarations {again:6.1f} ms"
    )


if __name__ == "__main__":
    main()
