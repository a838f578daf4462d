/*
 * prose.h — the report's sentences, written once for HTML and Markdown
 * (as PostgreSQL writes one ErrorData as csvlog and as jsonlog): a
 * renderer passes an ls_writer that knows its own escaping, its times,
 * its tables and its markup; prose.c says what the sentences are.
 */
#ifndef LS_PROSE_H
#define LS_PROSE_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "sections.h"

/* Markup around prose: static strings per format in prose.c (never log
 * text). */
typedef enum ls_tag {
    LS_TAG_STRONG, /* emphasis on a figure */
    LS_TAG_STRONG_END,
    LS_TAG_CODE, /* an identifier (a trace id) */
    LS_TAG_CODE_END,
    LS_TAG_H3,     /* a sub-heading */
    LS_TAG_H3_END, /* ends it, and opens the paragraph under it */
    LS_TAG_P,      /* opens a paragraph */
    LS_TAG_P_END,  /* ends a paragraph */
    LS_TAG_NOTE,   /* a paragraph of lesser weight */
    LS_TAG_NOTE_END,
    LS_TAG_LIST, /* a list of findings */
    LS_TAG_LIST_END,
    LS_TAG_TITLE_END, /* between a finding's title and its evidence */
    LS_TAG_FIX,       /* between a finding's evidence and its fix */
    LS_TAG_ITEM_END,  /* after a finding's fix */
    LS_TAG_BULLET,    /* a line of a list of facts */
    LS_TAG_BULLET_END,
    LS_TAG_FILTER, /* the paragraph stating the report's filter */
    LS_TAG_FILTER_END,
    LS_TAG_ANSWER, /* the paragraph that gives the report's answer */
    LS_TAG_ANSWER_END,
    LS_TAG_B, /* bold in both formats */
    LS_TAG_B_END,
    LS_TAG_COUNT
} ls_tag;

typedef struct ls_writer ls_writer;
struct ls_writer {
    FILE *f;
    /* Log text, escaped for the format, at most max characters. */
    void (*esc)(FILE *f, const char *s, size_t max);
    /* A model time (ISO 8601 UTC) as the format shows times. */
    void (*time)(const ls_writer *w, const char *iso);
    /* A table of the model's rows. */
    void (*table)(const ls_writer *w, const ls_table *t, const cJSON *rows);
    /* The start of the n-th finding (from 1), up to its title. */
    void (*item)(const ls_writer *w, int n);
    unsigned in;     /* LS_IN_HTML or LS_IN_MD: the markup prose.c writes */
    const void *ctx; /* the renderer's own state */
    /* How many of the `listed` entries of the model's cut list `path` this
     * format shows (a Markdown trimmed to fit GitHub's size limit shows
     * fewer), LS_CUT_SAID when it said the cut in place; NULL: all listed. */
    int64_t (*shown)(const ls_writer *w, const cJSON *model, const char *path, int64_t listed);
};
#define LS_CUT_SAID (-1)
#define LS_CUT_ELSEWHERE (-2) /* the format lists none: the others do */

/* A duration as people write it ("78.1 s"). */
void ls_write_duration(const ls_writer *w, double ms);

/*
 * "pid 10550 · shop.orders.pay_order": a pid and, when the model knows it,
 * the code path under `prefix`code_path, through esc at most max
 * characters (an SVG title, a mermaid label). "pid unknown" for a pid of
 * 0 (null in the model: a transaction of spans only behind a pooler).
 */
void ls_write_pid_path(FILE *f, double pid, const cJSON *o, const char *prefix,
                       void (*esc)(FILE *f, const char *s, size_t max), size_t max);

/*
 * A list of {pid, code_path} (a row's root blockers, one per transaction):
 * each distinct pair once through one(), ", " between them, at most
 * LS_PIDS_SHOWN, then " and N more". Returns how many were written.
 */
#define LS_PIDS_SHOWN 6
int ls_write_pids(FILE *f, const cJSON *list, void (*one)(FILE *f, const cJSON *x));

/* When s is not NULL: label, then s through esc (at most max
 * characters). Returns whether it wrote anything. */
int ls_write_opt(FILE *f, const char *label, const char *s,
                 void (*esc)(FILE *f, const char *s, size_t max), size_t max);

/* Which ranking a note is under: what its ranges are of. */
typedef enum { LS_RANKING_OCCUPANCY, LS_RANKING_BLOCKING } ls_ranking_kind;

/*
 * Under a code-path ranking (whole-second log times): the occupancy's
 * (row_occupancy: total hold) or the blocking's (code_paths: waiting
 * caused), a note naming each pair of code paths whose ranges overlap
 * (order_uncertain_with), each pair once, in ranking order; nothing when
 * no order is uncertain.
 */
void ls_write_order_uncertain(const ls_writer *w, const cJSON *list, ls_ranking_kind kind);

/* Under the occupancy ranking: a note naming the paths whose place is no
 * rank (order_unknown: none of their holds was timed, their totals
 * unknown); nothing when every listed path has a total. */
void ls_write_order_unknown(const ls_writer *w, const cJSON *list);

/* Why transactions are named by their shape, when they are (the model's
 * code_path_identity): a paragraph, or nothing. */
void ls_write_shape_reason(const ls_writer *w, const cJSON *model);

/* A list line: label, then s as log text (at most max characters). */
void ls_write_bullet(const ls_writer *w, const char *label, const char *s, size_t max);

/* The database spans (summary.trace_spans, nothing when NULL): lead, their
 * count, label, the sentence ls_fmt_trace_spans() writes, end. */
