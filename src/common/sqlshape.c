/*
 * sqlshape.c — statement kind, shape and row key from SQL text, by a
 * small lexer (quotes, comments, identifiers, numbers, $n), not a parser.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ls_sqlshape.h"

const char *ls_sql_kind_name(ls_sql_kind k)
{
    static const char *const names[] = {"other", "begin", "commit", "rollback", "write", "read"};
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "other";
}

/* Skip white space and comments (-- to end of line, nested block comments). */
static const char *skip_ws(const char *p)
{
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            int depth = 1;
            for (p += 2; *p && depth; p++) {
                if (p[0] == '/' && p[1] == '*')
                    depth++, p++;
                else if (p[0] == '*' && p[1] == '/')
                    depth--, p++;
            }
        } else {
            return p;
        }
    }
}

/* Case-insensitive match of keyword `kw` at p, followed by a non-word byte. */
static int kw_at(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    return strncasecmp(p, kw, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_';
}

static int word_char(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* A string literal or quoted identifier opening at p ('...' or "...",
 * its quote doubled inside it): its closing quote, or the NUL that ends
 * the text when it does not close. */
static const char *skip_literal(const char *p)
{
    const char q = *p;
    for (p++; *p && !(*p == q && p[1] != q); p++)
        if (*p == q)
            p++;
    return p;
}

/* Does the statement carry a row-locking clause (FOR UPDATE/SHARE ...)? */
static int has_locking_clause(const char *p)
{
    const char *start = p;
    for (; *p; p++) {
        if (*p == '\'') {
            p = skip_literal(p);
            if (!*p)
                break;
        } else if ((p[0] == 'f' || p[0] == 'F') && kw_at(p, "for") &&
                   (p == start || !word_char((unsigned char)p[-1]))) {
            const char *q = skip_ws(p + 3);
            if (kw_at(q, "update") || kw_at(q, "share") || kw_at(q, "no") || kw_at(q, "key"))
                return 1;
        }
    }
    return 0;
}

ls_sql_kind ls_sql_kind_of(const char *sql)
{
    const char *p = skip_ws(sql ? sql : "");
    while (*p == '(')
        p = skip_ws(p + 1);
    if (kw_at(p, "begin") || kw_at(p, "start"))
        return LS_SQL_BEGIN;
    if (kw_at(p, "commit") || kw_at(p, "end"))
        return LS_SQL_COMMIT;
    if (kw_at(p, "abort"))
        return LS_SQL_ROLLBACK;
    if (kw_at(p, "rollback")) {
        const char *q = skip_ws(p + 8);
        if (kw_at(q, "work") || kw_at(q, "transaction"))
            q = skip_ws(q + (kw_at(q, "work") ? 4 : 11));
        return kw_at(q, "to") ? LS_SQL_OTHER : LS_SQL_ROLLBACK; /* TO SAVEPOINT */
    }
    if (kw_at(p, "update") || kw_at(p, "insert") || kw_at(p, "delete") || kw_at(p, "merge") ||
        kw_at(p, "lock") || kw_at(p, "copy"))
        return LS_SQL_WRITE;
    if (kw_at(p, "select") || kw_at(p, "with") || kw_at(p, "table") || kw_at(p, "values"))
        return has_locking_clause(p) ? LS_SQL_WRITE : LS_SQL_READ;
    return LS_SQL_OTHER;
}

int ls_sql_shape(ls_buf *out, const char *sql, size_t max)
{
    const char *p = sql ? sql : "";
    size_t start = out->len;
    int space = 0;

    while (*p && out->len - start < max) {
        const char *q = skip_ws(p);
        if (q != p) {
            space = out->len > start;
            p = q;
            continue;
        }
        if (space) {
            ls_buf_addc(out, ' ');
            space = 0;
        }
        if (*p == '\'' || ((*p == 'E' || *p == 'e') && p[1] == '\'')) {
            /* String literal, doubled quotes and E'' backslash escapes. */
            int esc = *p != '\'';
            p += esc ? 2 : 1;
            for (; *p; p++) {
                if (esc && *p == '\\' && p[1]) {
                    p++;
                } else if (*p == '\'') {
                    if (p[1] == '\'')
                        p++;
                    else
                        break;
                }
            }
            if (*p)
                p++;
            ls_buf_addc(out, '?');
        } else if (*p == '"') {
            const char *e = strchr(p + 1, '"');
            size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
            ls_buf_add(out, p, n);
            p += n;
        } else if (*p == '$' && isdigit((unsigned char)p[1])) {
            for (p++; isdigit((unsigned char)*p); p++)
                ;
            ls_buf_addc(out, '?');
        } else if (isdigit((unsigned char)*p) ||
                   (*p == '.' && isdigit((unsigned char)p[1]))) {
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
            ls_buf_addc(out, '?');
        } else if (word_char((unsigned char)*p)) {
            for (; word_char((unsigned char)*p); p++)
                ls_buf_addc(out, (char)tolower((unsigned char)*p));
        } else if (*p == '(') {
            /* An IN list of literals folds to one (?). */
            const char *r = skip_ws(p + 1);
            ls_buf_addc(out, '(');
            p++;
            if (*r == '\'' || isdigit((unsigned char)*r) || *r == '$' || *r == '-') {
                size_t mark = out->len;
                int depth = 1, only_literals = 1;
                const char *s = p;
                for (; *s && depth; s++) {
                    if (*s == '(')
                        depth++;
                    else if (*s == ')')
                        depth--;
                    else if (*s == '\'') {
                        for (s++; *s && !(*s == '\'' && s[1] != '\''); s++)
                            if (*s == '\'')
                                s++;
                        if (!*s)
                            break;
                    } else if (isalpha((unsigned char)*s) && s[-1] != '$') {
                        only_literals = 0;
                    }
                }
                if (only_literals && depth == 0) {
                    out->len = mark;
                    ls_buf_adds(out, "?)");
                    p = s;
                }
            }
        } else {
            ls_buf_addc(out, *p++);
        }
    }
    return ls_buf_failed(out);
}

/* Copy an identifier at p (quoted or not) into dst, lower-cased if unquoted. */
static const char *read_ident(const char *p, char *dst, size_t n)
{
    size_t k = 0;
    if (*p == '"') {
        for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
            if (*p == '"')
                p++;
            if (k + 1 < n)
                dst[k++] = *p;
        }
        if (*p == '"')
            p++;
    } else {
        for (; word_char((unsigned char)*p) && *p != '$'; p++)
            if (k + 1 < n)
                dst[k++] = (char)tolower((unsigned char)*p);
    }
    dst[k] = '\0';
    return p;
}

/* A possibly schema-qualified name; keeps the last component. */
static const char *read_relation(const char *p, char *dst, size_t n)
{
    p = read_ident(skip_ws(p), dst, n);
    while (*p == '.')
        p = read_ident(p + 1, dst, n);
    return p;
}

/* The value of parameter $k in "parameters: $1 = '1', $2 = 'x'". */
/* s truncated to n - 1 bytes and NUL-terminated at dst (n > 0), as
 * snprintf(dst, n, "%s", s) writes it, without its cost (issue 38: ingest
 * decides a row key per statement); the bytes written. */
static size_t copy_trunc(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len >= n)
        len = n - 1;
    memcpy(dst, s, len);
    dst[len] = '\0';
    return len;
}

