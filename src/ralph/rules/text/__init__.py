"""What ralph says and writes: prompts, words, printable text, redaction, signals."""
