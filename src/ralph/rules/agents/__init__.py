"""The agents and their limits: the pool, vendors, their files, money, budgets."""