static int param_value(const char *params, int k, char *dst, size_t n)
{
    char tag[24], digits[12];
    const char *p;
    size_t len = 0, nd = 0, t = 0;
    unsigned u = k < 0 ? 0u - (unsigned)k : (unsigned)k;
    if (!params)
        return 0;
    /* tag = "$<k> = " (snprintf's, k never negative from read_ref_value) */
    do {
        digits[nd++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    tag[t++] = '$';
    if (k < 0)
        tag[t++] = '-';
    while (nd)
        tag[t++] = digits[--nd];
    memcpy(tag + t, " = ", 4);
    for (p = strstr(params, tag); p; p = strstr(p + 1, tag))
        if (p == params || p[-1] == ' ' || p[-1] == ',')
            break;
    if (!p)
        return 0;
    p += strlen(tag);
    if (*p == '\'') {
        for (p++; *p && !(*p == '\'' && p[1] != '\''); p++) {
            if (*p == '\'')
                p++;
            if (len + 1 < n)
                dst[len++] = *p;
        }
    } else {
        for (; *p && *p != ','; p++)
            if (len + 1 < n)
                dst[len++] = *p;
    }
    dst[len] = '\0';
    return 1;
}

/* A literal or $n at p: its text into dst; returns the end, or NULL. */
static const char *read_value(const char *p, const char *params, char *dst, size_t n)
{
    size_t k = 0;
    if (*p == '\'') {
        for (p++; *p && !(*p == '\'' && p[1] != '\''); p++) {
            if (*p == '\'')
                p++;
            if (k + 1 < n)
                dst[k++] = *p;
        }
        if (!*p)
            return NULL;
        dst[k] = '\0';
        return p + 1;
    }
    if (*p == '$' && isdigit((unsigned char)p[1])) {
        int idx = 0;
        for (p++; isdigit((unsigned char)*p); p++)
            idx = idx * 10 + (*p - '0');
        return param_value(params, idx, dst, n) ? p : NULL;
    }
    if (*p == '-' || isdigit((unsigned char)*p)) {
        if (*p == '-' && k + 1 < n)
            dst[k++] = *p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        for (; isalnum((unsigned char)*p) || *p == '.'; p++)
            if (k + 1 < n)
                dst[k++] = *p;
        dst[k] = '\0';
        return p;
    }
    return NULL;
}

/*
 * Find keyword kw at or after p, outside quotes and outside parentheses
 * opened after p; returns its position. A FROM inside a call or a
 * subquery -- extract(epoch FROM ...), substring(x FROM 2), a SET's
 * (SELECT ... WHERE ...) -- is not the statement's own (TypeORM selects
 * extract(epoch FROM clock_timestamp()) beside a FOR UPDATE: blind-ts).
 * A ')' closing a parenthesis opened before p does not count.
 */
static const char *find_kw(const char *p, const char *kw)
{
    const char *start = p;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '\'' || *p == '"') {
            p = skip_literal(p);
            if (!*p)
                return NULL;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            if (depth > 0)
                depth--;
        } else if (depth == 0 && (p == start || !word_char((unsigned char)p[-1])) &&
                   kw_at(p, kw)) {
            return p;
        }
    }
    return NULL;
}

