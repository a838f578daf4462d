/*
 * timestamp.c — PostgreSQL log timestamps to and from ls_ts (microseconds
 * since the Unix epoch, UTC). Contract: ls_ts_parse/ls_ts_format in
 * include/ls_common.h.
 *
 * Hand-written on purpose: strptime/mktime read the process time zone and
 * locale, and reports must not depend on either. Calendar arithmetic uses
 * Howard Hinnant's days_from_civil/civil_from_days (proleptic Gregorian).
 */
#include <string.h>

#include "ls_common.h"

#define US_PER_SEC INT64_C(1000000)
#define SEC_PER_DAY INT64_C(86400)

/*
 * Abbreviations PostgreSQL prints through %Z, with their UTC offsets in
 * seconds. Ambiguous ones, and the reading chosen:
 * - CST: US Central (-6), as in PostgreSQL's own "Default" abbreviation set
 *   and what America/Chicago prints (samples/timezones/5.log);
 *   China Standard Time (+8, what Asia/Shanghai prints) and Cuba (-5) lose.
 *   Servers in China should set log_timezone to a numeric zone.
 * - IST: India (+5:30), deliberately unlike PostgreSQL's Default
 *   abbreviation set (src/timezone/tznames/Default: IST 7200, Israel; its
 *   India set says 19800). That set governs how the server *reads* input;
 *   what a log *prints* comes from tzdb, and log_timezone = 'Asia/Kolkata'
 *   prints "IST" (samples/timezones/3.log, a real PostgreSQL 15 server).
 *   Asia/Jerusalem (+2) and Europe/Dublin in summer (+1) print IST too;
 *   such servers should use a numeric log_timezone.
 * - BST: British Summer Time (+1), not Bangladesh (+6).
 * - AST: Atlantic (-4), not Arabia (+3).
 * Numeric zones ("+08") are never ambiguous and are what tzdb prints for
 * most zones that lack a widely used abbreviation.
 */
typedef struct zone_abbrev {
    const char *name;
    int offset; /* seconds east of UTC */
} zone_abbrev;

#define H(h) ((h)*3600)
#define HM(h, m) ((h)*3600 + ((h) < 0 ? -(m) : (m)) * 60)

static const zone_abbrev zones[] = {
    {"UTC", 0},
    {"GMT", 0},
    {"Z", 0},
    {"UCT", 0},
    {"UT", 0},
    {"WET", 0},
    {"WEST", H(1)},
    {"BST", H(1)},
    {"CET", H(1)},
    {"CEST", H(2)},
    {"MET", H(1)},
    {"MEST", H(2)},
    {"WAT", H(1)},
    {"EET", H(2)},
    {"EEST", H(3)},
    {"CAT", H(2)},
    {"SAST", H(2)},
    {"IDT", H(3)},
    {"EAT", H(3)},
    {"MSK", H(3)},
    {"MSD", H(4)},
    {"PKT", H(5)},
    {"IST", HM(5, 30)},
    {"ICT", H(7)},
    {"WIB", H(7)},
    {"WITA", H(8)},
    {"WIT", H(9)},
    {"HKT", H(8)},
    {"SGT", H(8)},
    {"PHT", H(8)},
    {"AWST", H(8)},
    {"JST", H(9)},
    {"KST", H(9)},
    {"ACST", HM(9, 30)},
    {"ACDT", HM(10, 30)},
    {"AEST", H(10)},
    {"AEDT", H(11)},
    {"ChST", H(10)},
    {"NZST", H(12)},
    {"NZDT", H(13)},
    {"SST", H(-11)},
    {"HST", H(-10)},
    {"HDT", H(-9)},
    {"AKST", H(-9)},
    {"AKDT", H(-8)},
    {"PST", H(-8)},
    {"PDT", H(-7)},
    {"MST", H(-7)},
    {"MDT", H(-6)},
    {"CST", H(-6)},
    {"CDT", H(-5)},
    {"EST", H(-5)},
    {"EDT", H(-4)},
    {"AST", H(-4)},
    {"ADT", H(-3)},
    {"NST", HM(-3, 30)},
    {"NDT", HM(-2, 30)},
};