void ls_write_trace_spans(const ls_writer *w, const cJSON *t, const char *lead, const char *label,
                          const char *end);

/* A request named with --trace-id: heading, one sentence, its waits. */
void ls_write_request(const ls_writer *w, const cJSON *r);

/* The findings: title, evidence and fix of each, or a sentence saying
 * there are none (in the time window of `flt`, the summary's filter, when
 * it has one; flt may be NULL). */
void ls_write_findings(const ls_writer *w, const cJSON *list, const cJSON *flt);

/* The answer, told first (the model's story; nothing when NULL): the
 * code path that holds hot rows longest, with its share, its row, what it
 * was doing while holding, the fix, how sure, and the compact ranking
 * (the top of row_occupancy) as a table. */
void ls_write_story(const ls_writer *w, const cJSON *story);

/* What the input cannot tell (input.logging, input.same_log_twice,
 * coverage.c): statement logging past a threshold (hold times are lower
 * bounds, how many holds have no end, what to set), and one log read in
 * two formats (every event counted twice). Nothing when neither. */
void ls_write_input_notes(const ls_writer *w, const cJSON *input);

/* A list line: what the holder o (a root blocker, a hold) was mostly
 * doing while others waited (its span-aware head_state); nothing when the
 * model does not say. */
void ls_write_holder_state(const ls_writer *w, const cJSON *o);

/* A root blocker known by its pid alone (no transaction, no xid named:
 * ls_root_apart_xid) that lists several rows: a bullet saying they may
 * be different transactions' (samples/blind-pl, issue 34); nothing
 * otherwise. */
void ls_write_root_tx_unknown(const ls_writer *w, const cJSON *root);

/* The DBA's views (waits_by_lock, waiting_statements,
 * blocking_statements): each table's title, sentence and rows, or a
 * sentence saying there are none. */
void ls_write_by_statement(const ls_writer *w, const cJSON *model);

/* The filter the report applied (flt: the summary's filter; nothing when
 * NULL): each bound given, then what it left out. */
void ls_write_filter(const ls_writer *w, const cJSON *flt);

/* The warning that lock-wait messages (u: the summary's
 * unmatched_lock_messages, or NULL for none) matched no message table:
 * the server's catalog is one lockspan does not know (ls_classify.h). */
void ls_write_unmatched_locks(const ls_writer *w, const cJSON *u);

/* The answer when the waiting was in relation lock queues and no code
 * path held a hot row (story null): the heaviest queue (the first of
 * `queues`, the model's relation_queues), its DDL, the holder it waited
 * for and what queued behind it. Nothing when story is an object or
 * there is no queue. */
void ls_write_queue_answer(const ls_writer *w, const cJSON *story, const cJSON *queues);

/* Under section `section` (LS_SEC_*): for each of its lists the model
 * cut (model.cut, sections.h ls_cut_lists), a note "200 of 247 errors
 * shown (--max-errors to list more)", or for a ranking "Top 10 of 57 hot
 * rows shown (--top to list more)"; "(no option lists more)" for a list
 * no option lifts (lift null). Where the format shows fewer than the model
 * lists (w->shown), the one note says both: "50 of 247 errors shown here
 * (--full shows the 200 the report lists; --max-errors to list more)".
 * Nothing when no list is cut. */
void ls_write_cuts(const ls_writer *w, const cJSON *model, int section);

/* The note of one cut: `shown` of `total` `what` shown, here (`full`: the
 * model lists `listed`) when fewer than listed, and the option that lists
 * more (lift, NULL: none). The Markdown's own per-entry notes use it too. */
void ls_write_cut_note(const ls_writer *w, int top, int64_t shown, int64_t listed, int64_t total,
                       const char *what, const char *lift);
/* shown LS_CUT_ELSEWHERE: "50 of 1741 unparsable lines listed in the HTML
 * and JSON reports (no option lists more)". */

/* What the hot-row sections say when they list no row: that no wait was
 * logged, or (the model has relation lock queues) that the waits were
 * for relation locks. A static string (no log text). */
/* The blocking ranking's paragraph when it ranks no code path: that no
 * transaction held a row others waited for, or (root blockers listed)
 * that holders are known but not their paths (ls_logcover_no_paths). */
void ls_write_no_code_paths(const ls_writer *w, const cJSON *model);

const char *ls_no_hot_rows(const cJSON *model);

/* Why the hidden waiting is unknown, in a few words for the summary's
 * line, from the report's input.logging.verdict (decide/logcover.c): a
 * threshold log, or one of only some statement classes. */
const char *ls_hidden_unknown_why(const cJSON *model);

/* Under the hot rows table: each row a threshold log shows only by its
 * slow lockers (hot_rows[].wait_bounds), its figures said as bounds. */
void ls_write_wait_bounds(const ls_writer *w, const cJSON *rows);

/* Does a listed hot row known only by a ctid carry LS_ROW_MAY_BE_VERSION
 * (ls_logcover.h): the list's rows are then not all logical rows. */
int ls_hot_rows_may_join(const cJSON *rows);

/* Under the hot rows table: each relation two or more of whose listed
 * rows are known only by ctids that may be versions of one row
 * (LS_ROW_MAY_BE_VERSION), named with those rows (samples/blind-pl's
 * warehouses (0,13), (0,15), (0,78): one row, warehouses id=1). */
void ls_write_ctid_versions(const ls_writer *w, const cJSON *rows);

#endif
