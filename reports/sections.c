/*
 * sections.c — the report's sections and tables (sections.h): every
 * table's columns for the HTML and Markdown renderers, keyed by the
 * model's JSON fields.
 */
#include "sections.h"

#define H LS_IN_HTML
#define M LS_IN_MD
#define A LS_IN_ALL
#define TABLE(name, path, cols)                                                                    \
    {                                                                                              \
        name, path, NULL, NULL, cols, sizeof(cols) / sizeof(cols[0])                               \
    }
#define TITLED(name, path, title, intro, cols)                                                     \
    {                                                                                              \
        name, path, title, intro, cols, sizeof(cols) / sizeof(cols[0])                             \
    }

int ls_column_numeric(const ls_column *c, unsigned in)
{
    switch (c->kind) {
    case LS_CELL_INT:
    case LS_CELL_MS:
    case LS_CELL_MS0:
    case LS_CELL_MS_KNOWN:
    case LS_CELL_NUM1:
    case LS_CELL_BYTES:
    case LS_CELL_HOLD:
    case LS_CELL_RANGE:
        return 1;
    /* Markdown right-aligns a pid with its code path; HTML keeps the
     * path's text left-aligned. */
    case LS_CELL_PID:
        return in == LS_IN_MD;
    default:
        return 0;
    }
}

const ls_section ls_sections[LS_SEC_COUNT] = {
    [LS_SEC_SUMMARY] = {"summary", "Summary"},
    [LS_SEC_FINDINGS] = {"findings", "Findings"},
    [LS_SEC_CODE_PATHS] = {"code-paths", "Code paths holding locks longest"},
    [LS_SEC_HOT_ROWS] = {"hot-rows", "Hot rows"},
    [LS_SEC_RELATION_QUEUES] = {"relation-queues", "Relation lock queues"},
    [LS_SEC_TIMELINES] = {"timelines", "Timelines of the hottest rows"},
    [LS_SEC_SLOW_REQUESTS] = {"slow-requests", "Slow requests"},
    [LS_SEC_TRACE_REQUESTS] = {"trace-requests", "Requests asked for (--trace-id)"},
    [LS_SEC_ROOT_BLOCKERS] = {"root-blockers", "Root blockers"},
    [LS_SEC_HOLDS] = {"holds", "Longest holds"},
    [LS_SEC_BY_STATEMENT] = {"by-statement", "Waits by lock and statement"},
    [LS_SEC_WORST_MOMENT] = {"worst-moment", "Lock tree at the worst moment"},
    [LS_SEC_WAITS] = {"waits", "Lock waits"},
    [LS_SEC_DEADLOCKS] = {"deadlocks", "Deadlocks"},
    [LS_SEC_ERRORS] = {"errors", "Errors and timeouts"},
    [LS_SEC_INPUT] = {"input", "Input"},
};

const ls_cut_list ls_cut_lists[] = {
    {"row_occupancy", "code paths by occupancy", LS_SEC_CODE_PATHS},
    {"code_paths", "code paths by blocking", LS_SEC_CODE_PATHS},
    {"row_queueing", "code paths by queueing", LS_SEC_CODE_PATHS},
    {"slow_requests", "slow requests", LS_SEC_SLOW_REQUESTS},
    {"hot_rows", "hot rows", LS_SEC_HOT_ROWS},
    {"relation_queues", "relation lock queues", LS_SEC_RELATION_QUEUES},
    {"root_blockers", "root blockers", LS_SEC_ROOT_BLOCKERS},
    {"root_blockers[].transaction.statements", "statements of the root blockers' transactions",
     LS_SEC_ROOT_BLOCKERS},
    {"holds", "holds", LS_SEC_HOLDS},
    {"waits_by_lock", "locks", LS_SEC_BY_STATEMENT},
    {"waiting_statements", "waiting statements", LS_SEC_BY_STATEMENT},
    {"blocking_statements", "blocking statements", LS_SEC_BY_STATEMENT},
    {"learned_rules", "learned statement shapes", LS_SEC_BY_STATEMENT},
    {"context_per_minute", "minutes of context", LS_SEC_BY_STATEMENT},
    {"worst_moment.waits", "waits open then", LS_SEC_WORST_MOMENT},
    {"waits", "waits", LS_SEC_WAITS},
    {"deadlocks", "deadlocks", LS_SEC_DEADLOCKS},
    {"deadlocks[].processes[].transaction.statements",
     "statements of the deadlocked processes' transactions", LS_SEC_DEADLOCKS},
    {"errors", "errors", LS_SEC_ERRORS},
    {"input.files", "input files", LS_SEC_INPUT},
    {"input.bad_line_samples", "unparsable lines", LS_SEC_INPUT},
    {NULL, NULL, 0},
};

