"""What the user sees: the live panel, plain and JSON lines, the status table, reports."""
