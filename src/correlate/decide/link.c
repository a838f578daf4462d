/*
 * link.c — the root blocker's transaction from the links found (link.h).
 */
#include "link.h"

int64_t ls_root_tx(const ls_root_link *l)
{
    if (l->by_xid_tx)
        return l->by_xid_tx;
    if (l->root_pid == l->holder_pid)
        return l->holder_tx;
    if (l->root_pid == l->blocker_pid)
        return l->blocker_tx;
    return 0;
}