/* The value expression at p: a literal, $n, NEW.col / OLD.col or a bare
 * name (a PL/pgSQL variable or function parameter). Returns its end. */
static const char *read_ref_value(const char *p, ls_row_ref *out)
{
    const char *e;
    if (*p == '$' && isdigit((unsigned char)p[1])) {
        out->kind = LS_REF_PARAM;
        out->param = 0;
        for (e = p + 1; isdigit((unsigned char)*e); e++)
            out->param = out->param * 10 + (*e - '0');
        snprintf(out->value, sizeof(out->value), "%.*s", (int)(e - p), p);
        return e;
    }
    if ((e = read_value(p, NULL, out->value, sizeof(out->value))) != NULL) {
        out->kind = LS_REF_LITERAL;
        return e;
    }
    if (isalpha((unsigned char)*p) || *p == '_' || *p == '"') {
        char first[64];
        e = read_ident(p, first, sizeof(first));
        if (*e == '.' && (strcmp(first, "new") == 0 || strcmp(first, "old") == 0)) {
            e = read_ident(e + 1, out->value, sizeof(out->value));
            out->kind = LS_REF_FIELD;
            return out->value[0] ? e : NULL;
        }
        if (*e == '.' || *e == '(' || kw_at(first, "true") || kw_at(first, "false") ||
            kw_at(first, "null"))
            return NULL;
        snprintf(out->value, sizeof(out->value), "%s", first);
        out->kind = LS_REF_NAME;
        return first[0] ? e : NULL;
    }
    return NULL;
}

