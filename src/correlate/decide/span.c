/*
 * span.c — what a trace's span tree says about a transaction (span.h).
 */
#include "span.h"

#include <stddef.h>

#include "ls_span.h"
#include "tolerances.h"

int ls_span_is_anchor(int kind, int is_db)
{
    return !is_db && kind != LS_SPAN_CLIENT;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The length of a "$n" placeholder at p, 0 when there is none. */
static size_t numbered_len(const char *p)
{
    size_t n = 1;
    if (p[0] != '$' || !is_digit(p[1]))
        return 0;
    while (is_digit(p[n]))
        n++;
    return n;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

/* The length of a ":name" placeholder at p (s: the text's start), 0 when
 * there is none: a cast's "::type" is not one. */
static size_t named_len(const char *s, const char *p)
{
    size_t n = 1;
    if (p[0] != ':' || !ident_char(p[1]) || is_digit(p[1]) || (p > s && p[-1] == ':'))
        return 0;
    while (ident_char(p[n]))
        n++;
    return n;
}

/* The placeholder at p (s: the text's start): its style (1 "?", 2 "$n",
 * 3 ":name"; 0: none) and length in *len. */
static int placeholder_at(const char *s, const char *p, size_t *len)
{
    if (*p == '?') {
        *len = 1;
        return 1;
    }
    if ((*len = numbered_len(p)) != 0)
        return 2;
    return (*len = named_len(s, p)) != 0 ? 3 : 0;
}

int ls_span_same_statement(const char *a, const char *b)
{
    const char *sa = a, *sb = b;
    if (!a || !b || !*a || !*b)
        return 0;
    while (*a && *b) {
        size_t na, nb;
        int ka = placeholder_at(sa, a, &na), kb = placeholder_at(sb, b, &nb);
        /* one style against another: one placeholder; within a style the
         * text counts ($1 is not $2) */
        if (ka && kb && ka != kb) {
            a += na;
            b += nb;
        } else if (*a == *b) {
            a++;
            b++;
        } else
            return 0;
    }
    return *a == *b;
}

int ls_span_orm_call_of(const char *outer_text, int db_children)
{
    const char *p = outer_text;
    if (!p)
        return 0;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return (*p == '{' || *p == '[') && db_children == 1;
}

int ls_span_wraps(int64_t outer_start, int64_t outer_end, int64_t inner_start,
                  int64_t inner_end)
{
    return inner_start >= outer_start - LS_SPAN_NEST_SLACK_US &&
           inner_end <= outer_end + LS_SPAN_NEST_SLACK_US && inner_start <= inner_end;
}

int ls_span_is_orm_of(const ls_span_pair *p)
{
    int a_wraps, b_wraps;
    if (p->a_parent_of_b || p->b_parent_of_a)
        return p->a_parent_of_b && !p->b_parent_of_a;
    a_wraps = ls_span_wraps(p->a_start, p->a_end, p->b_start, p->b_end);
    b_wraps = ls_span_wraps(p->b_start, p->b_end, p->a_start, p->a_end);
    return a_wraps && (!b_wraps || p->a_later);
}

int64_t ls_span_trace_pid(const ls_pid_fit *v, size_t n, int64_t k)
{
    int64_t pid = 0, inside = 0;
    size_t i, all = 0, in = 0;
    if (k < 1)
        return 0;
    for (i = 0; i < n; i++) {
        if (v[i].fits < k)
            continue;
        if (!all || pid != v[i].pid)
            all++;
        pid = v[i].pid;
        if (v[i].worst_us <= LS_SPAN_FIT_SLACK_US && (!in || inside != v[i].pid)) {
            in++;
            inside = v[i].pid;
        }
    }
    if (all == 1)
        return pid;
    /* several fit them all: the one inside the spans, if one alone is,
     * and there are spans enough that it is not one statement's timing */
    return all > 1 && in == 1 && k >= LS_SPAN_FIT_MIN_SPANS ? inside : 0;
}
