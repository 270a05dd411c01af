"""Tests of src/ralph/store/, one file per module: test_<module>.py."""
