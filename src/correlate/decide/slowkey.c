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

int ls_slowkey_one_holder_path(int64_t lockers, int64_t paths, int64_t unnamed)
{
    return lockers > 0 && paths == 1 && unnamed == 0;
}
