"""The primitives of ralph's files: atomic writes, the one reader, the private store."""
