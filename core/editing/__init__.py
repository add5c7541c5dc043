"""Edits to a plan by step id, what a step's output offers an edit, and the undo history."""