/* Days since 1970-01-01 of a proleptic Gregorian date (m 1-12, d 1-31). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* The inverse of days_from_civil. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t era;
    unsigned doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned char mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : mdays[m - 1];
}

/* Read exactly n digits at s[*pos] into *out; 0 on success. */
static int read_digits(const char *s, size_t len, size_t *pos, int n, int *out)
{
    int v = 0, i;

    if (len - *pos < (size_t)n)
        return -1;
    for (i = 0; i < n; i++) {
        char c = s[*pos + (size_t)i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *pos += (size_t)n;
    *out = v;
    return 0;
}

static int expect_char(const char *s, size_t len, size_t *pos, char c)
{
    if (*pos >= len || s[*pos] != c)
        return -1;
    (*pos)++;
    return 0;
}

/*
 * Parse a numeric offset: +HH, +HHMM, +HH:MM, +HHMMSS, +HH:MM:SS (sign
 * required). The whole of s[0..len) must be consumed.
 */
static int parse_numeric_zone(const char *s, size_t len, int *offset)
{
    size_t pos = 1;
    int sign, hh, mm = 0, ss = 0;

    if (len < 3 || (s[0] != '+' && s[0] != '-'))
        return -1;
    sign = s[0] == '-' ? -1 : 1;
    if (read_digits(s, len, &pos, 2, &hh))
        return -1;
    if (pos < len) {
        int colon = s[pos] == ':';
        pos += (size_t)colon;
        if (read_digits(s, len, &pos, 2, &mm))
            return -1;
        if (pos < len) {
            if (colon && expect_char(s, len, &pos, ':'))
                return -1;
            if (read_digits(s, len, &pos, 2, &ss))
                return -1;
        }
    }
    if (pos != len || hh > 15 || mm > 59 || ss > 59)
        return -1;
    *offset = sign * (hh * 3600 + mm * 60 + ss);
    return 0;
}

static int parse_zone(const char *s, size_t len, int *offset)
{
    size_t i;

    if (len && (s[0] == '+' || s[0] == '-'))
        return parse_numeric_zone(s, len, offset);
    for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
        if (strlen(zones[i].name) == len && memcmp(zones[i].name, s, len) == 0) {
            *offset = zones[i].offset;
            return 0;
        }
    }
    return -1;
}

int ls_ts_parse(ls_ts *out, const char *s, size_t len)
{
    size_t pos = 0;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, offset = 0; /* -O3 cannot tell read_digits() sets them */
    int64_t frac = 0;

    if (!s)
        return -1;
    if (read_digits(s, len, &pos, 4, &y) || expect_char(s, len, &pos, '-') ||
        read_digits(s, len, &pos, 2, &mo) || expect_char(s, len, &pos, '-') ||
        read_digits(s, len, &pos, 2, &d))
        return -1;
    if (pos >= len || (s[pos] != ' ' && s[pos] != 'T'))
        return -1;
    pos++;
    if (read_digits(s, len, &pos, 2, &h) || expect_char(s, len, &pos, ':') ||
        read_digits(s, len, &pos, 2, &mi) || expect_char(s, len, &pos, ':') ||
        read_digits(s, len, &pos, 2, &sec))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || (unsigned)d > days_in_month(y, (unsigned)mo) || h > 23 ||
        mi > 59 || sec > 59)
        return -1;

    if (pos < len && s[pos] == '.') {
        int ndigits = 0;

        pos++;
        while (pos < len && s[pos] >= '0' && s[pos] <= '9') {
            if (++ndigits > 6)
                return -1;
            frac = frac * 10 + (s[pos++] - '0');
        }
        if (ndigits == 0)
            return -1;
        for (; ndigits < 6; ndigits++)
            frac *= 10;
    }

    if (pos < len) {
        /* "... UTC", "...+03", "...Z": one optional space before the zone. */
        if (s[pos] == ' ')
            pos++;
        if (pos >= len || parse_zone(s + pos, len - pos, &offset))
            return -1;
    }

    *out = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * SEC_PER_DAY + h * 3600 + mi * 60 +
             sec - offset) *
            US_PER_SEC) +
           frac;
    return 0;
}

