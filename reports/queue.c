/*
 * queue.c — a busy row's queue depth over its whole time, when its
 * timeline's lists are cut (--max-waits): the row's queue-depth changes
 * (row_queue) summed into at most QUEUE_BUCKETS buckets of equal time, each
 * with its deepest queue and the depth it ended at, so the chart can draw
 * the queue to the row's last wait however many waits it had
 * (timeline.queue_buckets; pgBadger draws its graphs the same way, per
 * period).
 */
#include "ls_common.h"
#include "model_int.h"

/* Buckets over the row's time: at 1,100 SVG units a bucket is under 3. */
#define QUEUE_BUCKETS "400"

static const ls_mcol bucket_cols[] = {
    {"time", "min(ts)", LS_MC_TS},
    {"end", "max(ts)", LS_MC_TS},
    {"depth", "max(depth)", LS_MC_INT},
    {"end_depth", "max(CASE WHEN rn = 1 THEN depth END)", LS_MC_INT},
};
/* Each change of depth in its bucket b; rn = 1 for a bucket's last one. */
static const ls_mquery buckets_q = LS_MQUERY(
    NULL, bucket_cols,
    "FROM (SELECT ts, depth, b, row_number() OVER (PARTITION BY b ORDER BY ts DESC, id DESC)"
    " AS rn FROM (SELECT q.ts, q.depth, q.rowid AS id, (q.ts - r.t0) * " QUEUE_BUCKETS
    " / r.span AS b FROM row_queue q, (SELECT min(ts) AS t0, max(ts) - min(ts) + 1 AS span"
    " FROM row_queue WHERE row_id = ?1) r WHERE q.row_id = ?1))"
    " GROUP BY b ORDER BY b");

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