int ls_sql_row_ref(const char *sql, ls_row_ref *out)
{
    const char *p = skip_ws(sql ? sql : ""), *w;
    char col[64];

    memset(out, 0, sizeof(*out));
    if (kw_at(p, "update")) {
        p = skip_ws(p + 6);
        if (kw_at(p, "only"))
            p += 4;
        p = read_relation(p, out->rel, sizeof(out->rel));
    } else if (kw_at(p, "delete")) {
        p = find_kw(p, "from");
        if (!p)
            return 0;
        p = skip_ws(p + 4);
        if (kw_at(p, "only"))
            p += 4;
        p = read_relation(p, out->rel, sizeof(out->rel));
    } else if (kw_at(p, "select")) {
        if (!has_locking_clause(p) || !(p = find_kw(p, "from")))
            return 0;
        p = read_relation(p + 4, out->rel, sizeof(out->rel));
    } else {
        return 0;
    }
    if (!out->rel[0] || !(w = find_kw(p, "where")))
        goto none;
    /* The first "col = value" of the WHERE clause, possibly qualified. */
    for (p = w + 5; *p;) {
        const char *q = skip_ws(p);
        while (*q == '(')
            q = skip_ws(q + 1);
        if (isalpha((unsigned char)*q) || *q == '"' || *q == '_') {
            q = read_ident(q, col, sizeof(col));
            while (*q == '.')
                q = read_ident(q + 1, col, sizeof(col));
            q = skip_ws(q);
            if (*q == '=' && q[1] != '=' && col[0] && !kw_at(col, "and") &&
                read_ref_value(skip_ws(q + 1), out)) {
                snprintf(out->col, sizeof(out->col), "%s", col);
                return 1;
            }
            if (kw_at(col, "and") || kw_at(col, "where"))
                p = q;
            else {
                /* Skip to the next AND at this level. */
                const char *a = find_kw(q, "and");
                if (!a)
                    break;
                p = a + 3;
            }
            continue;
        }
        break;
    }
none:
    memset(out, 0, sizeof(*out));
    return 0;
}

int ls_sql_ref_key(const ls_row_ref *ref, const char *params, char *key, size_t keylen)
{
    char val[128];

    size_t used;

    key[0] = '\0';
    if (ref->kind == LS_REF_PARAM) {
        if (!param_value(params, ref->param, val, sizeof(val)))
            return 0;
    } else if (ref->kind == LS_REF_LITERAL) {
        copy_trunc(val, sizeof(val), ref->value);
    } else {
        return 0;
    }
    /* "col=val", truncated as snprintf(key, keylen, "%s=%s") would */
    used = copy_trunc(key, keylen, ref->col);
    if (used + 1 < keylen) {
        key[used++] = '=';
        copy_trunc(key + used, keylen - used, val);
    }
    return 1;
}

int ls_sql_row_key(const char *sql, const char *params, char *rel, size_t rellen, char *key,
                   size_t keylen)
{
    ls_row_ref ref;

    rel[0] = key[0] = '\0';
    if (!ls_sql_row_ref(sql, &ref) || !ls_sql_ref_key(&ref, params, key, keylen))
        return 0;
    snprintf(rel, rellen, "%s", ref.rel);
    return 1;
}

/*
 * Arguments: literals in text order. A $n becomes its bound value; an
 * INSERT's values get their column from the column list, "col = value"
 * (SET, WHERE) the column before the '='.
 */
