/*
 * grouping.c — the table of code-path groupings (ls_grouping.h).
 */
#include <stddef.h>
#include <string.h>

#include "ls_grouping.h"

/* The first is the default. */
static const ls_grouping groupings[] = {
    {"function", "c.function_path", "c.function_source"},
    {"route", "c.route_path", "c.route_source"},
    {"service", "c.service_path", "c.service_source"},
    {"application", "c.application_path", "c.application_source"},
    {"statement", "c.statement_path", "c.statement_source"},
    {"shape", "c.shape_path", "c.shape_source"},
};

const ls_grouping *ls_grouping_find(const char *name)
{
    size_t i;

    for (i = 0; name && i < sizeof(groupings) / sizeof(groupings[0]); i++)
        if (strcmp(groupings[i].name, name) == 0)
            return &groupings[i];
    return NULL;
}

const ls_grouping *ls_grouping_default(void)
{
    return &groupings[0];
}
