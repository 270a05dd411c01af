"""Tests of src/ralph/specs/, one file per module: test_<module>.py."""
