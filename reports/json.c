/*
 * json.c — the JSON report: the model itself, pretty-printed. cJSON
 * escapes quotes, backslashes and control characters; the model holds
 * only valid UTF-8 (model.c cleans every string).
 */
#include <stdlib.h>

#include "ls_report.h"

int ls_report_write_json(const cJSON *model, FILE *f)
{
    char *text = cJSON_Print(model);
    int rc = 0;
    if (!text)
        return LS_ENOMEM;
    if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
        rc = LS_EIO;
    free(text);
    return rc;
}
