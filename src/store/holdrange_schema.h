/*
 * holdrange_schema.h — the table of each hold's times where the log's
 * times are whole seconds, declared once: the store makes it
 * (store_schema.h), and the code paths pass (src/correlate/holdtimes.c)
 * makes it again in a store of schema 15 written before it had the
 * bounds' columns.
 */
#ifndef LS_HOLDRANGE_SCHEMA_H
#define LS_HOLDRANGE_SCHEMA_H

#include "corr_tables.h" /* the columns, declared once */

/* A hold's length where the log's times are whole seconds: what the log
 * allows (lo_us..hi_us) and the estimate the occupancy ranking sums, and
 * where its start and end truly lay (start_lo..start_hi, end_lo..end_hi,
 * µs, both included: what the report gives as the hold's bounds)
 * (correlation's "code paths" pass, holdtimes.c); no row with sub-second
 * times. */
#define LS_HOLD_RANGE_DDL LS_CREATE_TABLE(hold_range)

#endif
