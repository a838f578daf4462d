/*
 * test_timestamp.c — ls_ts_parse / ls_ts_format.
 *
 * Expected values were computed independently with Python's datetime
 * (fromisoformat + fixed-offset tzinfo).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ls_common.h"
#include "ls_test.h"

/* 2024-01-02 03:04:05 UTC */
#define B INT64_C(1704164645000000)
#define SEC INT64_C(1000000)
#define HOUR (3600 * SEC)
#define MIN (60 * SEC)

typedef struct parse_case {
    const char *text;
    int rc;     /* 0 or -1 */
    ls_ts want; /* checked when rc == 0 */
} parse_case;

static const parse_case parse_cases[] = {
    /* As PostgreSQL 15.18 printed them (see test_prefix.c for the lines). */
    {"2026-12-02 11:46:41.139 UTC", 0, INT64_C(1796212001139000)},   /* %m */
    {"2026-12-02 17:32:10.327 +0545", 0, INT64_C(1796212030327000)}, /* Asia/Kathmandu */
    {"2026-12-02 08:47:12 -03", 0, INT64_C(1796212032000000)},       /* America/Sao_Paulo */
    {"2026-12-02 14:47:13 MSK", 0, INT64_C(1796212033000000)},       /* Europe/Moscow */
    /* samples/timezones (PostgreSQL 15.18, samples/prefixes.sh); UTC from datetime */
    {"2026-12-02 15:10:44.648 MSK", 0, INT64_C(1796213444648000)},   /* Europe/Moscow */
    {"2026-12-02 09:10:48 -03", 0, INT64_C(1796213448000000)},       /* America/Sao_Paulo */
    {"2026-12-02 17:40:51.651 IST", 0, INT64_C(1796213451651000)},   /* Asia/Kolkata */
    {"2026-12-02 13:10:55 CET", 0, INT64_C(1796213455000000)},       /* Europe/Berlin */
    {"2026-12-02 06:10:58.632 CST", 0, INT64_C(1796213458632000)},   /* America/Chicago */
    {"2026-12-02 17:11:02 +05", 0, INT64_C(1796213462000000)},       /* Etc/GMT-5 */

    /* forms and fractions */
    {"2024-01-02 03:04:05", 0, B}, /* no zone: UTC */
    {"2024-01-02 03:04:05 UTC", 0, B},
    {"2024-01-02 03:04:05.678 UTC", 0, B + 678000}, /* jsonlog */
    {"2024-01-02 03:04:05.5", 0, B + 500000},
    {"2024-01-02 03:04:05.123456 UTC", 0, B + 123456},
    {"2024-01-02 03:04:05.000001", 0, B + 1},
    {"2024-01-02T03:04:05", 0, B},
    {"2024-01-02T03:04:05.678Z", 0, B + 678000},
    {"2024-01-02T03:04:05+01:00", 0, B - HOUR},
    {"2024-01-02T03:04:05.25-0330", 0, B + 250000 + 3 * HOUR + 30 * MIN},

    /* numeric offsets */
    {"2024-01-02 03:04:05 +03", 0, B - 3 * HOUR},
    {"2024-01-02 03:04:05 -03", 0, B + 3 * HOUR},
    {"2024-01-02 03:04:05 +0530", 0, B - 5 * HOUR - 30 * MIN},
    {"2024-01-02 03:04:05 +05:30", 0, B - 5 * HOUR - 30 * MIN},
    {"2024-01-02 03:04:05 -0330", 0, B + 3 * HOUR + 30 * MIN},
    {"2024-01-02 03:04:05 -03:30", 0, B + 3 * HOUR + 30 * MIN},
    {"2024-01-02 03:04:05 +00", 0, B},
    {"2024-01-02 03:04:05 +053028", 0, B - 5 * HOUR - 30 * MIN - 28 * SEC},

    /* abbreviations */
    {"2024-01-02 03:04:05 GMT", 0, B},
    {"2024-01-02 03:04:05 Z", 0, B},
    {"2024-01-02 03:04:05 UCT", 0, B},
    {"2024-01-02 03:04:05 CET", 0, B - HOUR},
    {"2024-01-02 03:04:05 CEST", 0, B - 2 * HOUR},
    {"2024-01-02 03:04:05 EET", 0, B - 2 * HOUR},
    {"2024-01-02 03:04:05 EEST", 0, B - 3 * HOUR},
    {"2024-01-02 03:04:05 WET", 0, B},
    {"2024-01-02 03:04:05 WEST", 0, B - HOUR},
    {"2024-01-02 03:04:05 BST", 0, B - HOUR},
    {"2024-01-02 03:04:05 IST", 0, B - 5 * HOUR - 30 * MIN},
    {"2024-01-02 03:04:05 JST", 0, B - 9 * HOUR},
    {"2024-01-02 03:04:05 KST", 0, B - 9 * HOUR},
    {"2024-01-02 03:04:05 HKT", 0, B - 8 * HOUR},
    {"2024-01-02 03:04:05 SGT", 0, B - 8 * HOUR},
    {"2024-01-02 03:04:05 AEST", 0, B - 10 * HOUR},
    {"2024-01-02 03:04:05 AEDT", 0, B - 11 * HOUR},
    {"2024-01-02 03:04:05 NZST", 0, B - 12 * HOUR},
    {"2024-01-02 03:04:05 NZDT", 0, B - 13 * HOUR},
    {"2024-01-02 03:04:05 EST", 0, B + 5 * HOUR},
    {"2024-01-02 03:04:05 EDT", 0, B + 4 * HOUR},
    {"2024-01-02 03:04:05 CST", 0, B + 6 * HOUR}, /* US Central, by choice */
    {"2024-01-02 03:04:05 CDT", 0, B + 5 * HOUR},
    {"2024-01-02 03:04:05 MST", 0, B + 7 * HOUR},
    {"2024-01-02 03:04:05 MDT", 0, B + 6 * HOUR},
    {"2024-01-02 03:04:05 PST", 0, B + 8 * HOUR},
    {"2024-01-02 03:04:05 PDT", 0, B + 7 * HOUR},
    {"2024-01-02 03:04:05 AKST", 0, B + 9 * HOUR},
    {"2024-01-02 03:04:05 HST", 0, B + 10 * HOUR},
    {"2024-01-02 03:04:05 NST", 0, B + 3 * HOUR + 30 * MIN},

    /* calendar edges */
    {"2024-02-29 12:00:00", 0, INT64_C(1709208000000000)},
    {"2000-02-29 00:00:00", 0, INT64_C(951782400000000)},
    {"1970-01-01 00:00:00 UTC", 0, 0},
    {"1969-12-31 23:59:59.5 UTC", 0, -500000},
    {"1970-01-01 01:00:00 CET", 0, 0},
    {"9999-12-31 23:59:59.999999", 0, INT64_C(253402300799999999)},
    {"0001-01-01 00:00:00", 0, INT64_C(-62135596800000000)},

    /* rejected */
    {"", -1, 0},
    {"2024-01-02", -1, 0},
    {"2024-01-02 03:04", -1, 0},
    {"2024-01-02 03:04:05 XYZ", -1, 0}, /* unknown zone */
    {"2024-01-02 03:04:05 utc", -1, 0}, /* PostgreSQL prints upper case */
    {"2024-01-02 03:04:05 UTC x", -1, 0},
    {"2024-01-02 03:04:05 ", -1, 0},
    {"2024-01-02 03:04:05.", -1, 0},
    {"2024-01-02 03:04:05.1234567", -1, 0}, /* more than 6 digits */
    {"2024-01-02 03:04:05 +3", -1, 0},
    {"2024-01-02 03:04:05 +03:", -1, 0},
    {"2024-01-02 03:04:05 +0", -1, 0},
    {"2024-01-02 03:04:05 +16", -1, 0},
    {"2024-01-02 03:04:05 +03:60", -1, 0},
    {"2024-01-02 03:04:05 03", -1, 0},
    {"2024-13-02 03:04:05", -1, 0},
    {"2024-00-02 03:04:05", -1, 0},
    {"2024-01-00 03:04:05", -1, 0},
    {"2024-04-31 03:04:05", -1, 0},
    {"2023-02-29 03:04:05", -1, 0},
    {"1900-02-29 03:04:05", -1, 0},
    {"2024-01-02 24:00:00", -1, 0},
    {"2024-01-02 03:60:00", -1, 0},
    {"2024-01-02 03:04:60", -1, 0},
    {"2024-01-02X03:04:05", -1, 0},
    {"24-01-02 03:04:05", -1, 0},
    {"2024/01/02 03:04:05", -1, 0},
    {"2024-1-02 03:04:05", -1, 0},
    {"\t2024-01-02 03:04:05", -1, 0},
};

