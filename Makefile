# Two commands set everything up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
# A Windows venv keeps its programs in Scripts/ (run this Makefile from Git Bash there).
ifeq ($(OS),Windows_NT)
BIN := $(VENV)/Scripts
else
BIN := $(VENV)/bin
endif
STAMP := $(VENV)/.installed
DEMO_DIR := build/demo

.PHONY: demo test test-loaded quick lint unit coverage e2e e2e-agents sandbox-tools browser-tools bench example dist clean docs docs-gen sizes

# The tests install the otel extra too (the trace tests need it); ralph's own install stays free of it.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,otel]'
	touch $(STAMP)

demo: $(STAMP)
	rm -rf $(DEMO_DIR) && mkdir -p build
	cp -R .ralph-example $(DEMO_DIR) && rm -rf $(DEMO_DIR)/.ralph
	cd $(DEMO_DIR) && git init -q && ../../$(BIN)/ralph run --agent demo

# mypy checks everything as Linux sees it, on any host (tests of POSIX signals are skipped on
# Windows, not type-checked away), then ralph's own code as Windows and macOS see it.
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy --platform linux
	$(BIN)/mypy --platform win32 --cache-dir .mypy_cache/win32 src
	$(BIN)/mypy --platform darwin --cache-dir .mypy_cache/darwin src

# The real agent CLIs the end-to-end tests drive (tests/e2e/test_agent_cli*.py), pinned, installed into a
# cache folder outside the repository (shared: packages are only ever added to it): every CLI the
# registries carry, npm ones with npm, aider from PyPI into its own venv there. Without npm (or
# python3 -m venv) the tests of those CLIs are skipped, saying why. Cursor's CLI is on neither
# registry (its installer downloads from cursor.com), so it is tested on recordings only.
E2E_DIR ?= $(HOME)/.cache/ralph-e2e
E2E_PACKAGES ?= @anthropic-ai/claude-code@2.1.197 @openai/codex@0.169.0 \
	@google/gemini-cli@0.61.0 opencode-ai@1.18.33 @mariozechner/pi-coding-agent@0.73.1 \
	@anthropic-ai/sandbox-runtime@0.0.78
E2E_PYPI ?= aider-chat==0.86.2
export RALPH_E2E_DIR := $(E2E_DIR)

e2e-agents:
	@tests/install_agents.sh "$(E2E_DIR)" $(E2E_PACKAGES)
	@tests/install_aider.sh "$(E2E_DIR)" $(E2E_PYPI)

# bubblewrap, socat and ripgrep for the sandbox tests: installed only as root with apt-get,
# skipped (and the tests that need them skipped, saying why) otherwise.
sandbox-tools:
	@tests/install_sandbox.sh

# Chromium for the HTML report's browser tests: installed only as root with apt-get, skipped
# (and those tests skipped, saying why) otherwise.
browser-tools:
	@tests/install_browser.sh

unit: $(STAMP) e2e-agents sandbox-tools browser-tools
	$(BIN)/pytest -q -n auto --dist worksteal

# The inner loop: every test that is not slow (tests/conftest.py marks as slow what drives ralph
# end to end), about a minute on 2 cores. make test runs them all.
quick: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist worksteal -m "not slow"

e2e: $(STAMP) e2e-agents
	$(BIN)/pytest -q -p no:cacheprovider tests/e2e/test_agent_clis.py tests/e2e/test_agent_cli_limits.py -rs

# Modules the seeds require fully tested: 100 % of lines AND branches, by their own tests.
# Add a module with its test file (--cov=ralph.p.x and tests/p/test_x.py).
COVERAGE_100 := --cov=ralph.checks.claims --cov=ralph.rules.counts.breaker
COVERAGE_TESTS := tests/checks/test_claims.py tests/rules/counts/test_breaker.py

coverage: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider $(COVERAGE_TESTS) $(COVERAGE_100) \
		--cov-branch --cov-report=term-missing --cov-fail-under=100

test: lint docs unit coverage

# The same with every core kept busy (tests/busy.py: one spinning process per core, killed when
# the suite ends, however it ends): no test may depend on how fast the machine is.
test-loaded: $(STAMP)
	$(BIN)/python -m tests.busy $(MAKE) test

# The manual as a site (mkdocs.yml): strict, so a dead link, an orphan page or a page missing
# from the nav fails. docs-gen rewrites the pages generated from the code (tests/docs_gen.py;
# tests/test_docs_site.py fails when the committed ones differ). Not --quiet: it hides the
# warnings --strict counts, and a dead link would pass.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

docs-gen: $(STAMP)
	$(BIN)/python -m tests.docs_gen

# Lower the size ratchet's figures (tests/sizes.txt) to today's sizes; never raises one: a module
# that grows by design is recorded with `$(BIN)/python -m tests.sizes --update --reason "why" NAME`.
sizes: $(STAMP)
	$(BIN)/python -m tests.sizes --update

bench: $(STAMP)
	$(BIN)/python bench/overhead.py
	$(BIN)/python bench/prompts.py
	$(BIN)/python bench/lanes.py
	$(BIN)/python bench/room.py
	$(BIN)/python bench/done.py
	$(BIN)/python bench/environment.py
	$(BIN)/python bench/sealed.py
	$(BIN)/python bench/revert.py

# Re-record .ralph-example/.ralph from a real demo run (tests/e2e/test_example.py checks it stays in
# sync). .ralph/ is git-ignored everywhere, so the recording is committed with `git add -f`.
example: $(STAMP)
	$(BIN)/python -m tests.example_sync
	git add -f .ralph-example/.ralph

# The sdist and the wheel users install, built as a release would be, with their metadata checked.
dist: $(STAMP)
	rm -rf build/dist
	$(BIN)/python -m build --outdir build/dist .
	$(BIN)/twine check --strict build/dist/*

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
