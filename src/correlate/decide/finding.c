/*
 * finding.c — the finding rules' thresholds and order (finding.h).
 */
#include "finding.h"

#include <math.h>
#include <string.h>

#include "ls_sqlshape.h"
#include "tolerances.h"
#include "wait.h"

int ls_finding_call_fires(double span_ms)
{
    return span_ms >= LS_FINDING_CALL_MIN_MS;
}

int ls_finding_idle_hold_counts(double waiter_ms, double unexplained_ms)
{
    return waiter_ms >= LS_FINDING_IDLE_MIN_WAITER_MS &&
           unexplained_ms >= LS_FINDING_IDLE_MIN_UNEXPLAINED_MS;
}

void ls_finding_idle_start(ls_idle_heads *p)
{
    p->holds = 0;
    p->unexplained_ms = p->waiter_ms = 0;
    p->max_hold_ms = NAN;
    p->gap_holds = p->gap_from = p->gap_to = p->gap_waits = 0;
    p->gap_ms = 0;
    p->span_holds = 0;
    p->span_ms = p->span_lo_ms = p->span_hi_ms = p->span_var_ms2 = 0;
    p->known_holds = 0;
    p->known_waiter_ms = 0;
    p->known_max_hold_ms = NAN;
    p->known_ms = p->known_lo_ms = p->known_hi_ms = p->known_var_ms2 = 0;
    p->waited_holds = 0;
    p->waited_lo_ms = 0;
}

int ls_finding_idle_add(ls_idle_heads *p, double waiter_ms, double unexplained_ms, double hold_ms)
{
    if (!ls_finding_idle_hold_counts(waiter_ms, unexplained_ms))
        return 0;
    p->holds++;
    p->unexplained_ms += unexplained_ms;
    p->waiter_ms += waiter_ms;
    if (!isnan(hold_ms) && (isnan(p->max_hold_ms) || hold_ms > p->max_hold_ms))
        p->max_hold_ms = hold_ms;
    return 1;
}

int ls_finding_count_fires(int64_t n)
{
    return n > 0;
}

/* A UUID's length and its dashes' places (8-4-4-4-12). */
#define UUID_LEN 36

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_uuid(const char *s, size_t len)
{
    size_t i;
    if (len != UUID_LEN)
        return 0;
    for (i = 0; i < len; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i]))
            return 0;
    }
    return 1;
}

/* Is the path segment s[0..len) an id (ls_finding_call_template)? */
static int is_id_segment(const char *s, size_t len)
{
    size_t i, digits = 0;
    int hex = 1;
    if (len == 0)
        return 0;
    if (is_uuid(s, len))
        return 1;
    for (i = 0; i < len; i++) {
        digits += s[i] >= '0' && s[i] <= '9';
        hex &= is_hex(s[i]);
    }
    return digits == len || (hex && digits > 0 && len >= LS_FINDING_CALL_HEX_MIN);
}

/* Append s[0..len) to out[*at..n-1), cut to fit. */
static void put(char *out, size_t n, size_t *at, const char *s, size_t len)
{
    size_t room = n - 1 - *at;
    if (len > room)
        len = room;
    memcpy(out + *at, s, len);
    *at += len;
}

int ls_finding_call_template(const char *name, char *out, size_t n)
{
    const char *p = name;
    size_t at = 0;
    int replaced = 0, in_path = 0;

    while (*p) {
        if (*p == ' ') {
            in_path = 0;
            put(out, n, &at, p++, 1);
        } else if (*p == '/') {
            size_t len = strcspn(p + 1, "/?# ");
            in_path = 1;
            put(out, n, &at, p, 1);
            if (is_id_segment(p + 1, len)) {
                put(out, n, &at, LS_FINDING_CALL_ID, strlen(LS_FINDING_CALL_ID));
                replaced++;
            } else {
                put(out, n, &at, p + 1, len);
            }
            p += 1 + len;
        } else if (in_path && (*p == '?' || *p == '#')) {
            p += strcspn(p, " "); /* the query or fragment, to the word's end */
        } else {
            put(out, n, &at, p++, 1);
        }
    }
    out[at] = '\0';
    return replaced;
}

