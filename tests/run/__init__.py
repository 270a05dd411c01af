"""Tests of src/ralph/run/, one file per module: test_<module>.py."""
