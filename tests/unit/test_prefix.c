/*
 * test_prefix.c — log_line_prefix compilation and line matching.
 *
 * Origin of the "real" lines: a throwaway PostgreSQL 15.18 (Debian
 * 15.18-0+deb12u1) cluster started on this machine on 2026-12-02 (machine
 * clock), logging_collector = off, stderr to a file, log_min_duration_statement
 * = 0, log_connections/log_disconnections/log_lock_waits = on,
 * deadlock_timeout = 100ms, compute_query_id = on. Each prefix below was set
 * with ALTER SYSTEM + pg_reload_conf(); the workload was psql over TCP with
 * PGAPPNAME='pay svc: worker@eu-1' (spaces, ':' and '@'), a lock wait
 * between two sessions, division by zero (also in a parallel worker), an
 * idle_in_transaction_session_timeout and a CHECKPOINT. log_timezone was
 * UTC unless a case says otherwise. Lines are copied verbatim.
 *
 * Cases marked "synthetic" were written by hand for what the server run
 * did not produce.
 */
#include <stdlib.h>

#include "ls_common.h"
#include "ls_prefix.h"
#include "ls_test.h"

typedef struct line_case {
    const char *spec;
    const char *line;
    int want;                    /* 1 = matches, 0 = does not */
    const char *msg;             /* the message (line + msg_off) when it matches */
    const char *f[LS_PF__COUNT]; /* expected slices; NULL = must be absent */
} line_case;

#define SPEC_A "%m [%p] %q%u@%d/%a %c %l %v %x %e "
#define SPEC_RDS "%t:%r:%u@%d:[%p]:"
#define SPEC_C "%m [%p] "
#define SPEC_PGB "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
#define SPEC_E "%n %p %-10u %Q %i %s %P %b %% "
#define SPEC_F "%m [%5p] %10a|%-12i|%e %x %P "
#define SPEC_G "%m [%p] %q%u@%d/%a "
#define SPEC_H "%s %c %t [%p] %b %P "

