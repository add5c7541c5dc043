"""Untrusted JSON schemas: reading them safely, bounded regular expressions, a time budget."""
