"""The live run: the run lock, `ralph cancel`, taking over a killed run, open lanes."""
