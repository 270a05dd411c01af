"""What must be true on disk before a DONE counts: the check methods, the gate, strict claims."""