int ls_sql_args_of(const char *sql, const char *params, ls_sql_args *out)
{
    const char *p = skip_ws(sql ? sql : "");
    char cols[LS_SQL_MAX_ARGS][64], last_ident[64] = "";
    int ncols = 0, in_values = 0, depth = 0, values_depth = -1, col_index = 0;
    int is_insert = kw_at(p, "insert"), in_collist = 0, eq_pending = 0;

    memset(out, 0, sizeof(*out));
    while (*p) {
        const char *q = skip_ws(p), *e;
        char val[64];
        if (q != p) {
            p = q;
            continue;
        }
        if (*p == '(') {
            depth++;
            if (is_insert && !in_values && ncols == 0 && depth == 1)
                in_collist = 1;
            p++;
            continue;
        }
        if (*p == ')') {
            if (in_collist && depth == 1)
                in_collist = 0;
            if (in_values && depth == values_depth)
                col_index = 0;
            depth--;
            p++;
            continue;
        }
        if (*p == ',') {
            if (in_values && depth == values_depth)
                col_index++;
            eq_pending = 0;
            p++;
            continue;
        }
        if (*p == '=') {
            eq_pending = 1;
            p++;
            continue;
        }
        if ((e = read_value(p, params, val, sizeof(val))) != NULL ||
            (*p == '$' && isdigit((unsigned char)p[1]))) {
            if (!e) { /* an unbound $n: counts, with no value */
                for (e = p + 1; isdigit((unsigned char)*e); e++)
                    ;
                val[0] = '\0';
            }
            if (out->n < LS_SQL_MAX_ARGS) {
                ls_sql_arg *a = &out->v[out->n++];
                snprintf(a->value, sizeof(a->value), "%s", val);
                a->bound = val[0] != '\0' || *p != '$';
                if (in_values && depth == values_depth && col_index < ncols)
                    snprintf(a->col, sizeof(a->col), "%s", cols[col_index]);
                else if (eq_pending)
                    snprintf(a->col, sizeof(a->col), "%s", last_ident);
            }
            eq_pending = 0;
            p = e;
            continue;
        }
        if (*p == '\'' ) { /* unterminated string */
            break;
        }
        if (isalpha((unsigned char)*p) || *p == '_' || *p == '"') {
            char id[64];
            e = read_ident(p, id, sizeof(id));
            if (e == p)
                e = p + 1;
            if (in_collist && ncols < LS_SQL_MAX_ARGS)
                snprintf(cols[ncols++], sizeof(cols[0]), "%s", id);
            else if (is_insert && kw_at(id, "values")) {
                in_values = 1;
                values_depth = depth + 1;
            }
            if (!kw_at(id, "and") && !kw_at(id, "or"))
                snprintf(last_ident, sizeof(last_ident), "%s", id);
            eq_pending = 0;
            p = e;
            continue;
        }
        p++;
    }
    return out->n;
}

int ls_sql_relation(const char *sql, char *rel, size_t rellen)
{
    const char *p = skip_ws(sql ? sql : "");
    rel[0] = '\0';
    if (kw_at(p, "update")) {
        p = skip_ws(p + 6);
        if (kw_at(p, "only"))
            p += 4;
    } else if (kw_at(p, "insert") || kw_at(p, "delete")) {
        p = find_kw(p, kw_at(p, "insert") ? "into" : "from");
        if (!p)
            return 0;
        p += 4;
    } else if (kw_at(p, "lock")) {
        p = skip_ws(p + 4);
        if (kw_at(p, "table"))
            p += 5;
    } else if (kw_at(p, "select")) {
        if (!has_locking_clause(p) || !(p = find_kw(p, "from")))
            return 0;
        p += 4;
    } else {
        return 0;
    }
    p = skip_ws(p);
    if (kw_at(p, "only"))
        p += 4;
    read_relation(p, rel, rellen);
    return rel[0] != '\0';
}

/* Skip the keywords of `kws` (NULL-terminated) found in turn at p, each
 * at most once, in any order: "IF NOT EXISTS", "ONLY", "CONCURRENTLY". */
static const char *skip_kws(const char *p, const char *const *kws)
{
    int again = 1;
    while (again) {
        int i;
        again = 0;
        p = skip_ws(p);
        for (i = 0; kws[i]; i++)
            if (kw_at(p, kws[i])) {
                p = skip_ws(p + strlen(kws[i]));
                again = 1;
            }
    }
    return p;
}

/* After the one relation at p: nothing that names another (a comma, a
 * JOIN, a second FROM or SELECT, a parenthesis: a subquery or a call).
 * For a SELECT's FROM item. */
