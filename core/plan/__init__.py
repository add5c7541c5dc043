"""The plan as a value: its model, references between steps, positions, identity, order, bounds and diff."""