#define APP "pay svc: worker@eu-1"
#define X63 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static const line_case cases[] = {
    /* ---- SPEC_A: session fields after %q ---- */
    {SPEC_A,
     "2026-12-02 11:46:41.139 UTC [5054] postgres@postgres/" APP " 6b100521.13be 3 4/2 727 00000 "
     "LOG:  process 5054 still waiting for ShareLock on transaction 726 after 100.128 ms",
     1,
     "process 5054 still waiting for ShareLock on transaction 726 after 100.128 ms",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC",
      [LS_PF_PID] = "5054",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_SESSION] = "6b100521.13be",
      [LS_PF_LINE] = "3",
      [LS_PF_VXID] = "4/2",
      [LS_PF_XID] = "727",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_A,
     "2026-12-02 11:46:41.139 UTC [5054] postgres@postgres/" APP " 6b100521.13be 4 4/2 727 00000 "
     "DETAIL:  Process holding the lock: 5052. Wait queue: 5054.",
     1,
     "Process holding the lock: 5052. Wait queue: 5054.",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC",
      [LS_PF_PID] = "5054",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_SESSION] = "6b100521.13be",
      [LS_PF_LINE] = "4",
      [LS_PF_VXID] = "4/2",
      [LS_PF_XID] = "727",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_SEVERITY] = "DETAIL"}},
    /* before authentication: [unknown] everywhere, no virtual xid yet */
    {SPEC_A,
     "2026-12-02 11:46:40.836 UTC [5047] [unknown]@[unknown]/[unknown] 6b100520.13b7 1  0 00000 "
     "LOG:  connection received: host=127.0.0.1 port=43234",
     1,
     "connection received: host=127.0.0.1 port=43234",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:40.836 UTC",
      [LS_PF_PID] = "5047",
      [LS_PF_USER] = "[unknown]",
      [LS_PF_DB] = "[unknown]",
      [LS_PF_APP] = "[unknown]",
      [LS_PF_SESSION] = "6b100520.13b7",
      [LS_PF_LINE] = "1",
      [LS_PF_VXID] = "",
      [LS_PF_XID] = "0",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_A,
     "2026-12-02 11:46:40.867 UTC [5049] postgres@postgres/" APP " 6b100520.13b9 3 3/0 0 00000 "
     "LOG:  duration: 1.987 ms  statement: SELECT id, bal",
     1,
     "duration: 1.987 ms  statement: SELECT id, bal",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:40.867 UTC",
      [LS_PF_PID] = "5049",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_SESSION] = "6b100520.13b9",
      [LS_PF_LINE] = "3",
      [LS_PF_VXID] = "3/0",
      [LS_PF_XID] = "0",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_A,
     "2026-12-02 11:46:41.414 UTC [5072] postgres@postgres/psql 6b100521.13d0 3 3/12 0 22012 "
     "ERROR:  division by zero",
     1,
     "division by zero",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.414 UTC",
      [LS_PF_PID] = "5072",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = "psql",
      [LS_PF_SESSION] = "6b100521.13d0",
      [LS_PF_LINE] = "3",
      [LS_PF_VXID] = "3/12",
      [LS_PF_XID] = "0",
      [LS_PF_SQLSTATE] = "22012",
      [LS_PF_SEVERITY] = "ERROR"}},
    /* checkpointer: no client connection, the prefix stops at %q */
    {SPEC_A,
     "2026-12-02 11:46:41.460 UTC [4995] LOG:  checkpoint starting: immediate force wait",
     1,
     "checkpoint starting: immediate force wait",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.460 UTC",
      [LS_PF_PID] = "4995",
      [LS_PF_SEVERITY] = "LOG"}},
    /* continuation line of the SELECT above */
    {SPEC_A, "\tFROM accounts WHERE id = 1", 0, NULL, {0}},

    /* ---- SPEC_RDS (Amazon RDS default) ---- */
    {SPEC_RDS,
     "2026-12-02 11:46:52 UTC:127.0.0.1(38120):postgres@postgres:[5172]:LOG:  process 5172 still "
     "waiting for ShareLock on transaction 728 after 100.183 ms",
     1,
     "process 5172 still waiting for ShareLock on transaction 728 after 100.183 ms",
     {[LS_PF_TIME] = "2026-12-02 11:46:52 UTC",
      [LS_PF_REMOTE] = "127.0.0.1(38120)",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_PID] = "5172",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_RDS,
     "2026-12-02 11:46:52 UTC::@:[4995]:LOG:  checkpoint starting: immediate force wait",
     1,
     "checkpoint starting: immediate force wait",
     {[LS_PF_TIME] = "2026-12-02 11:46:52 UTC",
      [LS_PF_REMOTE] = "",
      [LS_PF_USER] = "",
      [LS_PF_DB] = "",
      [LS_PF_PID] = "4995",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_RDS,
     "2026-12-02 11:46:52 UTC:[local]:postgres@postgres:[5178]:LOG:  duration: 4.887 ms  "
     "statement: CHECKPOINT",
     1,
     "duration: 4.887 ms  statement: CHECKPOINT",
     {[LS_PF_TIME] = "2026-12-02 11:46:52 UTC",
      [LS_PF_REMOTE] = "[local]",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_PID] = "5178",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_RDS,
     "2026-12-02 11:46:52 UTC:127.0.0.1(38126):postgres@postgres:[5176]:ERROR:  column "
     "\"nosuchcol\" does not exist at character 8",
     1,
     "column \"nosuchcol\" does not exist at character 8",
     {[LS_PF_TIME] = "2026-12-02 11:46:52 UTC",
      [LS_PF_REMOTE] = "127.0.0.1(38126)",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_PID] = "5176",
      [LS_PF_SEVERITY] = "ERROR"}},
    /* a line written under SPEC_A does not pass for SPEC_RDS, and back */
    {SPEC_RDS,
     "2026-12-02 11:46:41.460 UTC [4995] LOG:  checkpoint starting: immediate force wait",
     0,
     NULL,
     {0}},
    {SPEC_A,
     "2026-12-02 11:46:52 UTC::@:[4995]:LOG:  checkpoint starting: immediate force wait",
     0,
     NULL,
     {0}},

    /* ---- SPEC_C: the PostgreSQL default ---- */
    {SPEC_C,
     "2026-12-02 11:46:53.989 UTC [5200] STATEMENT:  UPDATE accounts SET bal = bal - 1 WHERE id = "
     "1",
     1,
     "UPDATE accounts SET bal = bal - 1 WHERE id = 1",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:53.989 UTC",
      [LS_PF_PID] = "5200",
      [LS_PF_SEVERITY] = "STATEMENT"}},
    {SPEC_C,
     "2026-12-02 11:46:53.989 UTC [5200] CONTEXT:  while updating tuple (0,5) in relation "
     "\"accounts\"",
     1,
     "while updating tuple (0,5) in relation \"accounts\"",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:53.989 UTC",
      [LS_PF_PID] = "5200",
      [LS_PF_SEVERITY] = "CONTEXT"}},
    {SPEC_C,
     "2026-12-02 11:46:54.260 UTC [5202] ERROR:  division by zero",
     1,
     "division by zero",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:54.260 UTC",
      [LS_PF_PID] = "5202",
      [LS_PF_SEVERITY] = "ERROR"}},
    {SPEC_C, "\tFROM accounts WHERE id = 1", 0, NULL, {0}},

    /* ---- SPEC_PGB: pgbadger's recommended stderr prefix ---- */
    {SPEC_PGB,
     "2026-12-02 11:46:55 UTC [5237]: [3-1] user=postgres,db=postgres,app=" APP ",client=127.0.0.1 "
     "LOG:  process 5237 still waiting for ShareLock on transaction 732 after 100.126 ms",
     1,
     "process 5237 still waiting for ShareLock on transaction 732 after 100.126 ms",
     {[LS_PF_TIME] = "2026-12-02 11:46:55 UTC",
      [LS_PF_PID] = "5237",
      [LS_PF_LINE] = "3",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_HOST] = "127.0.0.1",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_PGB,
     "2026-12-02 11:46:55 UTC [4995]: [7-1] user=,db=,app=,client= LOG:  checkpoint starting: "
     "immediate force wait",
     1,
     "checkpoint starting: immediate force wait",
     {[LS_PF_TIME] = "2026-12-02 11:46:55 UTC",
      [LS_PF_PID] = "4995",
      [LS_PF_LINE] = "7",
      [LS_PF_USER] = "",
      [LS_PF_DB] = "",
      [LS_PF_APP] = "",
      [LS_PF_HOST] = "",
      [LS_PF_SEVERITY] = "LOG"}},
    /* log_timezone = 'America/Sao_Paulo' prints a numeric abbreviation */
    {SPEC_PGB,
     "2026-12-02 08:47:12 -03 [5623]: [6-1] user=postgres,db=postgres,app=" APP ",client=127.0.0.1 "
     "FATAL:  terminating connection due to idle-in-transaction timeout",
     1,
     "terminating connection due to idle-in-transaction timeout",
     {[LS_PF_TIME] = "2026-12-02 08:47:12 -03",
      [LS_PF_PID] = "5623",
      [LS_PF_LINE] = "6",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_HOST] = "127.0.0.1",
      [LS_PF_SEVERITY] = "FATAL"}},
    /* PGAPPNAME of 80 'x': the server keeps 63 bytes */
    {SPEC_PGB,
     "2026-12-02 08:47:13 -03 [5630]: [3-1] user=postgres,db=postgres,app=" X63 ",client=[local] "
     "LOG:  duration: 0.290 ms  statement: SELECT 42",
     1,
     "duration: 0.290 ms  statement: SELECT 42",
     {[LS_PF_TIME] = "2026-12-02 08:47:13 -03",
      [LS_PF_PID] = "5630",
      [LS_PF_LINE] = "3",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = X63,
      [LS_PF_HOST] = "[local]",
      [LS_PF_SEVERITY] = "LOG"}},
    /* log_timezone = 'Europe/Moscow' */
    {SPEC_PGB,
     "2026-12-02 14:47:13 MSK [4994]: [37-1] user=,db=,app=,client= LOG:  parameter "
     "\"log_timezone\" changed to \"Europe/Moscow\"",
     1,
     "parameter \"log_timezone\" changed to \"Europe/Moscow\"",
     {[LS_PF_TIME] = "2026-12-02 14:47:13 MSK",
      [LS_PF_PID] = "4994",
      [LS_PF_LINE] = "37",
      [LS_PF_USER] = "",
      [LS_PF_DB] = "",
      [LS_PF_APP] = "",
      [LS_PF_HOST] = "",
      [LS_PF_SEVERITY] = "LOG"}},

    /* ---- SPEC_E: %n %Q %i %s %P %b %% and a padded %u ---- */
    {SPEC_E,
     "1796212017.395 5312 postgres   -116704602460813593 UPDATE waiting 2026-12-02 11:46:57 UTC  "
     "client backend % LOG:  process 5312 still waiting for ShareLock on transaction 734 after "
     "100.175 ms",
     1,
     "process 5312 still waiting for ShareLock on transaction 734 after 100.175 ms",
     {[LS_PF_EPOCH] = "1796212017.395",
      [LS_PF_PID] = "5312",
      [LS_PF_USER] = "postgres",
      [LS_PF_QUERYID] = "-116704602460813593",
      [LS_PF_TAG] = "UPDATE waiting",
      [LS_PF_SESS_START] = "2026-12-02 11:46:57 UTC",
      [LS_PF_LEADER] = "",
      [LS_PF_BTYPE] = "client backend",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_E,
     "1796212018.024 5331 postgres   1147616880456321454 idle in transaction 2026-12-02 11:46:57 "
     "UTC  client backend % FATAL:  terminating connection due to idle-in-transaction timeout",
     1,
     "terminating connection due to idle-in-transaction timeout",
     {[LS_PF_EPOCH] = "1796212018.024",
      [LS_PF_PID] = "5331",
      [LS_PF_USER] = "postgres",
      [LS_PF_QUERYID] = "1147616880456321454",
      [LS_PF_TAG] = "idle in transaction",
      [LS_PF_SESS_START] = "2026-12-02 11:46:57 UTC",
      [LS_PF_LEADER] = "",
      [LS_PF_BTYPE] = "client backend",
      [LS_PF_SEVERITY] = "FATAL"}},
    {SPEC_E,
     "1796212018.463 5340 postgres   -2410343144461400474 ALTER SYSTEM 2026-12-02 11:46:58 UTC  "
     "client backend % LOG:  duration: 2.073 ms  statement: ALTER SYSTEM SET log_line_prefix = "
     "'%m [%5p] %10a|%-12i|%e %x %P '",
     1,
     "duration: 2.073 ms  statement: ALTER SYSTEM SET log_line_prefix = '%m [%5p] %10a|%-12i|%e "
     "%x %P '",
     {[LS_PF_EPOCH] = "1796212018.463",
      [LS_PF_PID] = "5340",
      [LS_PF_USER] = "postgres",
      [LS_PF_QUERYID] = "-2410343144461400474",
      [LS_PF_TAG] = "ALTER SYSTEM",
      [LS_PF_SESS_START] = "2026-12-02 11:46:58 UTC",
      [LS_PF_LEADER] = "",
      [LS_PF_BTYPE] = "client backend",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_E,
     "1796212017.695 4995            0  2026-12-02 11:46:32 UTC  checkpointer % LOG:  checkpoint "
     "starting: immediate force wait",
     1,
     "checkpoint starting: immediate force wait",
     {[LS_PF_EPOCH] = "1796212017.695",
      [LS_PF_PID] = "4995",
      [LS_PF_USER] = "",
      [LS_PF_QUERYID] = "0",
      [LS_PF_TAG] = "",
      [LS_PF_SESS_START] = "2026-12-02 11:46:32 UTC",
      [LS_PF_LEADER] = "",
      [LS_PF_BTYPE] = "checkpointer",
      [LS_PF_SEVERITY] = "LOG"}},
    /* parallel worker: %P names the leader */
    {SPEC_E,
     "1796212018.432 5336            -5985860032727231845  2026-12-02 11:46:58 UTC 5335 parallel "
     "worker % ERROR:  division by zero",
     1,
     "division by zero",
     {[LS_PF_EPOCH] = "1796212018.432",
      [LS_PF_PID] = "5336",
      [LS_PF_USER] = "",
      [LS_PF_QUERYID] = "-5985860032727231845",
      [LS_PF_TAG] = "",
      [LS_PF_SESS_START] = "2026-12-02 11:46:58 UTC",
      [LS_PF_LEADER] = "5335",
      [LS_PF_BTYPE] = "parallel worker",
      [LS_PF_SEVERITY] = "ERROR"}},
    {SPEC_E, "\tFROM accounts WHERE id = 1", 0, NULL, {0}},

    /* ---- SPEC_F: padding on both sides ---- */
    {SPEC_F,
     "2026-12-02 11:46:59.073 UTC [ 5350] " APP "|UPDATE waiting|00000 737  STATEMENT:  UPDATE "
     "accounts SET bal = bal - 1 WHERE id = 1",
     1,
     "UPDATE accounts SET bal = bal - 1 WHERE id = 1",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:59.073 UTC",
      [LS_PF_PID] = "5350",
      [LS_PF_APP] = APP,
      [LS_PF_TAG] = "UPDATE waiting",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_XID] = "737",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "STATEMENT"}},
    {SPEC_F,
     "2026-12-02 11:46:58.784 UTC [ 5343]       psql|CREATE TABLE|00000 0  LOG:  duration: 0.237 "
     "ms  statement: CREATE TABLE IF NOT EXISTS accounts(id int primary key, bal int)",
     1,
     "duration: 0.237 ms  statement: CREATE TABLE IF NOT EXISTS accounts(id int primary key, bal "
     "int)",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:58.784 UTC",
      [LS_PF_PID] = "5343",
      [LS_PF_APP] = "psql",
      [LS_PF_TAG] = "CREATE TABLE",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_XID] = "0",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_F,
     "2026-12-02 11:46:58.819 UTC [ 5348] holder app|BEGIN       |00000 0  LOG:  duration: 0.070 "
     "ms  statement: BEGIN",
     1,
     "duration: 0.070 ms  statement: BEGIN",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:58.819 UTC",
      [LS_PF_PID] = "5348",
      [LS_PF_APP] = "holder app",
      [LS_PF_TAG] = "BEGIN",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_XID] = "0",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_F,
     "2026-12-02 11:46:59.711 UTC [ 5420] " APP "|idle in transaction|25P03 0  FATAL:  terminating "
     "connection due to idle-in-transaction timeout",
     1,
     "terminating connection due to idle-in-transaction timeout",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:59.711 UTC",
      [LS_PF_PID] = "5420",
      [LS_PF_APP] = APP,
      [LS_PF_TAG] = "idle in transaction",
      [LS_PF_SQLSTATE] = "25P03",
      [LS_PF_XID] = "0",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "FATAL"}},
    {SPEC_F,
     "2026-12-02 11:47:00.121 UTC [ 5423]           |            |22012 0 5422 ERROR:  division by "
     "zero",
     1,
     "division by zero",
     {[LS_PF_TIME_MS] = "2026-12-02 11:47:00.121 UTC",
      [LS_PF_PID] = "5423",
      [LS_PF_APP] = "",
      [LS_PF_TAG] = "",
      [LS_PF_SQLSTATE] = "22012",
      [LS_PF_XID] = "0",
      [LS_PF_LEADER] = "5422",
      [LS_PF_SEVERITY] = "ERROR"}},

    /* ---- SPEC_G: log_error_verbosity = verbose, log_timezone = 'Asia/Kathmandu' ---- */
    {SPEC_G,
     "2026-12-02 17:32:10.327 +0545 [5581] postgres@postgres/" APP " LOG:  00000: process 5581 "
     "still waiting for ShareLock on transaction 738 after 100.133 ms",
     1,
     "process 5581 still waiting for ShareLock on transaction 738 after 100.133 ms",
     {[LS_PF_TIME_MS] = "2026-12-02 17:32:10.327 +0545",
      [LS_PF_PID] = "5581",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_SEVERITY] = "LOG",
      [LS_PF_VSQLSTATE] = "00000"}},
    {SPEC_G,
     "2026-12-02 17:32:10.327 +0545 [5581] postgres@postgres/" APP " LOCATION:  ProcSleep, "
     "proc.c:1562",
     1,
     "ProcSleep, proc.c:1562",
     {[LS_PF_TIME_MS] = "2026-12-02 17:32:10.327 +0545",
      [LS_PF_PID] = "5581",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = APP,
      [LS_PF_SEVERITY] = "LOCATION"}},
    {SPEC_G,
     "2026-12-02 17:32:10.599 +0545 [5583] postgres@postgres/psql ERROR:  22012: division by zero",
     1,
     "division by zero",
     {[LS_PF_TIME_MS] = "2026-12-02 17:32:10.599 +0545",
      [LS_PF_PID] = "5583",
      [LS_PF_USER] = "postgres",
      [LS_PF_DB] = "postgres",
      [LS_PF_APP] = "psql",
      [LS_PF_SEVERITY] = "ERROR",
      [LS_PF_VSQLSTATE] = "22012"}},
    {SPEC_G,
     "2026-12-02 17:32:10.633 +0545 [4995] LOG:  00000: checkpoint starting: immediate "
     "force wait",
     1,
     "checkpoint starting: immediate force wait",
     {[LS_PF_TIME_MS] = "2026-12-02 17:32:10.633 +0545",
      [LS_PF_PID] = "4995",
      [LS_PF_SEVERITY] = "LOG",
      [LS_PF_VSQLSTATE] = "00000"}},
    /* parallel worker: no client connection either */
    {SPEC_G,
     "2026-12-02 17:32:11.368 +0545 [5595] ERROR:  22012: division by zero",
     1,
     "division by zero",
     {[LS_PF_TIME_MS] = "2026-12-02 17:32:11.368 +0545",
      [LS_PF_PID] = "5595",
      [LS_PF_SEVERITY] = "ERROR",
      [LS_PF_VSQLSTATE] = "22012"}},

    /* ---- SPEC_H: %s and %c, log_timezone = 'Europe/Moscow' ---- */
    {SPEC_H,
     "2026-12-02 11:46:32 UTC 6b100518.1382 2026-12-02 14:47:13 MSK [4994] postmaster  LOG:  "
     "parameter \"log_line_prefix\" changed to \"%s %c %t [%p] %b %P \"",
     1,
     "parameter \"log_line_prefix\" changed to \"%s %c %t [%p] %b %P \"",
     {[LS_PF_SESS_START] = "2026-12-02 11:46:32 UTC",
      [LS_PF_SESSION] = "6b100518.1382",
      [LS_PF_TIME] = "2026-12-02 14:47:13 MSK",
      [LS_PF_PID] = "4994",
      [LS_PF_BTYPE] = "postmaster",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "LOG"}},
    {SPEC_H,
     "2026-12-02 14:47:13 MSK 6b100541.1601 2026-12-02 14:47:13 MSK [5633] client backend  LOG:  "
     "duration: 1.237 ms  statement: VACUUM accounts",
     1,
     "duration: 1.237 ms  statement: VACUUM accounts",
     {[LS_PF_SESS_START] = "2026-12-02 14:47:13 MSK",
      [LS_PF_SESSION] = "6b100541.1601",
      [LS_PF_TIME] = "2026-12-02 14:47:13 MSK",
      [LS_PF_PID] = "5633",
      [LS_PF_BTYPE] = "client backend",
      [LS_PF_LEADER] = "",
      [LS_PF_SEVERITY] = "LOG"}},

    /* ---- synthetic ---- */
    /* right-justified numbers, left-justified text */
    {"%5p|%-8u|%3l|%-6e|%4x ",
     "  123|bob     |  7|00000 |  42 LOG:  x",
     1,
     "x",
     {[LS_PF_PID] = "123",
      [LS_PF_USER] = "bob",
      [LS_PF_LINE] = "7",
      [LS_PF_SQLSTATE] = "00000",
      [LS_PF_XID] = "42",
      [LS_PF_SEVERITY] = "LOG"}},
    /* a repeated escape: only the first is captured */
    {"%p %p [%u/%u] ",
     "12 34 [a/b] LOG:  m",
     1,
     "m",
     {[LS_PF_PID] = "12", [LS_PF_USER] = "a", [LS_PF_SEVERITY] = "LOG"}},
    /* unknown escape %z prints nothing; trailing lone '%' prints nothing */
    {"%m %z[%p] %",
     "2026-12-02 11:46:41.139 UTC [5054] LOG:  m",
     1,
     "m",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC",
      [LS_PF_PID] = "5054",
      [LS_PF_SEVERITY] = "LOG"}},
    /* padding without a letter: PostgreSQL stops the prefix there */
    {"[%p] %5", "[12] LOG:  m", 1, "m", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "LOG"}},
    /* regex metacharacters in the literal text */
    {"(%p)*.+?[%u]{$} ^\\| ",
     "(12)*.+?[bob]{$} ^\\| WARNING:  w",
     1,
     "w",
     {[LS_PF_PID] = "12", [LS_PF_USER] = "bob", [LS_PF_SEVERITY] = "WARNING"}},
    {"(%p)*.+?[%u]{$} ^\\| ", "(12)xx[bob]{$} ^\\| WARNING:  w", 0, NULL, {0}},
    /* bytes that are not UTF-8 in a database name */
    {"%d: ",
     "caf\xe9 \xff: NOTICE:  n",
     1,
     "n",
     {[LS_PF_DB] = "caf\xe9 \xff", [LS_PF_SEVERITY] = "NOTICE"}},
    /* empty prefix */
    {"", "DEBUG2:  d", 1, "d", {[LS_PF_SEVERITY] = "DEBUG2"}},
    {"", "x LOG:  d", 0, NULL, {0}},
    /* empty message: end of line, or the two spaces and nothing */
    {"%p ", "12 LOG:", 1, "", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "LOG"}},
    {"%p ", "12 HINT:  ", 1, "", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "HINT"}},
    /* one space is tolerated; a third space belongs to the message */
    {"%p ", "12 LOG: m", 1, "m", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "LOG"}},
    {"%p ", "12 LOG:   m", 1, " m", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "LOG"}},
    /* secondary lines never carry the verbose SQLSTATE */
    {"%p ",
     "12 DETAIL:  ABCDE: x",
     1,
     "ABCDE: x",
     {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "DETAIL"}},
    /* not a severity, or no colon */
    {"%p ", "12 LOGGING:  x", 0, NULL, {0}},
    {"%p ", "12 LOG  x", 0, NULL, {0}},
    {"%p ", "12 log:  x", 0, NULL, {0}},
    /* numeric escapes reject text */
    {"%p ", "abc LOG:  x", 0, NULL, {0}},
    {"[%v] ", "[3/] LOG:  x", 0, NULL, {0}},
    {"%e ", "0000 LOG:  x", 0, NULL, {0}},
    {"%m ", "2026-12-02 11:46:41 UTC LOG:  x", 0, NULL, {0}}, /* %m needs milliseconds */
    {"%c ", "6b100521-13be LOG:  x", 0, NULL, {0}},
    {"%Q %n ", "-42 1796212018.4 LOG:  x", 0, NULL, {0}},
    {"%Q %n ",
     "-42 1796212018.432 LOG:  x",
     1,
     "x",
     {[LS_PF_QUERYID] = "-42", [LS_PF_EPOCH] = "1796212018.432", [LS_PF_SEVERITY] = "LOG"}},
    /* %r, %h and %b side by side with padding */
    {"%-20r|%15h|%-18b:",
     "10.1.2.3(5432)      |       10.1.2.3|autovacuum worker :PANIC:  p",
     1,
     "p",
     {[LS_PF_REMOTE] = "10.1.2.3(5432)",
      [LS_PF_HOST] = "10.1.2.3",
      [LS_PF_BTYPE] = "autovacuum worker",
      [LS_PF_SEVERITY] = "PANIC"}},
    /* a second %q opens nothing; after the first everything is optional */
    {"%p %q%u %q%d ", "12 LOG:  m", 1, "m", {[LS_PF_PID] = "12", [LS_PF_SEVERITY] = "LOG"}},
    {"%p %q%u %q%d ",
     "12 bob db INFO:  m",
     1,
     "m",
     {[LS_PF_PID] = "12", [LS_PF_USER] = "bob", [LS_PF_DB] = "db", [LS_PF_SEVERITY] = "INFO"}},
    /*
     * Matches that are not PCRE2's first choice at some step: the fast
     * matcher backtracks as PCRE2 does and finds the same one.
     */
    /* the zone's letters give back the severity */
    {"%m",
     "2026-12-02 11:46:41.139 UTCLOG:  x",
     1,
     "x",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC", [LS_PF_SEVERITY] = "LOG"}},
    /* digits next to digits: the first escape is greedy, the second gets the rest */
    {"%p%l ", "12345 LOG:  x", 1, "x",
     {[LS_PF_PID] = "1234", [LS_PF_LINE] = "5", [LS_PF_SEVERITY] = "LOG"}},
    /* free text next to free text: the first is lazy */
    {"%u%d ", "ab LOG:  x", 1, "x",
     {[LS_PF_USER] = "", [LS_PF_DB] = "ab", [LS_PF_SEVERITY] = "LOG"}},
    /* the literal after a free-text value also occurs in it */
    {"%a: ", "x: y: LOG:  z", 1, "z", {[LS_PF_APP] = "x: y", [LS_PF_SEVERITY] = "LOG"}},
    /* free text right before the severity */
    {"[%p] %a", "[7] psql LOG:  x", 1, "x",
     {[LS_PF_PID] = "7", [LS_PF_APP] = "psql ", [LS_PF_SEVERITY] = "LOG"}},
    /* numeric zones, with and without a colon, and an hour-only one */
    {"%t ", "2026-12-02 11:46:41 +05:30 LOG:  x", 1, "x",
     {[LS_PF_TIME] = "2026-12-02 11:46:41 +05:30", [LS_PF_SEVERITY] = "LOG"}},
    {"%t ", "2026-12-02 11:46:41 -0330 LOG:  x", 1, "x",
     {[LS_PF_TIME] = "2026-12-02 11:46:41 -0330", [LS_PF_SEVERITY] = "LOG"}},
    {"%t", "2026-12-02 11:46:41 +0512LOG:  x", 1, "x",
     {[LS_PF_TIME] = "2026-12-02 11:46:41 +0512", [LS_PF_SEVERITY] = "LOG"}},
    /* an empty %v, then %x */
    {"%v%x ", "42 LOG:  x", 1, "x", {[LS_PF_VXID] = "", [LS_PF_XID] = "42", [LS_PF_SEVERITY] = "LOG"}},
    /* the %q group fits only without its text */
    {SPEC_G, "2026-12-02 11:46:41.139 UTC [77] a@b/c LOG  x LOG:  y", 1, "y",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC",
      [LS_PF_PID] = "77",
      [LS_PF_USER] = "a",
      [LS_PF_DB] = "b",
      [LS_PF_APP] = "c LOG  x",
      [LS_PF_SEVERITY] = "LOG"}},
    /* a translated severity is handed on in English whichever matcher reads it
     * (a padded prefix goes to PCRE2) */
    {"%m [%p] ", "2026-12-02 11:46:41.139 UTC [77] FEHLER:  x", 1, "x",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC", [LS_PF_PID] = "77",
      [LS_PF_SEVERITY] = "ERROR"}},
    {"%m [%5p] ", "2026-12-02 11:46:41.139 UTC [   77] FEHLER:  x", 1, "x",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC", [LS_PF_PID] = "77",
      [LS_PF_SEVERITY] = "ERROR"}},
    /* digit runs longer than a word (the matcher reads eight bytes at a time) */
    {"%m [%p] %x %l ", "2026-12-02 11:46:41.139 UTC [123456789] 4294967295 12345678 LOG:  x",
     1, "x",
     {[LS_PF_TIME_MS] = "2026-12-02 11:46:41.139 UTC", [LS_PF_PID] = "123456789",
      [LS_PF_XID] = "4294967295", [LS_PF_LINE] = "12345678", [LS_PF_SEVERITY] = "LOG"}},
    /* "%--u" is no escape: the second '-' is an unknown one, then the letter u */
    {"[%--u] ", "[bob] LOG:  x", 0, NULL, {0}},
    {"[%--u] ", "[u] LOG:  x", 1, "x", {[LS_PF_SEVERITY] = "LOG"}},
};

