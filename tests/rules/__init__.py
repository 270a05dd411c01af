"""Tests of src/ralph/rules/, one file per module: test_<module>.py."""
