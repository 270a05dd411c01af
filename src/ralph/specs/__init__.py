"""Spec files: which files are specs, and their front matter."""