/* The story's compact ranking, at the top of the summary. */
static const ls_column story_cols[] = {
    {"Code path", "code_path", LS_CELL_TEXT, 80, A},
    {"Share of hot-row time %", "share_pct", LS_CELL_NUM1, 0, A},
    {"Total hold", "total_hold_ms", LS_CELL_MS, 0, A},
    {"Holds", "holds", LS_CELL_INT, 0, A},
    {"waited for", "holds_waited_for", LS_CELL_INT, 0, A},
    {"Mostly (holds others waited for)", "mostly", LS_CELL_TEXT, 60, A},
};
const ls_table ls_tab_story = TABLE("story ranking", "story.ranking", story_cols);

static const ls_column hot_cols[] = {
    {"Relation", "relation", LS_CELL_TEXT, 64, A},
    {"Row", "row_key", LS_CELL_TEXT, 64, A},
    {"ctids", "ctid", LS_CELL_LIST, 400, A},
    {"Waits", "waits", LS_CELL_INT, 0, A},
    {"Total wait", "total_wait_ms", LS_CELL_MS, 0, A},
    {"Max wait", "max_wait_ms", LS_CELL_MS, 0, A},
    {"Waiting sessions", "waiting_sessions", LS_CELL_INT, 0, H},
    {"Max queue", "max_queue_depth", LS_CELL_INT, 0, A},
    {"Holds", "holds", LS_CELL_INT, 0, A},
    /* null where none of the row's holds was timed (hold_unknown_reason)
     * or no hold was found: "unknown" */
    {"Mean hold", "mean_hold_ms", LS_CELL_MS_KNOWN, 0, A},
    {"Serial capacity /s", "serial_capacity_per_s", LS_CELL_NUM1, 0, A},
    {"First wait", "first_wait", LS_CELL_TIME, 0, H},
    {"Root blocker pid · code path", "root_blockers", LS_CELL_PIDS, 0, A},
};
const ls_table ls_tab_hot_rows = TABLE("hot rows", "hot_rows", hot_cols);

/* A relation lock's queue: the DDL at its head, the holder it waited
 * for, and what queued behind it (relation_queues). */
static const ls_column relation_queue_cols[] = {
    {"Relation", "relation", LS_CELL_TEXT, 64, A},
    {"Waiting at the head (DDL)", "statement", LS_CELL_CODE, 200, A},
    {"Lock", "mode", LS_CELL_TEXT, 32, A},
    {"Its pid · code path", "pid", LS_CELL_PID, 0, A},
    {"Since", "start", LS_CELL_TIME, 0, H},
    {"Waited", "waited_ms", LS_CELL_MS, 0, A},
    {"Waited for pid · code path", "holder_pid", LS_CELL_PID, 0, A},
    {"Queued behind it", "queued", LS_CELL_INT, 0, A},
    {"Their waiting", "queued_wait_ms", LS_CELL_MS, 0, A},
    {"Longest", "max_queued_wait_ms", LS_CELL_MS, 0, A},
};
const ls_table ls_tab_relation_queues =
    TITLED("relation lock queues", "relation_queues", NULL,
           "A statement waiting for a table lock (a DDL behind a transaction that used the "
           "table) is at the head of the table's lock queue: the server grants in queue order, "
           "so every later request that conflicts with it, plain reads included, queues behind "
           "it. Each queue with what queued behind its head and for how long; a lock queue, "
           "not a hot row.",
           relation_queue_cols);

