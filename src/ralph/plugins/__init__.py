"""The plugin manager (pluggy): the hook specifications, installed plugins, contained calls."""
