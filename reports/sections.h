/*
 * sections.h — the report's sections and their tables, declared once for
 * the three renderers (GoAccess's htmldef[], PostgreSQL's csvlog/jsonlog
 * writing one ErrorData two ways).
 *
 * A table is a list of columns; a column names its header, the JSON key
 * of the model row it reads (the JSON report is the model, so the key is
 * what JSON readers see), and how its cell is written. html.c and
 * markdown.c each write a cell of every kind in their own syntax and
 * escaping: a column added to a table here appears in the HTML and the
 * Markdown, and its key is the model's JSON field.
 *
 * Where the HTML and Markdown differ (the Markdown's narrower tables), the
 * column says so with `in`, so the differences are written here, in one
 * place, and nowhere else. Both write durations as people do ("78.1 s").
 */
#ifndef LS_SECTIONS_H
#define LS_SECTIONS_H

#include <stddef.h>

/* How a cell is written (HTML | Markdown). */
typedef enum ls_cell {
    LS_CELL_TEXT,    /* escaped text | escaped text */
    LS_CELL_NAME,    /* a file name: escaped text | control characters as `\n` */
    LS_CELL_CODE,    /* text in <code>, wrapping, a long one folded | escaped text */
    LS_CELL_LIST,    /* space-separated items, folded under their count | escaped text */
    LS_CELL_INT,     /* whole number */
    LS_CELL_MS,      /* duration: "78.1 s" */
    LS_CELL_MS0,     /* duration from whole ms: "78.1 s" */
    LS_CELL_MS_KNOWN, /* duration; null reads "unknown" (the log cannot tell: JSON null) */
    LS_CELL_NUM1,    /* a number with one decimal */
    LS_CELL_BYTES,   /* whole number of bytes */
    LS_CELL_PID,     /* key "blocker_pid": the pid and blocker_code_path beside it */
    LS_CELL_PIDS,    /* array of {pid, code_path}, each pair once */
    LS_CELL_TIME,    /* model time: "2026-12-02 11:45:04.435" | ISO 8601 */
    LS_CELL_BOOL,    /* yes / no */
    LS_CELL_OUTCOME, /* wait outcome: a coloured chip | its name */
    LS_CELL_ROW,     /* relation and ctid, else the lock target */
    LS_CELL_ROWKEY,  /* relation and row key, else the lock target */
    LS_CELL_SOURCE,  /* file:line of the log */
    LS_CELL_HOLD,    /* hold_ms, or its range where the log leaves the bounds open */
    LS_CELL_RANGE,   /* a duration KEY_ms, and its range KEY_min_ms..KEY_max_ms when wide */
    LS_CELL_STATE,   /* a holder's state in words ("idle in transaction") */
    LS_CELL_PARTS    /* hold_breakdown: "name N ms, ..." */
} ls_cell;

/* The formats that show a column. */
#define LS_IN_HTML 1u
#define LS_IN_MD 2u
#define LS_IN_ALL (LS_IN_HTML | LS_IN_MD)

typedef struct ls_column {
    const char *head;    /* header */
    const char *key;     /* the model row's JSON key */
    ls_cell kind;
    size_t max;  /* HTML: characters shown, 0 = all */
    unsigned in; /* LS_IN_* */
} ls_column;

typedef struct ls_table {
    const char *name; /* what its rows are, for tests and messages */
    /* Where its rows are in the model (the JSON report): keys from the
     * top, "[]" for an array's elements ("deadlocks[].edges"). */
    const char *path;
    const char *title; /* its sub-heading inside a section, or NULL */
    const char *intro; /* a sentence under that heading, or NULL */
    const ls_column *cols;
    size_t ncols;
} ls_table;

/* Is column c numeric (right-aligned) in the format `in`? */
int ls_column_numeric(const ls_column *c, unsigned in);

/* The tables (each names where its rows are: ls_table.path). */
extern const ls_table ls_tab_story;
extern const ls_table ls_tab_by_lock;
extern const ls_table ls_tab_waiting_stmts;
extern const ls_table ls_tab_blocking_stmts;
extern const ls_table ls_tab_rules;
extern const ls_table ls_tab_context;
extern const ls_table ls_tab_hot_rows;
extern const ls_table ls_tab_relation_queues;
extern const ls_table ls_tab_holds;
extern const ls_table ls_tab_code_paths;
extern const ls_table ls_tab_occupancy;
extern const ls_table ls_tab_queueing;
extern const ls_table ls_tab_requests;
extern const ls_table ls_tab_trace_waits;
extern const ls_table ls_tab_parts;
extern const ls_table ls_tab_conflicts;
extern const ls_table ls_tab_tree;
extern const ls_table ls_tab_waits;
extern const ls_table ls_tab_statements;
extern const ls_table ls_tab_edges;
extern const ls_table ls_tab_processes;
extern const ls_table ls_tab_errors;
extern const ls_table ls_tab_files;
extern const ls_table ls_tab_bad_lines;

/* Every table above, NULL-terminated (tests walk them). */
extern const ls_table *const ls_tables[];

/* The report's sections: anchor and title, the same in every format. */
typedef struct ls_section {
    const char *id;    /* HTML anchor */
    const char *title; /* heading */
} ls_section;

enum {
    LS_SEC_SUMMARY,
    LS_SEC_FINDINGS,
    LS_SEC_CODE_PATHS,
    LS_SEC_HOT_ROWS,
    LS_SEC_RELATION_QUEUES, /* only when a relation lock had a queue */
    LS_SEC_TIMELINES,
    LS_SEC_SLOW_REQUESTS,
    LS_SEC_TRACE_REQUESTS, /* only with --trace-id */
    LS_SEC_ROOT_BLOCKERS,
    LS_SEC_HOLDS,
    LS_SEC_BY_STATEMENT, /* waits by lock, by statement: without traces too */
    LS_SEC_WORST_MOMENT,
    LS_SEC_WAITS,
    LS_SEC_DEADLOCKS,
    LS_SEC_ERRORS,
    LS_SEC_INPUT,
    LS_SEC_COUNT
};
extern const ls_section ls_sections[LS_SEC_COUNT];

/*
 * The model's lists that can be cut (the report's "cut" object, keyed by
 * path: model.c ls_model_cut): what their entries are and the section
 * that says "N of M shown" under them, in every format (prose.c
 * ls_write_cuts). A list the model cuts and this table does not name
 * would go unsaid: tests/e2e/check_cut.py finds each cut's note.
 */
typedef struct ls_cut_list {
    const char *path; /* its key in the model's cut */
    const char *what; /* its entries, plural */
    int section;      /* LS_SEC_* */
} ls_cut_list;
extern const ls_cut_list ls_cut_lists[]; /* ends with path NULL */

#endif