static const ls_column hold_cols[] = {
    {"Row", "row_key", LS_CELL_ROWKEY, 0, M},
    {"Holder pid · code path", "pid", LS_CELL_PID, 0, A},
    {"Application", "application", LS_CELL_TEXT, 48, A},
    {"Relation", "relation", LS_CELL_TEXT, 64, H},
    {"Row", "row_key", LS_CELL_TEXT, 64, H},
    {"Start", "start", LS_CELL_TIME, 0, H},
    {"Hold", "hold_ms", LS_CELL_HOLD, 0, A},
    {"Waits", "waits", LS_CELL_INT, 0, A},
    {"Waiting caused", "waiter_ms", LS_CELL_MS, 0, A},
    {"Mostly", "head_state", LS_CELL_STATE, 0, A},
    {"SQL", "sql_ms", LS_CELL_MS, 0, A},
    {"Idle", "idle_ms", LS_CELL_RANGE, 0, A},
    {"Commit", "commit_ms", LS_CELL_MS, 0, A},
    {"End evidence", "end_evidence", LS_CELL_TEXT, 60, H},
    {"Lock taken by", "start_evidence", LS_CELL_TEXT, 0, M},
};
const ls_table ls_tab_holds = TABLE("holds", "holds", hold_cols);

static const ls_column code_path_cols[] = {
    {"Code path", "code_path", LS_CELL_TEXT, 120, A},
    {"Named by", "named_by", LS_CELL_TEXT, 40, A},
    {"Blocking episodes", "blocking_episodes", LS_CELL_INT, 0, A},
    {"Waits caused", "waits_caused", LS_CELL_INT, 0, A},
    /* null where no hold of the path was timed (a threshold log): "unknown" */
    {"Total hold", "total_hold_ms", LS_CELL_MS_KNOWN, 0, A},
    {"Max hold", "max_hold_ms", LS_CELL_MS, 0, A},
    {"p95 hold", "p95_hold_ms", LS_CELL_MS, 0, A},
    /* with whole-second log times, the estimate and the range the log allows */
    {"Waiting caused", "waiter_ms_caused", LS_CELL_RANGE, 0, A},
    {"Waits suffered", "waits_suffered", LS_CELL_INT, 0, A},
    /* HTML draws the breakdown as a bar and a table of its own (ls_tab_parts). */
    {"Where the hold time went", "hold_breakdown", LS_CELL_PARTS, 0, M},
};
const ls_table ls_tab_code_paths =
    TITLED("code paths", "code_paths", "Blocking: whose holds made others wait, most first", NULL,
           code_path_cols);

static const ls_column occupancy_cols[] = {
    {"Code path", "code_path", LS_CELL_TEXT, 120, A},
    {"Named by", "named_by", LS_CELL_TEXT, 40, A},
    {"Holds of hot rows", "holds", LS_CELL_INT, 0, A},
    {"of which waited for", "holds_waited_for", LS_CELL_INT, 0, A},
    /* with whole-second log times, the estimate and the range the log allows */
    {"Total hold", "total_hold_ms", LS_CELL_RANGE, 0, A},
    {"Max hold", "max_hold_ms", LS_CELL_MS, 0, A},
    {"p95 hold", "p95_hold_ms", LS_CELL_MS, 0, A},
    {"Share of hot-row time %", "share_pct", LS_CELL_NUM1, 0, A},
};
const ls_table ls_tab_occupancy =
    TITLED("row occupancy", "row_occupancy", "Row occupancy: every hold of a hot row",
           "How long each code path kept the hot rows locked, whether or not anyone waited "
           "long enough to be logged (from statement logging).",
           occupancy_cols);

static const ls_column queueing_cols[] = {
    {"Code path", "code_path", LS_CELL_TEXT, 120, A},
    {"Statements queued behind it", "statements_queued_behind", LS_CELL_INT, 0, A},
    {"Hidden wait caused", "hidden_wait_ms_caused", LS_CELL_MS_KNOWN, 0, A},
    {"Logged wait caused", "logged_wait_ms_caused", LS_CELL_MS, 0, A},
    {"Its statements that waited", "statements_waited", LS_CELL_INT, 0, A},
    {"Hidden wait suffered", "hidden_wait_ms_suffered", LS_CELL_MS_KNOWN, 0, A},
    {"Logged wait suffered", "logged_wait_ms_suffered", LS_CELL_MS, 0,
     A},
};
const ls_table ls_tab_queueing =
    TITLED("row queueing", "row_queueing", "Queueing for hot rows, logged and hidden",
           "Waits below deadlock_timeout are never logged; they are rebuilt from the holds "
           "each statement queued behind.",
           queueing_cols);

