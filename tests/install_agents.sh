#!/usr/bin/env bash
# Install the agent CLIs the end-to-end tests drive (tests/e2e/test_agent_clis.py) into a cache folder
# outside the repository, from the npm registry, when npm is available. Never fails the build:
# without npm or network the e2e tests are skipped and say why.
# Usage: install_agents.sh DIR PACKAGE@VERSION...
set -uo pipefail
dir=$1
shift
if ! command -v npm >/dev/null 2>&1; then
  echo "e2e: npm not found; the end-to-end tests of real agent CLIs will be skipped"
  exit 0
fi
missing=()
for spec in "$@"; do
  name=${spec%@*}
  want=${spec##*@}
  # node reads the manifest whatever its indentation (pi's uses tabs: a text match reinstalled it)
  have=$(node -p "require(process.argv[1]).version" "$dir/node_modules/$name/package.json" 2>/dev/null)
  [ "$have" = "$want" ] || missing+=("$spec")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mkdir -p "$dir"
echo "e2e: installing ${missing[*]} into $dir"
if ! timeout 900 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${missing[@]}" \
  >"$dir/install.log" 2>&1; then
  echo "e2e: npm install failed (see $dir/install.log); the end-to-end tests will be skipped"
fi
exit 0
