"""The JSON Schemas of ralph's machine outputs: one data file per output, and their version."""
