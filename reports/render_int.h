/*
 * render_int.h — reading the report model, for the renderers (markdown.c,
 * html.c). A missing or mistyped field reads as NULL / 0, never a crash:
 * the model is trusted in shape but not in completeness.
 */
#ifndef LS_RENDER_INT_H
#define LS_RENDER_INT_H

/* A hold is shown as a range (shortest–longest) only when the log leaves
 * its bounds at least this many ms apart; closer bounds are the clock's
 * millisecond, not doubt. */
#define LS_HOLD_RANGE_MS 25

#include <cjson/cJSON.h>

static inline const cJSON *m_get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static inline const char *m_str(const cJSON *o, const char *key)
{
    const cJSON *v = m_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static inline double m_num(const cJSON *o, const char *key)
{
    const cJSON *v = m_get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static inline int m_has_num(const cJSON *o, const char *key)
{
    return cJSON_IsNumber(m_get(o, key));
}

#endif
