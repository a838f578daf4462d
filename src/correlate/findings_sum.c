/*
 * findings_sum.c — the finding rules that gather finer rows than their
 * findings and sum them in C (findings.c runs them): the external call,
 * per span name (one finding per call-site template:
 * ls_finding_call_template), the idle-in-transaction head, per hold
 * (which holds count: ls_idle_known_add, decide/idlegap.h),
 * and the counter row, per statement shape and code path that took it
 * (is it a counter, and which writer held it longest: ls_counter_decide).
 * Their sentences are written by SQLite's printf from the sums, as the
 * other rules' are by their queries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "decide/counter.h"
#include "decide/idlegap.h"
#include "idle_sql.h"
#include "findings_int.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "rowkey.h"
#include "ls_sqlshape.h"

/* A time of the store (microseconds) as the findings write it, UTC. */
#define UTC_TIME(t) "strftime('%%Y-%%m-%%d %%H:%%M:%%f', " t " / 1e6, 'unixepoch')"

/* The idle rule's title and evidence from its sums (:path code path,
 * :holds holds, :idle unexplained idle, :caused waiting caused, :longest
 * longest hold), in SQLite's printf as every other rule's; where some
 * holds are known idle from the session's silence in a log without
 * durations (:gap_holds of them), how it knows, from the longest (:gap_ms
 * its length, :gap_from and :gap_to the logged starts of the statement
 * that took the row and of the session's next, :gap_waits the hold's
 * waits); where some were waited for below deadlock_timeout alone
 * (:span_holds), their idle's bounds (:span_lo, :span_hi) and the log's
 * resolution (:res). Named (ls_params.h), listed in first use. */
#define IDLE_WORDS_SQL                                                                             \
    "SELECT :path || ' sits idle in transaction at the head of the queue',"                        \
    " printf('%%d hold%%s of a hot row with the holder idle in transaction while others "          \
    "waited: " DUR " idle that no trace span explains, " DUR " of waiting caused; longest "        \
    "hold " DUR ".', :holds, CASE WHEN :holds > 1 THEN 's' ELSE '' END, :idle, :caused, :longest)" \
    " || CASE WHEN :gap_holds > 0 THEN printf(' No durations in the log: idle known from the "     \
    "session''s silence for %%d of the %%d hold%%s; the longest, the session logged nothing for "  \
    "at least " DUR " between the statement that took the row (logged at %%s UTC) and its next "   \
    "statement (%%s UTC) while %%d wait%%s queued behind it.', :gap_holds, :holds,"                \
    " CASE WHEN :holds > 1 THEN 's' ELSE '' END, :gap_ms, " UTC_TIME(":gap_from") ", "             \
    UTC_TIME(":gap_to") ", :gap_waits,"                                                            \
    " CASE WHEN :gap_waits > 1 THEN 's' ELSE '' END) ELSE '' END"                                  \
    " || CASE WHEN :span_holds > 0 THEN printf(' %%d of the %%d hold%%s waited for below "         \
    "deadlock_timeout only (no wait logged): idle from the durations, between the end of the "     \
    "statement that took the row and the start of the transaction''s last; %%s " DUR " to " DUR    \
    ".', :span_holds, :holds, CASE WHEN :holds > 1 THEN 's' ELSE '' END, CASE WHEN :res >= "       \
    LS_SQL_INT(LS_WHOLE_SECOND_US) " THEN 'the log''s times are whole seconds, so their idle "     \
    "time is only known to lie within one second of each estimate either way:' ELSE 'known to "    \
    "the log''s resolution:' END, :span_lo, :span_hi) ELSE '' END"                                 \
    " || CASE WHEN :dur_holds > 0 AND :res >= " LS_SQL_INT(LS_WHOLE_SECOND_US) " THEN printf("    \
    "' The log''s times are whole seconds: the idle of %%d of the %%d hold%%s, from durations, is " \
    "an estimate, each hold''s within one second of its own either way, their errors averaging "   \
    "out in the sum; the idle in all lies between " DUR " and " DUR " (two standard deviations of " \
    "that rounding).', :dur_holds, :holds, CASE WHEN :holds > 1 THEN 's' ELSE '' END,"             \
    " :idle_lo, :idle_hi) ELSE '' END"                                                             \
    " || CASE WHEN :waited_holds > 0 THEN printf(' Of those, %%d hold%%s idle at least " DUR        \
    " in all by the waits on %%s transaction%%s that the log wrote before %%s end%%s (a waiter''s "  \
    "\"still waiting ... after\" before the COMMIT or ROLLBACK less the holder''s statements).',"   \
    " :waited_holds, CASE WHEN :waited_holds > 1 THEN 's' ELSE '' END, :known_lo,"                 \
    " CASE WHEN :waited_holds > 1 THEN 'their' ELSE 'its' END,"                                    \
    " CASE WHEN :waited_holds > 1 THEN 's' ELSE '' END,"                                           \
    " CASE WHEN :waited_holds > 1 THEN 'their' ELSE 'its' END,"                                    \
    " CASE WHEN :waited_holds > 1 THEN 's' ELSE '' END) ELSE '' END"
#define IDLE_WORDS_PARAMS(X, Q)                                                                    \
    X(Q, path) X(Q, holds) X(Q, idle) X(Q, caused) X(Q, longest) X(Q, gap_holds) X(Q, gap_ms)      \
    X(Q, gap_from) X(Q, gap_to) X(Q, gap_waits) X(Q, span_holds) X(Q, res) X(Q, span_lo)           \
    X(Q, span_hi) X(Q, dur_holds) X(Q, idle_lo) X(Q, idle_hi) X(Q, waited_holds) X(Q, known_lo)
LS_PARAMS(iwp, IDLE_WORDS_PARAMS);
/*
 * A head's idle as the log's stamps give it, unclipped (issue 34): the
 * hold's length less its span parts and its statements after the one
 * that took the row (their durations, binds and parses; that one's own
 * part after the hold's start), each as logged; NULL without a locking
 * statement or without durations (no hold_parts idle part). hold_parts'
 * idle part clips each statement to the hold and the rest at 0: on a
 * whole-second log, where both ends of a hold often share a stamp, it
 * reads every hold a second boundary fell in as about a second and the
 * others as 0, and the holds pass's state, from those rounded times,
 * names the first idle and the others running or committing. With it,
 * whether the head was idle in transaction (holds.c's state).
 */
#define IDLE_EST_SQL_OF(IDLE_EST_MORE, IDLE_EST_MORE_COLS)                                          \
    "SELECT CASE WHEN ok THEN len - sp - busy END, state" IDLE_EST_MORE                          \
    " FROM (SELECT h.lock_stmt IS NOT NULL"                                                        \
    " AND EXISTS (SELECT 1 FROM hold_parts p WHERE p.hold_id = h.hold_id AND p.part = 'idle')"     \
    " AS ok, (h.end_ts - h.start_ts) / 1000.0 AS len,"                                             \
    " coalesce((SELECT sum(p.ms) FROM hold_parts p WHERE p.hold_id = h.hold_id"                    \
    " AND p.part = 'span'), 0) AS sp,"                                                             \
    " (SELECT total(CASE WHEN x.stmt_id = h.lock_stmt THEN max(0, x.end_ts - h.start_ts)"          \
    " ELSE x.end_ts - x.start_ts + coalesce(x.bind_ms, 0) * 1000"                                  \
    " + coalesce(x.parse_ms, 0) * 1000 END) / 1000.0 FROM statements x"                            \
    " WHERE x.stmt_id BETWEEN h.lock_stmt AND (SELECT t.last_stmt FROM transactions t"              \
    " WHERE t.tx_id = h.tx_id) AND +x.session_id = h.session_id"                                   \
    " AND x.end_ts IS NOT NULL AND x.end_ts <= h.end_ts) AS busy,"                                 \
    " h.head_state = 'idle_in_transaction' AS state" IDLE_EST_MORE_COLS                       \
    " FROM holds h WHERE h.hold_id = :hold)"