/* mode 0: as compiled; 1: PCRE2 alone; 2: ls_prefix_compile_lazy */
static void check_case_mode(size_t i, const line_case *c, int mode)
{
    ls_prefix *p = NULL;
    ls_prefix_match m;
    char err[256];
    int rc, k;

    rc = mode == 2 ? ls_prefix_compile_lazy(&p, c->spec, err, sizeof(err))
                   : ls_prefix_compile(&p, c->spec, err, sizeof(err));
    if (rc == LS_OK && mode == 1)
        ls_prefix_pcre_only(p);
    CHECK_INT(rc, LS_OK);
    if (rc != LS_OK) {
        fprintf(stderr, "case %zu: %s\n", i, err);
        return;
    }
    memset(&m, 0xa5, sizeof(m));
    rc = ls_prefix_match_line(p, c->line, strlen(c->line), &m);
    if (rc != c->want)
        fprintf(stderr, "case %zu (mode %d): \"%s\" on \"%s\": got %d\n", i, mode, c->spec,
                c->line, rc);
    CHECK_INT(rc, c->want);
    if (rc == 1 && c->want == 1) {
        CHECK(m.msg_off <= strlen(c->line));
        CHECK_STR(c->line + m.msg_off, c->msg);
        for (k = 0; k < LS_PF__COUNT; k++) {
            if (c->f[k]) {
                CHECK_SLICE(m.f[k], c->f[k]);
                if (!m.f[k].ptr || strlen(c->f[k]) != m.f[k].len)
                    fprintf(stderr, "  case %zu (mode %d) field %d\n", i, mode, k);
            } else {
                CHECK(m.f[k].ptr == NULL);
                if (m.f[k].ptr)
                    fprintf(stderr, "  case %zu field %d should be absent: \"%.*s\"\n", i, k,
                            (int)m.f[k].len, m.f[k].ptr);
            }
        }
    }
    ls_prefix_free(p);
}

