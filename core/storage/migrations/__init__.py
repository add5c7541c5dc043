"""The store's schema as Alembic revisions, run by ``core.storage._migrate`` on the store's own
connection (no ``env.py``, no ``alembic.ini``: the folder ships inside the package).

``versions/0001_initial.py`` is the schema as main made it before migrations (68be543). A new
revision goes beside it with ``down_revision`` set to the one before, and ``HEAD`` below moves
to it (a test checks the two agree): opening a store reads the file's revision and loads
Alembic only when it is not ``HEAD``.
"""

HEAD = "0002"
