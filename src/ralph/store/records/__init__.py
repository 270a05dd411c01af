"""What ralph records of its runs: the state, the worklog, logs, archives, reports."""
