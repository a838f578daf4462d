/*
 * retry.h — is a statement the retry of a lock error (40001, 40P01,
 * 55P03, 57014)? A retry is the failed statement's shape run again by the
 * same session after the error, within LS_RETRY_WINDOW_US
 * (tolerances.h). Pure functions over plain values: the retries pass
 * (retries.c) reads the candidates from the store and asks this.
 */
#ifndef LS_DECIDE_RETRY_H
#define LS_DECIDE_RETRY_H

#include <stdint.h>

/*
 * Is a statement of the error's session that started at stmt_ts the
 * retry of the error logged at err_ts? Yes when it started after the
 * error (strictly later), no later than LS_RETRY_WINDOW_US after it, and
 * runs the failed statement's shape (same_shape non-zero). Returns 1 or 0.
 */
int ls_retry_is(int64_t err_ts, int64_t stmt_ts, int same_shape);

#endif