static void test_table(void)
{
    size_t i;
    int mode;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (mode = 0; mode < 3; mode++)
            check_case_mode(i, &cases[i], mode);
}

/* Continuation lines and blank lines never match any of the real prefixes. */
static void test_continuations(void)
{
    static const char *const specs[] = {SPEC_A, SPEC_RDS, SPEC_C, SPEC_PGB,
                                        SPEC_E, SPEC_F,   SPEC_G, SPEC_H};
    static const char *const lines[] = {"\tFROM accounts", "\tFROM accounts WHERE id = 1", "",
                                        " LOG:  x", "LOG:  x"};
    size_t i, j;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        ls_prefix *p = NULL;
        ls_prefix_match m;
        char err[256];

        CHECK_INT(ls_prefix_compile(&p, specs[i], err, sizeof(err)), LS_OK);
        if (!p)
            continue;
        CHECK_STR(err, "");
        CHECK_STR(ls_prefix_spec(p), specs[i]);
        for (j = 0; j < sizeof(lines) / sizeof(lines[0]); j++)
            CHECK_INT(ls_prefix_match_line(p, lines[j], strlen(lines[j]), &m), 0);
        ls_prefix_free(p);
    }
}

/* The line is read up to len only; no NUL is needed and bytes after are ignored. */
static void test_length_not_nul(void)
{
    static const char line[] =
        "2026-12-02 11:46:41.460 UTC [4995] LOG:  checkpoint starting: immediate force wait";
    size_t n = sizeof(line) - 1;
    char *buf = malloc(n + 16);
    ls_prefix *p = NULL;
    ls_prefix_match m;
    char err[256];

    if (!buf) {
        CHECK(buf != NULL);
        return;
    }
    memcpy(buf, line, n);
    memset(buf + n, 'Z', 16); /* no NUL anywhere */
    CHECK_INT(ls_prefix_compile(&p, SPEC_C, err, sizeof(err)), LS_OK);
    if (p) {
        CHECK_INT(ls_prefix_match_line(p, buf, n, &m), 1);
        CHECK_INT(m.msg_off, 41);
        CHECK_SLICE(m.f[LS_PF_PID], "4995");
        /* cut before the severity is complete: no match */
        CHECK_INT(ls_prefix_match_line(p, buf, 37, &m), 0);
        /* cut right after "LOG:": an empty message */
        CHECK_INT(ls_prefix_match_line(p, buf, 39, &m), 1);
        CHECK_INT(m.msg_off, 39);
        ls_prefix_free(p);
    }
    free(buf);
}

