"""ralph's own sandbox backends, one module each, registered as plugins (process/sandbox.py)."""