/* With sub-second times as it was; on a whole-second log with the waits'
 * evidence of a lower bound (idle_sql.h; NULL: none). */
#define IDLE_EST_SQL IDLE_EST_SQL_OF("", "")
#define IDLE_EST_WHOLE_SQL                                                                         \
    IDLE_EST_SQL_OF(", waited, busy_all", ", " LS_IDLE_WAITED_SQL("h") " AS waited, "             \
                    LS_IDLE_BUSY_SQL("h") " AS busy_all")
#define IDLE_EST_PARAMS(X, Q) X(Q, hold)
LS_PARAMS(iep, IDLE_EST_PARAMS);
/* The estimate, the state, and on a whole-second log (IDLE_EST_WHOLE_SQL)
 * the waits' evidence of a lower bound (idle_sql.h; NULL: none). */
enum { EST_MS, EST_IDLE_STATE, EST_WAITED, EST_BUSY };
/* A words statement's columns (IDLE_WORDS_SQL, COUNTER_WORDS_SQL). */
enum { WORDS_TITLE, WORDS_EVIDENCE };

/* The counter rule's title and evidence (:rel relation, :row row, :waits
 * waits, :wait_ms total wait, :shape the named statement shape,
 * :shape_txs its transactions, :timed 0 when no hold of the row was
 * timed (ls_counter_verdict.untimed), :held_ms their holds' length, :increments
 * 1 when it increments, 0 when it writes another relation: a trigger
 * bumps the row, :held_path its code path that held the row longest,
 * :bump_txs the bumping transactions, :all_txs all writing transactions,
 * :how how the shape was chosen, :moved the increments not counted: they
 * moved an amount to another row, :trigger the trigger's statement behind
 * the shape, NULL when unknown). */
#define COUNTER_WORDS_SQL                                                                          \
    "SELECT 'Counter row ' || :rel || ' ' || :row || ' is a bottleneck',"                          \
    " printf('%%d waits (" DUR ") on one row that %%d of the %%d transactions writing it %%s. "    \
    "Named by %%s: ''%%s'' (%%d transactions, %%s; the code path that held it longest: %%s)%%s.',"  \
    " :waits, :wait_ms, :bump_txs, :all_txs,"                                                      \
    " CASE :increments WHEN 1 THEN 'increment' ELSE "                                              \
    "'bump (through a trigger or rule: the statement writes another relation' || coalesce("        \
    "'; the trigger''s statement, from the waits'' CONTEXT: ''' || :trigger || '''', '') || ')'"   \
    " END, :how, :shape,"                                                                          \
    " :shape_txs, CASE WHEN :timed THEN printf('holding it " DUR " in all', :held_ms) ELSE"         \
    " 'its hold time unknown: none of the row''s holds was timed' END,"                            \
    " :held_path, CASE WHEN :moved > 0 THEN printf('; %%d transactions"                            \
    " that also wrote another row"                                                                 \
    " of ' || :rel || ' are not counted (an amount moved between rows)', :moved) ELSE '' END)"
#define COUNTER_WORDS_PARAMS(X, Q)                                                                 \
    X(Q, rel) X(Q, row) X(Q, waits) X(Q, wait_ms) X(Q, bump_txs) X(Q, all_txs) X(Q, increments)    \
    X(Q, trigger) X(Q, how) X(Q, shape) X(Q, shape_txs) X(Q, timed) X(Q, held_ms)                 \
    X(Q, held_path) X(Q, moved)
LS_PARAMS(kwp, COUNTER_WORDS_PARAMS);
/* The statements of a request's trace (:trace), to find another row of
 * the counter row's relation it wrote. */
#define COUNTER_TRACE_SQL                                                                          \
    "SELECT db_statement FROM spans WHERE trace_id = :trace AND db_statement IS NOT NULL"
#define COUNTER_TRACE_PARAMS(X, Q) X(Q, trace)
LS_PARAMS(ktp, COUNTER_TRACE_PARAMS);
/* The CONTEXT of each logged wait for row :row that has one, with the
 * waiter's statement: the trigger's statement behind a shape that bumps
 * the row through a trigger. */
#define COUNTER_CONTEXT_COLS(X, Q)  \
    X(Q, context, "ct.text")        \
    X(Q, statement, "t.text")
LS_COLUMNS(cc, COUNTER_CONTEXT_COLS);
#define COUNTER_CONTEXT_SQL                                                                        \
    "SELECT " LS_SELECT_LIST(cc, COUNTER_CONTEXT_COLS)                                             \
    " FROM wait_rows wr JOIN lock_events e ON e.wait_id = wr.wait_id"                              \
    " JOIN stmt_texts ct ON ct.text_id = e.context_id JOIN stmt_texts t ON t.text_id = e.text_id"  \
    " WHERE wr.row_id = :row ORDER BY e.ts, e.file_id, e.line"
#define COUNTER_CONTEXT_PARAMS(X, Q) X(Q, row)
LS_PARAMS(kcp, COUNTER_CONTEXT_PARAMS);
/* The longest relation name the counter rule compares. */
#define COUNTER_REL_MAX 128

/* Column col of q, NaN when NULL (unknown). */
static double num_or_nan(ls_stmt *q, int col)
{
    return ls_stmt_isnull(q, col) ? NAN : ls_stmt_double(q, col);
}

/* Field `name` of f (a rule without it: a bug, left alone). */
static value *field_of(finding *f, const char *name)
{
    int col = ls_fnd_field_col(&f->fields, name);
    return col < 0 ? NULL : &f->f[col - COL_FIELDS];
}

static void set_num(finding *f, const char *name, double v)
{
    value *x = field_of(f, name);
    if (x) {
        x->null = isnan(v);
        x->d = isnan(v) ? 0 : v;
    }
}

/* Prepare a rule's words statement (its SQL with %% for %, its
 * parameters `names`: LS_PARAM_NAMES) into *out. */
static int words_prepare(ls_store *s, const char *sql, const char *names, ls_stmt **out)
{
    ls_buf text = LS_BUF_INIT(0);
    int rc;
    ls_fnd_expand(&text, sql, "");
    rc = ls_buf_failed(&text) ? LS_ENOMEM
                              : ls_store_prepare_params(s, ls_buf_str(&text), names, out);
    ls_buf_free(&text);
    return rc;
}

/* Step the bound words statement into f's title and evidence. */
static int words_read(ls_stmt *words, finding *f)
{
    int rc = ls_stmt_step(words);
    if (rc == 1) {
        rc = ls_fnd_value_read(&f->title, words, WORDS_TITLE, 's');
        rc |= ls_fnd_value_read(&f->evidence, words, WORDS_EVIDENCE, 's');
        rc = rc ? LS_ENOMEM : 0;
    } else if (rc == 0) {
        rc = LS_ERR; /* a SELECT of values gives a row */
    }
    ls_stmt_reset(words);
    return rc;
}

/* The idle heads of code path `label` (sums p) offered to the keeper when
 * they fire, titled and worded by `words` (IDLE_WORDS_SQL). */