static void test_compile_messages(void)
{
    ls_prefix *p = (ls_prefix *)&p; /* must be reset to NULL on failure */
    char err[256];

    CHECK_INT(ls_prefix_compile(&p, "%m [%p]\n%u ", err, sizeof(err)), LS_EFORMAT);
    CHECK(p == NULL);
    CHECK(strstr(err, "log_line_prefix \"%m [%p]") == err);
    CHECK(strstr(err, "line break") != NULL);

    CHECK_INT(ls_prefix_compile(&p, NULL, err, sizeof(err)), LS_EFORMAT);
    CHECK(p == NULL);
    CHECK(strstr(err, "log_line_prefix") != NULL);

    /* unknown escapes compile, with a note */
    CHECK_INT(ls_prefix_compile(&p, "%m %z%y[%p] ", err, sizeof(err)), LS_OK);
    CHECK(p != NULL);
    CHECK(strstr(err, "%z, %y") != NULL);
    CHECK(strstr(err, "log_line_prefix \"%m %z%y[%p] \"") == err);
    ls_prefix_free(p);

    /* a tiny errbuf is cut, not overrun */
    CHECK_INT(ls_prefix_compile(&p, "\n", err, 8), LS_EFORMAT);
    CHECK_INT(strlen(err), 7);
    ls_prefix_free(NULL);
}

