/* waitrange.c — see waitrange.h. */
#include "waitrange.h"

#include <stdio.h>

#include "tolerances.h"

void ls_logged_wait_range(int exact, int64_t waited_us, int64_t start_ts, int64_t end_ts,
                          int64_t at_least_us, int64_t res, ls_wait_range *out)
{
    int64_t d = end_ts - start_ts;
    out->lo = out->hi = waited_us;
    if (exact || res <= 0)
        return;
    /* waited_us is its last "after" when that is above the stamps'
     * difference (a lower bound the server measured), else that
     * difference, each end of which may be up to res early */
    if (waited_us <= d)
        out->lo = d > res ? d - res : 0;
    if (at_least_us > out->lo)
        out->lo = at_least_us < waited_us ? at_least_us : waited_us;
    if (d + res > out->hi)
        out->hi = d + res;
}

void ls_hidden_wait_range(int64_t est_us, int64_t res, int64_t max_unlogged_us, ls_wait_range *out)
{
    int64_t up = res;
    out->lo = out->hi = est_us < 0 ? 0 : est_us;
    if (res <= 0)
        return;
    if (max_unlogged_us > 0 && max_unlogged_us < up)
        up = max_unlogged_us;
    out->lo = out->lo > res ? out->lo - res : 0;
    out->hi += up;
}

double ls_caused_listed_min_ms(int64_t res_us)
{
    return res_us >= LS_WHOLE_SECOND_US ? 0.0 : (double)LS_MILLISECOND_US / LS_US_PER_MS;
}

int ls_caused_listed(double caused_ms, int64_t res_us)
{
    return caused_ms > 0 && caused_ms >= ls_caused_listed_min_ms(res_us);
}

int ls_caused_listed_sql(char *buf, size_t n, const char *caused, int64_t res_us)
{
    return snprintf(buf, n, "(%s) > 0 AND (%s) >= %.3f", caused, caused,
                    ls_caused_listed_min_ms(res_us));
}
