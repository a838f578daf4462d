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
    case LS_CELL_NUM1:
    case LS_CELL_BYTES:
    case LS_CELL_HOLD:
        return 1;
    /* Markdown right-aligns a pid with its code path; HTML keeps the
     * path's text left-aligned. */
    case LS_CELL_PID:
        return in == LS_IN_MD;
    default:
        return 0;
    }
}

const char *ls_column_head(const ls_column *c, unsigned in)
{
    return in == LS_IN_MD && c->md_head ? c->md_head : c->head;
}

const ls_section ls_sections[LS_SEC_COUNT] = {
    [LS_SEC_SUMMARY] = {"summary", "Summary"},
    [LS_SEC_FINDINGS] = {"findings", "Findings"},
    [LS_SEC_CODE_PATHS] = {"code-paths", "Code paths holding locks longest"},
    [LS_SEC_HOT_ROWS] = {"hot-rows", "Hot rows"},
    [LS_SEC_TIMELINES] = {"timelines", "Timelines of the hottest rows"},
    [LS_SEC_SLOW_REQUESTS] = {"slow-requests", "Slow requests"},
    [LS_SEC_ROOT_BLOCKERS] = {"root-blockers", "Root blockers"},
    [LS_SEC_HOLDS] = {"holds", "Longest holds"},
    [LS_SEC_WORST_MOMENT] = {"worst-moment", "Lock tree at the worst moment"},
    [LS_SEC_WAITS] = {"waits", "Lock waits"},
    [LS_SEC_DEADLOCKS] = {"deadlocks", "Deadlocks"},
    [LS_SEC_ERRORS] = {"errors", "Errors and timeouts"},
    [LS_SEC_INPUT] = {"input", "Input"},
};

static const ls_column hot_cols[] = {
    {"Relation", NULL, "relation", LS_CELL_TEXT, 64, A},
    {"Row", NULL, "row_key", LS_CELL_TEXT, 64, A},
    {"ctids", NULL, "ctid", LS_CELL_TEXT, 60, A},
    {"Waits", NULL, "waits", LS_CELL_INT, 0, A},
    {"Total wait", "Total wait ms", "total_wait_ms", LS_CELL_MS, 0, A},
    {"Max wait", "Max wait ms", "max_wait_ms", LS_CELL_MS, 0, A},
    {"Waiting sessions", NULL, "waiting_sessions", LS_CELL_INT, 0, H},
    {"Max queue", NULL, "max_queue_depth", LS_CELL_INT, 0, A},
    {"Holds", NULL, "holds", LS_CELL_INT, 0, A},
    {"Mean hold", "Mean hold ms", "mean_hold_ms", LS_CELL_MS, 0, A},
    {"Serial capacity /s", NULL, "serial_capacity_per_s", LS_CELL_NUM1, 0, A},
    {"First wait", NULL, "first_wait", LS_CELL_TIME, 0, H},
    {"Root blocker pid · code path", NULL, "root_blockers", LS_CELL_PIDS, 0, A},
};
const ls_table ls_tab_hot_rows = TABLE("hot rows", "hot_rows", hot_cols);

static const ls_column hold_cols[] = {
    {"Row", NULL, "row_key", LS_CELL_ROWKEY, 0, M},
    {"Holder pid · code path", NULL, "pid", LS_CELL_PID, 0, A},
    {"Application", NULL, "application", LS_CELL_TEXT, 48, A},
    {"Relation", NULL, "relation", LS_CELL_TEXT, 64, H},
    {"Row", NULL, "row_key", LS_CELL_TEXT, 64, H},
    {"Start", NULL, "start", LS_CELL_TIME, 0, H},
    {"Hold", "Hold ms", "hold_ms", LS_CELL_HOLD, 0, A},
    {"Waits", NULL, "waits", LS_CELL_INT, 0, A},
    {"Waiting caused", "Waiter ms", "waiter_ms", LS_CELL_MS, 0, A},
    {"Mostly", NULL, "head_state", LS_CELL_STATE, 0, M},
    {"SQL", "SQL ms", "sql_ms", LS_CELL_MS, 0, A},
    {"Idle", "Idle in transaction ms", "idle_ms", LS_CELL_MS, 0, A},
    {"Commit", "Commit ms", "commit_ms", LS_CELL_MS, 0, A},
    {"Head state", NULL, "head_state", LS_CELL_TEXT, 40, H},
    {"End evidence", NULL, "end_evidence", LS_CELL_TEXT, 60, H},
    {"Lock taken by", NULL, "start_evidence", LS_CELL_TEXT, 0, M},
};
const ls_table ls_tab_holds = TABLE("holds", "holds", hold_cols);

