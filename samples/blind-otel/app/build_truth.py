#!/usr/bin/env python3
"""Turn the app's per-transaction truth lines (truth.jsonl) into truth.json.

Client-side facts only: each transaction's route, backend pid, trace id,
start/end, each row lock's acquisition and release, how it ended. Waits are derived: a lock
whose statement took over WAIT_MS waited; its blocker is the transaction that
held the same row when the statement was sent. Times are ms since the epoch
(UTC) from the app's clock, which is the server's clock (one machine).

The app sees a result only when its event loop gets to it (GC, a busy CPU
delay it), so each time is given as an interval that holds the event:
- a lock is taken at 'acquired', the server's clock_timestamp() that the
  locking statement RETURNs once it has the row (exact to the microsecond);
- it is let go in ['released_lo', 'released'], from the moment COMMIT or
  ROLLBACK was sent to the moment it returned;
- held_ms = released - acquired, held_lo_ms = released_lo - acquired.
A failed statement (40P01, 40001) failed in [stmt_start, failed_at].
"""
import json
import sys
from datetime import datetime, timezone

WAIT_MS = 5.0   # a locking statement slower than this waited on a lock


def iso(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(
        timespec='milliseconds').replace('+00:00', 'Z')


def holder_at(holds, row, t, exclude):
    """The transaction holding ROW at time T (acquired <= t < released)."""
    for h in holds.get(row, []):
        if h['tx'] != exclude and h['acquired'] <= t < h['released']:
            return h
    return None


def main(src, dst):
    txs = [json.loads(l) for l in open(src, encoding='utf-8') if l.strip()]
    txs.sort(key=lambda t: t['start'])
    for t in txs:
        for lk in t['locks']:
            lk['acquired_client'] = lk['acquired']
            lk['acquired'] = lk.pop('locked_at')
    holds = {}
    for t in txs:
        for lk in t['locks']:
            lk['released'] = t['end']
            lk['released_lo'] = t['end_start']
            lk['held_ms'] = round(t['end'] - lk['acquired'], 3)
            lk['held_lo_ms'] = round(t['end_start'] - lk['acquired'], 3)
            lk['stmt_ms'] = round(lk['acquired'] - lk['stmt_start'], 3)
            holds.setdefault(lk['row'], []).append(dict(lk, tx=t['tx'],
                                                        pid=t['pid'], route=t['route']))
    waits, deadlocks, serial = [], [], []
    for t in txs:
        tries = [dict(lk, failed=False) for lk in t['locks']]
        if t.get('failed_lock'):
            f = t['failed_lock']
            tries.append(dict(row=f['row'], stmt_start=f['stmt_start'],
                              acquired=f['failed_at'], failed=True,
                              stmt_ms=round(f['failed_at'] - f['stmt_start'], 3)))
        for lk in tries:
            if lk['stmt_ms'] <= WAIT_MS and not lk['failed']:
                continue
            b = holder_at(holds, lk['row'], lk['stmt_start'], t['tx'])
            waits.append({
                'waiter_tx': t['tx'], 'waiter_pid': t['pid'],
                'waiter_route': t['route'], 'row': lk['row'],
                'wait_start': lk['stmt_start'], 'wait_end': lk['acquired'],
                'wait_start_iso': iso(lk['stmt_start']),
                'wait_ms': lk['stmt_ms'], 'ended_in': t['sqlstate'] if lk['failed'] else 'granted',
                'blocker_tx': b and b['tx'], 'blocker_pid': b and b['pid'],
                'blocker_route': b and b['route']})
        if t['sqlstate'] == '40P01':
            f = t['failed_lock']
            b = holder_at(holds, f['row'], f['stmt_start'], t['tx'])
            deadlocks.append({
                'victim_tx': t['tx'], 'victim_pid': t['pid'], 'route': t['route'],
                'victim_held': [lk['row'] for lk in t['locks']],
                'victim_waited_for': f['row'], 'at': iso(f['failed_at']),
                'at_ms': f['failed_at'], 'at_lo_ms': f['stmt_start'],
                'other_tx': b and b['tx'], 'other_pid': b and b['pid'],
                'other_held': b and [lk['row'] for lk in next(
                    x for x in txs if x['tx'] == b['tx'])['locks']]})
        if t['sqlstate'] == '40001':
            serial.append({'tx': t['tx'], 'pid': t['pid'], 'route': t['route'],
                           'at': iso(t['end']), 'row': t['failed_lock']['row']
                           if t.get('failed_lock') else None})
    rows = {}
    for row, hs in holds.items():
        by_route = {}
        for h in hs:
            by_route.setdefault(h['route'], []).append(h['held_ms'])
        rows[row] = {
            'locks': len(hs), 'total_held_ms': round(sum(h['held_ms'] for h in hs), 1),
            'max_held_ms': max(h['held_ms'] for h in hs),
            'waits': sum(1 for w in waits if w['row'] == row),
            'total_wait_ms': round(sum(w['wait_ms'] for w in waits if w['row'] == row), 1),
            'by_route': {r: {'n': len(v), 'mean_held_ms': round(sum(v) / len(v), 1),
                             'max_held_ms': max(v), 'total_held_ms': round(sum(v), 1)}
                         for r, v in by_route.items()}}
    routes = {}
    for t in txs:
        r = routes.setdefault(t['route'], {'transactions': 0, 'commits': 0,
                                           'rollbacks': {}, 'held': []})
        r['transactions'] += 1
        if t['outcome'] == 'commit':
            r['commits'] += 1
        else:
            r['rollbacks'][t['sqlstate']] = r['rollbacks'].get(t['sqlstate'], 0) + 1
        r['held'] += [lk['held_ms'] for lk in t['locks']]
    for r in routes.values():
        h = sorted(r.pop('held'))
        r['locks'] = len(h)
        r['mean_held_ms'] = round(sum(h) / len(h), 1) if h else 0
        r['p95_held_ms'] = h[int(0.95 * (len(h) - 1))] if h else 0
        r['max_held_ms'] = h[-1] if h else 0
        r['total_held_ms'] = round(sum(h), 1)
    for t in txs:
        t['start_iso'] = iso(t['start'])
    out = {'note': __doc__.strip(), 'wait_threshold_ms': WAIT_MS,
           'routes': routes, 'hot_rows': dict(sorted(
               rows.items(), key=lambda kv: -kv[1]['total_held_ms'])),
           'deadlocks': deadlocks, 'serialization_failures': serial,
           'waits': waits, 'transactions': txs}
    with open(dst, 'w', encoding='utf-8') as f:
        json.dump(out, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