static int idle_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                      const char *label, ls_idle_heads *p, int64_t resolution, keeper *k)
{
    finding f;
    value *v;
    size_t slot;
    double lo, hi;
    int rc;

    ls_idle_span_finish(p);
    if (!ls_finding_count_fires(p->holds))
        return 0;
    if ((slot = ls_fnd_keeper_slot(k, p->waiter_ms)) >= k->limit)
        return 0;
    memset(&f, 0, sizeof(f));
    f.rule = r;
    f.fields = *rf;
    f.weight.d = p->waiter_ms;
    ls_stmt_bind_text(words, LS_PARAM(iwp, path), label);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, holds), p->holds);
    ls_stmt_bind_double(words, LS_PARAM(iwp, idle), p->unexplained_ms);
    ls_stmt_bind_double(words, LS_PARAM(iwp, caused), p->waiter_ms);
    if (isnan(p->max_hold_ms))
        ls_stmt_bind_null(words, LS_PARAM(iwp, longest));
    else
        ls_stmt_bind_double(words, LS_PARAM(iwp, longest), p->max_hold_ms);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, gap_holds), p->gap_holds);
    ls_stmt_bind_double(words, LS_PARAM(iwp, gap_ms), p->gap_ms);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, gap_from), p->gap_from);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, gap_to), p->gap_to);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, gap_waits), p->gap_waits);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, span_holds), p->span_holds);
    ls_stmt_bind_double(words, LS_PARAM(iwp, span_lo), p->span_lo_ms);
    ls_stmt_bind_double(words, LS_PARAM(iwp, span_hi), p->span_hi_ms);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, res), resolution);
    ls_idle_range(p, &lo, &hi);
    ls_stmt_bind_int64(words, LS_PARAM(iwp, dur_holds), p->known_holds + p->span_holds);
    ls_stmt_bind_double(words, LS_PARAM(iwp, idle_lo), lo);
    ls_stmt_bind_double(words, LS_PARAM(iwp, idle_hi), hi);
    /* the known heads' lower bounds, when waits raised them and they count */
    ls_stmt_bind_int64(words, LS_PARAM(iwp, waited_holds),
                       p->known_holds > 0 ? p->waited_holds : 0);
    ls_stmt_bind_double(words, LS_PARAM(iwp, known_lo), p->known_lo_ms);
    rc = words_read(words, &f);
    if (rc == 0 && (v = field_of(&f, "code_path")) != NULL && !(v->s = strdup(label)))
        rc = LS_ENOMEM;
    if (rc == 0 && (v = field_of(&f, "holds")) != NULL)
        v->i = p->holds;
    set_num(&f, "idle_ms", p->unexplained_ms);
    set_num(&f, "waiter_ms", p->waiter_ms);
    set_num(&f, "max_hold_ms", p->max_hold_ms);
    if (rc < 0) {
        ls_fnd_finding_free(&f);
        return rc;
    }
    ls_fnd_keeper_put(k, slot, &f);
    return 0;
}

/* One hold of the idle rule's query q added to p: idle at the head by its
 * durations (ls_idle_known_add, unclipped: the path's sum above the
 * stamps' rounding), or, its
 * state unknown (no durations), by the session's silence
 * (decide/idlegap.h). */
static int idle_hold_add(ls_idle_heads *p, ls_stmt *q, ls_stmt *est, int64_t resolution)
{
    ls_idle_gap_in in;
    int rc;

    if (ls_stmt_int64(q, iq_covered)) {
        ls_idle_span_in si;
        ls_idle_span b;
        if (ls_stmt_isnull(q, iq_lock_end) || ls_stmt_isnull(q, iq_last_start) ||
            ls_stmt_isnull(q, iq_busy_ms))
            return 0; /* a statement without a duration, or no last statement */
        si.lock_end = ls_stmt_int64(q, iq_lock_end);
        si.last_start = ls_stmt_int64(q, iq_last_start);
        si.busy_us = (int64_t)(ls_stmt_double(q, iq_busy_ms) * LS_US_PER_MS);
        si.resolution = resolution;
        ls_idle_span_bound(&si, &b);
        ls_idle_span_add(p, num_or_nan(q, iq_cover_ms), &b, num_or_nan(q, iq_span_idle_ms),
                         num_or_nan(q, iq_hold_ms));
        return 0;
    }
    if (!ls_stmt_int64(q, iq_unknown)) {
        double ms = num_or_nan(q, iq_unexplained_ms), waited = NAN;
        int64_t busy_us = -1;
        ls_stmt_reset(est);
        if ((rc = ls_stmt_bind_int64(est, LS_PARAM(iep, hold), ls_stmt_int64(q, iq_hold_id))) != 0)
            return rc;
        if ((rc = ls_stmt_step(est)) < 0)
            return rc;
        if (rc == 1) {
            /* a head running or committing is read on a whole-second log
             * alone (findings.c: its state there is read from rounded
             * times); its idle unclipped where durations give it */
            if (!ls_stmt_int64(est, EST_IDLE_STATE) && resolution < LS_WHOLE_SECOND_US) {
                ls_stmt_reset(est);
                return 0;
            }
            if (!ls_stmt_isnull(est, EST_MS))
                ms = ls_stmt_double(est, EST_MS);
            if (resolution >= LS_WHOLE_SECOND_US)
                waited = num_or_nan(est, EST_WAITED);
            if (resolution >= LS_WHOLE_SECOND_US && !ls_stmt_isnull(est, EST_BUSY))
                busy_us = llround(ls_stmt_double(est, EST_BUSY) * LS_US_PER_MS);
        }
        ls_stmt_reset(est);
        ls_idle_known_add_waited(p, num_or_nan(q, iq_waiter_ms), ms, num_or_nan(q, iq_hold_ms),
                                 resolution, waited, busy_us);
        return 0;
    }
    if (ls_stmt_isnull(q, iq_lock_ts) || ls_stmt_isnull(q, iq_next_ts))
        return 0; /* no statement after the one that took the row */
    in.lock_ts = ls_stmt_int64(q, iq_lock_ts);
    in.next_ts = ls_stmt_int64(q, iq_next_ts);
    in.has_tx_wait = !ls_stmt_isnull(q, iq_tx_wait_ts);
    in.tx_wait_ts = ls_stmt_int64(q, iq_tx_wait_ts);
    in.logged_wait_ms = num_or_nan(q, iq_logged_wait_ms);
    in.own_wait = ls_stmt_int64(q, iq_own_wait) != 0;
    in.resolution = resolution;
    ls_idle_gap_add(p, num_or_nan(q, iq_waiter_ms), ls_idle_gap_silence_us(&in),
                    num_or_nan(q, iq_span_idle_ms), num_or_nan(q, iq_hold_ms), in.lock_ts,
                    in.next_ts, ls_stmt_int64(q, iq_waits));
    return 0;
}

/* temp.idle_waited (idle_sql.h), filled on a whole-second log. */
#define IDLE_WAITED_PARAMS(X, Q) X(Q, whole)
LS_PARAMS(iwb, IDLE_WAITED_PARAMS);
static int idle_waited_build(ls_store *s, int64_t resolution)
{
    ls_stmt *q = NULL;
    int rc = ls_store_exec(s, "CREATE TEMP TABLE IF NOT EXISTS idle_waited(holder_tx INTEGER,"
                              " row_id INTEGER, ms REAL, PRIMARY KEY (holder_tx, row_id))"
                              " WITHOUT ROWID; DELETE FROM temp.idle_waited;");

    if (rc != 0 || resolution < LS_WHOLE_SECOND_US)
        return rc;
    if ((rc = ls_store_prepare_params(s, LS_IDLE_WAITED_FILL_SQL, LS_PARAM_NAMES(IDLE_WAITED_PARAMS),
                                      &q)) != 0)
        return rc;
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(iwb, whole), 1)) == 0)
        rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/*
 * idle_in_transaction_head: the holds idle at the head, in code path
 * order; each code path's holds that count (idle_hold_add) summed, and
 * the path named when any did.
 */