/* Both matchers on one line: the same answer, the same slices. */
static int same_match(ls_prefix *fast, ls_prefix *pcre, const char *line, size_t len)
{
    ls_prefix_match a, b;
    int ra = ls_prefix_match_line(fast, line, len, &a), rb = ls_prefix_match_line(pcre, line, len, &b), k;

    if (ra != rb)
        return 0;
    if (ra != 1)
        return 1;
    if (a.msg_off != b.msg_off)
        return 0;
    for (k = 0; k < LS_PF__COUNT; k++)
        if (a.f[k].ptr != b.f[k].ptr || (a.f[k].ptr && a.f[k].len != b.f[k].len))
            return 0;
    return 1;
}

/*
 * The fast matcher against PCRE2 alone, on every line of the table, every
 * cut of it and every line with one byte changed to a byte that prefixes
 * are made of: wherever the fast matcher answers, it answers as PCRE2.
 */
static void test_fast_same_as_pcre(void)
{
    /* with digits' bytes plus 0x80, which only the high bit tells apart */
    static const char bytes[] = " 0123456789:/.@[]-aZ+\t\xb0\xb9";
    char buf[2048];
    size_t i, n, j, k;
    long differ = 0, lines = 0;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ls_prefix *fast = NULL, *pcre = NULL;
        char err[256];
        if (ls_prefix_compile(&fast, cases[i].spec, err, sizeof(err)) != LS_OK ||
            ls_prefix_compile(&pcre, cases[i].spec, err, sizeof(err)) != LS_OK) {
            CHECK(0);
            ls_prefix_free(fast);
            ls_prefix_free(pcre);
            continue;
        }
        ls_prefix_pcre_only(pcre);
        n = strlen(cases[i].line);
        if (n > sizeof(buf))
            n = sizeof(buf);
        memcpy(buf, cases[i].line, n);
        for (j = 0; j <= n; j++, lines++) /* every cut */
            if (!same_match(fast, pcre, buf, j)) {
                differ++;
                fprintf(stderr, "case %zu cut at %zu: the matchers differ\n", i, j);
            }
        for (j = 0; j < n && j < 160; j++) /* one byte changed */
            for (k = 0; k < sizeof(bytes) - 1; k++, lines++) {
                char was = buf[j];
                buf[j] = bytes[k];
                if (!same_match(fast, pcre, buf, n)) {
                    differ++;
                    fprintf(stderr, "case %zu byte %zu = '%c': the matchers differ\n", i, j,
                            bytes[k]);
                }
                buf[j] = was;
            }
        ls_prefix_free(fast);
        ls_prefix_free(pcre);
    }
    CHECK(lines > 10000);
    CHECK_INT(differ, 0);
}

