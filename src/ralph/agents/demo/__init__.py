"""The built-in `demo` agent: a scripted, offline stand-in for a coding agent CLI."""
