"""A person's npm registry for tests and the bench: a tiny HTTP server on 127.0.0.1 serving the
packages it is given (a packument at `GET /<name>`, each version's tarball beside it, made with
tarfile: `package/package.json` and its files), so `npm install` and `npm ci` run offline.

    with Registry({"tinydep": {"index.js": TINYDEP}}) as reg:
        env npm_config_registry=reg.url
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

# tinydep 1.0.0: the dependency an honest agent adds
TINYDEP = "exports.total = (xs) => xs.reduce((a, b) => a + b, 0);\n"


def tarball(name: str, version: str, files: Mapping[str, str], extra: Mapping[str, Any]) -> bytes:
    """An npm package's tarball: `package/package.json` (with `extra` fields) and `files`."""
    manifest = {"name": name, "version": version, "main": "index.js", **extra}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path, text in {"package.json": json.dumps(manifest), **files}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class Registry:
    """The registry, serving `packages` (name -> files, version 1.0.0; a `package.json` key
    is not a file: its JSON adds fields to the manifest, e.g. scripts) until closed."""

    def __init__(self, packages: Mapping[str, Mapping[str, str]], version: str = "1.0.0") -> None:
        self.tarballs: dict[str, bytes] = {}
        self.extras: dict[str, dict[str, Any]] = {}  # manifest fields: bin, scripts
        self.requests: list[str] = []
        self.version = version
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                registry.requests.append(self.path)
                body = registry.answer(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *_args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        for name, files in packages.items():
            extra = json.loads(files.get("package.json", "{}"))
            shown = {k: v for k, v in files.items() if k != "package.json"}
            self.tarballs[name] = tarball(name, version, shown, extra)
            self.extras[name] = extra
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def tarball_url(self, name: str) -> str:
        return f"{self.url}{name}/-/{name}-{self.version}.tgz"

    def packument(self, name: str) -> dict[str, Any]:
        data = self.tarballs[name]
        dist = {
            "tarball": self.tarball_url(name),
            "integrity": integrity(data),
            "shasum": hashlib.sha1(data).hexdigest(),  # npm's own field, beside integrity
        }
        version = {"name": name, "version": self.version, **self.extras[name], "dist": dist}
        return {
            "name": name,
            "dist-tags": {"latest": self.version},
            "versions": {self.version: version},
        }

    def answer(self, path: str) -> bytes | None:
        parts = path.strip("/").split("/")
        if len(parts) == 1 and parts[0] in self.tarballs:
            return json.dumps(self.packument(parts[0])).encode()
        if len(parts) == 3 and parts[1] == "-" and parts[0] in self.tarballs:
            return self.tarballs[parts[0]]
        return None

    def lock_entry(self, name: str) -> dict[str, str]:
        """The package-lock.json entry npm writes for `name` from this registry."""
        data = self.tarballs[name]
        return {
            "version": self.version,
            "resolved": self.tarball_url(name),
            "integrity": integrity(data),
        }

    def __enter__(self) -> Registry:
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
