"""Tests of src/ralph/checks/, one file per module: test_<module>.py."""
