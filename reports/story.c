/*
 * story.c — the report's answer in one place (the model's "story"): the
 * code path that holds hot rows longest, which is the top of the occupancy
 * ranking (row_occupancy), the row it held most, what it was doing while
 * it held (the span or the SQL inside its holds), the fix the findings
 * give for it, and how sure the log makes lockspan. Every renderer opens
 * with it (prose.c, ls_write_story), and the CLI's last line names the
 * same path, so the headline cannot disagree with the ranking.
 *
 * It reads what the other sections already put in the model (the
 * rankings, the findings) and the store's figures for that one path; it
 * decides nothing the analysis has not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_columns.h"
#include "model_int.h"

/* Paths in the story's compact ranking (the full one is in its section). */
#define STORY_RANKING 5

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(get(o, key));
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* The blocking ranking's entry (code_paths) for `path`, or NULL. */
static const cJSON *blocking_of(const cJSON *report, const char *path)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, get(report, "code_paths")) if (same(str(c, "code_path"), path)) return c;
    return NULL;
}

/* The largest part of a path's hold breakdown (what its holds others
 * waited for were mostly spent on), and the parts' sum in *all; NULL
 * when a part is unknown (null ms: codepaths.c breakdown_split), since
 * then which is largest is too. */
static const cJSON *top_part(const cJSON *blocking, double *all)
{
    const cJSON *p, *best = NULL;
    *all = 0;
    cJSON_ArrayForEach(p, get(blocking, "hold_breakdown")) {
        if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(p, "ms")))
            return NULL;
        *all += num(p, "ms");
        if (!best || num(p, "ms") > num(best, "ms"))
            best = p;
    }
    return best;
}

/* The row the story's path held longest (model_story_path: found by the
 * occupancy ranking's scan of the holds). */
#define STORY_ROW_COLS(X, Q)                                                                       \
    X(Q, relation, "relation")                                                                     \
    X(Q, row_key, "row_key")                                                                       \
    X(Q, ctids, "ctids")
LS_COLUMNS(sr, STORY_ROW_COLS);
static const char story_row_sql[] =
    "SELECT " LS_SELECT_LIST(sr, STORY_ROW_COLS) " FROM rows WHERE row_id = :row";
#define STORY_ROW_PARAMS(X, Q) X(Q, row)
LS_PARAMS(srp, STORY_ROW_PARAMS);

/* story.row: the row the path held longest. */
static int add_row(model_ctx *m, cJSON *story)
{
    ls_stmt *q = NULL;
    int rc = 0;
    if (m->story.row_id &&
        (rc = ls_store_prepare_params(m->store, story_row_sql, LS_PARAM_NAMES(STORY_ROW_PARAMS),
                                      &q)) == 0 &&
        (rc = ls_stmt_bind_int64(q, LS_PARAM(srp, row), m->story.row_id)) == 0 &&
        (rc = ls_stmt_step(q)) == 1) {
        cJSON *row = cJSON_AddObjectToObject(story, "row");
        ls_model_col_str(row, "relation", q, sr_relation);
        ls_model_col_str(row, "row_key", q, sr_row_key);
        ls_model_col_str(row, "ctid", q, sr_ctids);
        if (m->story.row_timed)
            cJSON_AddNumberToObject(row, "held_ms",
                                    (double)(int64_t)((double)m->story.row_us + 0.5) / 1000.0);
        else
            cJSON_AddNullToObject(row, "held_ms");
        rc = 0;
    }
    ls_stmt_finalize(q);
    if (!get(story, "row"))
        cJSON_AddNullToObject(story, "row");
    return rc < 0 ? rc : 0;
}

/*
 * story.doing: what the path's holds others waited for were mostly spent
 * on, from its hold breakdown (span-aware; null when none of its holds was
 * waited for: correlation splits only those); story.evidence: how many
 * of its holds have a bound from the log rather than a time.
 */
static int add_doing(model_ctx *m, cJSON *story, const cJSON *report, const char *path)
{
    double all = 0;
    const cJSON *blocking = blocking_of(report, path);
    const cJSON *part = top_part(blocking, &all);
    cJSON *ev;

    if (part) {
        cJSON *doing = cJSON_AddObjectToObject(story, "doing");
        ls_model_add_str(doing, "part", str(part, "part"));
        ls_model_add_str(doing, "name", str(part, "name"));
        cJSON_AddNumberToObject(doing, "ms", num(part, "ms"));
        cJSON_AddNumberToObject(doing, "of_ms", all);
    } else {
        cJSON_AddNullToObject(story, "doing");
        /* its breakdown's idle and commit unknown (codepaths.c) */
        if (str(blocking, "hold_breakdown_unknown_reason"))
            ls_model_add_str(story, "doing_unknown_reason",
                             str(blocking, "hold_breakdown_unknown_reason"));
    }
    ev = cJSON_AddObjectToObject(story, "evidence");
    cJSON_AddNumberToObject(ev, "holds", (double)m->story.holds);
    cJSON_AddNumberToObject(ev, "holds_bounded", (double)m->story.bounded);
    cJSON_AddStringToObject(ev, "logging", ls_model_logging_name(m));
    return 0;
}

