/*
 * findings.c — rules that turn the evidence into findings a person can
 * act on: each names what was seen (with numbers), why it matters, and the
 * fix it suggests. Rules are a static table; each is one query over the
 * store (through the correlation tables), so their evidence is exact even
 * when the report's lists are cut.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "model_int.h"
#include "render_int.h"

/*
 * A duration in an evidence's printf, in ms: written between two control
 * bytes and turned into words ("1.3 s", "648 ms") by humanize(). Control
 * bytes cannot come from a log: every model string is cleaned of them.
 */
#define DUR "\001%%.3f\002"

/*
 * The report's time window (--since, --until) in a rule's SQL: ?11 and
 * ?12, NULL when not given (bound by ls_model_bind_window). A point event
 * (deadlock, error) counts when its time is in the window; a hold or a
 * transaction when it overlaps the window, as a wait does in the sections;
 * a rule over a row's whole history (rows.waits, hidden_wait_ms, ...) only
 * when that history lies inside the window, so that no figure of a
 * finding comes from outside it.
 */
#define AT_IN_WINDOW(ts) " (?11 IS NULL OR " ts " >= ?11) AND (?12 IS NULL OR " ts " <= ?12) "
#define OVERLAPS_WINDOW(s, e) \
    " (?11 IS NULL OR coalesce(" e ", " s ") >= ?11) AND (?12 IS NULL OR " s " <= ?12) "
#define INSIDE_WINDOW(s, e) " (?11 IS NULL OR " s " >= ?11) AND (?12 IS NULL OR " e " <= ?12) "
#define DEADLOCKS_IN_WINDOW "(SELECT count(*) FROM deadlocks d WHERE" AT_IN_WINDOW("d.ts") ")"

typedef struct finding_rule {
    const char *rule;
    const char *fix;
    /* SQL: one row per finding, columns (weight ms, title, evidence, then
     * the fields); `%s` is the code path label expression over tx_code c. */
    const char *sql;
    /* The evidence's numbers and names as fields, one per column after the
     * evidence: "name:t" with t s (string), i (integer) or m (ms / real). */
    const char *fields;
} finding_rule;

