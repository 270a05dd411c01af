# Two commands set everything up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR := build/demo

.PHONY: demo test lint unit bench example clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	rm -rf $(DEMO_DIR) && mkdir -p build
	cp -R .ralph-example $(DEMO_DIR) && rm -rf $(DEMO_DIR)/.ralph
	cd $(DEMO_DIR) && git init -q && ../../$(BIN)/ralph run --agent demo

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

test: lint unit

bench: $(STAMP)
	$(BIN)/python bench/overhead.py

# Re-record .ralph-example/.ralph from a real demo run (tests/test_example.py checks it stays in
# sync). .ralph/ is git-ignored everywhere, so the recording is committed with `git add -f`.
example: $(STAMP)
	$(BIN)/python -m tests.example_sync
	git add -f .ralph-example/.ralph

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