/* The finding the story's fix comes from: the weightiest naming the path
 * (findings are sorted by weight), else the weightiest on its row. */
static const cJSON *finding_for(const cJSON *report, const char *path, const cJSON *row, int *nth)
{
    const cJSON *f;
    *nth = 0;
    cJSON_ArrayForEach(f, get(report, "findings")) {
        ++*nth;
        if (same(str(f, "code_path"), path))
            return f;
    }
    *nth = 0;
    cJSON_ArrayForEach(f, get(report, "findings")) {
        ++*nth;
        if (row && same(str(f, "relation"), str(row, "relation")) &&
            same(str(f, "row"), str(row, "row_key")))
            return f;
    }
    return NULL;
}

/* A ranked path's "mostly": its hold breakdown's largest part, if any. */
static void add_ranked(cJSON *list, const cJSON *report, const cJSON *occ)
{
    cJSON *o = cJSON_CreateObject();
    double all = 0;
    const cJSON *part = top_part(blocking_of(report, str(occ, "code_path")), &all);
    ls_model_add_str(o, "code_path", str(occ, "code_path"));
    cJSON_AddNumberToObject(o, "share_pct", num(occ, "share_pct"));
    cJSON_AddNumberToObject(o, "total_hold_ms", num(occ, "total_hold_ms"));
    cJSON_AddNumberToObject(o, "holds", num(occ, "holds"));
    cJSON_AddNumberToObject(o, "holds_waited_for", num(occ, "holds_waited_for"));
    ls_model_add_str(o, "mostly", part ? str(part, "name") : NULL);
    cJSON_AddItemToArray(list, o);
}

void ls_model_story(model_ctx *m, cJSON *report)
{
    const cJSON *top = cJSON_GetArrayItem(get(report, "row_occupancy"), 0), *occ, *fnd;
    const char *path = str(top, "code_path");
    cJSON *story, *ranking;
    int n = 0;

    if (!path) {
        cJSON_AddNullToObject(report, "story");
        return;
    }
    story = cJSON_AddObjectToObject(report, "story");
    if (ls_logcover_occupancy_unknown((ls_logcover)m->logcover, num(top, "total_hold_ms"))) {
        /* The top path held hot rows 0 ms: so did every path (the ranking
         * is by hold time), and naming one would be a confident answer the
         * log cannot give: no hold was timed (a threshold log has no
         * BEGIN/COMMIT, issue 34). Said unknown instead. */
        cJSON_AddNullToObject(story, "code_path");
        cJSON_AddNullToObject(story, "hold_ms");
        cJSON_AddNullToObject(story, "share_pct");
        ls_model_add_str(story, "occupancy_unknown",
                         "No hold of a hot row was timed (the log has no transaction "
                         "boundaries for them), so the code paths cannot be ranked by how long "
                         "they held hot rows from this log.");
        cJSON_AddNumberToObject(story, "ranked_paths",
                                cJSON_GetArraySize(get(report, "row_occupancy")));
        return;
    }
    ls_model_add_str(story, "code_path", path);
    ls_model_add_str(story, "named_by", str(top, "named_by"));
    cJSON_AddNumberToObject(story, "hold_ms", num(top, "total_hold_ms"));
    cJSON_AddNumberToObject(story, "share_pct", num(top, "share_pct"));
    cJSON_AddNumberToObject(story, "holds", num(top, "holds"));
    cJSON_AddNumberToObject(story, "holds_waited_for", num(top, "holds_waited_for"));
    /* A log that is not complete times its holds as lower bounds (a
     * statement's logged duration is no hold's end, no BEGIN its start):
     * the total is "at least", its share of the timed holds no fact
     * (samples/blind-go, issue 34). Left out on a complete log. */
    if (ls_logcover_hold_total_at_least((ls_logcover)m->logcover))
        cJSON_AddTrueToObject(story, "hold_at_least");
    if (!m->rc)
        m->rc = add_row(m, story);
    if (!m->rc)
        m->rc = add_doing(m, story, report, path);
    fnd = finding_for(report, path, get(story, "row"), &n);
    if (fnd) /* its place in the findings list, from 1 */
        cJSON_AddNumberToObject(story, "finding_number", n);
    else
        cJSON_AddNullToObject(story, "finding_number");
    n = 0;
    ls_model_add_str(story, "finding", fnd ? str(fnd, "title") : NULL);
    ls_model_add_str(story, "fix", fnd ? str(fnd, "fix") : NULL);
    ranking = cJSON_AddArrayToObject(story, "ranking");
    cJSON_ArrayForEach(occ, get(report, "row_occupancy")) {
        if (n++ >= STORY_RANKING)
            break;
        add_ranked(ranking, report, occ);
    }
    cJSON_AddNumberToObject(story, "ranked_paths", cJSON_GetArraySize(get(report, "row_occupancy")));
}
