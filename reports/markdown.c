/*
 * markdown.c — the Markdown report (GitHub-flavoured), rendered from the
 * report model. Every string from the model goes through ls_md_cell() or
 * ls_md_code_block(); numbers are printed by us.
 */
#include <stdio.h>
#include <string.h>

#include "ls_report.h"

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int has_num(const cJSON *o, const char *key)
{
    return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void cell(FILE *f, const char *s)
{
    fputs(" ", f);
    ls_md_cell(f, s ? s : "—", 120);
    fputs(" |", f);
}

static void cell_num(FILE *f, const cJSON *o, const char *key)
{
    if (has_num(o, key))
        fprintf(f, " %.0f |", num(o, key));
    else
        fputs(" — |", f);
}

static void cell_ms(FILE *f, const cJSON *o, const char *key)
{
    if (has_num(o, key))
        fprintf(f, " %.1f |", num(o, key));
    else
        fputs(" — |", f);
}

static void pid_list(FILE *f, const cJSON *o, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *v;
    int first = 1;
    fputs(" ", f);
    cJSON_ArrayForEach(v, a) {
        fprintf(f, "%s%.0f", first ? "" : ", ", v->valuedouble);
        first = 0;
    }
    fputs(first ? "— |" : " |", f);
}

static void summary(FILE *f, const cJSON *s)
{
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(s, "time_range");
    fputs("## Summary\n\n| | |\n|---|---|\n", f);
    fputs("| Time range |", f);
    fputs(" ", f);
    ls_md_cell(f, str(range, "start") ? str(range, "start") : "—", 40);
    fputs(" → ", f);
    ls_md_cell(f, str(range, "end") ? str(range, "end") : "—", 40);
    fputs(" |\n", f);
    fprintf(f, "| Lock waits logged | %.0f (%.0f linked to a blocker) |\n", num(s, "waits"),
            num(s, "waits_linked"));
    fprintf(f, "| Total wait | %.1f ms |\n", num(s, "total_wait_ms"));
    fprintf(f, "| Longest wait | %.1f ms |\n", num(s, "max_wait_ms"));
    fprintf(f, "| Deadlocks | %.0f |\n", num(s, "deadlocks"));
    fprintf(f, "| Lock timeouts (55P03) | %.0f |\n", num(s, "lock_timeouts"));
    fprintf(f, "| NOWAIT failures (55P03) | %.0f |\n", num(s, "lock_nowait_failures"));
    fprintf(f, "| Statement timeouts (57014) | %.0f |\n", num(s, "statement_timeouts"));
    fprintf(f, "| Serialization failures (40001) | %.0f |\n", num(s, "serialization_failures"));
    fprintf(f, "| Idle-in-transaction timeouts (25P03) | %.0f |\n",
            num(s, "idle_in_transaction_timeouts"));
    fprintf(f, "| Sessions / statements | %.0f / %.0f |\n", num(s, "sessions"),
            num(s, "statements"));
    fprintf(f, "| Input | %.0f files, %.0f lines, %.0f records, %.0f unparsable lines |\n\n",
            num(s, "files"), num(s, "lines"), num(s, "records"), num(s, "bad_lines"));
}

static void hot_rows(FILE *f, const cJSON *rows)
{
    const cJSON *r;
    fputs("## Hot rows\n\nLogical rows (one row however many ctids its updates gave it), "
          "ranked by the total time others waited for them. Serial capacity is 1 / mean "
          "hold: the most transactions per second that can take the row one after "
          "another.\n\n",
          f);
    if (cJSON_GetArraySize(rows) == 0) {
        fputs("No lock waits were logged.\n\n", f);
        return;
    }
    fputs("| Relation | Row | ctids | Waits | Total wait ms | Max wait ms | Max queue | Holds | "
          "Mean hold ms | Serial capacity /s | Root blockers |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
          f);
    cJSON_ArrayForEach(r, rows) {
        fputs("|", f);
        cell(f, str(r, "relation"));
        cell(f, str(r, "row_key"));
        cell(f, str(r, "ctid"));
        cell_num(f, r, "waits");
        cell_ms(f, r, "total_wait_ms");
        cell_ms(f, r, "max_wait_ms");
        cell_num(f, r, "max_queue_depth");
        cell_num(f, r, "holds");
        cell_ms(f, r, "mean_hold_ms");
        cell_ms(f, r, "serial_capacity_per_s");
        pid_list(f, r, "root_blocker_pids");
        fputs("\n", f);
    }
    fputs("\n", f);
}

static const char *state_text(const char *state)
{
    if (!state)
        return "—";
    if (strcmp(state, "idle_in_transaction") == 0)
        return "idle in transaction";
    if (strcmp(state, "committing") == 0)
        return "committing";
    if (strcmp(state, "running") == 0)
        return "running SQL";
    return state;
}

static void holds(FILE *f, const cJSON *hs)
{
    const cJSON *h;
    fputs("## Longest holds\n\nTransactions holding a row while others waited, ranked by "
          "the waiting they caused, and what the holder did while they waited.\n\n",
          f);
    if (cJSON_GetArraySize(hs) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    fputs("| Row | Holder pid | Application | Hold ms | Waits | Waiter ms | Mostly | SQL ms | "
          "Idle in transaction ms | Commit ms | Lock taken by |\n"
          "|---|---:|---|---:|---:|---:|---|---:|---:|---:|---|\n",
          f);
    cJSON_ArrayForEach(h, hs) {
        char row[256];
        snprintf(row, sizeof(row), "%s %s", str(h, "relation") ? str(h, "relation") : "",
                 str(h, "row_key") ? str(h, "row_key") : "");
        fputs("|", f);
        cell(f, row);
        cell_num(f, h, "pid");
        cell(f, str(h, "application"));
        cell_num(f, h, "hold_ms");
        cell_num(f, h, "waits");
        cell_ms(f, h, "waiter_ms");
        cell(f, state_text(str(h, "head_state")));
        cell_ms(f, h, "sql_ms");
        cell_ms(f, h, "idle_ms");
        cell_ms(f, h, "commit_ms");
        cell(f, str(h, "start_evidence"));
        fputs("\n", f);
    }
    fputs("\n", f);
}

static void root_blockers(FILE *f, const cJSON *roots)
{
    const cJSON *r;
    fputs("## Root blockers\n\nThe transactions at the head of the queues: what they "
          "held, and what they ran meanwhile.\n\n",
          f);
    if (cJSON_GetArraySize(roots) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    cJSON_ArrayForEach(r, roots) {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(r, "transaction");
        const cJSON *sts = cJSON_GetObjectItemCaseSensitive(tx, "statements"), *st;
        fprintf(f, "### pid %.0f", num(r, "pid"));
        if (str(r, "application")) {
            fputs(" — ", f);
            ls_md_cell(f, str(r, "application"), 64);
        }
        fputs("\n\n", f);
        fprintf(f, "- Caused %.0f waits, %.1f ms of waiting in total\n", num(r, "waits_caused"),
                num(r, "waiter_ms"));
        if (has_num(r, "xid"))
            fprintf(f, "- Transaction id %.0f\n", num(r, "xid"));
        fputs("- Rows: ", f);
        ls_md_cell(f, str(r, "rows"), 200);
        fputs("\n", f);
        if (tx && has_num(tx, "duration_ms")) {
            fprintf(f, "- Transaction lasted %.0f ms (", num(tx, "duration_ms"));
            ls_md_cell(f, str(tx, "start_known"), 40);
            fputs(" to ", f);
            ls_md_cell(f, str(tx, "end_known"), 40);
            fputs(", ", f);
            ls_md_cell(f, str(tx, "outcome"), 40);
            fputs(")", f);
            if (has_num(tx, "sql_ms"))
                fprintf(f, ": SQL %.1f ms, idle in transaction %.1f ms (longest gap %.1f ms), "
                           "commit %.1f ms",
                        num(tx, "sql_ms"), num(tx, "idle_ms"), num(tx, "max_idle_ms"),
                        num(tx, "commit_ms"));
            fputs("\n", f);
        }
        if (cJSON_GetArraySize(sts) > 0) {
            fputs("\n| Start | Duration ms | Idle before ms | Statement |\n|---|---:|---:|---|\n",
                  f);
            cJSON_ArrayForEach(st, sts) {
                fputs("|", f);
                cell(f, str(st, "start"));
                cell_ms(f, st, "duration_ms");
                cell_num(f, st, "idle_before_ms");
                cell(f, str(st, "text"));
                fputs("\n", f);
            }
        }
        fputs("\n", f);
    }
}

static void waits(FILE *f, const cJSON *ws)
{
    const cJSON *w;
    fputs("## Lock waits\n\n", f);
    if (cJSON_GetArraySize(ws) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    fputs("| Start | Waiter pid | Application | Mode | Row / target | Waited ms | Outcome | "
          "Blocker pid | Root pid | Depth | Statement |\n"
          "|---|---:|---|---|---|---:|---|---:|---:|---:|---|\n",
          f);
    cJSON_ArrayForEach(w, ws) {
        char row[256];
        const char *rel = str(w, "relation"), *ctid = str(w, "ctid");
        snprintf(row, sizeof(row), "%s%s%s", rel ? rel : "", ctid ? " " : "", ctid ? ctid : "");
        fputs("|", f);
        cell(f, str(w, "start"));
        cell_num(f, w, "pid");
        cell(f, str(w, "application"));
        cell(f, str(w, "mode"));
        cell(f, row[0] ? row : str(w, "target"));
        cell_ms(f, w, "waited_ms");
        cell(f, str(w, "outcome"));
        cell_num(f, w, "blocker_pid");
        cell_num(f, w, "root_pid");
        cell_num(f, w, "chain_depth");
        cell(f, str(w, "statement"));
        fputs("\n", f);
    }
    fputs("\n", f);
}

static void deadlocks(FILE *f, const cJSON *ds)
{
    const cJSON *d;
    int n = 0;
    fputs("## Deadlocks\n\n", f);
    if (cJSON_GetArraySize(ds) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    cJSON_ArrayForEach(d, ds) {
        const cJSON *e, *p;
        fprintf(f, "### Deadlock %d — ", ++n);
        ls_md_cell(f, str(d, "time"), 40);
        fprintf(f, ", victim pid %.0f\n\n| Waiter pid | Waits for | Lock | Blocked by pid |\n"
                   "|---:|---|---|---:|\n",
                num(d, "victim_pid"));
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "edges")) {
            fputs("|", f);
            cell_num(f, e, "waiter_pid");
            cell(f, str(e, "mode"));
            cell(f, str(e, "target"));
            cell_num(f, e, "blocker_pid");
            fputs("\n", f);
        }
        fputs("\n", f);
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "processes")) {
            fprintf(f, "Process %.0f:\n\n", num(p, "pid"));
            ls_md_code_block(f, "sql", str(p, "query") ? str(p, "query") : "");
            fputs("\n", f);
        }
    }
}

static void errors(FILE *f, const cJSON *es)
{
    const cJSON *e;
    fputs("## Errors and timeouts\n\n", f);
    if (cJSON_GetArraySize(es) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    fputs("| Time | pid | Application | SQLSTATE | Class | Message | Statement |\n"
          "|---|---:|---|---|---|---|---|\n",
          f);
    cJSON_ArrayForEach(e, es) {
        fputs("|", f);
        cell(f, str(e, "time"));
        cell_num(f, e, "pid");
        cell(f, str(e, "application"));
        cell(f, str(e, "sqlstate"));
        cell(f, str(e, "class"));
        cell(f, str(e, "message"));
        cell(f, str(e, "statement"));
        fputs("\n", f);
    }
    fputs("\n", f);
}

static void inputs(FILE *f, const cJSON *in)
{
    const cJSON *x;
    fputs("## Input\n\n| File | Format | Lines | Records | Unparsable |\n"
          "|---|---|---:|---:|---:|\n",
          f);
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(in, "files")) {
        fputs("|", f);
        cell(f, str(x, "path"));
        cell(f, str(x, "format"));
        cell_num(f, x, "lines");
        cell_num(f, x, "records");
        cell_num(f, x, "bad_lines");
        fputs("\n", f);
    }
    fputs("\n", f);
}

int ls_report_write_markdown(const cJSON *m, FILE *f)
{
    fputs("# ", f);
    ls_md_cell(f, str(m, "title"), 200);
    fputs("\n\n", f);
    fputs("_", f);
    ls_md_cell(f, str(m, "generator"), 40);
    if (str(m, "generated_at")) {
        fputs(", generated ", f);
        ls_md_cell(f, str(m, "generated_at"), 40);
    }
    fputs("_\n\n", f);
    summary(f, cJSON_GetObjectItemCaseSensitive(m, "summary"));
    hot_rows(f, cJSON_GetObjectItemCaseSensitive(m, "hot_rows"));
    root_blockers(f, cJSON_GetObjectItemCaseSensitive(m, "root_blockers"));
    holds(f, cJSON_GetObjectItemCaseSensitive(m, "holds"));
    waits(f, cJSON_GetObjectItemCaseSensitive(m, "waits"));
    deadlocks(f, cJSON_GetObjectItemCaseSensitive(m, "deadlocks"));
    errors(f, cJSON_GetObjectItemCaseSensitive(m, "errors"));
    inputs(f, cJSON_GetObjectItemCaseSensitive(m, "input"));
    return ferror(f) ? LS_EIO : 0;
}
