#!/usr/bin/env python3
"""Turn the app's truth lines (truth.jsonl) into truth.json.

Usage: build_truth.py truth.jsonl truth.json APP_SKEW_S

Client-side facts only, never read from the log: each transaction's route,
request id, attempt, backend pid, trace id, each row lock's acquisition and
release, how it ended. Waits are derived: a locking statement that took over
WAIT_MS waited; its blocker is the transaction that held the same row when
the statement was sent.

Clocks. The app ran under libfaketime with APP_SKEW_S (its clock = server
clock + skew); the app measured its offset to the server itself (clock
'start'/'end' lines: min-RTT probes of clock_timestamp()). Every time below
without a suffix is the SERVER's clock (ms since the epoch, UTC): app times
minus the measured offset; '*_app' keeps the app's own reading. Exactness:
- a lock is taken at 'acquired': the server's clock_timestamp() once the row
  was ours (UPDATE ... RETURNING the BEFORE trigger's updated_at; the FOR
  UPDATE select's column, re-evaluated after a wait on an updated row;
  the counter / totals row's updated_at stamped by its BEFORE trigger);
  'acquired_exact' is false where the app's reading had to stand in;
- it is let go in ['released_lo', 'released']: from the moment COMMIT or
  ROLLBACK was sent to the moment it returned; in a transaction an error
  aborted (40P01), from the failing statement's start to the moment the app
  saw the error (the server releases at the error, before the ROLLBACK);
- held_ms = released - acquired, held_lo_ms = released_lo - acquired.
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


def main(src, dst, skew_s):
    lines = [json.loads(l) for l in open(src, encoding='utf-8') if l.strip()]
    clocks = {l['clock']: l for l in lines if 'clock' in l}
    txs = [l for l in lines if 'tx' in l]
    offs = [c['offset_ms'] for c in clocks.values()]
    off = sum(offs) / len(offs)
    srv = lambda t: t - off   # app clock -> server clock
    txs.sort(key=lambda t: t['start_app'])
    for t in txs:
        t['start'] = srv(t['start_app'])
        t['end_start'] = srv(t['end_start_app'])
        t['end'] = srv(t['end_app'])
        f = t.get('failed_lock')
        if f:
            f['stmt_start'] = srv(f['stmt_start_app'])
            f['failed_at'] = srv(f['failed_at_app'])
        for lk in t['locks']:
            lk['stmt_start'] = srv(lk['stmt_start_app'])
            lk['acquired_client'] = srv(lk['acquired_app'])
            lk['acquired'] = lk.pop('locked_at')
            client_ms = lk['acquired_client'] - lk['stmt_start']
            # a FOR UPDATE's column is evaluated before a wait unless the
            # holder updated the row: a wait whose stamp is not after its
            # start (trigger and RETURNING stamps are always after the lock)
            lk['acquired_exact'] = not (lk['how'] == 'for update' and client_ms > WAIT_MS
                                        and lk['acquired'] - lk['stmt_start'] < 1.0)
            if not lk['acquired_exact']:
                lk['acquired'] = lk['acquired_client']
    holds = {}
    for t in txs:
        f = t.get('failed_lock')
        for lk in t['locks']:
            lk['released_lo'] = f['stmt_start'] if f else t['end_start']
            lk['released'] = f['failed_at'] if f else t['end']
            lk['held_ms'] = round(lk['released'] - lk['acquired'], 3)
            lk['held_lo_ms'] = round(lk['released_lo'] - lk['acquired'], 3)
            lk['stmt_ms'] = round(lk['acquired'] - lk['stmt_start'], 3)
            holds.setdefault(lk['row'], []).append(dict(lk, tx=t['tx'], pid=t['pid'],
                                                        route=t['route']))
    waits, deadlocks = [], []
    for t in txs:
        tries = [dict(lk, failed=False) for lk in t['locks']]
        f = t.get('failed_lock')
        if f:
            tries.append(dict(row=f['row'], stmt_start=f['stmt_start'],
                              acquired=f['failed_at'], failed=True,
                              stmt_ms=round(f['failed_at'] - f['stmt_start'], 3)))
        for lk in tries:
            if lk['stmt_ms'] <= WAIT_MS and not lk['failed']:
                continue
            b = holder_at(holds, lk['row'], lk['stmt_start'], t['tx'])
            waits.append({
                'waiter_tx': t['tx'], 'waiter_pid': t['pid'], 'waiter_route': t['route'],
                'waiter_trace_id': t['trace_id'], 'row': lk['row'],
                'wait_start': lk['stmt_start'], 'wait_end': lk['acquired'],
                'wait_start_iso': iso(lk['stmt_start']), 'wait_ms': lk['stmt_ms'],
                'ended_in': t['sqlstate'] if lk['failed'] else 'granted',
                'blocker_tx': b and b['tx'], 'blocker_pid': b and b['pid'],
                'blocker_route': b and b['route']})
        if t['sqlstate'] == '40P01':
            b = holder_at(holds, f['row'], f['stmt_start'], t['tx'])
            deadlocks.append({
                'victim_tx': t['tx'], 'victim_pid': t['pid'], 'route': t['route'],
                'victim_req': t['req'], 'victim_attempt': t['attempt'],
                'victim_trace_id': t['trace_id'],
                'victim_held': [lk['row'] for lk in t['locks']],
                'victim_waited_for': f['row'], 'at': iso(f['failed_at']),
                'at_ms': f['failed_at'], 'at_lo_ms': f['stmt_start'],
                'other_tx': b and b['tx'], 'other_pid': b and b['pid'],
                'other_held': b and [lk['row'] for lk in next(
                    x for x in txs if x['tx'] == b['tx'])['locks']]})
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
    retried = {}
    for t in txs:
        if t['attempt'] > 1:
            retried[t['req']] = t['outcome']
    for t in txs:
        t['start_iso'] = iso(t['start'])
    out = {'note': __doc__.strip(), 'wait_threshold_ms': WAIT_MS,
           'clock': {'faketime_skew_ms': round(float(skew_s) * 1000, 3),
                     'measured_offset_ms': round(off, 3), 'probes': clocks,
                     'meaning': 'app clock - server clock; spans are in the app clock'},
           'routes': routes, 'hot_rows': dict(sorted(
               rows.items(), key=lambda kv: -kv[1]['total_held_ms'])),
           'deadlocks': deadlocks,
           'retries': {'requests_retried': len(retried),
                       'retry_committed': sum(1 for v in retried.values() if v == 'commit')},
           'inexact_acquisitions': sum(1 for t in txs for lk in t['locks']
                                       if not lk['acquired_exact']),
           'waits': waits, 'transactions': txs}
    with open(dst, 'w', encoding='utf-8') as f:
        json.dump(out, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3])
