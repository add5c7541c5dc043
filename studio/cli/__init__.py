"""The ``plan-studio`` command."""
