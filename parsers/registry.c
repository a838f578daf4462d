/*
 * registry.c — the list of log format parsers, for detection by content
 * and for --format. A new format adds its ops table here.
 */
#include <string.h>

#include "ls_parser.h"
#include "tracejson.h"

const ls_parser_ops *const ls_parsers[] = {
    &ls_stderr_parser,
    &ls_syslog_parser,
    &ls_csvlog_parser,
    &ls_jsonlog_parser,
    &ls_otlp_parser,
    &ls_jaeger_parser,
    &ls_zipkin_parser,
    &ls_activity_parser,
    NULL,
};

const ls_parser_ops *ls_parser_find(const char *name)
{
    int i;
    for (i = 0; ls_parsers[i]; i++)
        if (strcmp(ls_parsers[i]->name, name) == 0)
            return ls_parsers[i];
    return NULL;
}

ls_feed_part_fn ls_parser_feed_part(const ls_parser_ops *ops)
{
    if (ops == &ls_otlp_parser || ops == &ls_jaeger_parser || ops == &ls_zipkin_parser)
        return ls_tj_feed_part;
    return NULL;
}
