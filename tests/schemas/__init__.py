"""Tests of src/ralph/schemas/, one file per module: test_<module>.py."""
