"""The clean rooms the checks run in: a copy of exactly the files ralph compares."""
