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

int ls_span_same_statement(const char *a, const char *b)
{
    if (!a || !b || !*a || !*b)
        return 0;
    while (*a && *b) {
        size_t na = numbered_len(a), nb = numbered_len(b);
        if (*a == '?' && nb) {
            a++;
            b += nb;
        } else if (*b == '?' && na) {
            a += na;
            b++;
        } else if (*a == *b) {
            a++;
            b++;
        } else
            return 0;
    }
    return *a == *b;
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
