"""Starting processes (the only place ralph does), supervising them, and killing their trees."""