static const finding_rule rules[] = {
    {"external_call_in_transaction",
     "Move the call out of the transaction: call first and then update the row and commit at "
     "once, or commit first and make the call from an outbox afterwards. Every millisecond the "
     "call takes is a millisecond every other writer of the row waits.",
     "WITH hl AS (SELECT h.*, %s AS label FROM holds h LEFT JOIN tx_code c"
     "  ON c.tx_id = h.tx_id WHERE h.waits > 0 AND" OVERLAPS_WINDOW("h.start_ts", "h.end_ts") ")"
     " SELECT sum(p.ms), hl.label || ' calls ' || p.name || ' while holding a hot row',"
     " printf('" DUR " of its " DUR " of holds on rows others waited for were spent in the "
     "span ''%%s'' (%%d holds, " DUR " of waiting caused).', sum(p.ms),"
     " (SELECT sum((x.end_ts - x.start_ts) / 1000.0) FROM hl x WHERE x.label = hl.label),"
     " p.name, count(*), sum(hl.waiter_ms)),"
     " hl.label, p.name, sum(p.ms), count(*), sum(hl.waiter_ms)"
     " FROM hold_parts p JOIN hl ON hl.hold_id = p.hold_id WHERE p.part = 'span'"
     " GROUP BY hl.label, p.name HAVING sum(p.ms) >= 50 ORDER BY sum(p.ms) DESC LIMIT 5",
     "code_path:s,span:s,span_ms:m,holds:i,waiter_ms:m"},
    {"idle_in_transaction_head",
     "Send the transaction's statements back to back and commit at once; do application work "
     "(rendering, calls, waiting for the client) before BEGIN or after COMMIT. Set "
     "idle_in_transaction_session_timeout as a safety net.",
     /* Idle time a trace span explains (an external call) is not counted. */
     "WITH hi AS (SELECT h.*, %s AS label, coalesce((SELECT p.ms FROM hold_parts p"
     "  WHERE p.hold_id = h.hold_id AND p.part = 'idle'), h.idle_ms) AS unexplained"
     "  FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
     "  WHERE h.head_state = 'idle_in_transaction' AND h.waiter_ms >= 100 AND"
     OVERLAPS_WINDOW("h.start_ts", "h.end_ts") ")"
     " SELECT sum(waiter_ms), label || ' sits idle in transaction at the head of the queue',"
     " printf('%%d hold%%s of a hot row with the holder idle in transaction while others "
     "waited: " DUR " idle that no trace span explains, " DUR " of waiting caused; longest "
     "hold " DUR ".', count(*), CASE WHEN count(*) > 1 THEN 's' ELSE '' END,"
     " sum(unexplained), sum(waiter_ms), max((end_ts - start_ts) / 1000.0)),"
     " label, count(*), sum(unexplained), sum(waiter_ms), max((end_ts - start_ts) / 1000.0)"
     " FROM hi WHERE unexplained >= 50 GROUP BY label ORDER BY sum(waiter_ms) DESC LIMIT 5",
     "code_path:s,holds:i,idle_ms:m,waiter_ms:m,max_hold_ms:m"},
    {"commit_wait_head",
     "The COMMIT itself held the row: check WAL flush latency (wait event WalSync), a synchronous "
     "standby (SyncRep) and deferred triggers or constraints that run at COMMIT; update the hot "
     "row as the transaction's last statement.",
     "SELECT sum(h.waiter_ms), %s || ' holds hot rows through a slow COMMIT',"
     " printf('%%d hold%%s spent " DUR " committing while others waited (" DUR " of waiting "
     "caused).', count(*), CASE WHEN count(*) > 1 THEN 's' ELSE '' END, sum(h.commit_ms),"
     " sum(h.waiter_ms)), %s, count(*), sum(h.commit_ms), sum(h.waiter_ms)"
     " FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
     " WHERE h.head_state = 'committing' AND" OVERLAPS_WINDOW("h.start_ts", "h.end_ts")
     " GROUP BY 2 ORDER BY sum(h.waiter_ms) DESC LIMIT 5",
     "code_path:s,holds:i,commit_ms:m,waiter_ms:m"},
    {"inconsistent_lock_order",
     "Take locks in one order everywhere (for example by table, then by primary key: SELECT ... "
     "FOR UPDATE ORDER BY id); shortening transactions does not remove these deadlocks.",
     "WITH " LOCK_ORDER_PAIRS_WHERE("c.tx_id IN (SELECT x.tx_id FROM transactions x WHERE"
     OVERLAPS_WINDOW("x.start_ts", "x.end_ts") ")")
     " SELECT 1000.0 * (1 + " DEADLOCKS_IN_WINDOW "), 'Code paths write the same "
     "relations in opposite orders', printf('%%s writes %%s before %%s, %%s the other way "
     "round.', x.label, x.r1, x.r2, y.label), x.label, x.r1, x.r2, y.label,"
     " " DEADLOCKS_IN_WINDOW " FROM o x JOIN o y ON y.r1 = x.r2"
     " AND y.r2 = x.r1 AND x.label < y.label LIMIT 5",
     "code_path:s,first:s,then:s,other_code_path:s,deadlocks:i"},
    {"deadlocks",
     "Find the two code paths in the cycle and make them lock rows in the same order (the "
     "deadlock section lists each side's statements in the order it took its locks).",
     "SELECT 1000.0 * count(*), printf('%%d deadlock%%s', count(*), CASE WHEN count(*) > 1"
     " THEN 's' ELSE '' END), printf('%%d processes cancelled (SQLSTATE 40P01); the first at "
     "%%s UTC.', count(*), strftime('%%Y-%%m-%%d %%H:%%M:%%f', min(ts) / 1e6, 'unixepoch')),"
     " count(*), strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', min(ts) / 1e6, 'unixepoch')"
     " FROM deadlocks WHERE" AT_IN_WINDOW("ts") "HAVING count(*) > 0",
     "deadlocks:i,first_time:s"},
    {"hot_counter_row",
     "Split the counter into N rows updated at random and summed on read, or append increments "
     "to a log table and aggregate them later.",
     "SELECT r.total_wait_ms, 'Counter row ' || r.relation || ' ' || r.row_key || ' is a "
     "bottleneck', printf('%%d waits (" DUR ") to increment one row: every writer updates "
     "it with ''%%s''.', r.waits, r.total_wait_ms, min(st.text)),"
     " r.relation, r.row_key, r.waits, r.total_wait_ms, min(st.text)"
     " FROM rows r JOIN lock_waits w ON w.row_id = r.row_id JOIN statements st"
     " ON st.stmt_id = w.waiter_stmt WHERE r.waits >= 3 AND"
     INSIDE_WINDOW("r.first_ts", "r.last_ts") "AND replace(lower(st.text), ' ', '')"
     " GLOB '*set*=*+*'"
     " GROUP BY r.row_id ORDER BY r.total_wait_ms DESC LIMIT 3",
     "relation:s,row:s,waits:i,total_wait_ms:m,statement:s"},
    {"retries_after_serialization_failure",
     "Retry the whole transaction (not the statement) with a bound and back-off, keep it "
     "short, or lock the row first (SELECT ... FOR UPDATE) where the isolation level allows.",
     "SELECT 100.0 * count(*), printf('%%d serialization failure%%s (40001)', count(*),"
     " CASE WHEN count(*) > 1 THEN 's' ELSE '' END), printf('%%d retried by the same session "
     "(%%d committed).', sum(retry_stmt IS NOT NULL), sum(retry_outcome = 'commit')),"
     " count(*), sum(retry_stmt IS NOT NULL), sum(retry_outcome = 'commit')"
     " FROM errors_linked WHERE class = 'serialization_failure' AND" AT_IN_WINDOW("ts")
     "HAVING count(*) > 0",
     "failures:i,retried:i,committed:i"},
    {"hidden_waiting",
     "The log shows only waits longer than deadlock_timeout; the rest of the queueing on this row "
     "is as real. Shorten what holds the row (see the rankings) rather than tuning "
     "deadlock_timeout, which changes what is logged, not how long anyone waits.",
     "SELECT r.hidden_wait_ms, printf('%%.0f %%%% of the waiting on %%s %%s was below "
     "deadlock_timeout and never logged', 100.0 * r.hidden_wait_ms / (r.hidden_wait_ms +"
     " r.logged_wait_ms), r.relation, r.row_key),"
     " printf('%%d statements queued for the row: " DUR " of waiting rebuilt from the holds "
     "before them, " DUR " logged as lock waits; the row was held %%.0f %%%% of the time.',"
     " r.waited_statements, r.hidden_wait_ms, r.logged_wait_ms, 100.0 * r.utilisation),"
     " r.relation, r.row_key, 100.0 * r.hidden_wait_ms / (r.hidden_wait_ms + r.logged_wait_ms),"
     " r.waited_statements, r.hidden_wait_ms, r.logged_wait_ms, r.utilisation"
     " FROM rows r WHERE r.hidden_wait_ms >= 200 AND r.hidden_wait_ms >= r.logged_wait_ms AND"
     INSIDE_WINDOW("r.first_ts", "r.last_ts")
     " ORDER BY r.hidden_wait_ms DESC LIMIT 3",
     "relation:s,row:s,hidden_share_pct:m,statements_waited:i,hidden_wait_ms:m,"
     "logged_wait_ms:m,utilisation:m"},
    {"serial_capacity",
     "One row lets one transaction through at a time: shorten the hold (see the findings above) "
     "or spread the writes over several rows.",
     /* The transactions that wanted the row: those that held it and those
      * that waited for it, each once (a statement may wait for one row
      * many times, and a waiter that got the row holds it). Demand at 90 %
      * of the capacity or more: a row busy that much has a queue most of
      * the time. */
     "SELECT r.total_wait_ms, 'Row ' || r.relation || ' ' || r.row_key || ' is at its serial "
     "capacity', printf('Mean hold " DUR " caps the row at %%.1f transactions/s; %%d "
     "transactions wanted it within " DUR " (%%.1f/s, %%.0f %%%% of that).', r.mean_hold_ms,"
     " r.capacity_per_s, r.wanting, (r.last_ts - r.first_ts) / 1e3, r.wanting /"
     " max((r.last_ts - r.first_ts) / 1e6, 0.001), 100.0 * r.wanting /"
     " max((r.last_ts - r.first_ts) / 1e6, 0.001) / r.capacity_per_s),"
     " r.relation, r.row_key, r.mean_hold_ms, r.capacity_per_s, r.wanting,"
     " (r.last_ts - r.first_ts) / 1e6, r.wanting / max((r.last_ts - r.first_ts) / 1e6, 0.001)"
     " FROM (SELECT r.*, (SELECT count(*) FROM (SELECT h.tx_id FROM holds h"
     "   WHERE h.row_id = r.row_id AND h.tx_id IS NOT NULL UNION SELECT w.waiter_tx"
     "   FROM lock_waits w WHERE w.row_id = r.row_id AND w.waiter_tx IS NOT NULL)) AS wanting"
     "  FROM rows r WHERE r.capacity_per_s > 0 AND r.waits >= 3 AND"
     INSIDE_WINDOW("r.first_ts", "r.last_ts") ") r"
     " WHERE r.wanting / max((r.last_ts - r.first_ts) / 1e6, 0.001) >= 0.9 * r.capacity_per_s"
     " ORDER BY r.total_wait_ms DESC LIMIT 3",
     "relation:s,row:s,mean_hold_ms:m,capacity_per_s:m,transactions:i,window_s:m,demand_per_s:m"},
};