int ls_fnd_gather_idle(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k)
{
    ls_stmt *words = NULL, *est = NULL;
    char *label = NULL;
    ls_idle_heads p;
    int64_t resolution;
    int rc = ls_correlate_log_resolution(s, &resolution);

    (void)sc;
    if (rc == 0)
        rc = words_prepare(s, IDLE_WORDS_SQL, LS_PARAM_NAMES(IDLE_WORDS_PARAMS), &words);
    if (rc == 0)
        rc = idle_waited_build(s, resolution);
    if (rc == 0)
        rc = ls_store_prepare_params(
            s, resolution >= LS_WHOLE_SECOND_US ? IDLE_EST_WHOLE_SQL : IDLE_EST_SQL,
            LS_PARAM_NAMES(IDLE_EST_PARAMS), &est);

    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        const char *l = ls_stmt_text(q, iq_label);
        rc = 0;
        if (!label || strcmp(label, l) != 0) {
            if (label && (rc = idle_offer(words, r, rf, label, &p, resolution, k)) != 0)
                break;
            free(label);
            if (!(label = strdup(l))) {
                rc = LS_ENOMEM;
                break;
            }
            ls_finding_idle_start(&p);
        }
        rc = idle_hold_add(&p, q, est, resolution);
    }
    if (rc == 0 && label)
        rc = idle_offer(words, r, rf, label, &p, resolution, k);
    free(label);
    ls_stmt_finalize(words);
    ls_stmt_finalize(est);
    return rc < 0 ? rc : 0;
}

/* ---- external_call_in_transaction: one finding per call-site template ---- */

/* The call rule's title and evidence (:path code path, :tmpl the
 * call-site template, :ms its time, :holds its holds, :caused the waiting
 * they caused, :path_ms the path's time in all its holds of hot rows,
 * :names how many span names the template stands for, :name the heaviest
 * of them). */
#define CALL_WORDS_SQL                                                                             \
    "SELECT :path || ' calls ' || :tmpl || ' while holding a hot row',"                            \
    " printf('" DUR " of its " DUR " of holds on rows others waited for were spent in the span "   \
    "''%%s''%%s (%%d holds, " DUR " of waiting caused).', :ms, :path_ms, :tmpl,"                   \
    " CASE WHEN :names > 1 THEN "                                                                  \
    "printf(' (%%d URLs, the longest in all ''%%s'')', :names, :name) ELSE '' END, :holds, :caused)"
#define CALL_WORDS_PARAMS(X, Q)                                                                    \
    X(Q, path) X(Q, tmpl) X(Q, ms) X(Q, path_ms) X(Q, names) X(Q, name) X(Q, holds) X(Q, caused)
LS_PARAMS(cwp, CALL_WORDS_PARAMS);

/* The longest span name or template the call rule compares (a longer one
 * is compared on its first bytes). */
#define CALL_NAME_MAX 512

/* One span name of a code path, or the sum of a template's names. */
typedef struct call_site {
    char tmpl[CALL_NAME_MAX];
    char *name;      /* the heaviest name of the template */
    double ms, name_ms, waiter_ms;
    int64_t holds, names;
} call_site;

/* A code path's call sites, as read. */
typedef struct call_path {
    char *label;
    double path_ms;
    call_site *sites;
    size_t n, cap;
} call_path;

static void call_path_free(call_path *p)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        free(p->sites[i].name);
    free(p->sites);
    free(p->label);
    memset(p, 0, sizeof(*p));
}

/* Add the current row of q (a name of p's path) to p; -1 on no memory. */
static int call_add(call_path *p, ls_stmt *q)
{
    call_site *c;
    const char *name = ls_stmt_isnull(q, kq_name) ? "" : ls_stmt_text(q, kq_name);
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        call_site *grown = realloc(p->sites, cap * sizeof(*grown));
        if (!grown)
            return LS_ENOMEM;
        p->sites = grown;
        p->cap = cap;
    }
    c = &p->sites[p->n];
    memset(c, 0, sizeof(*c));
    if (!(c->name = strdup(name)))
        return LS_ENOMEM;
    p->n++;
    ls_finding_call_template(name, c->tmpl, sizeof(c->tmpl));
    c->ms = c->name_ms = ls_stmt_isnull(q, kq_ms) ? 0 : ls_stmt_double(q, kq_ms);
    c->waiter_ms = ls_stmt_isnull(q, kq_waiter_ms) ? 0 : ls_stmt_double(q, kq_waiter_ms);
    c->holds = ls_stmt_int64(q, kq_holds);
    c->names = 1;
    return 0;
}

static int by_template(const void *a, const void *b)
{
    return strcmp(((const call_site *)a)->tmpl, ((const call_site *)b)->tmpl);
}

/* Sum the sites of one template into the first of them (stable: the
 * sites come sorted by name, qsort's order among equals is not kept, so
 * the heaviest name is chosen by time, then by name). */
static void call_merge(call_path *p)
{
    size_t i, out = 0;
    qsort(p->sites, p->n, sizeof(p->sites[0]), by_template);
    for (i = 0; i < p->n; i++) {
        call_site *c = &p->sites[i], *m = out ? &p->sites[out - 1] : NULL;
        if (m && strcmp(m->tmpl, c->tmpl) == 0) {
            m->ms += c->ms;
            m->waiter_ms += c->waiter_ms;
            m->holds += c->holds;
            m->names++;
            if (c->name_ms > m->name_ms ||
                (c->name_ms == m->name_ms && strcmp(c->name, m->name) < 0)) {
                free(m->name);
                m->name = c->name;
                m->name_ms = c->name_ms;
            } else {
                free(c->name);
            }
            c->name = NULL;
            continue;
        }
        if (i != out) {
            p->sites[out] = *c;
            c->name = NULL;
        }
        out++;
    }
    p->n = out;
}

/* Offer the keeper each call site of p that fires, worded by `words`. */
static int call_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                      call_path *p, keeper *k)
{
    size_t i;
    int rc = 0;

    call_merge(p);
    for (i = 0; rc == 0 && i < p->n; i++) {
        const call_site *c = &p->sites[i];
        finding f;
        value *v;
        size_t slot;

        if (!ls_finding_call_fires(c->ms) || (slot = ls_fnd_keeper_slot(k, c->ms)) >= k->limit)
            continue;
        memset(&f, 0, sizeof(f));
        f.rule = r;
        f.fields = *rf;
        f.weight.d = c->ms;
        ls_stmt_bind_text(words, LS_PARAM(cwp, path), p->label);
        ls_stmt_bind_text(words, LS_PARAM(cwp, tmpl), c->tmpl);
        ls_stmt_bind_double(words, LS_PARAM(cwp, ms), c->ms);
        ls_stmt_bind_int64(words, LS_PARAM(cwp, holds), c->holds);
        ls_stmt_bind_double(words, LS_PARAM(cwp, caused), c->waiter_ms);
        ls_stmt_bind_double(words, LS_PARAM(cwp, path_ms), p->path_ms);
        ls_stmt_bind_int64(words, LS_PARAM(cwp, names), c->names);
        ls_stmt_bind_text(words, LS_PARAM(cwp, name), c->name);
        rc = words_read(words, &f);
        if (rc == 0 && (v = field_of(&f, "code_path")) != NULL && !(v->s = strdup(p->label)))
            rc = LS_ENOMEM;
        if (rc == 0 && (v = field_of(&f, "span")) != NULL && !(v->s = strdup(c->tmpl)))
            rc = LS_ENOMEM;
        if (rc == 0 && (v = field_of(&f, "holds")) != NULL)
            v->i = c->holds;
        set_num(&f, "span_ms", c->ms);
        set_num(&f, "waiter_ms", c->waiter_ms);
        if (rc < 0) {
            ls_fnd_finding_free(&f);
            break;
        }
        ls_fnd_keeper_put(k, slot, &f);
    }
    return rc;
}

/*
 * external_call_in_transaction: each code path's span parts by name, in
 * code path order; the names of one call-site template
 * (ls_finding_call_template: "/v1/customers/17/status" and ".../42/..."
 * are one call) summed into one finding, the instances its evidence.
 */
