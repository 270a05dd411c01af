"""A run over rotations: the loop, one rotation, the final verification, and their records."""
