/*
 * json.c — the JSON report: the model itself, pretty-printed. cJSON
 * escapes quotes, backslashes and control characters; the model holds
 * only valid UTF-8 (model.c cleans every string).
 */
#include <stdlib.h>

#include "ls_report.h"

/*
 * cJSON writes characters above U+007F as they are: C1 controls
 * (U+0080..U+009F, UTF-8 C2 80..C2 9F), the line and paragraph separators
 * (U+2028, U+2029: E2 80 A8..A9, line ends to JavaScript before ES2019)
 * and bidirectional overrides and isolates (U+202A..U+202E: E2 80 AA..AE,
 * U+2066..U+2069: E2 81 A6..A9)
 * from a log would reach whoever views the JSON raw. They can only be
 * inside strings, so they are written as \uXXXX escapes.
 */
static int write_escaped(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text, *from = p;
    for (; *p; p++) {
        unsigned c = 0;
        size_t k = 0;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            c = p[1], k = 2;
        else if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae)
            c = 0x2000 | (p[2] & 0x3f), k = 3;
        else if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
            c = 0x2040 | (p[2] & 0x3f), k = 3;
        if (!k)
            continue;
        fwrite(from, 1, (size_t)(p - from), f);
        fprintf(f, "\\u%04X", c);
        p += k - 1;
        from = p + 1;
    }
    return fputs((const char *)from, f) == EOF ? LS_EIO : 0;
}

int ls_report_write_json(const cJSON *model, FILE *f)
{
    char *text = cJSON_Print(model);
    int rc = 0;
    if (!text)
        return LS_ENOMEM;
    if (write_escaped(f, text) != 0 || fputc('\n', f) == EOF)
        rc = LS_EIO;
    free(text);
    return rc;
}
