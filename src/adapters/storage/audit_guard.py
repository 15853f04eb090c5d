"""The database's own refusal to change the audit (DESIGN.md 6.6): triggers that refuse an ``UPDATE`` of a record
or a checkpoint, and a ``DELETE`` of anything but the records a checkpoint covers (retention). The migration adds
them; the tests' :func:`~adapters.storage.engine.truncate_all` lifts them on SQLite for a moment (PostgreSQL's
``TRUNCATE`` fires no row trigger).
"""

from __future__ import annotations

__all__ = ["APPEND_ONLY", "DROP", "REFUSAL"]

#: The words of the refusal, as the database raises it.
REFUSAL = "audit is append-only"

_COVERED = "COALESCE((SELECT MAX(seq) FROM audit_checkpoint), 0)"

#: Statements adding the triggers, by dialect.
APPEND_ONLY: dict[str, tuple[str, ...]] = {
    "sqlite": (
        f"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END",
        f"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit WHEN OLD.seq > {_COVERED} "
        f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END",
        "CREATE TRIGGER audit_checkpoint_fixed BEFORE UPDATE ON audit_checkpoint "
        f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END",
        "CREATE TRIGGER audit_checkpoint_kept BEFORE DELETE ON audit_checkpoint "
        f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END",
    ),
    "postgresql": (
        "CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_TABLE_NAME = 'audit' AND TG_OP = 'DELETE' AND OLD.seq <= {_COVERED} THEN RETURN OLD; END IF; "
        f"RAISE EXCEPTION '{REFUSAL}'; END $$",
        "CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit "
        "FOR EACH ROW EXECUTE FUNCTION audit_append_only()",
        "CREATE TRIGGER audit_checkpoint_append_only BEFORE UPDATE OR DELETE ON audit_checkpoint "
        "FOR EACH ROW EXECUTE FUNCTION audit_append_only()",
    ),
}

#: Statements removing them, by dialect.
DROP: dict[str, tuple[str, ...]] = {
    "sqlite": tuple(
        f"DROP TRIGGER IF EXISTS {name}"
        for name in ("audit_no_update", "audit_no_delete", "audit_checkpoint_fixed", "audit_checkpoint_kept")
    ),
    "postgresql": (
        "DROP TRIGGER IF EXISTS audit_checkpoint_append_only ON audit_checkpoint",
        "DROP TRIGGER IF EXISTS audit_append_only ON audit",
        "DROP FUNCTION IF EXISTS audit_append_only()",
    ),
}
