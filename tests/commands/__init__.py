"""Tests of src/ralph/commands/, one file per module: test_<module>.py."""
