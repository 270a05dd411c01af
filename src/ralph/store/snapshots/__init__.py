"""What changed: the tree's snapshot, its fingerprints, and what it leaves out."""
