/*
 * logcover.c — whether the log's statement logging can bound a hold
 * (ls_logcover.h).
 */
#include <string.h>

#include "ls_logcover.h"

int ls_logcover_reads_needed(const ls_logcover_in *in)
{
    return in->statements >= LS_LOGCOVER_MIN_STATEMENTS && in->tx_control == 0 && in->timed == 0;
}

ls_logcover ls_logcover_decide(const ls_logcover_in *in)
{
    if (in->statements == 0) {
        if (in->from_spans > 0)
            return LS_LOGCOVER_COMPLETE;
        return in->holds > 0 ? LS_LOGCOVER_NO_STATEMENTS : LS_LOGCOVER_NONE;
    }
    if (ls_logcover_reads_needed(in))
        return in->reads == 0 ? LS_LOGCOVER_CLASSES : LS_LOGCOVER_COMPLETE;
    if (in->statements < LS_LOGCOVER_MIN_STATEMENTS || in->timed != in->statements)
        return LS_LOGCOVER_COMPLETE;
    return in->shortest_ms >= LS_LOGCOVER_FLOOR_MS ? LS_LOGCOVER_THRESHOLD : LS_LOGCOVER_COMPLETE;
}

int ls_logcover_tx_ends_unlogged(const ls_logcover_in *in)
{
    ls_logcover v = ls_logcover_decide(in);
    if (v == LS_LOGCOVER_CLASSES)
        return LS_ENDS_UNLOGGED_CLASSES;
    return v == LS_LOGCOVER_THRESHOLD && in->tx_control == 0 ? LS_ENDS_UNLOGGED_THRESHOLD : 0;
}

const char *ls_logcover_name(ls_logcover v)
{
    switch (v) {
    case LS_LOGCOVER_THRESHOLD: return "threshold";
    case LS_LOGCOVER_NO_STATEMENTS: return "no_statements";
    case LS_LOGCOVER_CLASSES: return "statement_classes";
    case LS_LOGCOVER_NONE: return "none";
    case LS_LOGCOVER_COMPLETE: break;
    }
    return "complete";
}

int ls_logcover_open_end(ls_logcover v, const char *end_evidence)
{
    if (v == LS_LOGCOVER_COMPLETE)
        return 0;
    return !end_evidence || strcmp(end_evidence, "statement") == 0 ||
           strcmp(end_evidence, "statement start") == 0;
}

int ls_logcover_split_unknown(ls_logcover v, const char *end_evidence)
{
    /* the end not in the log: nor is what ran, or idled, before it */
    return ls_logcover_open_end(v, end_evidence);
}

int ls_logcover_breakdown_unknown(int64_t holds, int64_t split_known)
{
    return holds > 0 && split_known <= 0;
}

ls_logcover_hidden ls_logcover_hidden_decide(ls_logcover v, double hidden_ms)
{
    if (v == LS_LOGCOVER_NONE || v == LS_LOGCOVER_NO_STATEMENTS)
        return LS_HIDDEN_UNKNOWN;
    if (v != LS_LOGCOVER_THRESHOLD && v != LS_LOGCOVER_CLASSES)
        return LS_HIDDEN_KNOWN;
    return hidden_ms > 0.0 ? LS_HIDDEN_AT_LEAST : LS_HIDDEN_UNKNOWN;
}

int ls_logcover_occupancy_unknown(ls_logcover v, double top_hold_ms)
{
    return v != LS_LOGCOVER_COMPLETE && !(top_hold_ms > 0.0);
}

int ls_logcover_holds_unknown(ls_logcover v, int64_t holds, int64_t timed)
{
    return v != LS_LOGCOVER_COMPLETE && holds > 0 && timed <= 0;
}

int ls_logcover_path_occupancy_unknown(ls_logcover v, int64_t holds, double max_ms)
{
    return ls_logcover_holds_unknown(v, holds, max_ms > 0.0);
}

int ls_logcover_path_blocking_unknown(ls_logcover v, int64_t episodes, double caused_ms,
                                      double max_ms)
{
    /* waiting credited with no episode: a hold behind it all the same */
    int64_t holds = episodes > 0 ? episodes : caused_ms > 0.0;
    return ls_logcover_holds_unknown(v, holds, max_ms > 0.0);
}

ls_nopaths ls_logcover_no_paths(int64_t root_blockers, int logging_complete)
{
    if (root_blockers <= 0)
        return LS_NOPATHS_NONE_HELD;
    return logging_complete ? LS_NOPATHS_UNNAMED : LS_NOPATHS_UNLOGGED;
}

int ls_logcover_caused_unbounded(ls_logcover v, int slow_key_rows, int has_spans)
{
    return (v == LS_LOGCOVER_THRESHOLD && !has_spans) || slow_key_rows != 0;
}

int ls_logcover_hold_total_at_least(ls_logcover v)
{
    return v != LS_LOGCOVER_COMPLETE;
}
