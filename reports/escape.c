/*
 * escape.c — the escaping routines every log-derived string passes
 * through on its way into a report. Log text is attacker-controlled: a
 * statement, an application name or a DETAIL can hold markup, control
 * characters and invalid UTF-8.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ls_common.h"
#include "ls_report.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (s[0] >= 0xe0 && s[0] <= 0xef) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
            return 0;
        if (s[0] == 0xe0 && s[1] < 0xa0)
            return 0; /* overlong */
        if (s[0] == 0xed && s[1] >= 0xa0)
            return 0; /* surrogate */
        return 3;
    }
    if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
            return 0;
        if (s[0] == 0xf0 && s[1] < 0x90)
            return 0;
        if (s[0] == 0xf4 && s[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

/* Decode the valid UTF-8 sequence of length k at p. */
static unsigned long utf8_decode(const unsigned char *p, size_t k)
{
    if (k == 1)
        return p[0];
    if (k == 2)
        return ((p[0] & 0x1fUL) << 6) | (p[1] & 0x3fUL);
    if (k == 3)
        return ((p[0] & 0x0fUL) << 12) | ((p[1] & 0x3fUL) << 6) | (p[2] & 0x3fUL);
    return ((p[0] & 0x07UL) << 18) | ((p[1] & 0x3fUL) << 12) | ((p[2] & 0x3fUL) << 6) |
           (p[3] & 0x3fUL);
}

/*
 * The code point of the valid sequence of length k at p when it is one a
 * log must not smuggle into a report as is, else 0: C1 controls
 * (U+0080..U+009F: some terminals act on them), the line and paragraph
 * separators (U+2028, U+2029: a Markdown or JavaScript reader may break the
 * line there, ending a table row) and the bidirectional
 * overrides and isolates (U+202A..U+202E, U+2066..U+2069: they reorder the
 * text around them, so a report could show a statement other than the one
 * run). Entities would not help (a browser decodes &#x202E; into the
 * override itself): the renderers print them as visible text, JSON as \u.
 */
static unsigned long invisible(const unsigned char *p, size_t k)
{
    unsigned long c;
    if (k < 2 || k > 3)
        return 0;
    c = utf8_decode(p, k);
    return (c >= 0x80 && c <= 0x9f) || (c >= 0x2028 && c <= 0x202e) ||
                   (c >= 0x2066 && c <= 0x2069)
               ? c
               : 0;
}

/* An invisible code point as the reader should see it. */
static void put_invisible(FILE *f, unsigned long c)
{
    fprintf(f, "\xe2\x80\xb9U+%04lX\xe2\x80\xba", c); /* ‹U+202E› */
}

/* Copy s as valid UTF-8, invalid sequences as U+FFFD; control characters
 * (but \n and \t) too unless keep_controls. */
static char *utf8_clean(const char *s, int keep_controls)
{
    static const char repl[] = "\xef\xbf\xbd";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), o = 0;
    char *out = ls_malloc(n * 3 + 1);

    if (!out)
        return NULL;
    while (*p) {
        size_t k = utf8_len(p);
        if (!keep_controls && k == 1 && ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f))
            k = 0;
        if (k == 0) {
            memcpy(out + o, repl, 3);
            o += 3;
            p++;
        } else {
            memcpy(out + o, p, k);
            o += k;
            p += k;
        }
    }
    out[o] = '\0';
    return out;
}

char *ls_utf8_clean(const char *s)
{
    return utf8_clean(s, 0);
}

char *ls_utf8_clean_name(const char *s)
{
    return utf8_clean(s, 1);
}

/* A control character as a Markdown code escape: `\n`, `\x1b`. */
static void md_control(FILE *f, unsigned char c)
{
    switch (c) {
    case '\n': fputs("`\\n`", f); break;
    case '\t': fputs("`\\t`", f); break;
    case '\r': fputs("`\\r`", f); break;
    default: fprintf(f, "`\\x%02x`", c); break;
    }
}

