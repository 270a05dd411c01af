"""The counters and the run's course: the state, the matrix, breakers, stops, caps."""