static int reads_one(const char *p)
{
    for (; *p; p++) {
        if (*p == '\'') {
            p = skip_literal(p);
            if (!*p)
                return 1;
        } else if (*p == ',' || *p == '(') {
            return 0;
        } else if (!word_char((unsigned char)p[-1]) &&
                   (kw_at(p, "join") || kw_at(p, "from") || kw_at(p, "select"))) {
            return 0;
        }
    }
    return 1;
}

int ls_sql_table_of(const char *sql, char *rel, size_t rellen)
{
    static const char *const opts[] = {"if", "not", "exists", "only", "concurrently", "table",
                                       "verbose", NULL};
    const char *p = skip_ws(sql ? sql : ""), *e;
    rel[0] = '\0';
    if (kw_at(p, "select")) {
        if (!(p = find_kw(p, "from")))
            return 0;
        p = skip_kws(p + 4, opts);
        e = read_relation(p, rel, rellen);
        if (e == p || !reads_one(e)) {
            rel[0] = '\0';
            return 0;
        }
        return rel[0] != '\0';
    }
    if (ls_sql_relation(sql, rel, rellen))
        return 1;
    if (kw_at(p, "alter") || kw_at(p, "drop") || kw_at(p, "reindex")) {
        /* ALTER TABLE t, DROP TABLE t, REINDEX TABLE t */
        p = skip_ws(p + strcspn(p, " \t\r\n"));
        if (!kw_at(p, "table"))
            return 0;
        p = skip_kws(p + 5, opts);
    } else if (kw_at(p, "create")) {
        /* CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] [name] ON t */
        if (!(p = find_kw(p, "index")) || !(p = find_kw(p, "on")))
            return 0;
        p = skip_kws(p + 2, opts);
    } else if (kw_at(p, "truncate") || kw_at(p, "vacuum") || kw_at(p, "analyze") ||
               kw_at(p, "cluster")) {
        p = skip_kws(p + strcspn(p, " \t\r\n"), opts);
    } else {
        return 0;
    }
    e = read_relation(p, rel, rellen);
    /* TRUNCATE a, b and DROP TABLE a, b name several. */
    if (e == p || *skip_ws(e) == ',') {
        rel[0] = '\0';
        return 0;
    }
    return rel[0] != '\0';
}

int ls_sql_row_lock_table(const char *sql, char *rel, size_t rellen)
{
    const char *p = skip_ws(sql ? sql : "");
    rel[0] = '\0';
    if (!kw_at(p, "select") || !has_locking_clause(p))
        return 0;
    return ls_sql_table_of(p, rel, rellen);
}

/* Case-insensitive search for `needle` in `hay`. */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

void ls_sql_effective(const char *statement, const char *params, const char *prepare,
                      const char **out_sql, const char **out_params, char *params_buf,
                      size_t params_len)
{
    const char *p = statement ? statement : "", *body;
    ls_sql_args args;
    size_t used = 0;
    int i;

    *out_sql = statement;
    *out_params = params;
    while (isspace((unsigned char)*p))
        p++;
    if (!prepare || strncasecmp(p, "execute", 7) != 0 || !(body = find_ci(prepare, " AS ")))
        return;
    /* EXECUTE name(7, 'x') binds $1 = '7', $2 = 'x' in the PREPARE body. */
    ls_sql_args_of(p, params, &args);
    params_buf[0] = '\0';
    for (i = 0; i < args.n && used + 1 < params_len; i++) {
        int w = snprintf(params_buf + used, params_len - used, "%s$%d = '%s'", i ? ", " : "",
                         i + 1, args.v[i].value);
        if (w < 0 || (size_t)w >= params_len - used)
            break;
        used += (size_t)w;
    }
    *out_sql = body + 4;
    *out_params = params_buf;
}

