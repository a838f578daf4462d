/*
 * test_escape.c — log text is attacker-controlled: a statement or an
 * application name can hold markup, control characters and invalid UTF-8.
 * Everything that reaches a report must come out inert.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_report.h"
#include "ls_test.h"
#include "../reports/render_int.h"

static char *render_cell(const char *s, size_t max)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ls_md_cell(f, s, max);
    fclose(f);
    return buf;
}

static char *render_block(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ls_md_code_block(f, "sql", s);
    fclose(f);
    return buf;
}

static void test_utf8_clean(void)
{
    char *c;
    c = ls_utf8_clean("ok caf\xc3\xa9 \xe2\x82\xac");
    CHECK_STR(c, "ok caf\xc3\xa9 \xe2\x82\xac");
    free(c);
    /* invalid bytes, overlong, surrogate, truncated sequence, controls */
    c = ls_utf8_clean("a\xff" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82" "e\x1b[31m\x7f");
    CHECK(strchr(c, '\x1b') == NULL && strchr(c, '\x7f') == NULL);
    CHECK(strstr(c, "\xff") == NULL && strstr(c, "\xc0") == NULL && strstr(c, "\xed") == NULL);
    CHECK(strncmp(c, "a\xef\xbf\xbd" "b", 5) == 0);
    free(c);
    c = ls_utf8_clean("line1\nline2\ttab\r");
    CHECK_STR(c, "line1\nline2\ttab\xef\xbf\xbd");
    free(c);
}

/* Every Markdown special in s is backslash-escaped: a backslash always
 * escapes the character after it, and no special stands alone. */
static int md_inert(const char *s)
{
    for (; *s; s++) {
        if (*s == '\\') {
            if (!s[1] || !strchr("|<>&`*_[]\\#~!$", s[1]))
                return 0;
            s++;
        } else if (strchr("|<>&`*_[]#~!$", *s)) {
            return 0;
        }
    }
    return 1;
}

static void test_md_cell(void)
{
    char *c = render_cell("<script>alert(1)</script> | *x* _y_ [l](http://e) `c` ![i](j) # h",
                          500);
    CHECK(md_inert(c));
    CHECK(strstr(c, "\\<script\\>alert(1)\\</script\\> \\| \\*x\\* \\_y\\_") != NULL);
    free(c);
    /* A backslash of its own cannot cancel the escape of what follows. */
    c = render_cell("\\<b>\\\\|&amp;$x$", 500);
    CHECK(md_inert(c));
    CHECK(strchr(c, '&') == NULL || strstr(c, "\\&") != NULL);
    free(c);
    /* C1 controls and bidi overrides are shown, never passed through. */
    c = render_cell("a\xe2\x80\xae" "b\xc2\x85" "c\xe2\x81\xa6", 500);
    CHECK_STR(c, "a\xe2\x80\xb9U+202E\xe2\x80\xba" "b\xe2\x80\xb9U+0085\xe2\x80\xba"
                 "c\xe2\x80\xb9U+2066\xe2\x80\xba");
    free(c);
    /* Line and paragraph separators would end a table row in some readers
     * (issue 37): shown too. */
    c = render_cell("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", 500);
    CHECK_STR(c, "a\xe2\x80\xb9U+2028\xe2\x80\xba" "b\xe2\x80\xb9U+2029\xe2\x80\xba" "c");
    free(c);
    c = render_block("x\xe2\x80\xaey");
    CHECK(strstr(c, "\xe2\x80\xae") == NULL && strstr(c, "U+202E") != NULL);
    free(c);
    c = render_cell("two\nlines\r\n| --- |\nforged row", 500);
    CHECK(strchr(c, '\n') == NULL && strchr(c, '\r') == NULL);
    free(c);
    c = render_cell("abcdefghij", 4);
    CHECK_STR(c, "abcd…");
    free(c);
}

static void test_md_block(void)
{
    /* Content with a fence of its own cannot close the block early. */
    char *c = render_block("SELECT 1; ```\n# heading\n````");
    CHECK(strncmp(c, "`````sql\n", 9) == 0);
    CHECK(strstr(c + 9, "\n`````\n") != NULL);
    free(c);
}

static void test_duration(void)
{
    char b[LS_DURATION_LEN];
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 3.25), "3.2 ms");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 350.4), "350 ms");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 999.4), "999 ms");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 999.6), "1.0 s");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 78132.7), "78.1 s");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 754000), "12 min 34 s");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), 3720000), "1 h 02 min");
    CHECK_STR(ls_fmt_duration(b, sizeof(b), -1), "—");
}

/* A signed estimate beside its range: a whole-second log's idle estimate
 * of -120 ms (unbiased in sums) shows as its range's 0, not as "—". */
static void test_in_range(void)
{
    char b[LS_DURATION_LEN];
    CHECK(ls_fmt_in_range(-120.0, 0.0, 1100.0) == 0.0);
    CHECK(ls_fmt_in_range(1500.0, 0.0, 1100.0) == 1100.0);
    CHECK(ls_fmt_in_range(100.0, 0.0, 1100.0) == 100.0);
    CHECK(ls_fmt_in_range(0.0, 0.0, 1100.0) == 0.0);       /* at the low end */
    CHECK(ls_fmt_in_range(1100.0, 0.0, 1100.0) == 1100.0); /* at the high end */
    CHECK_STR(ls_fmt_duration(b, sizeof(b), ls_fmt_in_range(-120.0, 0.0, 1100.0)), "0.0 ms");
}

int main(void)
{
    test_duration();
    test_in_range();
    test_utf8_clean();
    test_md_cell();
    test_md_block();
    return TEST_REPORT();
}
