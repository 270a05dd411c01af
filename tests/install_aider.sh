#!/usr/bin/env bash
# Install aider (a PyPI package) for the end-to-end tests into its own venv in the cache folder,
# DIR/aider-venv, when it is not there at the pinned version. Never fails the build: without
# python3's venv or the network the aider tests are skipped and say why.
# Usage: install_aider.sh DIR aider-chat==VERSION
set -uo pipefail
dir=$1
spec=$2
want=${spec##*==}
venv="$dir/aider-venv"
have=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("aider-chat"))' 2>/dev/null)
[ "$have" = "$want" ] && exit 0
mkdir -p "$dir"
echo "e2e: installing $spec into $venv (a few minutes, once)"
if ! { [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"; } >"$dir/aider-install.log" 2>&1 \
  || ! timeout 1200 "$venv/bin/pip" install -q "$spec" >>"$dir/aider-install.log" 2>&1; then
  echo "e2e: installing aider failed (see $dir/aider-install.log); the aider tests will be skipped"
fi
exit 0