/* Two decimal digits of v (0-99) at p; returns the position after them. */
static char *put2(char *p, unsigned v)
{
    p[0] = (char)('0' + v / 10 % 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/* LS_TS_NONE formats as "" (the contract leaves it open). */
void ls_ts_format(char out[32], ls_ts ts)
{
    int64_t secs, days, rem, y;
    unsigned m, d;
    int64_t frac;
    char digits[8], *p = out;
    int n;

    if (ts == LS_TS_NONE) {
        out[0] = '\0';
        return;
    }
    /* floor division, so instants before 1970 format correctly */
    secs = ts / US_PER_SEC;
    frac = ts % US_PER_SEC;
    if (frac < 0) {
        frac += US_PER_SEC;
        secs--;
    }
    days = secs / SEC_PER_DAY;
    rem = secs % SEC_PER_DAY;
    if (rem < 0) {
        rem += SEC_PER_DAY;
        days--;
    }
    civil_from_days(days, &y, &m, &d);

    /*
     * Written by hand rather than with snprintf: the year of an arbitrary
     * int64 reaches six digits and a sign (at most 29 bytes with the NUL),
     * which the compiler cannot prove fits.
     */
    if (y < 0) {
        *p++ = '-';
        y = -y;
    }
    n = 0;
    do {
        digits[n++] = (char)('0' + y % 10);
        y /= 10;
    } while (y || n < 4);
    while (n)
        *p++ = digits[--n];
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    p = put2(p, d);
    *p++ = ' ';
    p = put2(p, (unsigned)(rem / 3600));
    *p++ = ':';
    p = put2(p, (unsigned)(rem / 60 % 60));
    *p++ = ':';
    p = put2(p, (unsigned)(rem % 60));
    *p++ = '.';
    for (n = 0; n < 6; n++) {
        p[5 - n] = (char)('0' + frac % 10);
        frac /= 10;
    }
    p[6] = '\0';
}

/*
 * The fraction after the 19 characters of date and time: its bytes (the
 * '.' and its digits; 0 when there is none) and its value in microseconds.
 * -1 when it is not one ls_ts_parse reads (no digit, or more than six).
 */
static int fraction_at(const char *s, size_t len, size_t *bytes, int64_t *us)
{
    size_t pos = 19;
    int ndigits = 0;
    int64_t frac = 0;

    *bytes = 0;
    *us = 0;
    if (pos >= len || s[pos] != '.')
        return 0;
    for (pos++; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++) {
        if (++ndigits > 6)
            return -1;
        frac = frac * 10 + (s[pos] - '0');
    }
    if (ndigits == 0)
        return -1;
    for (; ndigits < 6; ndigits++)
        frac *= 10;
    *bytes = pos - 19;
    *us = frac;
    return 0;
}

int ls_ts_parse_cached(ls_ts_cache *c, ls_ts *out, const char *s, size_t len)
{
    size_t fbytes, keylen;
    int64_t frac;
    int rc;

    if (!s || len < 19 || fraction_at(s, len, &fbytes, &frac) != 0 ||
        (keylen = len - fbytes) > sizeof(c->key))
        return ls_ts_parse(out, s, len);
    if (c->keylen == keylen && memcmp(c->key, s, 19) == 0 &&
        memcmp(c->key + 19, s + 19 + fbytes, keylen - 19) == 0) {
        *out = c->base + frac;
        return 0;
    }
    if ((rc = ls_ts_parse(out, s, len)) != 0)
        return rc;
    memcpy(c->key, s, 19);
    memcpy(c->key + 19, s + 19 + fbytes, keylen - 19);
    c->keylen = keylen;
    c->base = *out - frac;
    return 0;
}
