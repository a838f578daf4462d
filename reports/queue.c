/*
 * queue.c — a busy row's queue depth over its whole time, when its
 * timeline's lists are cut (--max-waits): the row's queue-depth changes
 * (row_queue) summed into at most 400 buckets of equal time, each with
 * its deepest queue and the depth it ended at, so the chart can draw the
 * queue to the row's last wait however many waits it had
 * (timeline.queue_buckets; pgBadger draws its graphs the same way, per
 * period). Correlation summed them (row_queue_buckets, the "report
 * summary" pass, src/correlate/summary.c; a window's, over its queue, in
 * the temp table of that name, scope.c): the report reads them.
 */
#include "ls_common.h"
#include "model_int.h"

static const ls_mcol bucket_cols[] = {
    {"time", "first_ts", LS_MC_TS},
    {"end", "last_ts", LS_MC_TS},
    {"depth", "depth", LS_MC_INT},
    {"end_depth", "end_depth", LS_MC_INT},
};
static const ls_mquery buckets_q =
    LS_MQUERY(NULL, bucket_cols, "FROM row_queue_buckets WHERE row_id = :row_id ORDER BY b");

static void bucket_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, &buckets_q, q, NULL, NULL);
    cJSON_AddItemToArray(arg, o);
}

void ls_model_queue_buckets(model_ctx *m, int64_t row_id, cJSON *tl)
{
    const cJSON *cut = cJSON_GetObjectItemCaseSensitive(tl, "cut");
    if (!cJSON_GetObjectItemCaseSensitive(cut, "queue"))
        return;
    ls_mq_each_row(m, &buckets_q, row_id, bucket_row,
                   cJSON_AddArrayToObject(tl, "queue_buckets"));
}