int ls_finding_lock_order_fires(int64_t deadlocks)
{
    return deadlocks >= LS_FINDING_ORDER_MIN_DEADLOCKS;
}

int ls_finding_locks_rows(const char *sql)
{
    static const char *const verbs[] = {"update ", "delete ", "select "};
    ls_buf b;
    size_t i;
    int ok = 0;

    if (!sql || ls_sql_kind_of(sql) != LS_SQL_WRITE)
        return 0;
    ls_buf_init(&b, 0);
    if (ls_sql_shape(&b, sql, 16) == 0 && b.ptr)
        for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]) && !ok; i++)
            ok = strncmp(b.ptr, verbs[i], strlen(verbs[i])) == 0;
    ls_buf_free(&b);
    return ok;
}

int ls_finding_same_stmt(const char *a, const char *b)
{
    ls_buf x, y;
    int same = 0;

    if (!a || !b)
        return 0;
    if (strcmp(a, b) == 0)
        return 1;
    ls_buf_init(&x, 0);
    ls_buf_init(&y, 0);
    if (ls_sql_shape(&x, a, LS_FINDING_SHAPE_MAX) == 0 &&
        ls_sql_shape(&y, b, LS_FINDING_SHAPE_MAX) == 0 && x.ptr && y.ptr &&
        x.len < LS_FINDING_SHAPE_MAX && y.len < LS_FINDING_SHAPE_MAX)
        same = strcmp(x.ptr, y.ptr) == 0;
    ls_buf_free(&x);
    ls_buf_free(&y);
    return same;
}

int ls_finding_detail_cycle(int64_t procs, int64_t row_edges, int64_t same_stmt, const char *stmt)
{
    return procs >= 2 && row_edges == procs && same_stmt == procs && ls_finding_locks_rows(stmt);
}

int ls_finding_is_increment(const char *sql)
{
    return ls_sql_increments(sql);
}

int ls_finding_counter_fires(int64_t waits)
{
    return waits >= LS_FINDING_ROW_MIN_WAITS;
}

int ls_finding_hidden_fires(double hidden_ms, double logged_ms)
{
    return hidden_ms >= LS_FINDING_HIDDEN_MIN_MS && hidden_ms >= logged_ms;
}

double ls_finding_demand_per_s(int64_t wanting, double span_s)
{
    return (double)wanting / (span_s > LS_FINDING_SPAN_FLOOR_S ? span_s : LS_FINDING_SPAN_FLOOR_S);
}

int ls_finding_serial_fires(int64_t waits, int64_t wanting, double span_s, double capacity_per_s)
{
    if (capacity_per_s <= 0 || waits < LS_FINDING_ROW_MIN_WAITS)
        return 0;
    return ls_finding_demand_per_s(wanting, span_s) >=
           LS_FINDING_SERIAL_DEMAND_SHARE * capacity_per_s;
}

size_t ls_finding_slot(const double *kept, size_t n, size_t limit, double w)
{
    size_t i = n;
    while (i > 0 && kept[i - 1] < w)
        i--;
    return i < limit ? i : limit;
}

/* A weight as the report shows it: whole microseconds (rounded half up,
 * as the model rounds every ms value). */
static int64_t weight_us(double ms)
{
    return (int64_t)(ms * LS_US_PER_MS + 0.5);
}

int ls_finding_cmp(double weight_a, size_t seq_a, double weight_b, size_t seq_b)
{
    int64_t a = weight_us(weight_a), b = weight_us(weight_b);
    if (a != b)
        return a > b ? -1 : 1;
    return seq_a < seq_b ? -1 : seq_a > seq_b;
}

int ls_finding_queue_fires(const char *mode, int64_t queued)
{
    return ls_finding_count_fires(queued) &&
           ls_lock_modes_conflict(mode, LS_FINDING_DDL_MODE_FLOOR) == 1;
}

int ls_finding_row_keyed(const char *row_key)
{
    return row_key && strncmp(row_key, "ctid ", 5) != 0;
}
