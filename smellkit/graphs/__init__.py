"""Repository-wide structures built from file facts: the index and its networkx graphs."""
