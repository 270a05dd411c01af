"""Tests of src/ralph/process/, one file per module: test_<module>.py."""
