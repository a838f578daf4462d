/*
 * store_sql.h — SQL fragments for reading the store's compact tables
 * directly, for the store's own views (store_schema.h) and the correlation
 * passes that read the tables under them (src/correlate). Private to
 * those: a report reads the views, which give every value in full, and no
 * public header (include/) carries SQL.
 */
#ifndef LS_STORE_SQL_H
#define LS_STORE_SQL_H

/* SQL for a column of stmt_rows row `t` as the statements view gives it,
 * for readers of stmt_rows itself: the pid (NULL when it is the
 * session's), the vxid and params (an INTEGER k: as in row stmt_id - k). */
#define LS_STMT_PID(t)                                                                             \
    "coalesce(" t ".pid, (SELECT se.pid FROM sessions se WHERE se.session_id = " t ".session_id))"
/* SQL for the text of stmt_texts id `id`: statement texts, and the
 * statement, CONTEXT and query texts lock_events, errors and
 * deadlock_procs keep as text_id (and context_id). */
#define LS_TEXT_OF(id) "(SELECT tx_.text FROM stmt_texts tx_ WHERE tx_.text_id = " id ")"
/* SQL for a pid list of lock_event_rows or lock_wait_rows row `t`
 * (holders, queue) as the lock_events and lock_waits views give it: a long list is kept once, in stmt_texts, and
 * the row holds its INTEGER text_id (a wait queue of many sessions repeats
 * from message to message). */
#define LS_PIDS_OF(t, col)                                                                         \
    "CASE WHEN typeof(" t "." col ") = 'integer' THEN " LS_TEXT_OF(t "." col) " ELSE " t "." col   \
    " END"
#define LS_STMT_REF(t, col)                                                                        \
    "CASE WHEN typeof(" t "." col ") = 'integer' THEN (SELECT r_." col " FROM stmt_rows r_"        \
    " WHERE r_.stmt_id = " t ".stmt_id - " t "." col ") ELSE " t "." col " END"

#endif
