"""The agents ralph runs: the registry, the command agent, one module per CLI, output parsing."""