/* The rule's SQL with %s replaced by `label` and %% by %. */
static void expand(ls_buf *out, const char *sql, const char *label)
{
    const char *p;
    ls_buf_reset(out);
    for (p = sql; *p; p++) {
        if (p[0] == '%' && p[1] == 's') {
            ls_buf_adds(out, label);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            ls_buf_addc(out, '%');
            p++;
        } else {
            ls_buf_addc(out, *p);
        }
    }
}

/* The evidence into out (reset first) with each DUR in words. */
static void humanize(ls_buf *out, const char *evidence)
{
    const char *p = evidence;
    ls_buf_reset(out);
    while (*p) {
        const char *end = p[0] == '\001' ? strchr(p, '\002') : NULL;
        if (end) {
            char d[LS_DURATION_LEN];
            ls_buf_adds(out, ls_fmt_duration(d, sizeof(d), strtod(p + 1, NULL)));
            p = end + 1;
        } else {
            ls_buf_addc(out, *p++);
        }
    }
}

/* The finding's fields (columns 3.. of q) as its rule names them. */
static void add_fields(cJSON *o, ls_stmt *q, const char *spec)
{
    int col = 3;
    while (spec && *spec) {
        const char *colon = strchr(spec, ':'), *end;
        char name[48];
        size_t n;
        if (!colon)
            break;
        end = colon + 2;
        n = (size_t)(colon - spec) < sizeof(name) - 1 ? (size_t)(colon - spec) : sizeof(name) - 1;
        memcpy(name, spec, n);
        name[n] = 0;
        if (colon[1] == 's')
            ls_model_col_str(o, name, q, col);
        else if (colon[1] == 'i')
            ls_model_col_int(o, name, q, col);
        else
            ls_model_col_ms(o, name, q, col);
        col++;
        spec = *end == ',' ? end + 1 : end;
    }
}

