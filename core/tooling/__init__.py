"""Tools: their definition, the registry, Python tools, calling one, and what they return."""
