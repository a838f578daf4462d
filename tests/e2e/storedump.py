"""The raw (ingest-written) content of a lockspan store in a form that does
not depend on the order rows were inserted in: row ids are replaced by what
they stand for (a session by its key, a file by its fingerprint, a
deadlock's edges and processes by the deadlock's file and line), and each
table's rows are sorted. Two stores that hold the same facts dump equal.
"""
import sqlite3

# The text of a stmt_texts id (lock_events, errors and deadlock_procs keep
# their statement, CONTEXT and query texts there).
def _text(col):
    return "(SELECT x.text FROM stmt_texts x WHERE x.text_id = %s)" % col


# table -> SQL giving its rows without autoincrement ids
_TABLES = {
    "sessions": "SELECT key, pid, pg_session, start_ts, end_ts, first_ts, last_ts, user_name,"
                " database, application, remote, backend_type FROM sessions",
    "statements": "SELECT s.key, t.pid, f.fingerprint, t.line, t.log_ts, t.start_ts, t.end_ts,"
                  " t.duration_ms, t.verb, t.name, t.xid, t.vxid, t.text, t.params, t.prepare"
                  " FROM statements t LEFT JOIN sessions s USING (session_id)"
                  " LEFT JOIN files f USING (file_id)",
    "lock_events": "SELECT s.key, t.pid, f.fingerprint, t.line, t.ts, t.phase, t.mode,"
                   " t.target_kind, t.target, t.target_xid, t.rel_oid, t.db_oid, t.page,"
                   " t.tuple_offset, t.waited_ms, t.holders, t.queue, t.ctx_action,"
                   " t.ctx_relation, t.ctx_page, t.ctx_offset, " + _text("t.text_id") + ", t.xid,"
                   " t.vxid, " + _text("t.context_id") + " FROM lock_events t"
                   " LEFT JOIN sessions s USING (session_id)"
                   " LEFT JOIN files f USING (file_id)",
    "deadlocks": "SELECT f.fingerprint, d.line, d.ts, d.victim_pid, s.key, d.detail"
                 " FROM deadlocks d LEFT JOIN sessions s ON s.session_id = d.victim_session"
                 " LEFT JOIN files f USING (file_id)",
    "deadlock_edges": "SELECT f.fingerprint, d.line, e.seq, e.waiter_pid, e.mode, e.target_kind,"
                      " e.target, e.blocker_pid FROM deadlock_edges e JOIN deadlocks d"
                      " USING (deadlock_id) LEFT JOIN files f USING (file_id)",
    "deadlock_procs": "SELECT f.fingerprint, d.line, p.pid, " + _text("p.text_id") + " FROM deadlock_procs p"
                      " JOIN deadlocks d USING (deadlock_id) LEFT JOIN files f USING (file_id)",
    "errors": "SELECT s.key, t.pid, f.fingerprint, t.line, t.ts, t.severity, t.sqlstate,"
              " t.class, t.message, t.detail, " + _text("t.text_id") + ", t.xid, t.vxid"
              " FROM errors t LEFT JOIN sessions s USING (session_id)"
              " LEFT JOIN files f USING (file_id)",
    "bad_lines": "SELECT f.fingerprint, b.line, b.reason, b.sample FROM bad_lines b"
                 " LEFT JOIN files f USING (file_id)",
    "activity": "SELECT f.fingerprint, a.line, a.ts, a.pid, a.state, a.wait_event_type,"
                " a.wait_event, a.xact_start, a.query_start, a.backend_start, a.blocking_pids,"
                " a.query FROM activity a LEFT JOIN files f USING (file_id)",
    "spans": "SELECT trace_id, span_id, parent_id, name, start_ts, end_ts FROM spans",
    # A file as a whole: what was read of it, not where it was read from.
    "files": "SELECT fingerprint, format, lines, records, bad_lines, first_ts, last_ts,"
             " text_bytes FROM files",
    # Ingest's statement counts (schema 16) and whether they cover every
    # row: a run killed and read again must leave them as one whole run.
    "stmt_stats": "SELECT statements, timed, min_dur_us, tx_control FROM stmt_stats",
    "stmt_stats_mark": "SELECT value FROM meta WHERE key = 'stmt_stats'",
}
# Tables a store of an older schema may lack: dumped as empty.
_SINCE_16 = ("stmt_stats", "stmt_stats_mark")


def _key(row):
    return tuple((v is None, str(type(v)), v if v is not None else 0) for v in row)


def dump(db):
    """{table: sorted list of row tuples} of the store at path `db`."""
    con = sqlite3.connect(db)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(files)")]
        has16 = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'stmt_stats'").fetchone()
        out = {}
        for t, sql in _TABLES.items():
            if t in _SINCE_16 and not has16:
                out[t] = []
                continue
            if "fingerprint" not in cols:  # a store from before incremental ingest
                sql = sql.replace("text_bytes", "NULL").replace("fingerprint", "file_id")
            out[t] = sorted(con.execute(sql).fetchall(), key=_key)
        return out
    finally:
        con.close()


def counts(d):
    return {t: len(rows) for t, rows in d.items()}


def diff(a, b, limit=3):
    """Human-readable differences between two dumps ([] when equal)."""
    out = []
    for t in _TABLES:
        if a[t] == b[t]:
            continue
        sa, sb = set(a[t]), set(b[t])
        out.append(f"{t}: {len(a[t])} vs {len(b[t])} rows; only in first: "
                   f"{sorted(sa - sb, key=_key)[:limit]}; only in second: "
                   f"{sorted(sb - sa, key=_key)[:limit]}")
    return out
