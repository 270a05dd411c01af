"""The environments the checks run in: copied at the start, or built confined."""
