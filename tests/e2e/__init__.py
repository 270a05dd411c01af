"""End-to-end tests, named for behaviour: ralph driven through `ralph run`, as a process, with
agent CLIs, sandboxes and real test commands. Every test here is slow (tests/slowness.py)."""
