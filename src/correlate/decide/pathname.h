/*
 * pathname.h — a transaction's code path under each grouping (--group-by),
 * and the evidence that named it, decided once per transaction by the
 * code paths pass (traces.c) and stored interned (path_names, path_sets,
 * tx_code_rows.path_set: store_schema.h), so that readers group by an id
 * and read a label by key instead of computing it at every use.
 *
 * The evidence, strongest first, per grouping:
 *   function     span code attributes, sqlcommenter controller + action
 *                (named by one rule, ls_code_name()), the span route,
 *                the sqlcommenter route, the root span's name, then the
 *                transaction's shape or the application_name (whichever
 *                path_identity chose, pathid.h), the first write's shape;
 *   route        the span route, the sqlcommenter route, the span name,
 *                application_name, the first write's shape;
 *   service      the span's service, the sqlcommenter application,
 *                application_name;
 *   application  application_name;  statement  the first write's shape;
 *   shape        the transaction's shape.
 * Nothing: "unknown", evidence "none". An empty text is evidence (as it
 * was in SQL's coalesce); only a missing one (NULL) is not.
 */
#ifndef LS_DECIDE_PATHNAME_H
#define LS_DECIDE_PATHNAME_H

#include <stddef.h>

/* The groupings, in the order of path_sets' columns (store_schema.h). */
typedef enum ls_grouping {
    LS_GROUP_FUNCTION = 0,
    LS_GROUP_ROUTE,
    LS_GROUP_SERVICE,
    LS_GROUP_APPLICATION,
    LS_GROUP_STATEMENT,
    LS_GROUP_SHAPE,
    LS_GROUPINGS /* how many */
} ls_grouping;

/* What may name a transaction's path; NULL where nothing does. */
typedef struct ls_path_facts {
    const char *code_function, *code_namespace; /* the code span's attributes */
    const char *tag_controller, *tag_action;    /* sqlcommenter / marginalia */
    const char *route, *tag_route, *root_name;  /* server span route, tag, span name */
    const char *service, *tag_application;      /* span service, sqlcommenter */
    const char *application;                    /* session's application_name, '' as NULL */
    const char *shape;                          /* first write's statement shape */
    const char *tx_shape;                       /* the transaction's shape label */
    int by_shape; /* path_identity chose the shape over application_name */
} ls_path_facts;

/* A path's name: head, or head "." tail when tail is not NULL (a code
 * name joined from a namespace and a function); head NULL: no name. */
typedef struct ls_path_name {
    const char *head, *tail;
} ls_path_name;

/* A transaction's path under one grouping and the evidence that named it
 * ("span code attributes", ..., "none"; a static text). */
typedef struct ls_path_label {
    ls_path_name name;
    const char *source;
} ls_path_label;

/*
 * The name of function fn in namespace ns (OpenTelemetry code attributes,
 * or sqlcommenter controller + action): fn NULL or empty -> ns (none when
 * that is NULL or empty too); ns NULL or empty, or fn qualified already
 * (contains '.', "::", '\' or '#') -> fn; else ns "." fn. The same rule
 * as LS_CODE_NAME_SQL (codepath.h), which names the view's code_name.
 */
ls_path_name ls_code_name(const char *ns, const char *fn);

/* The path of the transaction with facts f under grouping g. */
ls_path_label ls_path_label_of(const ls_path_facts *f, ls_grouping g);

/*
 * The route of a server span's URL path when the span has no http.route
 * (Node's http without a web framework): the path with every segment that
 * is an id (all digits, a UUID, a hash: ls_finding_call_template) or that
 * equals one of the values the request's transaction bound to its
 * statements ("/pages/home/hit" with "$1 = 'home'" -> "/pages/{id}/hit",
 * "/pages/:slug/hit" in the app's router) as "{id}"
 * (LS_FINDING_CALL_ID), the query and fragment dropped, so that one
 * route is one path and not one path per slug. params: the statements'
 * logged parameters ("$1 = 'home', $2 = '3'", PostgreSQL's DETAIL;
 * several joined by ", "), NULL or "" when none are known; a value that
 * is empty or NULL matches nothing. Writes into out (size n, n > 0, cut
 * to fit, always terminated); returns how many segments it replaced.
 */
int ls_path_url_route(const char *path, const char *params, char *out, size_t n);

/* The grouping's name as --group-by spells it ("function", ...), or NULL. */
const char *ls_grouping_name(ls_grouping g);

#endif
