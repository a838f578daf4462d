/*
 * pathname.c — a transaction's code path under each grouping and the
 * evidence that named it (pathname.h).
 */
#include "decide/pathname.h"

#include <string.h>

#include "decide/finding.h"

#define UNKNOWN_PATH "unknown"
#define NO_SOURCE "none"

static int blank(const char *s)
{
    return s == NULL || s[0] == '\0';
}

/* Is fn a qualified name already (a namespace joined in)? */
static int qualified(const char *fn)
{
    return strchr(fn, '.') != NULL || strstr(fn, "::") != NULL || strchr(fn, '\\') != NULL ||
           strchr(fn, '#') != NULL;
}

ls_path_name ls_code_name(const char *ns, const char *fn)
{
    ls_path_name n = {NULL, NULL};
    if (blank(fn))
        n.head = blank(ns) ? NULL : ns;
    else if (blank(ns) || qualified(fn))
        n.head = fn;
    else {
        n.head = ns;
        n.tail = fn;
    }
    return n;
}

static ls_path_label named(const char *text, const char *source)
{
    ls_path_label l = {{text, NULL}, source};
    return l;
}

static ls_path_label unknown(void)
{
    return named(UNKNOWN_PATH, NO_SOURCE);
}

/*
 * The function grouping. The name and the evidence come each from the
 * first present fact in one order, but a code attribute or a tag that
 * names nothing (an empty function and namespace) still is the evidence
 * while the name comes from the next fact; and with the shape chosen
 * (by_shape) a transaction without one is named by its first write's
 * shape while the evidence is its application_name when it has one.
 * Both as the tx_code view computed them up to schema 15, kept so that
 * every report stays the same.
 */
static const char *function_source(const ls_path_facts *f)
{
    if (f->code_function)
        return "span code attributes";
    if (f->tag_controller)
        return "sqlcommenter tags";
    if (f->route)
        return "span route";
    if (f->tag_route)
        return "sqlcommenter tags";
    if (f->root_name)
        return "span name";
    if (f->by_shape && f->tx_shape)
        return "transaction shape";
    if (f->application)
        return "application_name";
    if (f->shape)
        return "statement shape";
    return NO_SOURCE;
}

static ls_path_name function_name(const ls_path_facts *f)
{
    ls_path_name n = {NULL, NULL};
    const char *identity = f->by_shape ? f->tx_shape : f->application;

    if (f->code_function)
        n = ls_code_name(f->code_namespace, f->code_function);
    if (!n.head && f->tag_controller)
        n = ls_code_name(f->tag_controller, f->tag_action);
    if (n.head)
        return n;
    n.head = f->route        ? f->route
             : f->tag_route  ? f->tag_route
             : f->root_name  ? f->root_name
             : identity      ? identity
             : f->shape      ? f->shape
                             : UNKNOWN_PATH;
    return n;
}

static ls_path_label by_function(const ls_path_facts *f)
{
    ls_path_label l;
    l.name = function_name(f);
    l.source = function_source(f);
    return l;
}

static ls_path_label by_route(const ls_path_facts *f)
{
    if (f->route)
        return named(f->route, "span route");
    if (f->tag_route)
        return named(f->tag_route, "sqlcommenter tags");
    if (f->root_name)
        return named(f->root_name, "span name");
    if (f->application)
        return named(f->application, "application_name");
    if (f->shape)
        return named(f->shape, "statement shape");
    return unknown();
}

static ls_path_label by_service(const ls_path_facts *f)
{
    if (f->service)
        return named(f->service, "span service");
    if (f->tag_application)
        return named(f->tag_application, "sqlcommenter tags");
    if (f->application)
        return named(f->application, "application_name");
    return unknown();
}

/* A grouping by one fact alone. */
static ls_path_label by_one(const char *fact, const char *source)
{
    return fact ? named(fact, source) : unknown();
}

ls_path_label ls_path_label_of(const ls_path_facts *f, ls_grouping g)
{
    switch (g) {
    case LS_GROUP_FUNCTION:
        return by_function(f);
    case LS_GROUP_ROUTE:
        return by_route(f);
    case LS_GROUP_SERVICE:
        return by_service(f);
    case LS_GROUP_APPLICATION:
        return by_one(f->application, "application_name");
    case LS_GROUP_STATEMENT:
        return by_one(f->shape, "statement shape");
    case LS_GROUP_SHAPE:
        return by_one(f->tx_shape, "transaction shape");
    case LS_GROUPINGS:
        break;
    }
    return unknown();
}

/*
 * Is seg[0..len) one of the values in params ("$1 = 'home', $2 = 3")? A
 * quoted value is read with its doubled quotes as one; an unquoted one
 * (a number, NULL) to the next ','.
 */
static int param_value_is(const char *params, const char *seg, size_t len)
{
    const char *p = params;

    while (p && (p = strchr(p, '$')) != NULL) {
        const char *v;
        size_t k = 0, vlen = 0;
        int quoted, match = 1;

        for (v = p + 1; *v >= '0' && *v <= '9'; v++)
            ;
        if (v == p + 1 || strncmp(v, " = ", 3) != 0) {
            p++;
            continue;
        }
        v += 3;
        quoted = *v == '\'';
        if (quoted) {
            for (v++; *v && !(*v == '\'' && v[1] != '\''); v++, vlen++) {
                if (*v == '\'')
                    v++; /* '' is one quote */
                match &= k < len && seg[k++] == *v;
            }
        } else {
            for (; *v && *v != ','; v++, vlen++)
                match &= k < len && seg[k++] == *v;
            if (vlen == 4 && strncmp(v - 4, "NULL", 4) == 0)
                vlen = 0; /* a NULL is no value */
        }
        if (match && vlen > 0 && k == len)
            return 1;
        p = v;
    }
    return 0;
}

int ls_path_url_route(const char *path, const char *params, char *out, size_t n)
{
    char tmp[1024];
    size_t at = 0;
    int replaced = 0;
    const char *p = path;

    /* the path's own segments to the query: those bound as parameters
     * to "{id}", into tmp; then the id rule on the whole */
    while (*p && *p != '?' && *p != '#' && at + 1 < sizeof(tmp)) {
        if (*p == '/') {
            size_t len = strcspn(p + 1, "/?#");
            tmp[at++] = '/';
            if (len > 0 && params && param_value_is(params, p + 1, len)) {
                size_t id = strlen(LS_FINDING_CALL_ID);
                if (at + id >= sizeof(tmp))
                    break;
                memcpy(tmp + at, LS_FINDING_CALL_ID, id);
                at += id;
                replaced++;
            } else {
                if (at + len >= sizeof(tmp))
                    len = sizeof(tmp) - 1 - at;
                memcpy(tmp + at, p + 1, len);
                at += len;
            }
            p += 1 + strcspn(p + 1, "/?#");
        } else {
            tmp[at++] = *p++;
        }
    }
    tmp[at] = '\0';
    return replaced + ls_finding_call_template(tmp, out, n);
}

const char *ls_grouping_name(ls_grouping g)
{
    static const char *const names[LS_GROUPINGS] = {"function",    "route",     "service",
                                                    "application", "statement", "shape"};
    return (unsigned)g < LS_GROUPINGS ? names[g] : NULL;
}