static void test_parse_table(void)
{
    size_t i;

    for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const parse_case *c = &parse_cases[i];
        ls_ts got = 12345;
        int rc = ls_ts_parse(&got, c->text, strlen(c->text));

        if (rc != c->rc || (rc == 0 && got != c->want))
            fprintf(stderr, "case %zu \"%s\": rc %d ts %lld\n", i, c->text, rc, (long long)got);
        CHECK_INT(rc, c->rc);
        if (c->rc == 0)
            CHECK_INT(got, c->want);
        else
            CHECK_INT(got, 12345); /* *out untouched on failure */
    }
}

/* The cached parse gives what ls_ts_parse gives, whatever came before:
 * every case of the table after every other (same second, other zone,
 * other fraction, no fraction, failures), and a second pass in reverse. */
static void test_parse_cached(void)
{
    size_t n = sizeof(parse_cases) / sizeof(parse_cases[0]), i, j;
    static const char *const extra[] = {
        "2026-12-02 11:46:41.139 UTC", "2026-12-02 11:46:41.2 UTC", "2026-12-02 11:46:41 UTC",
        "2026-12-02 11:46:41.999999 UTC", "2026-12-02 11:46:41.1234567 UTC",
        "2026-12-02 11:46:41.139 CET", "2026-12-02 11:46:41.139", "2026-12-02 11:46:41.",
        "2026-12-02 11:46:42.139 UTC", "2026-12-02 11:46:41.139UTC",
    };
    size_t nx = sizeof(extra) / sizeof(extra[0]);

    for (i = 0; i < n + nx; i++)
        for (j = 0; j < n + nx; j++) {
            const char *a = i < n ? parse_cases[i].text : extra[i - n];
            const char *b = j < n ? parse_cases[j].text : extra[j - n];
            ls_ts_cache c = {{0}, 0, 0};
            ls_ts want = 777, got = 777, first = 777;
            int rw = ls_ts_parse(&want, b, strlen(b));
            ls_ts_parse_cached(&c, &first, a, strlen(a));
            if (ls_ts_parse_cached(&c, &got, b, strlen(b)) != rw || got != want) {
                fprintf(stderr, "cached: \"%s\" after \"%s\": %lld, want %lld\n", b, a,
                        (long long)got, (long long)want);
                CHECK_INT(got, want);
            }
            CHECK_INT(ls_ts_parse_cached(&c, &got, b, strlen(b)), rw); /* and again */
            CHECK_INT(got, want);
        }
}

