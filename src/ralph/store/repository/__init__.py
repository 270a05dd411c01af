"""ralph's git, guarded: the repository, what git holds, the lanes' worktrees."""
