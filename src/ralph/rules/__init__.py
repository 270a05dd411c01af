"""Pure rules: values in, values out; no I/O and no import from the rest of ralph."""
