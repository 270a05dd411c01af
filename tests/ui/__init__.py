"""Tests of src/ralph/ui/, one file per module: test_<module>.py."""