static const ls_column request_cols[] = {
    {"Request", "name", LS_CELL_TEXT, 80, A},
    {"Service", "service", LS_CELL_TEXT, 40, H},
    {"Trace", "trace_id", LS_CELL_TEXT, 32, A},
    {"Duration", "duration_ms", LS_CELL_MS, 0, A},
    {"Row-lock wait", "lock_wait_ms", LS_CELL_MS, 0, A},
    {"of which logged", "logged_lock_wait_ms", LS_CELL_MS, 0, A},
    {"Waited behind", "waited_behind_code_path", LS_CELL_TEXT, 80, A},
    {"Row", "waited_for_row", LS_CELL_TEXT, 60, A},
};
const ls_table ls_tab_requests = TABLE("slow requests", "slow_requests", request_cols);

static const ls_column trace_wait_cols[] = {
    {"Wait start", "start", LS_CELL_TIME, 0, A},
    {"Wait", "wait_ms", LS_CELL_MS, 0, A},
    {"of which logged", "logged_ms", LS_CELL_MS, 0, A},
    {"Kind", "kind", LS_CELL_TEXT, 20, A},
    {"Row", "row", LS_CELL_TEXT, 60, A},
    {"Behind pid · code path", "behind_pid", LS_CELL_PID, 0, A},
    {"Statement", "statement", LS_CELL_CODE, 200, A},
};
const ls_table ls_tab_trace_waits =
    TABLE("a request's waits", "trace_requests[].waits", trace_wait_cols);

static const ls_column part_cols[] = {
    {"Where the hold time went", "name", LS_CELL_TEXT, 120, H},
    /* null where none of the path's holds was timed: "unknown" */
    {"Time", "ms", LS_CELL_MS_KNOWN, 0, H},
};
const ls_table ls_tab_parts = TABLE("hold breakdown", "code_paths[].hold_breakdown", part_cols);

static const ls_column conflict_cols[] = {
    {"Code path", "code_path", LS_CELL_TEXT, 120, A},
    {"Locked", "first_row", LS_CELL_TEXT, 64, A},
    {"then", "then_row", LS_CELL_TEXT, 64, A},
    {"Other code path (opposite order)", "other_code_path", LS_CELL_TEXT, 120, A},
    {"Deadlocks", "deadlocks", LS_CELL_INT, 0, A},
};
const ls_table ls_tab_conflicts = TITLED("lock order conflicts", "lock_order_conflicts",
                                         "Inconsistent lock order", NULL, conflict_cols);

static const ls_column tree_cols[] = {
    {"Depth", "depth", LS_CELL_INT, 0, A},
    {"Waiter pid · code path", "pid", LS_CELL_PID, 0, A},
    {"Application", "application", LS_CELL_TEXT, 48, A},
    {"Waits for pid · code path", "blocker_pid", LS_CELL_PID, 0, A},
    {"Root pid · code path", "root_pid", LS_CELL_PID, 0, A},
    {"Lock", "mode", LS_CELL_TEXT, 32, A},
    {"Relation", "relation", LS_CELL_TEXT, 64, H},
    {"Row", "row_key", LS_CELL_TEXT, 64, H},
    {"Row", "row_key", LS_CELL_ROWKEY, 0, M},
    {"Statement", "statement", LS_CELL_TEXT, 160, A},
};
const ls_table ls_tab_tree = TABLE("lock tree", "worst_moment.waits", tree_cols);

static const ls_column wait_cols[] = {
    {"Start", "start", LS_CELL_TIME, 0, A},
    {"Waiter pid · code path", "pid", LS_CELL_PID, 0, A},
    {"Application", "application", LS_CELL_TEXT, 48, A},
    {"Mode", "mode", LS_CELL_TEXT, 32, A},
    {"Row / target", "relation", LS_CELL_ROW, 0, A},
    {"Waited", "waited_ms", LS_CELL_MS, 0, A},
    {"Outcome", "outcome", LS_CELL_OUTCOME, 0, A},
    {"Blocker pid · code path", "blocker_pid", LS_CELL_PID, 0, A},
    {"Root pid · code path", "root_pid", LS_CELL_PID, 0, A},
    {"Depth", "chain_depth", LS_CELL_INT, 0, A},
    {"Statement", "statement", LS_CELL_CODE, 300, A},
    {"Log", "file", LS_CELL_SOURCE, 0, H},
};
const ls_table ls_tab_waits = TABLE("waits", "waits", wait_cols);