/* The text is read up to len only: no NUL needed, trailing bytes ignored. */
static void test_parse_length(void)
{
    static const char raw[] = "2026-12-02 11:46:41.139 UTC [5054] postgres@postgres";
    char nonul[23];
    ls_ts got = 0;

    CHECK_INT(ls_ts_parse(&got, raw, 27), 0);
    CHECK_INT(got, INT64_C(1796212001139000));
    CHECK_INT(ls_ts_parse(&got, raw, 23), 0); /* without the zone: UTC */
    CHECK_INT(got, INT64_C(1796212001139000));
    CHECK_INT(ls_ts_parse(&got, raw, 28), -1); /* "UTC " then nothing */
    CHECK_INT(ls_ts_parse(&got, raw, 18), -1); /* cut inside the seconds */

    memcpy(nonul, raw, sizeof(nonul)); /* no NUL anywhere in the buffer */
    CHECK_INT(ls_ts_parse(&got, nonul, sizeof(nonul)), 0);
    CHECK_INT(got, INT64_C(1796212001139000));
    CHECK_INT(ls_ts_parse(&got, NULL, 0), -1);
}

/* Results must not depend on the process time zone. */
static void test_parse_ignores_tz_env(void)
{
    ls_ts a = 0, b = 0;
    const char *s = "2024-01-02 03:04:05.678 CET";

    setenv("TZ", "UTC", 1);
    tzset();
    CHECK_INT(ls_ts_parse(&a, s, strlen(s)), 0);
    setenv("TZ", "America/New_York", 1);
    tzset();
    CHECK_INT(ls_ts_parse(&b, s, strlen(s)), 0);
    CHECK_INT(a, b);
    CHECK_INT(a, B + 678000 - HOUR);
    setenv("TZ", "UTC", 1);
    tzset();
}

typedef struct format_case {
    ls_ts ts;
    const char *want;
} format_case;

static const format_case format_cases[] = {
    {0, "1970-01-01 00:00:00.000000"},
    {-1, "1969-12-31 23:59:59.999999"},
    {-500000, "1969-12-31 23:59:59.500000"},
    {B + 678000, "2024-01-02 03:04:05.678000"},
    {B + 1, "2024-01-02 03:04:05.000001"},
    {INT64_C(1709208000000000), "2024-02-29 12:00:00.000000"},
    {INT64_C(253402300799999999), "9999-12-31 23:59:59.999999"},
    {INT64_C(-62135596800000000), "0001-01-01 00:00:00.000000"},
    {INT64_MAX, "294247-01-10 04:00:54.775807"},
    {INT64_MIN + 1, "-290308-12-21 19:59:05.224193"},
    {LS_TS_NONE, ""},
};

static void test_format_table(void)
{
    size_t i;

    for (i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++) {
        char out[32];

        memset(out, 'x', sizeof(out));
        ls_ts_format(out, format_cases[i].ts);
        CHECK_STR(out, format_cases[i].want);
    }
}

/* Parse what format wrote, for every parse case that succeeded. */
static void test_round_trip(void)
{
    size_t i;

    for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        char out[32];
        ls_ts back = 0;

        if (parse_cases[i].rc != 0)
            continue;
        ls_ts_format(out, parse_cases[i].want);
        CHECK_INT(strlen(out), 26);
        CHECK_INT(ls_ts_parse(&back, out, strlen(out)), 0);
        CHECK_INT(back, parse_cases[i].want);
    }
}

int main(void)
{
    test_parse_table();
    test_parse_length();
    test_parse_cached();
    test_parse_ignores_tz_env();
    test_format_table();
    test_round_trip();
    return TEST_REPORT();
}
