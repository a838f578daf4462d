/*
 * retry.c — which statement retried a lock error (retry.h).
 */
#include "retry.h"

#include "tolerances.h"

int ls_retry_is(int64_t err_ts, int64_t stmt_ts, int same_shape)
{
    if (!same_shape)
        return 0;
    return stmt_ts > err_ts && stmt_ts - err_ts <= LS_RETRY_WINDOW_US;
}