static const ls_column stmt_cols[] = {
    {"Start", "start", LS_CELL_TIME, 0, A},
    {"Duration", "duration_ms", LS_CELL_MS, 0, A},
    /* null where the log does not show the transaction's end (its
     * split_unknown_reason): "unknown" */
    {"Idle before", "idle_before_ms", LS_CELL_MS_KNOWN, 0, A},
    {"Statement", "text", LS_CELL_CODE, 500, A},
};
const ls_table ls_tab_statements =
    TABLE("a transaction's statements", "root_blockers[].transaction.statements", stmt_cols);

static const ls_column edge_cols[] = {
    {"Waiter pid · code path", "waiter_pid", LS_CELL_PID, 0, A},
    {"Waits for", "mode", LS_CELL_TEXT, 32, A},
    {"Lock", "target", LS_CELL_TEXT, 80, A},
    {"Blocked by pid · code path", "blocker_pid", LS_CELL_PID, 0, A},
};
const ls_table ls_tab_edges = TABLE("deadlock edges", "deadlocks[].edges", edge_cols);

/* The Markdown writes each query as a fenced code block instead. */
static const ls_column proc_cols[] = {
    {"pid · code path", "pid", LS_CELL_PID, 0, H},
    {"Query", "query", LS_CELL_CODE, 1000, H},
};
const ls_table ls_tab_processes = TABLE("deadlock processes", "deadlocks[].processes", proc_cols);

static const ls_column error_cols[] = {
    {"Time", "time", LS_CELL_TIME, 0, A},
    {"pid · code path", "pid", LS_CELL_PID, 0, A},
    {"Application", "application", LS_CELL_TEXT, 48, A},
    {"SQLSTATE", "sqlstate", LS_CELL_TEXT, 8, A},
    {"Class", "class", LS_CELL_TEXT, 32, A},
    {"Message", "message", LS_CELL_TEXT, 200, A},
    {"Statement", "statement", LS_CELL_CODE, 300, A},
    {"Caused by pid · code path", "cause_pid", LS_CELL_PID, 0, A},
    {"Log", "file", LS_CELL_SOURCE, 0, H},
};
const ls_table ls_tab_errors = TABLE("errors", "errors", error_cols);

static const ls_column file_cols[] = {
    {"File", "path", LS_CELL_NAME, 200, A},
    {"Format", "format", LS_CELL_TEXT, 16, A},
    {"gzip", "gzip", LS_CELL_BOOL, 0, H},
    {"Bytes", "bytes", LS_CELL_BYTES, 0, H},
    {"Lines", "lines", LS_CELL_INT, 0, A},
    {"Records", "records", LS_CELL_INT, 0, A},
    {"Unparsable", "bad_lines", LS_CELL_INT, 0, A},
};
const ls_table ls_tab_files = TABLE("input files", "input.files", file_cols);

static const ls_column bad_cols[] = {
    {"File", "file", LS_CELL_NAME, 200, H},
    {"Line", "line", LS_CELL_INT, 0, H},
    {"Reason", "reason", LS_CELL_TEXT, 200, H},
};
const ls_table ls_tab_bad_lines = TABLE("unparsable lines", "input.bad_line_samples", bad_cols);

static const ls_column by_lock_cols[] = {
    {"Lock", "mode", LS_CELL_TEXT, 32, A},
    {"On", "target_kind", LS_CELL_TEXT, 24, A},
    {"Object", "object", LS_CELL_TEXT, 64, A},
    {"Waits", "waits", LS_CELL_INT, 0, A},
    {"Total wait", "total_wait_ms", LS_CELL_MS, 0, A},
    {"Max wait", "max_wait_ms", LS_CELL_MS, 0, A},
    {"Sessions", "sessions", LS_CELL_INT, 0, A},
};
const ls_table ls_tab_by_lock =
    TITLED("waits by lock", "waits_by_lock", "Waits by lock type and object",
           "Logged lock waits summed by lock mode, what was locked (a tuple, a transaction id, "
           "a relation) and the relation.",
           by_lock_cols);

static const ls_column waiting_stmt_cols[] = {
    {"Waiting statement (fingerprint)", "fingerprint", LS_CELL_CODE, 300, A},
    {"Waits", "waits", LS_CELL_INT, 0, A},
    {"Total wait", "total_wait_ms", LS_CELL_MS, 0, A},
    {"Max wait", "max_wait_ms", LS_CELL_MS, 0, A},
};
const ls_table ls_tab_waiting_stmts =
    TITLED("waiting statements", "waiting_statements", "Waiting statements",
           "The statements that waited, literals replaced by ?, ranked by the time they "
           "waited.",
           waiting_stmt_cols);