int ls_fnd_gather_call(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k)
{
    ls_stmt *words = NULL;
    call_path p;
    int rc = words_prepare(s, CALL_WORDS_SQL, LS_PARAM_NAMES(CALL_WORDS_PARAMS), &words);

    (void)sc;
    memset(&p, 0, sizeof(p));
    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        const char *l = ls_stmt_isnull(q, kq_label) ? "" : ls_stmt_text(q, kq_label);
        rc = 0;
        if (!p.label || strcmp(p.label, l) != 0) {
            if (p.label && (rc = call_offer(words, r, rf, &p, k)) != 0)
                break;
            call_path_free(&p);
            if (!(p.label = strdup(l))) {
                rc = LS_ENOMEM;
                break;
            }
            p.path_ms = ls_stmt_isnull(q, kq_path_ms) ? 0 : ls_stmt_double(q, kq_path_ms);
        }
        rc = call_add(&p, q);
    }
    if (rc == 0 && p.label)
        rc = call_offer(words, r, rf, &p, k);
    call_path_free(&p);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}

/* The longest text of a statement shape the counter rule compares (a
 * longer one is compared on its first bytes). */
#define COUNTER_SHAPE_MAX 1000
/* A code path's name where its transaction has none. */
#define COUNTER_NO_PATH "unknown"

/* One statement shape's writers of a candidate row, and theirs by code
 * path (labels[i] with pw[i]). */
typedef struct counter_shape {
    char *shape;
    ls_counter_writer n;
    char **labels;
    ls_counter_writer *pw;
    size_t npaths, lcap, pcap;
} counter_shape;

/* A row's candidate for hot_counter_row: its numbers and names, and its
 * writers by the shape of the statement that took the row (or waited for
 * it). */
typedef struct counter_row {
    int64_t row_id;
    value relation, row_key, waits, total_ms;
    counter_shape *shapes;
    size_t nshapes, cap;
} counter_row;

/* One writer of a candidate row as COUNTER_WRITERS_SQL reads it: its
 * transaction, its statement (text_id of stmt_texts, or the text of a
 * wait's statement in own), then the statement's place in text order
 * (rank), how long it held the row (NAN when not a hold), whether it
 * held another row of the relation too, its code path (an index of the
 * gather's labels, NO_LABEL for none), the trace of its request (owned,
 * NULL for none), and its place in the query's answer (seq). */
typedef struct counter_writer_row {
    int64_t tx, text_id;
    char *own;
    const char *text;
    size_t rank, label, seq;
    double ms;
    int transfer;
    char *trace;
} counter_writer_row;

/* A distinct stmt_texts id of a row's writers: its text (owned; NULL
 * when the store has none) and its rank in text order. */
typedef struct counter_text {
    int64_t text_id;
    char *text;
    size_t rank;
} counter_text;

/* A text to rank: an id's (of x->t[id]) or a wait's own (of writer
 * x->w[owner]); the other index is NO_OWNER. */
typedef struct counter_order {
    const char *text;
    size_t id, owner;
} counter_order;

#define NO_LABEL ((size_t)-1)
/* The rank of a writer without a text: after every text, grouped with
 * no writer that has one (and left out). */
#define NO_RANK ((size_t)-1)
#define NO_OWNER ((size_t)-1)

/* What a gather reads with: its statements, a shape's buffer, the last
 * writer's text with its shape (writers come in text order within a row,
 * so a text is shaped once per run of writers, not once per transaction:
 * ls_sql_shape() of every writer was 3 s of CPU at 1 GiB), the current
 * row's writers and texts (reused from row to row), and the code path
 * label of each path_set met (labels[i] of sets[i], NULL for none; a few
 * dozen sets name a million transactions). */
typedef struct counter_ctx {
    ls_stmt *words;   /* COUNTER_WORDS_SQL */
    ls_stmt *traced;  /* COUNTER_TRACE_SQL */
    ls_stmt *context; /* COUNTER_CONTEXT_SQL */
    ls_stmt *writers; /* COUNTER_WRITERS_SQL */
    ls_stmt *text_of; /* COUNTER_TEXT_SQL */
    ls_stmt *label;   /* COUNTER_LABEL_SQL, the scope's label */
    ls_buf shape;
    ls_buf last_text, last_shape; /* last_text valid when have_last */
    int have_last;
    counter_writer_row *w;
    size_t nw, wcap;
    counter_text *t;
    size_t nt, tcap;
    counter_order *o;
    size_t no, ocap;
    double tick_ms; /* the log's tick: holds shorter in all were not timed */
    char **labels;
    int64_t *sets;
    size_t nlabels, lcap, scap, last_label;
} counter_ctx;

static void counter_free(counter_row *c)
{
    size_t i, j;
    ls_fnd_value_free(&c->relation);
    ls_fnd_value_free(&c->row_key);
    for (i = 0; i < c->nshapes; i++) {
        for (j = 0; j < c->shapes[i].npaths; j++)
            free(c->shapes[i].labels[j]);
        free(c->shapes[i].labels);
        free(c->shapes[i].pw);
        free(c->shapes[i].shape);
    }
    free(c->shapes);
    memset(c, 0, sizeof(*c));
}

/* Start row c from the current row of q; -1 on no memory. */
static int counter_start(counter_row *c, ls_stmt *q)
{
    int rc;
    counter_free(c);
    c->row_id = ls_stmt_int64(q, cq_row_id);
    rc = ls_fnd_value_read(&c->relation, q, cq_relation, 's');
    rc |= ls_fnd_value_read(&c->row_key, q, cq_row_key, 's');
    rc |= ls_fnd_value_read(&c->waits, q, cq_waits, 'i');
    rc |= ls_fnd_value_read(&c->total_ms, q, cq_total_wait_ms, 'm');
    return rc;
}

/* Grow array *arr of *cap elements of `size` bytes to hold n + 1; -1 on
 * no memory. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    void *p;
    size_t ncap;
    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    if (!(p = ls_realloc(*arr, ncap * size)))
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* The entry of c for `shape` (of statement `text`), added when new with
 * what the shape alone says (does it increment, does it write another
 * relation than the row's); NULL on no memory. */
static counter_shape *shape_entry(counter_row *c, const char *shape, const char *text)
{
    counter_shape *e;
    char rel[COUNTER_REL_MAX];
    size_t i;
    for (i = 0; i < c->nshapes; i++)
        if (strcmp(c->shapes[i].shape, shape) == 0)
            return &c->shapes[i];
    if (grow((void **)&c->shapes, &c->cap, c->nshapes, sizeof(*e)) != 0)
        return NULL;
    e = &c->shapes[c->nshapes];
    memset(e, 0, sizeof(*e));
    if (!(e->shape = strdup(shape)))
        return NULL;
    e->n.increments = ls_finding_is_increment(e->shape);
    e->n.other_relation = ls_sql_relation(text, rel, sizeof(rel)) && c->relation.s &&
                          strcmp(rel, c->relation.s) != 0;
    c->nshapes++;
    return e;
}

/* The writers of shape e for code path `label`; NULL on no memory. */
static ls_counter_writer *path_entry(counter_shape *e, const char *label)
{
    size_t i;
    for (i = 0; i < e->npaths; i++)
        if (strcmp(e->labels[i], label) == 0)
            return &e->pw[i];
    if (grow((void **)&e->labels, &e->lcap, e->npaths, sizeof(*e->labels)) != 0 ||
        grow((void **)&e->pw, &e->pcap, e->npaths, sizeof(*e->pw)) != 0)
        return NULL;
    memset(&e->pw[e->npaths], 0, sizeof(*e->pw));
    if (!(e->labels[e->npaths] = strdup(label)))
        return NULL;
    return &e->pw[e->npaths++];
}

/* Does a statement of trace `trace_id` (its request's spans) write
 * another row of c's relation than c's own: an amount moved between rows
 * that the log does not show (a statement under log_min_duration_statement
 * is not logged)? Keyed as a logged statement is (ls_rowkey_of); 1, 0, or
 * a store error (< 0). */