static const ls_column code_path_cols[] = {
    {"Code path", NULL, "code_path", LS_CELL_TEXT, 120, A},
    {"Named by", NULL, "named_by", LS_CELL_TEXT, 40, A},
    {"Blocking episodes", NULL, "blocking_episodes", LS_CELL_INT, 0, A},
    {"Waits caused", NULL, "waits_caused", LS_CELL_INT, 0, A},
    {"Total hold", "Total hold ms", "total_hold_ms", LS_CELL_MS, 0, A},
    {"Max hold", "Max hold ms", "max_hold_ms", LS_CELL_MS, 0, A},
    {"p95 hold", "p95 hold ms", "p95_hold_ms", LS_CELL_MS, 0, A},
    {"Waiting caused", "Waiter ms caused", "waiter_ms_caused", LS_CELL_MS, 0, A},
    {"Waits suffered", NULL, "waits_suffered", LS_CELL_INT, 0, A},
    /* HTML draws the breakdown as a bar and a table of its own (ls_tab_parts). */
    {"Where the hold time went", NULL, "hold_breakdown", LS_CELL_PARTS, 0, M},
};
const ls_table ls_tab_code_paths =
    TITLED("code paths", "code_paths", "Blocking: holds others waited for", NULL, code_path_cols);

static const ls_column occupancy_cols[] = {
    {"Code path", NULL, "code_path", LS_CELL_TEXT, 120, A},
    {"Named by", NULL, "named_by", LS_CELL_TEXT, 40, A},
    {"Holds of hot rows", NULL, "holds", LS_CELL_INT, 0, A},
    {"of which waited for", NULL, "holds_waited_for", LS_CELL_INT, 0, A},
    {"Total hold", "Total hold ms", "total_hold_ms", LS_CELL_MS, 0, A},
    {"Max hold", "Max hold ms", "max_hold_ms", LS_CELL_MS, 0, A},
    {"p95 hold", "p95 hold ms", "p95_hold_ms", LS_CELL_MS, 0, A},
    {"Share of hot-row time %", NULL, "share_pct", LS_CELL_NUM1, 0, A},
};
const ls_table ls_tab_occupancy =
    TITLED("row occupancy", "row_occupancy", "Row occupancy: every hold of a hot row",
           "How long each code path kept the hot rows locked, whether or not anyone waited "
           "long enough to be logged (from statement logging).",
           occupancy_cols);

static const ls_column queueing_cols[] = {
    {"Code path", NULL, "code_path", LS_CELL_TEXT, 120, A},
    {"Statements queued behind it", NULL, "statements_queued_behind", LS_CELL_INT, 0, A},
    {"Hidden wait caused", "Hidden wait ms caused", "hidden_wait_ms_caused", LS_CELL_MS, 0, A},
    {"Logged wait caused", "Logged wait ms caused", "logged_wait_ms_caused", LS_CELL_MS, 0, A},
    {"Its statements that waited", NULL, "statements_waited", LS_CELL_INT, 0, A},
    {"Hidden wait suffered", "Hidden wait ms suffered", "hidden_wait_ms_suffered", LS_CELL_MS, 0,
     A},
    {"Logged wait suffered", "Logged wait ms suffered", "logged_wait_ms_suffered", LS_CELL_MS, 0,
     A},
};
const ls_table ls_tab_queueing =
    TITLED("row queueing", "row_queueing", "Queueing for hot rows, logged and hidden",
           "Waits below deadlock_timeout are never logged; they are rebuilt from the holds "
           "each statement queued behind.",
           queueing_cols);