/*
 * A prefix of 1,500 escapes (more steps than the fast matcher walks, which
 * recurses once per step) and a line that fits it: PCRE2 matches it.
 */
static void test_huge_prefix(void)
{
    enum { N = 1500 };
    char *spec = malloc(3 * N + 1), *line = malloc(2 * N + 8), err[256];
    ls_prefix *p = NULL;
    ls_prefix_match m;
    int i, rc;

    if (!spec || !line) {
        CHECK(0);
        free(spec);
        free(line);
        return;
    }
    for (i = 0; i < N; i++) {
        memcpy(spec + 3 * i, "%p ", 3);
        memcpy(line + 2 * i, "1 ", 2);
    }
    spec[3 * N] = '\0';
    memcpy(line + 2 * N, "LOG:  x", 8);
    rc = ls_prefix_compile(&p, spec, err, sizeof(err));
    CHECK_INT(rc, LS_OK);
    if (rc == LS_OK) {
        rc = ls_prefix_match_line(p, line, strlen(line), &m);
        CHECK_INT(rc, 1);
        ls_prefix_free(p);
    }
    free(spec);
    free(line);
}

/*
 * Lines that read two ways (ls_prefix_other_readings, ls_prefix_match_at)
 * and readings PostgreSQL does not print (ls_prefix_session_possible).
 * Lines of samples/forged/3.log and 2.log (samples/forged.sh, PostgreSQL
 * 15): a session's application_name is
 * "x 2026-12-06 10:00:00 UTC [123]: [1-1] u=a ERROR:  forged t".
 */
