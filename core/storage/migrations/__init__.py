"""The store's schema as Alembic revisions, run by ``core.storage._migrate`` on the store's own
connection (no ``env.py``, no ``alembic.ini``: the folder ships inside the package).

``versions/0001_initial.py`` is the schema as main made it before migrations (68be543);
``0002_references_by_id.py`` rewrites stored plans' positional references by step id;
``0003_lab_experiments.py`` adds the Lab's experiments and the tools it last saw;
``0004_run_lineage.py`` links a rerun to the run it came from and adds the workers' table;
``0005_step_decisions.py`` keeps a person's decision on a step that waited;
``0006_step_attempts.py`` keeps the calls of a step tried again under its retry policy;
``0007_people.py`` adds people, agents' tokens (hashed) and who submitted a review;
``0008_approvals_and_grants.py`` keeps every approver's answer, the run's submitter and the grants;
``0009_step_asks.py`` keeps what the policy asks of a waiting step;
``0010_audit.py`` adds the append-only audit and the claims on runs being carried on;
``0011_link_uses.py`` keeps the signed links already used (each is good once). A new
revision goes beside it with ``down_revision`` set to the one before, and ``HEAD`` below moves
to it (a test checks the two agree): opening a store reads the file's revision and loads
Alembic only when it is not ``HEAD``.
"""

HEAD = "0013"