int ls_sql_stmt_key(const char *statement, const ls_row_ref *ref, const char *params,
                    const char *prepare, char *rel, size_t rellen, char *key, size_t keylen)
{
    char buf[192]; /* ls_rowkey_of()'s key buffer: the same truncation */
    char pbuf[1024];
    ls_row_ref own;
    const char *sql = statement;

    rel[0] = key[0] = '\0';
    if (prepare) {
        ls_sql_effective(statement, params, prepare, &sql, &params, pbuf, sizeof(pbuf));
        if (!ls_sql_row_ref(sql, &own))
            return 0;
        ref = &own;
    }
    if (!ref || !ls_sql_ref_key(ref, params, buf, sizeof(buf)))
        return 0;
    copy_trunc(rel, rellen, ref->rel);
    copy_trunc(key, keylen, buf);
    return 1;
}

/* A column that ORMs bump on every update of a row as its optimistic
 * lock's version (TypeORM's and Sequelize's "version", Rails'
 * "lock_version"): its "+ 1" counts nothing. */
static int version_column(const char *col)
{
    static const char *const names[] = {"version", "lock_version", "row_version", "optlock",
                                        NULL};
    size_t i;
    for (i = 0; names[i]; i++)
        if (strcasecmp(col, names[i]) == 0)
            return 1;
    return 0;
}

/* Is the keyword kw at p a word of its own (text from start)? */
static int word_kw(const char *start, const char *p, const char *kw)
{
    return (p == start || !word_char((unsigned char)p[-1])) && kw_at(p, kw);
}

int ls_sql_increments(const char *sql)
{
    const char *p, *set = NULL;
    int depth = 0, plus = 0, version = 0, in_expr = 0;
    char col[64];

    for (p = sql; *p && !set; p++) {
        if (*p == '\'') {
            p = skip_literal(p);
            if (!*p)
                break;
        } else if (word_kw(sql, p, "set")) {
            set = p + 3;
        }
    }
    if (!set)
        return 0;
    /* Each assignment "col = expr" of the SET list, to a comma, WHERE,
     * FROM or RETURNING outside parentheses: does a column other than a
     * row version have a '+' in its expression? */
    p = read_relation(set, col, sizeof(col)); /* the column: its last name */
    version = version_column(col);
    for (; *p; p++) {
        if (*p == '\'') {
            p = skip_literal(p);
            if (!*p)
                break;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            depth -= depth > 0;
        } else if (depth == 0 && *p == '=' && !in_expr) {
            in_expr = 1;
        } else if (depth == 0 && *p == ',') {
            if (in_expr && plus && !version)
                return 1;
            p = read_relation(p + 1, col, sizeof(col)) - 1;
            version = version_column(col);
            in_expr = plus = 0;
        } else if (depth == 0 && (word_kw(sql, p, "where") || word_kw(sql, p, "from") ||
                                  word_kw(sql, p, "returning"))) {
            break;
        } else if (in_expr && *p == '+') {
            plus = 1;
        }
    }
    return in_expr && plus && !version;
}

int ls_sql_shared_lock(const char *sql)
{
    const char *p;
    int shared = 0;
    if (ls_sql_kind_of(sql) != LS_SQL_WRITE)
        return 0;
    p = skip_ws(sql);
    while (*p == '(')
        p = skip_ws(p + 1);
    if (!kw_at(p, "select") && !kw_at(p, "with") && !kw_at(p, "table") && !kw_at(p, "values"))
        return 0;
    while (*p) {
        const char *q = skip_ws(p);
        if (q != p) {
            p = q;
        } else if (*p == '\'' || *p == '"') {
            p = skip_literal(p);
            if (*p)
                p++;
        } else if (word_char((unsigned char)*p)) {
            const char *w = p;
            while (*p && word_char((unsigned char)*p))
                p++;
            if (kw_at(w, "for")) {
                q = skip_ws(p);
                if (kw_at(q, "key"))
                    q = skip_ws(q + 3);
                if (kw_at(q, "share"))
                    shared = 1;
                else if (kw_at(q, "update") || kw_at(q, "no"))
                    return 0; /* FOR UPDATE, FOR NO KEY UPDATE */
            }
        } else {
            p++;
        }
    }
    return shared;
}
