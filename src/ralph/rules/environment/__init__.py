"""Settings and environments as rules: ralph.yaml, declarations, paths, links."""
