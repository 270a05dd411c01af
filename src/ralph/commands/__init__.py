"""The commands, one module each: what `ralph <command>` does below the option parsing."""
