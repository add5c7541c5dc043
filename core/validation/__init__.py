"""Checking a plan against its tools: problems named by step and field."""