static int trace_moves(ls_stmt *traced, const counter_row *c, const char *trace_id)
{
    int rc, moved = 0;
    if (!c->relation.s || !c->row_key.s)
        return 0;
    ls_stmt_reset(traced);
    ls_stmt_bind_text(traced, LS_PARAM(ktp, trace), trace_id);
    while (!moved && (rc = ls_stmt_step(traced)) == 1) {
        ls_rowkey_evidence ev = {NULL, NULL, NULL, NULL, NULL};
        ls_rowkey k;
        char rel[COUNTER_REL_MAX];
        ev.statement = ls_stmt_text(traced, LS_ONLY_COLUMN);
        ev.relation = c->relation.s;
        moved = ev.statement && ls_sql_relation(ev.statement, rel, sizeof(rel)) &&
                strcmp(rel, c->relation.s) == 0 && ls_rowkey_of(&ev, &k) &&
                strcmp(k.rel, c->relation.s) == 0 && strcmp(k.key, c->row_key.s) != 0;
    }
    ls_stmt_reset(traced);
    return moved ? 1 : rc < 0 ? rc : 0;
}

/* Add one transaction's writes of row c with statement `text` (its code
 * path `label`, NULL for none; whether it held another row of the
 * relation; its holds' length; the trace of its request, or NULL) to
 * its shape and code path; 0, LS_ENOMEM or a store error. */
static int counter_add(counter_row *c, counter_ctx *x, const char *text, const char *label,
                       int moved, double ms, const char *trace_id)
{
    counter_shape *e;
    ls_counter_writer *p;

    if (!x->have_last || strcmp(ls_buf_str(&x->last_text), text) != 0) {
        x->have_last = 0;
        ls_buf_reset(&x->last_text);
        ls_buf_reset(&x->last_shape);
        ls_buf_adds(&x->last_text, text);
        if (ls_sql_shape(&x->last_shape, text, COUNTER_SHAPE_MAX) != 0 ||
            ls_buf_failed(&x->last_shape) || ls_buf_failed(&x->last_text))
            return LS_ENOMEM;
        x->have_last = 1;
    }
    if (!(e = shape_entry(c, ls_buf_str(&x->last_shape), text)) ||
        !(p = path_entry(e, label ? label : COUNTER_NO_PATH)))
        return LS_ENOMEM;
    if (!moved && trace_id && (moved = trace_moves(x->traced, c, trace_id)) < 0)
        return moved;
    e->n.holds++;
    e->n.moved += moved;
    e->n.held_ms += ms;
    p->holds++;
    p->moved += moved;
    p->held_ms += ms;
    return 0;
}

/* Copy v (of kind) into field `name` of f; -1 on no memory. */
static int set_value(finding *f, const char *name, const value *v)
{
    value *x = field_of(f, name);
    if (!x)
        return 0;
    *x = *v;
    x->s = NULL;
    return v->s && !(x->s = strdup(v->s)) ? -1 : 0;
}

/* The words for how the named writer was chosen (ls_counter_how). */
static const char *how_words(ls_counter_how how)
{
    switch (how) {
    case LS_COUNTER_HOW_ONLY:
        return "the only statement that bumps it";
    case LS_COUNTER_HOW_HELD:
        return "the statement that held it longest";
    case LS_COUNTER_HOW_HOLDS:
        return "of equal hold time, the statement more transactions took it with";
    case LS_COUNTER_HOW_FIRST:
        return "first in text order of statements equal in hold time and transactions";
    case LS_COUNTER_HOW_NONE:
        break;
    }
    return "none";
}

/* The statement a trigger ran behind shape `shape` on row c, read from
 * the CONTEXT of a logged wait of that shape for the row (the first in
 * log order), as a shape into out (empty when none); 0, LS_ENOMEM or a
 * store error. */
static int trigger_statement(counter_ctx *x, const counter_row *c, const char *shape, ls_buf *out)
{
    char inner[COUNTER_SHAPE_MAX + 1];
    int rc, found = 0;

    ls_buf_reset(out);
    ls_stmt_reset(x->context);
    ls_stmt_bind_int64(x->context, LS_PARAM(kcp, row), c->row_id);
    while (!found && (rc = ls_stmt_step(x->context)) == 1) {
        const char *context = ls_stmt_text(x->context, cc_context);
        ls_buf_reset(&x->shape);
        if (ls_sql_shape(&x->shape, ls_stmt_text(x->context, cc_statement),
                         COUNTER_SHAPE_MAX) != 0 ||
            ls_buf_failed(&x->shape)) {
            rc = LS_ENOMEM;
            break;
        }
        if (strcmp(ls_buf_str(&x->shape), shape) != 0 ||
            !ls_rowkey_context_statement(context, inner, sizeof(inner)))
            continue;
        found = 1;
        if (ls_sql_shape(out, inner, COUNTER_SHAPE_MAX) != 0 || ls_buf_failed(out))
            rc = LS_ENOMEM;
    }
    ls_stmt_reset(x->context);
    return rc < 0 ? rc : 0;
}

/* Bind the words statement for row c and its named shape `top` (its
 * code path `path`) under verdict v. */
static void counter_bind(ls_stmt *words, const counter_row *c, const counter_shape *top,
                         const char *path, const ls_counter_verdict *v, const char *trigger)
{
    ls_fnd_bind_value(words, LS_PARAM(kwp, rel), &c->relation, 's');
    ls_fnd_bind_value(words, LS_PARAM(kwp, row), &c->row_key, 's');
    ls_fnd_bind_value(words, LS_PARAM(kwp, waits), &c->waits, 'i');
    ls_fnd_bind_value(words, LS_PARAM(kwp, wait_ms), &c->total_ms, 'm');
    ls_stmt_bind_text(words, LS_PARAM(kwp, shape), top->shape);
    ls_stmt_bind_int64(words, LS_PARAM(kwp, shape_txs), top->n.holds);
    ls_stmt_bind_int64(words, LS_PARAM(kwp, timed), !v->untimed);
    ls_stmt_bind_double(words, LS_PARAM(kwp, held_ms), top->n.held_ms);
    ls_stmt_bind_int64(words, LS_PARAM(kwp, increments), top->n.increments);
    ls_stmt_bind_text(words, LS_PARAM(kwp, held_path), path);
    ls_stmt_bind_int64(words, LS_PARAM(kwp, bump_txs), v->bump_holds);
    ls_stmt_bind_int64(words, LS_PARAM(kwp, all_txs), v->all_holds);
    ls_stmt_bind_text(words, LS_PARAM(kwp, how), how_words(v->how));
    ls_stmt_bind_int64(words, LS_PARAM(kwp, moved), v->moved);
    ls_stmt_bind_text(words, LS_PARAM(kwp, trigger), trigger);
}

/* Offer row c to the keeper when it has waits enough (ls_finding_counter_fires)
 * and its writers make it a counter (ls_counter_decide); 0, LS_ENOMEM or a
 * store error. */