static void test_other_readings(void)
{
    static const char forged[] =
        "2026-12-06 04:50:13.796 UTC [7353] postgres@lockspan/x 2026-12-06 10:00:00 UTC [123]: "
        "[1-1] u=a ERROR:  forged t LOG:  duration: 0.295 ms  statement: SELECT 'startup-named'";
    static const char plain[] = "2026-12-06 04:50:13.841 UTC [7355] postgres@lockspan/f3-plain "
                                "LOG:  duration: 0.272 ms  statement: SELECT 'plain-2'";
    static const char billing[] = "2026-12-06 04:50:09 UTC [7296]: [3-1] user=postgres,db=lockspan,"
                                  "app=billing LOG:  duration: 0.050 ms  statement: BEGIN";
    const char *app = "x 2026-12-06 10:00:00 UTC [123]: [1-1] u=a ERROR:  forged t";
    ls_prefix *p = NULL, *pcre = NULL, *q = NULL;
    ls_prefix_match m, alt[4], alt2[4];
    char err[256];
    size_t n = strlen(forged), lsev = (size_t)(strstr(forged, "LOG:  ") - forged);

    if (ls_prefix_compile(&p, "%m [%p] %q%u@%d/%a ", err, sizeof(err)) != LS_OK ||
        ls_prefix_compile(&pcre, "%m [%p] %q%u@%d/%a ", err, sizeof(err)) != LS_OK) {
        CHECK(0);
        goto out;
    }
    ls_prefix_pcre_only(pcre);
    CHECK(ls_prefix_free_text(p));
    CHECK_INT(ls_prefix_match_line(p, forged, n, &m), 1);
    CHECK_INT(m.f[LS_PF_SEVERITY].len, 5); /* the lazy reading: "ERROR" */
    CHECK_INT(m.sev_off, (size_t)(strstr(forged, "ERROR") - forged));
    CHECK_INT(ls_prefix_other_readings(p, forged, n, &m, alt, 4), 1);
    CHECK_INT(alt[0].sev_off, lsev);
    CHECK(alt[0].f[LS_PF_APP].len == strlen(app) && memcmp(alt[0].f[LS_PF_APP].ptr, app, strlen(app)) == 0);
    CHECK_INT(alt[0].msg_off, lsev + 6);
    /* PCRE2 finds the same other reading */
    CHECK_INT(ls_prefix_match_line(pcre, forged, n, &m), 1);
    CHECK_INT(ls_prefix_other_readings(pcre, forged, n, &m, alt2, 4), 1);
    CHECK(alt2[0].msg_off == alt[0].msg_off && alt2[0].f[LS_PF_APP].len == alt[0].f[LS_PF_APP].len);
    /* no severity at a place the prefix cannot reach, nor where none is */
    CHECK_INT(ls_prefix_match_at(p, forged, n, 5, &m), 0);
    CHECK_INT(ls_prefix_match_at(p, forged, n, lsev + 1, &m), 0);
    CHECK_INT(ls_prefix_match_line(p, plain, strlen(plain), &m), 1);
    CHECK_INT(ls_prefix_other_readings(p, plain, strlen(plain), &m, alt, 4), 0);

    /* A prefix inferred from the forged name: app=%a, then %q and the name's
     * look-alike fields. Another session's line matches it without its %q
     * part and yet with user, db and app set: not what PostgreSQL prints. */
    if (ls_prefix_compile(&q, "%t [%p]: [%l-1] user=%u,db=%d,app=%a %q%m [%x] %h@b/c ", err,
                          sizeof(err)) != LS_OK) {
        CHECK(0);
        goto out;
    }
    CHECK_INT(ls_prefix_match_line(q, billing, strlen(billing), &m), 1);
    CHECK_INT(ls_prefix_session_possible(q, &m), 0);
    CHECK_INT(ls_prefix_match_line(p, plain, strlen(plain), &m), 1);
    CHECK_INT(ls_prefix_session_possible(p, &m), 1);
out:
    ls_prefix_free(p);
    ls_prefix_free(pcre);
    ls_prefix_free(q);
}

int main(void)
{
    test_table();
    test_huge_prefix();
    test_fast_same_as_pcre();
    test_continuations();
    test_length_not_nul();
    test_compile_messages();
    test_other_readings();
    return TEST_REPORT();
}
