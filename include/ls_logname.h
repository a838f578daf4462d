/*
 * ls_logname.h — what a log file's name says.
 *
 * log_destination = 'stderr,csvlog,jsonlog' writes every event to each
 * format, in files that differ only in their extension (syslogger.c:
 * ".log" replaced by, or else followed by, ".csv" / ".json"). The input
 * stage reads such a log once, in its richest format; the report says
 * which files were one log. Both ask the name, here.
 */
#ifndef LS_LOGNAME_H
#define LS_LOGNAME_H

#include <stddef.h>

/* The length of path's stem: path without its .log / .csv / .json
 * extension and without a compression suffix (.gz, .bz2, .xz, .lzma,
 * .zst) after it. *rank is the format the name says: 1 stderr (also a
 * name with none of these extensions), 2 csvlog, 3 jsonlog. */
size_t ls_log_stem(const char *path, int *rank);

/* Whether two paths are one log in two formats: names that differ only in
 * their .log / .csv / .json extension (and .gz, .bz2, .xz, .lzma, .zst), as log_destination names
 * them. */
int ls_paths_same_log(const char *a, const char *b);

#endif