static int counter_offer(counter_ctx *x, const finding_rule *r, const rule_fields *rf,
                         const counter_row *c, keeper *k)
{
    ls_counter_writer *w;
    ls_counter_verdict v;
    const counter_shape *top;
    const char *path;
    value stmt = {0, 0, 0, NULL}, holds = {0, 0, 0, NULL}, held = {0, 0, 0, NULL};
    value code = {0, 0, 0, NULL}, all = {0, 0, 0, NULL}, how = {0, 0, 0, NULL};
    value trig = {1, 0, 0, NULL};
    ls_buf trigger = LS_BUF_INIT(0);
    finding f;
    size_t slot, i;
    int rc;

    if (c->waits.null || !ls_finding_counter_fires(c->waits.i) || c->nshapes == 0 ||
        !ls_finding_row_keyed(c->row_key.null ? NULL : c->row_key.s))
        return 0;
    if (!(w = ls_realloc(NULL, c->nshapes * sizeof(*w))))
        return LS_ENOMEM;
    for (i = 0; i < c->nshapes; i++)
        w[i] = c->shapes[i].n;
    rc = ls_counter_decide(w, c->nshapes, x->tick_ms, &v);
    free(w);
    if (!rc)
        return 0;
    if ((slot = ls_fnd_keeper_slot(k, c->total_ms.null ? 0.0 : c->total_ms.d)) >= k->limit)
        return 0;
    top = &c->shapes[v.top];
    path = top->labels[ls_counter_longest(top->pw, top->npaths)];
    memset(&f, 0, sizeof(f));
    f.rule = r;
    f.fields = *rf;
    f.weight = c->total_ms;
    stmt.s = top->shape;
    holds.i = top->n.holds;
    held.d = top->n.held_ms;
    held.null = v.untimed;
    code.s = (char *)path;
    all.i = v.all_holds;
    how.s = (char *)how_words(v.how);
    if (top->n.other_relation && (rc = trigger_statement(x, c, top->shape, &trigger)) != 0) {
        ls_buf_free(&trigger);
        return rc;
    }
    if (ls_buf_str(&trigger)[0]) {
        trig.null = 0;
        trig.s = (char *)ls_buf_str(&trigger);
    }
    counter_bind(x->words, c, top, path, &v, trig.s);
    rc = words_read(x->words, &f);
    if (rc == 0 &&
        (set_value(&f, "relation", &c->relation) | set_value(&f, "row", &c->row_key) |
         set_value(&f, "waits", &c->waits) | set_value(&f, "total_wait_ms", &c->total_ms) |
         set_value(&f, "statement", &stmt) | set_value(&f, "transactions", &holds) |
         set_value(&f, "held_ms", &held) | set_value(&f, "code_path", &code) |
         set_value(&f, "writing_transactions", &all) | set_value(&f, "decided_by", &how) |
         set_value(&f, "trigger_statement", &trig)))
        rc = LS_ENOMEM;
    ls_buf_free(&trigger);
    if (rc < 0) {
        ls_fnd_finding_free(&f);
        return rc;
    }
    ls_fnd_keeper_put(k, slot, &f);
    return 0;
}

/* Forget the current row's writers, texts and code paths. */
static void writers_clear(counter_ctx *x)
{
    size_t i;
    for (i = 0; i < x->nw; i++) {
        free(x->w[i].own);
        free(x->w[i].trace);
    }
    for (i = 0; i < x->nt; i++)
        free(x->t[i].text);
    x->nw = x->nt = x->no = 0;
}

static void counter_ctx_free(counter_ctx *x)
{
    size_t i;
    writers_clear(x);
    for (i = 0; i < x->nlabels; i++)
        free(x->labels[i]);
    free(x->w);
    free(x->t);
    free(x->o);
    free(x->labels);
    free(x->sets);
    ls_stmt_finalize(x->label);
    ls_buf_free(&x->shape);
    ls_buf_free(&x->last_text);
    ls_buf_free(&x->last_shape);
    ls_stmt_finalize(x->text_of);
    ls_stmt_finalize(x->writers);
    ls_stmt_finalize(x->context);
    ls_stmt_finalize(x->traced);
    ls_stmt_finalize(x->words);
}

/* The label of path_set `set` (COUNTER_LABEL_SQL for transaction tx, one
 * of the set's) into x->labels[x->nlabels++]; 0, LS_ENOMEM or a store
 * error. */
static int label_read(counter_ctx *x, int64_t set, int64_t tx)
{
    char *label = NULL;
    int rc;
    if (grow((void **)&x->labels, &x->lcap, x->nlabels, sizeof(*x->labels)) != 0 ||
        grow((void **)&x->sets, &x->scap, x->nlabels, sizeof(*x->sets)) != 0)
        return LS_ENOMEM;
    ls_stmt_reset(x->label);
    ls_stmt_bind_int64(x->label, LS_PARAM(clp, tx), tx);
    if ((rc = ls_stmt_step(x->label)) == 1) {
        rc = 0;
        if (!ls_stmt_isnull(x->label, LS_ONLY_COLUMN) &&
            !(label = strdup(ls_stmt_text(x->label, LS_ONLY_COLUMN))))
            rc = LS_ENOMEM;
    }
    ls_stmt_reset(x->label);
    if (rc < 0)
        return rc;
    x->labels[x->nlabels] = label;
    x->sets[x->nlabels++] = set;
    return 0;
}

/* The index in x->labels of the code path of a writer of path_set column
 * col of the writers' query (its transaction tx; the last set found is
 * tried first: a row's writers are of a few paths), NO_LABEL for none;
 * *rc an error. */
static size_t label_index(counter_ctx *x, int col, int64_t tx, int *rc)
{
    int64_t set;
    size_t i;
    if (ls_stmt_isnull(x->writers, col))
        return NO_LABEL;
    set = ls_stmt_int64(x->writers, col);
    if (x->last_label != NO_LABEL && x->sets[x->last_label] == set)
        return x->last_label;
    for (i = 0; i < x->nlabels; i++)
        if (x->sets[i] == set)
            return x->last_label = i;
    if ((*rc = label_read(x, set, tx)) != 0)
        return NO_LABEL;
    return x->last_label = x->nlabels - 1;
}

/* Duplicate column col of q, NULL when NULL; *ok = 0 on no memory. */
static char *dup_column(ls_stmt *q, int col, int *ok)
{
    char *d;
    if (ls_stmt_isnull(q, col))
        return NULL;
    if (!(d = strdup(ls_stmt_text(q, col))))
        *ok = 0;
    return d;
}

/* Read the writers of row c (COUNTER_WRITERS_SQL) into x->w, in the
 * query's order; 0, LS_ENOMEM or a store error. */
static int writers_read(counter_ctx *x, const counter_row *c)
{
    int rc = 0, ok = 1, lrc = 0;
    writers_clear(x);
    ls_stmt_reset(x->writers);
    ls_stmt_bind_int64(x->writers, LS_PARAM(cwr, row), c->row_id);
    if (c->relation.null)
        ls_stmt_bind_null(x->writers, LS_PARAM(cwr, rel));
    else
        ls_stmt_bind_text(x->writers, LS_PARAM(cwr, rel), c->relation.s);
    while (ok && lrc == 0 && (rc = ls_stmt_step(x->writers)) == 1) {
        counter_writer_row *w;
        if (grow((void **)&x->w, &x->wcap, x->nw, sizeof(*x->w)) != 0)
            return LS_ENOMEM;
        w = &x->w[x->nw];
        memset(w, 0, sizeof(*w));
        w->seq = x->nw++;
        w->tx = ls_stmt_int64(x->writers, wq_tx);
        w->text_id = ls_stmt_isnull(x->writers, wq_text_id) ? -1
                                                              : ls_stmt_int64(x->writers, wq_text_id);
        w->own = dup_column(x->writers, wq_text, &ok);
        w->ms = num_or_nan(x->writers, wq_ms);
        w->transfer = ls_stmt_int64(x->writers, wq_transfer) != 0;
        w->trace = dup_column(x->writers, wq_trace_id, &ok);
        w->label = label_index(x, wq_path_set, w->tx, &lrc);
    }
    ls_stmt_reset(x->writers);
    return !ok ? LS_ENOMEM : lrc != 0 ? lrc : rc < 0 ? rc : 0;
}

static int by_text_id(const void *a, const void *b)
{
    const counter_text *x = a, *y = b;
    return x->text_id < y->text_id ? -1 : x->text_id > y->text_id;
}

static int by_text(const void *a, const void *b)
{
    const counter_order *x = a, *y = b;
    return strcmp(x->text, y->text);
}

static int by_rank_tx(const void *a, const void *b)
{
    const counter_writer_row *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->tx != y->tx)
        return x->tx < y->tx ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The text of the writers' each distinct stmt_texts id, once (x->t,
 * in id order; NULL when the store lacks it); 0, LS_ENOMEM or a store
 * error. */
