/*
 * slowkey.c — is a key a contended row from its slow locking statements
 * alone (slowkey.h).
 */
#include "slowkey.h"
#include "tolerances.h"

int ls_slowkey_makes_row(const ls_slowkey_in *in)
{
    if (in->statements < LS_SLOWKEY_MIN_STATEMENTS || !(in->ms >= LS_SLOWKEY_MIN_MS))
        return 0;
    if (in->statements < (int64_t)LS_SLOWKEY_DOMINANCE * in->next_key)
        return 0;
    return in->statements > in->other_keys_sum;
}
