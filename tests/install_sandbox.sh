#!/usr/bin/env bash
# Install what the sandbox tests need (tests/e2e/test_sandbox_run.py, tests/e2e/test_agent_cli_sandbox.py):
# bubblewrap, socat and ripgrep, when they are missing and this can be done without asking anyone,
# that is as root with apt-get. Never fails the build: otherwise those tests are skipped, saying why.
set -uo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "sandbox: ${missing[*]} not installed (installing needs root and apt-get); the sandbox tests that need them will be skipped"
  exit 0
fi
echo "sandbox: installing ${missing[*]} with apt-get"
log=$(mktemp)
if ! { timeout 300 apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  echo "sandbox: apt-get failed (see $log); the sandbox tests that need them will be skipped"
fi
exit 0
