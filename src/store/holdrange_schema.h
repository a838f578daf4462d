/*
 * holdrange_schema.h — the table of each hold's times where the log's
 * times are whole seconds, declared once: the store makes it
 * (store_schema.h), and the code paths pass (src/correlate/holdtimes.c)
 * makes it again in a store of schema 15 written before it had the
 * bounds' columns.
 */
#ifndef LS_HOLDRANGE_SCHEMA_H
#define LS_HOLDRANGE_SCHEMA_H

/* A hold's length where the log's times are whole seconds: what the log
 * allows (lo_us..hi_us) and the estimate the occupancy ranking sums, and
 * where its start and end truly lay (start_lo..start_hi, end_lo..end_hi,
 * µs, both included: what the report gives as the hold's bounds)
 * (correlation's "code paths" pass, holdtimes.c); no row with sub-second
 * times. */
#define LS_HOLD_RANGE_DDL \
    "CREATE TABLE IF NOT EXISTS hold_range(\n" \
    "  hold_id INTEGER PRIMARY KEY, lo_us INTEGER, hi_us INTEGER, est_us INTEGER,\n" \
    "  start_lo INTEGER, start_hi INTEGER, end_lo INTEGER, end_hi INTEGER);\n"

#endif
