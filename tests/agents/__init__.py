"""Tests of src/ralph/agents/, one file per module: test_<module>.py."""