static const ls_column blocking_stmt_cols[] = {
    {"Blocking transaction's first write (fingerprint)", "fingerprint", LS_CELL_CODE, 300, A},
    {"Transactions", "transactions", LS_CELL_INT, 0, A},
    {"Waits caused", "waits", LS_CELL_INT, 0, A},
    {"Waiting caused", "total_wait_ms", LS_CELL_MS, 0, A},
    {"Max wait", "max_wait_ms", LS_CELL_MS, 0, A},
};
const ls_table ls_tab_blocking_stmts =
    TITLED("blocking statements", "blocking_statements", "Blocking transactions by statement",
           "The transactions at the root of the waits, grouped by the shape of their first "
           "write, ranked by the waiting they caused.",
           blocking_stmt_cols);

static const ls_column rule_cols[] = {
    {"Locks row of", "relation", LS_CELL_TEXT, 64, A},
    {"Key column", "key_column", LS_CELL_TEXT, 64, A},
    {"Statement shape", "shape", LS_CELL_CODE, 300, A},
    {"Also every INSERT into", "insert_into", LS_CELL_TEXT, 64, A},
    {"setting", "insert_column", LS_CELL_TEXT, 64, A},
    {"Statements keyed", "statements_keyed", LS_CELL_INT, 0, A},
    {"Taught by pid · code path", "taught_by_pid", LS_CELL_PID, 0, A},
    {"Its wait began", "taught_at", LS_CELL_TIME, 0, A},
    {"On row", "taught_row_key", LS_CELL_TEXT, 64, A},
    {"Log", "file", LS_CELL_SOURCE, 0, H},
    {"Log line", "line", LS_CELL_INT, 0, M},
};
const ls_table ls_tab_rules =
    TITLED("learned rules", "learned_rules", "Learned statement shapes",
           "Statements that lock a row they do not name (a function's UPDATE, an INSERT's "
           "trigger), learned from a logged wait whose row other evidence gave, and applied "
           "to every statement of the shape, in every session and code path.",
           rule_cols);

static const ls_column context_cols[] = {
    {"Minute", "minute", LS_CELL_TIME, 0, A},
    {"Statements", "statements", LS_CELL_INT, 0, A},
    {"Statements/s", "statements_per_s", LS_CELL_NUM1, 0, A},
    {"Lock waits begun", "waits", LS_CELL_INT, 0, A},
    {"Errors", "errors", LS_CELL_INT, 0, A},
    {"Checkpoints", "checkpoints", LS_CELL_INT, 0, A},
    {"Autovacuum", "autovacuum", LS_CELL_INT, 0, A},
    {"Temp files", "temp_files", LS_CELL_INT, 0, A},
    {"Temp bytes", "temp_bytes", LS_CELL_INT, 0, A},
};
const ls_table ls_tab_context =
    TITLED("context per minute", "context_per_minute", "Context per minute",
           "Each minute around the incident, from 5 minutes before the first logged wait to 5 "
           "after the last (at most 120, within the log): the statements logged, the lock "
           "waits that began, the errors, and the server's work the log reports: checkpoints "
           "completed (log_checkpoints), autovacuum and autoanalyze runs "
           "(log_autovacuum_min_duration) and temporary files (log_temp_files), counted from "
           "English messages only (lc_messages C); what the log has none of is listed in the "
           "JSON context_not_kept.",
           context_cols);

const ls_table *const ls_tables[] = {
    &ls_tab_by_lock, &ls_tab_waiting_stmts, &ls_tab_blocking_stmts, &ls_tab_context,
    &ls_tab_story,
    &ls_tab_hot_rows,    &ls_tab_relation_queues, &ls_tab_holds, &ls_tab_code_paths,
    &ls_tab_occupancy,   &ls_tab_queueing,  &ls_tab_requests,
    &ls_tab_trace_waits, &ls_tab_parts,     &ls_tab_conflicts,
    &ls_tab_tree,        &ls_tab_waits,     &ls_tab_statements,
    &ls_tab_edges,       &ls_tab_processes, &ls_tab_errors,
    &ls_tab_files,       &ls_tab_bad_lines, NULL,
};