static int texts_read(counter_ctx *x)
{
    size_t i, n = 0;
    int rc = 0;
    for (i = 0; i < x->nw; i++) {
        if (x->w[i].text_id < 0)
            continue;
        if (grow((void **)&x->t, &x->tcap, x->nt, sizeof(*x->t)) != 0)
            return LS_ENOMEM;
        x->t[x->nt].text_id = x->w[i].text_id;
        x->t[x->nt].text = NULL;
        x->t[x->nt].rank = 0;
        x->nt++;
    }
    if (x->nt > 1)
        qsort(x->t, x->nt, sizeof(*x->t), by_text_id);
    for (i = 0; i < x->nt; i++)
        if (n == 0 || x->t[n - 1].text_id != x->t[i].text_id)
            x->t[n++] = x->t[i];
    x->nt = n;
    for (i = 0; rc == 0 && i < x->nt; i++) {
        ls_stmt_reset(x->text_of);
        ls_stmt_bind_int64(x->text_of, LS_PARAM(ctp, text), x->t[i].text_id);
        if ((rc = ls_stmt_step(x->text_of)) == 1) {
            rc = 0;
            if (!ls_stmt_isnull(x->text_of, LS_ONLY_COLUMN) &&
                !(x->t[i].text = strdup(ls_stmt_text(x->text_of, LS_ONLY_COLUMN))))
                rc = LS_ENOMEM;
        }
    }
    ls_stmt_reset(x->text_of);
    return rc < 0 ? rc : 0;
}

/* Add text `text` to rank, of id `id` or of writer `owner`; 0 or
 * LS_ENOMEM. */
static int order_add(counter_ctx *x, const char *text, size_t id, size_t owner)
{
    if (grow((void **)&x->o, &x->ocap, x->no, sizeof(*x->o)) != 0)
        return LS_ENOMEM;
    x->o[x->no].text = text;
    x->o[x->no].id = id;
    x->o[x->no].owner = owner;
    x->no++;
    return 0;
}

/* Give each writer its statement's text (NULL: left out, as the join
 * of its text would) and its rank in text order, equal texts one rank
 * (as SQL's GROUP BY of the text, BINARY); 0 or LS_ENOMEM. */
static int texts_rank(counter_ctx *x)
{
    size_t i, rank = 0;
    x->no = 0;
    for (i = 0; i < x->nt; i++)
        if (x->t[i].text && order_add(x, x->t[i].text, i, NO_OWNER) != 0)
            return LS_ENOMEM;
    for (i = 0; i < x->nw; i++)
        if (x->w[i].text_id < 0 && x->w[i].own && order_add(x, x->w[i].own, NO_OWNER, i) != 0)
            return LS_ENOMEM;
    if (x->no > 1) /* none: x->o may be NULL, which qsort() must not get */
        qsort(x->o, x->no, sizeof(*x->o), by_text);
    for (i = 0; i < x->no; i++) {
        if (i > 0 && strcmp(x->o[i - 1].text, x->o[i].text) != 0)
            rank++;
        if (x->o[i].owner != NO_OWNER)
            x->w[x->o[i].owner].rank = rank;
        else
            x->t[x->o[i].id].rank = rank;
    }
    for (i = 0; i < x->nw; i++) {
        counter_writer_row *w = &x->w[i];
        counter_text key, *t;
        if (w->text_id < 0) {
            w->text = w->own;
            continue;
        }
        key.text_id = w->text_id;
        t = bsearch(&key, x->t, x->nt, sizeof(*x->t), by_text_id);
        w->text = t ? t->text : NULL;
        w->rank = w->text ? t->rank : NO_RANK;
    }
    return 0;
}

/* Add row c's writers, in text then transaction order, each
 * transaction's writes with one text once (their holds' length summed,
 * a transfer if any was); 0, LS_ENOMEM or a store error. */
static int writers_add(counter_row *c, counter_ctx *x)
{
    size_t i = 0, j;
    int rc = 0;
    if (x->nw > 1)
        qsort(x->w, x->nw, sizeof(*x->w), by_rank_tx);
    while (rc == 0 && i < x->nw) {
        const counter_writer_row *w = &x->w[i];
        double ms = 0.0;
        int transfer = 0;
        for (j = i; j < x->nw && x->w[j].rank == w->rank && x->w[j].tx == w->tx; j++) {
            if (!isnan(x->w[j].ms))
                ms += x->w[j].ms;
            transfer |= x->w[j].transfer;
        }
        if (w->text)
            rc = counter_add(c, x, w->text, w->label == NO_LABEL ? NULL : x->labels[w->label],
                             transfer, ms, transfer ? NULL : w->trace);
        i = j;
    }
    return rc;
}

/* Prepare the counter gather's statements into x (the writers' over the
 * scope's code path label); 0 or an error. */
static int counter_prepare(ls_store *s, const ls_findings_scope *sc, counter_ctx *x)
{
    ls_buf sql = LS_BUF_INIT(0);
    int rc =
        words_prepare(s, COUNTER_WORDS_SQL, LS_PARAM_NAMES(COUNTER_WORDS_PARAMS), &x->words);

    if (rc == 0)
        rc = ls_store_prepare_params(s, COUNTER_TRACE_SQL, LS_PARAM_NAMES(COUNTER_TRACE_PARAMS),
                                     &x->traced);
    if (rc == 0)
        rc = ls_store_prepare_params(s, COUNTER_CONTEXT_SQL, LS_PARAM_NAMES(COUNTER_CONTEXT_PARAMS),
                                     &x->context);
    if (rc == 0)
        rc = ls_store_prepare_params(s, COUNTER_TEXT_SQL, LS_PARAM_NAMES(COUNTER_TEXT_PARAMS),
                                     &x->text_of);
    if (rc == 0)
        rc = ls_store_prepare_params(s, COUNTER_WRITERS_SQL,
                                     LS_PARAM_NAMES(COUNTER_WRITERS_PARAMS), &x->writers);
    if (rc == 0) {
        ls_fnd_expand(&sql, COUNTER_LABEL_SQL, sc->label_sql);
        rc = ls_buf_failed(&sql) ? LS_ENOMEM
                                 : ls_store_prepare_params(s, ls_buf_str(&sql),
                                                           LS_PARAM_NAMES(COUNTER_LABEL_PARAMS),
                                                           &x->label);
    }
    ls_buf_free(&sql);
    return rc;
}

/*
 * hot_counter_row: each candidate row (q, heaviest first, then in row
 * order) that the keeper can still keep, with its writers
 * (COUNTER_WRITERS_SQL), one transaction and statement text at a time,
 * in text order; summed per statement shape and code path, and the row
 * named when its writers make it a counter (ls_counter_decide), by the
 * shape that held it longest.
 */
int ls_fnd_gather_counter(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                          const rule_fields *rf, ls_stmt *q, keeper *k)
{
    counter_row c;
    counter_ctx x;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(&c, 0, sizeof(c));
    ls_buf_init(&x.shape, 0);
    ls_buf_init(&x.last_text, 0);
    ls_buf_init(&x.last_shape, 0);
    x.last_label = NO_LABEL;
    rc = counter_prepare(s, sc, &x);
    if (rc == 0) {
        int64_t resolution;
        rc = ls_correlate_log_resolution(s, &resolution);
        x.tick_ms = (double)resolution / 1000.0;
    }
    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        if (counter_start(&c, q) != 0) {
            rc = LS_ENOMEM;
            break;
        }
        /* A row the keeper cannot keep (it is full of heavier rows, or of
         * as heavy ones found first) is not read: its writers are most of
         * the pass's work (the rows come heaviest first, so once full, no
         * later row is kept). */
        if (ls_fnd_keeper_slot(k, c.total_ms.null ? 0.0 : c.total_ms.d) >= k->limit)
            continue;
        if ((rc = writers_read(&x, &c)) != 0 || (rc = texts_read(&x)) != 0 ||
            (rc = texts_rank(&x)) != 0 || (rc = writers_add(&c, &x)) != 0 ||
            (rc = counter_offer(&x, r, rf, &c, k)) != 0)
            break;
    }
    counter_free(&c);
    counter_ctx_free(&x);
    return rc < 0 ? rc : 0;
}