/* Markdown text on one line, at most max characters: whitespace folded to
 * one space (names: every control character shown escaped), other
 * control characters shown escaped, specials backslash-escaped. */
static void md_text(FILE *f, const char *s, size_t max, int name)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    int space = 0;

    for (; *p; p++) {
        unsigned char c = *p;
        if (n >= max) {
            fputs("…", f);
            break;
        }
        if (!name && (c == '\n' || c == '\t' || c == '\r' || c == ' ')) {
            if (!space && n)
                fputc(' ', f), n++;
            space = 1;
            continue;
        }
        space = 0;
        if ((c & 0xc0) != 0x80)
            n++;
        if (c < 0x20 || c == 0x7f) {
            md_control(f, c);
            continue;
        }
        if (c >= 0x80) {
            size_t k = utf8_len(p);
            unsigned long inv = k ? invisible(p, k) : 0;
            if (inv) {
                put_invisible(f, inv);
                p += k - 1;
                continue;
            }
        }
        /* Markdown/HTML specials are backslash-escaped (CommonMark: any
         * ASCII punctuation), so pasted raw text stays readable and
         * nothing can open a tag, an entity, a link, emphasis, code, math
         * or a new table cell. */
        if (c < 0x80 && strchr("|<>&`*_[]\\#~!$", c))
            fputc('\\', f);
        fputc(c, f);
    }
}

void ls_md_cell(FILE *f, const char *s, size_t max)
{
    md_text(f, s, max, 0);
}

void ls_md_name(FILE *f, const char *s, size_t max)
{
    md_text(f, s, max, 1);
}

void ls_md_code_block(FILE *f, const char *lang, const char *s)
{
    size_t run = 0, longest = 0, i;
    const char *p;
    for (p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    for (i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
        fputc('`', f);
    fprintf(f, "%s\n", lang);
    for (p = s; *p;) {
        size_t k = utf8_len((const unsigned char *)p);
        unsigned long inv = k ? invisible((const unsigned char *)p, k) : 0;
        if (inv)
            put_invisible(f, inv);
        else
            fwrite(p, 1, k ? k : 1, f);
        p += k ? k : 1;
    }
    fputc('\n', f);
    for (i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
        fputc('`', f);
    fputc('\n', f);
}

void ls_html_escape(FILE *f, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = 0;

    while (*p) {
        size_t k = utf8_len(p);
        if (max && n >= max) {
            fputs("…", f);
            break;
        }
        n++;
        if (k == 0 || (k == 1 && ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f))) {
            fputs("\xef\xbf\xbd", f);
            p++;
            continue;
        }
        if (k > 1 && invisible(p, k)) {
            put_invisible(f, invisible(p, k));
            p += k;
            continue;
        }
        if (k > 1) {
            fwrite(p, 1, k, f);
            p += k;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f); break;
        }
        p++;
    }
}

static int mermaid_safe(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr(" .,_-+/=?@", c) != NULL);
}

void ls_mermaid_label(FILE *f, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = 0;
    int space = 0;

    while (*p) {
        size_t k = utf8_len(p);
        if (n >= max) {
            fputs("...", f);
            break;
        }
        if (k == 1 && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) {
            if (!space && n)
                fputc(' ', f), n++;
            space = 1;
            p++;
            continue;
        }
        space = 0;
        if (k == 0 || (k == 1 && (*p < 0x20 || *p == 0x7f))) {
            p++; /* control characters and invalid bytes are dropped */
            continue;
        }
        n++;
        if (invisible(p, k))
            fprintf(f, "U+%04lX", invisible(p, k));
        else if (k == 1 && (*p == 'c' || *p == 'C') && strncasecmp((const char *)p, "click", 5) == 0)
            fprintf(f, "#%u;", (unsigned)*p);
        else if (k == 1 && mermaid_safe(*p))
            fputc(*p, f);
        else
            fprintf(f, "#%lu;", utf8_decode(p, k));
        p += k;
    }
}
