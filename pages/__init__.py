"""The studio's pages: thin scripts that call into ``studio``."""