static const ls_column request_cols[] = {
    {"Request", NULL, "name", LS_CELL_TEXT, 80, A},
    {"Service", NULL, "service", LS_CELL_TEXT, 40, H},
    {"Trace", NULL, "trace_id", LS_CELL_TEXT, 32, A},
    {"Duration", "Duration ms", "duration_ms", LS_CELL_MS, 0, A},
    {"Row-lock wait", "Row-lock wait ms", "lock_wait_ms", LS_CELL_MS, 0, A},
    {"of which logged", NULL, "logged_lock_wait_ms", LS_CELL_MS, 0, A},
    {"Waited behind", NULL, "waited_behind_code_path", LS_CELL_TEXT, 80, A},
    {"Row", NULL, "waited_for_row", LS_CELL_TEXT, 60, A},
};
const ls_table ls_tab_requests = TABLE("slow requests", "slow_requests", request_cols);

static const ls_column trace_wait_cols[] = {
    {"Wait start", NULL, "start", LS_CELL_TIME, 0, A},
    {"Wait", "Wait ms", "wait_ms", LS_CELL_MS, 0, A},
    {"of which logged", NULL, "logged_ms", LS_CELL_MS, 0, A},
    {"Kind", NULL, "kind", LS_CELL_TEXT, 20, A},
    {"Row", NULL, "row", LS_CELL_TEXT, 60, A},
    {"Behind pid · code path", NULL, "behind_pid", LS_CELL_PID, 0, A},
    {"Statement", NULL, "statement", LS_CELL_CODE, 200, A},
};
const ls_table ls_tab_trace_waits =
    TABLE("a request's waits", "trace_requests[].waits", trace_wait_cols);

static const ls_column part_cols[] = {
    {"Where the hold time went", NULL, "name", LS_CELL_TEXT, 120, H},
    {"Time", NULL, "ms", LS_CELL_MS, 0, H},
};
const ls_table ls_tab_parts = TABLE("hold breakdown", "code_paths[].hold_breakdown", part_cols);

static const ls_column conflict_cols[] = {
    {"Code path", NULL, "code_path", LS_CELL_TEXT, 120, A},
    {"Writes", NULL, "first", LS_CELL_TEXT, 64, A},
    {"then", NULL, "then", LS_CELL_TEXT, 64, A},
    {"Other code path (opposite order)", NULL, "other_code_path", LS_CELL_TEXT, 120, A},
};
const ls_table ls_tab_conflicts = TITLED("lock order conflicts", "lock_order_conflicts",
                                         "Inconsistent lock order", NULL, conflict_cols);

static const ls_column tree_cols[] = {
    {"Depth", NULL, "depth", LS_CELL_INT, 0, A},
    {"Waiter pid · code path", NULL, "pid", LS_CELL_PID, 0, A},
    {"Application", NULL, "application", LS_CELL_TEXT, 48, A},
    {"Waits for pid · code path", NULL, "blocker_pid", LS_CELL_PID, 0, A},
    {"Root pid · code path", NULL, "root_pid", LS_CELL_PID, 0, A},
    {"Lock", NULL, "mode", LS_CELL_TEXT, 32, A},
    {"Relation", NULL, "relation", LS_CELL_TEXT, 64, H},
    {"Row", NULL, "row_key", LS_CELL_TEXT, 64, H},
    {"Row", NULL, "row_key", LS_CELL_ROWKEY, 0, M},
    {"Statement", NULL, "statement", LS_CELL_TEXT, 160, A},
};
const ls_table ls_tab_tree = TABLE("lock tree", "worst_moment.waits", tree_cols);

static const ls_column wait_cols[] = {
    {"Start", NULL, "start", LS_CELL_TIME, 0, A},
    {"Waiter pid · code path", NULL, "pid", LS_CELL_PID, 0, A},
    {"Application", NULL, "application", LS_CELL_TEXT, 48, A},
    {"Mode", NULL, "mode", LS_CELL_TEXT, 32, A},
    {"Row / target", NULL, "relation", LS_CELL_ROW, 0, A},
    {"Waited", "Waited ms", "waited_ms", LS_CELL_MS, 0, A},
    {"Outcome", NULL, "outcome", LS_CELL_OUTCOME, 0, A},
    {"Blocker pid · code path", NULL, "blocker_pid", LS_CELL_PID, 0, A},
    {"Root pid · code path", NULL, "root_pid", LS_CELL_PID, 0, A},
    {"Depth", NULL, "chain_depth", LS_CELL_INT, 0, A},
    {"Statement", NULL, "statement", LS_CELL_CODE, 300, A},
    {"Log", NULL, "file", LS_CELL_SOURCE, 0, H},
};
const ls_table ls_tab_waits = TABLE("waits", "waits", wait_cols);

