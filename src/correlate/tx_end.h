/*
 * tx_end.h — does a statement's text end its transaction? For the hold
 * parts (holdparts.c), which split a hold's statements into COMMIT and SQL.
 */
#ifndef LS_TX_END_H
#define LS_TX_END_H

/* Does u, a statement's text upper(ltrim())ed, end its transaction
 * (COMMIT, END, ROLLBACK, ABORT)? One GLOB of the first letter first:
 * each of the four implies it, and most statements (SELECT, UPDATE,
 * BEGIN...) fail it, so they cost one GLOB, not four (3 VM steps, not
 * 12: issue 38, 9 % of the hold parts' steps at 100 MiB). */
#define LS_TX_END(u)                                                                       \
    "(" u " GLOB '[CERA]*' AND (" u " GLOB 'COMMIT*' OR " u " GLOB 'END*' OR " u            \
    " GLOB 'ROLLBACK*' OR " u " GLOB 'ABORT*'))"

#endif
