"""What a test run is evidence of: test files, summaries, weakening, mutants."""