static const ls_column stmt_cols[] = {
    {"Start", NULL, "start", LS_CELL_TIME, 0, A},
    {"Duration", "Duration ms", "duration_ms", LS_CELL_MS, 0, A},
    {"Idle before", "Idle before ms", "idle_before_ms", LS_CELL_MS0, 0, A},
    {"Statement", NULL, "text", LS_CELL_CODE, 500, A},
};
const ls_table ls_tab_statements =
    TABLE("a transaction's statements", "root_blockers[].transaction.statements", stmt_cols);

static const ls_column edge_cols[] = {
    {"Waiter pid · code path", NULL, "waiter_pid", LS_CELL_PID, 0, A},
    {"Waits for", NULL, "mode", LS_CELL_TEXT, 32, A},
    {"Lock", NULL, "target", LS_CELL_TEXT, 80, A},
    {"Blocked by pid · code path", NULL, "blocker_pid", LS_CELL_PID, 0, A},
};
const ls_table ls_tab_edges = TABLE("deadlock edges", "deadlocks[].edges", edge_cols);

/* The Markdown writes each query as a fenced code block instead. */
static const ls_column proc_cols[] = {
    {"pid · code path", NULL, "pid", LS_CELL_PID, 0, H},
    {"Query", NULL, "query", LS_CELL_CODE, 1000, H},
};
const ls_table ls_tab_processes = TABLE("deadlock processes", "deadlocks[].processes", proc_cols);

static const ls_column error_cols[] = {
    {"Time", NULL, "time", LS_CELL_TIME, 0, A},
    {"pid · code path", NULL, "pid", LS_CELL_PID, 0, A},
    {"Application", NULL, "application", LS_CELL_TEXT, 48, A},
    {"SQLSTATE", NULL, "sqlstate", LS_CELL_TEXT, 8, A},
    {"Class", NULL, "class", LS_CELL_TEXT, 32, A},
    {"Message", NULL, "message", LS_CELL_TEXT, 200, A},
    {"Statement", NULL, "statement", LS_CELL_CODE, 300, A},
    {"Caused by pid · code path", NULL, "cause_pid", LS_CELL_PID, 0, A},
    {"Log", NULL, "file", LS_CELL_SOURCE, 0, H},
};
const ls_table ls_tab_errors = TABLE("errors", "errors", error_cols);

static const ls_column file_cols[] = {
    {"File", NULL, "path", LS_CELL_TEXT, 200, A},
    {"Format", NULL, "format", LS_CELL_TEXT, 16, A},
    {"gzip", NULL, "gzip", LS_CELL_BOOL, 0, H},
    {"Bytes", NULL, "bytes", LS_CELL_BYTES, 0, H},
    {"Lines", NULL, "lines", LS_CELL_INT, 0, A},
    {"Records", NULL, "records", LS_CELL_INT, 0, A},
    {"Unparsable", NULL, "bad_lines", LS_CELL_INT, 0, A},
};
const ls_table ls_tab_files = TABLE("input files", "input.files", file_cols);

static const ls_column bad_cols[] = {
    {"File", NULL, "file", LS_CELL_TEXT, 200, H},
    {"Line", NULL, "line", LS_CELL_INT, 0, H},
    {"Reason", NULL, "reason", LS_CELL_TEXT, 200, H},
};
const ls_table ls_tab_bad_lines = TABLE("unparsable lines", "input.bad_line_samples", bad_cols);

const ls_table *const ls_tables[] = {
    &ls_tab_hot_rows,    &ls_tab_holds,     &ls_tab_code_paths,
    &ls_tab_occupancy,   &ls_tab_queueing,  &ls_tab_requests,
    &ls_tab_trace_waits, &ls_tab_parts,     &ls_tab_conflicts,
    &ls_tab_tree,        &ls_tab_waits,     &ls_tab_statements,
    &ls_tab_edges,       &ls_tab_processes, &ls_tab_errors,
    &ls_tab_files,       &ls_tab_bad_lines, NULL,
};