/* A finding and where its rule left it, to sort by. */
typedef struct ranked {
    cJSON *item;
    double weight;
    size_t seq;
} ranked;

/* Heavier first; equal weights in rule-table order, then in the rule's
 * own order (its SQL's ORDER BY): seq is unique, so the order is total. */
static int by_weight(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Move the findings of `list` into the same array sorted by weight_ms
 * (descending; ties in the order the rules found them). On no memory the
 * list is left in rule order and m->rc set.
 */
static void sort_findings(model_ctx *m, cJSON *list)
{
    size_t n = (size_t)cJSON_GetArraySize(list), i;
    ranked *r;
    if (n < 2)
        return;
    if (!(r = calloc(n, sizeof(*r)))) {
        m->rc = LS_ENOMEM;
        return;
    }
    for (i = 0; i < n; i++) {
        cJSON *w;
        r[i].item = cJSON_DetachItemFromArray(list, 0);
        w = cJSON_GetObjectItemCaseSensitive(r[i].item, "weight_ms");
        r[i].weight = cJSON_IsNumber(w) ? w->valuedouble : 0.0;
        r[i].seq = i;
    }
    qsort(r, n, sizeof(*r), by_weight);
    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(list, r[i].item);
    free(r);
}

void ls_model_findings(model_ctx *m, cJSON *report)
{
    const char *label = ls_model_code_path_label(m->opts->group_by);
    cJSON *list = cJSON_AddArrayToObject(report, "findings");
    ls_buf sql = LS_BUF_INIT(0), words = LS_BUF_INIT(0);
    size_t i;

    for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        ls_stmt *q;
        int rc;
        expand(&sql, rules[i].sql, label);
        if (ls_buf_failed(&sql)) {
            m->rc = LS_ENOMEM;
            break;
        }
        if ((rc = ls_store_prepare(m->store, ls_buf_str(&sql), &q)) != 0) {
            m->rc = rc;
            break;
        }
        if ((rc = ls_model_bind_window(m, q)) != 0) {
            ls_stmt_finalize(q);
            m->rc = rc;
            break;
        }
        while ((rc = ls_stmt_step(q)) == 1) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "rule", rules[i].rule);
            ls_model_col_str(o, "title", q, 1);
            if (!ls_stmt_isnull(q, 2)) {
                humanize(&words, ls_stmt_text(q, 2));
                if (ls_buf_failed(&words))
                    m->rc = LS_ENOMEM;
                ls_model_add_str(o, "evidence", ls_buf_str(&words));
            } else {
                cJSON_AddNullToObject(o, "evidence");
            }
            ls_model_add_str(o, "fix", rules[i].fix);
            ls_model_col_ms(o, "weight_ms", q, 0);
            add_fields(o, q, rules[i].fields);
            cJSON_AddItemToArray(list, o);
        }
        ls_stmt_finalize(q);
        if (rc < 0) {
            m->rc = rc;
            break;
        }
    }
    ls_buf_free(&sql);
    ls_buf_free(&words);
    sort_findings(m, list);
}
