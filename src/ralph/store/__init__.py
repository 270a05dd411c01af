"""Files ralph reads and writes: state, config, the workspace under .ralph/, the snapshot."""
