#!/usr/bin/env python3
"""Build samples/blind-go/truth.json from what the Go app recorded.

  build_truth.py records.jsonl.gz clock.json postgresql.log truth.json

The truth comes from the client (app/shop.go's records: one line per
transaction attempt). The log is read only to tell which of the app's
waits and errors the server wrote (by pid and second), never for what
happened. All times are given in the client clock (µs since the epoch) and
in the server clock (client + offset_us); the syslog header has whole
seconds of the server's clock, no year.
"""
import collections
import gzip
import json
import re
import sys
import datetime

WAIT_US = 5000          # a locking statement longer than this waited
LOCK_LINE = re.compile(
    r'^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) \S+ postgres\[(\d+)\]: \[\d+-1\] \S* '
    r'(?:LOG|ERROR):  (process \d+ (still waiting|acquired|detected deadlock)'
    r'|deadlock detected|canceling statement due to lock timeout|duration: ([\d.]+) ms)')


def load_jsonl(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return [json.loads(l) for l in f if l.strip()]


def log_events(path, year):
    """(pid, kind, server second as epoch) of the log's lock and duration lines."""
    op = gzip.open if path.endswith('.gz') else open
    months = {m: i + 1 for i, m in enumerate('Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split())}
    out = []
    with op(path, 'rt') as f:
        for line in f:
            m = LOCK_LINE.match(line)
            if not m:
                continue
            ts = datetime.datetime(year, months[m.group(1)], int(m.group(2)), int(m.group(3)),
                                   int(m.group(4)), int(m.group(5)),
                                   tzinfo=datetime.timezone.utc).timestamp()
            kind = m.group(8) or ('duration' if m.group(9) else
                                  'deadlock' if 'deadlock' in m.group(7) else 'lock_timeout')
            out.append({'pid': int(m.group(6)), 'kind': kind, 'sec': int(ts),
                        'ms': float(m.group(9)) if m.group(9) else None})
    return out


def main():
    recs_path, clock_path, log_path, out_path = sys.argv[1:5]
    recs = load_jsonl(recs_path)
    clock = json.load(open(clock_path))
    off = clock['offset_us']
    year = datetime.datetime.fromtimestamp(recs[0]['start'] / 1e6, datetime.timezone.utc).year
    events = log_events(log_path, year)

    txs = []
    for i, r in enumerate(recs):
        r['id'] = i
        txs.append(r)

    # holds: per attempt and row, from the end of the first statement that
    # locked it (it had the lock then) to the end of COMMIT/ROLLBACK.
    holds = []
    for t in txs:
        end = t['stmts'][-1]['end']
        seen = {}
        for s in t['stmts']:
            if s.get('sqlstate'):
                break
            for lk in s.get('locks') or []:
                k = (lk['rel'], lk['key'])
                if k not in seen:
                    seen[k] = s['end']
        for (rel, key), acq in seen.items():
            holds.append({'tx': t['id'], 'path': t['path'], 'pid': t['pid'], 'rel': rel, 'key': key,
                          'start': acq, 'end': end, 'ms': (end - acq) / 1000.0,
                          'outcome': t['outcome']})
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[(h['rel'], h['key'])].append(h)

    # waits: a locking statement over WAIT_US (the row's first lock in the
    # attempt, or the statement that failed on it).
    waits = []
    for t in txs:
        held = set()
        for s in t['stmts']:
            new = [(lk['rel'], lk['key']) for lk in s.get('locks') or []
                   if (lk['rel'], lk['key']) not in held]
            dur = s['end'] - s['start']
            if new and dur > WAIT_US:
                rows = new
                blockers = []
                for k in rows:
                    for h in by_row[k]:
                        if h['tx'] == t['id']:
                            continue
                        ov = min(h['end'], s['end']) - max(h['start'], s['start'])
                        if ov > 0:
                            blockers.append({'tx': h['tx'], 'path': h['path'], 'pid': h['pid'],
                                             'rel': k[0], 'key': k[1], 'overlap_ms': ov / 1000.0})
                waits.append({'tx': t['id'], 'path': t['path'], 'pid': t['pid'],
                              'rows': [list(k) for k in rows], 'sql': s['sql'],
                              'start': s['start'], 'end': s['end'], 'ms': dur / 1000.0,
                              'sqlstate': s.get('sqlstate'), 'blockers': blockers})
            held.update(new)
            if s.get('sqlstate'):
                break

    # which waits and errors the server logged: a lock line or a duration
    # line of that pid within the wait's seconds (server clock, whole seconds)
    ev_by_pid = collections.defaultdict(list)
    for e in events:
        ev_by_pid[e['pid']].append(e)
    for w in waits:
        lo = int((w['start'] + off) // 1_000_000)
        hi = int((w['end'] + off) // 1_000_000) + 1
        kinds = sorted({e['kind'] for e in ev_by_pid[w['pid']] if lo <= e['sec'] <= hi})
        w['log_lines'] = kinds
        w['lock_logged'] = w['ms'] >= 990 and any(k in ('still waiting', 'detected deadlock', 'acquired') for k in kinds)
        w['duration_logged'] = w['ms'] >= 250 and w['sqlstate'] is None

    contended = {tuple(r) for w in waits for r in w['rows']}
    occ = collections.Counter()
    for h in holds:
        if (h['rel'], h['key']) in contended:
            occ[h['path']] += h['ms']
    blocking = collections.Counter()
    for w in waits:
        for b in w['blockers']:
            blocking[b['path']] += b['overlap_ms']
    row_wait = collections.Counter()
    row_waits_n = collections.Counter()
    for w in waits:
        for r in w['rows']:
            row_wait['%s %s' % tuple(r)] += w['ms']
            row_waits_n['%s %s' % tuple(r)] += 1

    def tx_summary(t):
        return {'id': t['id'], 'path': t['path'], 'req': t['req'], 'attempt': t['attempt'],
                'pid': t['pid'], 'start': t['start'], 'end': t['end'],
                'server_start': t['start'] + off, 'server_end': t['end'] + off,
                'outcome': t['outcome'], 'sqlstate': t.get('sqlstate'), 'retried': t['retried'],
                'pool_wait_ms': (t['acquire_end'] - t['acquire_start']) / 1000.0,
                'slow_call_ms': ((t['slow_call'][1] - t['slow_call'][0]) / 1000.0
                                 if t.get('slow_call') else None),
                'params': t['params'],
                'stmts': [{'sql': s['sql'], 'start': s['start'], 'end': s['end'],
                           'locks': s.get('locks') or [], 'sqlstate': s.get('sqlstate')}
                          for s in t['stmts']]}

    by_req = collections.defaultdict(list)
    for t in txs:
        by_req[t['req']].append(t)

    def final(t):
        last = max(by_req[t['req']], key=lambda x: x['attempt'])
        return last['outcome']

    deadlocks = [{'tx': t['id'], 'pid': t['pid'], 'path': t['path'], 'req': t['req'],
                  'attempt': t['attempt'], 'time': t['stmts'][-2]['end'],
                  'server_time': t['stmts'][-2]['end'] + off,
                  'retried': t['retried'], 'request_final_outcome': final(t),
                  'row_waited': t['stmts'][-2]['locks'][0]}
                 for t in txs if t.get('sqlstate') == '40P01']
    timeouts = [{'tx': t['id'], 'pid': t['pid'], 'path': t['path'], 'req': t['req'],
                 'time': t['stmts'][-2]['end'], 'server_time': t['stmts'][-2]['end'] + off,
                 'retried': t['retried'], 'row_waited': t['stmts'][-2]['locks'][0]}
                for t in txs if t.get('sqlstate') == '55P03']
    pools = [(t['acquire_end'] - t['acquire_start']) / 1000.0 for t in txs]
    slow = [tx_summary(t)['slow_call_ms'] for t in txs if t.get('slow_call')]
    pids = sorted({t['pid'] for t in txs})

    truth = {
        'what': 'samples/blind-go: client-side truth of app/shop.go (pgx v4, pgxpool 8 conns, '
                '16 goroutines); times in µs since the epoch, client clock; server = client + offset_us',
        'clock': clock,
        'wait_threshold_us': WAIT_US,
        'backend_pids': pids,
        'counts': {
            'attempts': len(txs),
            'requests': len(by_req),
            'by_path': dict(collections.Counter(t['path'] for t in txs)),
            'by_path_outcome': {'%s %s %s' % k: v for k, v in sorted(collections.Counter(
                (t['path'], t['outcome'], t.get('sqlstate') or '-') for t in txs).items())},
            'holds': len(holds),
            'waits': len(waits),
            'wait_ms': round(sum(w['ms'] for w in waits), 1),
            'waits_over_1s': sum(1 for w in waits if w['ms'] >= 1000),
            'waits_lock_logged': sum(1 for w in waits if w['lock_logged']),
            'waits_lock_logged_ms': round(sum(w['ms'] for w in waits if w['lock_logged']), 1),
            'waits_duration_logged': sum(1 for w in waits if w['duration_logged']),
            'waits_unlogged': sum(1 for w in waits if not w['lock_logged'] and not w['duration_logged']),
            'waits_unlogged_ms': round(sum(w['ms'] for w in waits
                                           if not w['lock_logged'] and not w['duration_logged']), 1),
            'deadlocks': len(deadlocks),
            'deadlocks_retried': sum(1 for d in deadlocks if d['retried']),
            'deadlock_requests_failed_in_the_end': sum(
                1 for r, ts in by_req.items()
                if any(t.get('sqlstate') == '40P01' for t in ts)
                and max(ts, key=lambda x: x['attempt'])['outcome'] != 'commit'),
            'lock_timeouts': len(timeouts),
            'lock_timeouts_retried': sum(1 for d in timeouts if d['retried']),
            'pool_wait_ms_total': round(sum(pools), 1),
            'pool_wait_ms_max': round(max(pools), 1),
            'slow_call_ms_total': round(sum(slow), 1),
            'slow_calls': len(slow),
            'log_lines': {k: sum(1 for e in events if e['kind'] == k)
                          for k in sorted({e['kind'] for e in events})},
        },
        'rows': {k: {'waits': row_waits_n[k], 'wait_ms': round(v, 1),
                     'holds': len(by_row[tuple(k.split(' ', 1))]),
                     'held_ms': round(sum(h['ms'] for h in by_row[tuple(k.split(' ', 1))]), 1)}
                 for k, v in row_wait.most_common()},
        'rankings': {
            'occupancy_ms_by_path': {k: round(v, 1) for k, v in occ.most_common()},
            'blocking_ms_by_path': {k: round(v, 1) for k, v in blocking.most_common()},
        },
        'findings_deserved': {
            'deadlocks': 'transferCredit locks two accounts in request order; %d deadlocks, '
                         'every victim a transferCredit, retried' % len(deadlocks),
            'lock_order': 'inconsistent lock order on accounts (same SELECT ... FOR UPDATE in '
                          'both processes of every cycle)',
            'lock_timeouts': 'restock gives up on 55P03 (SET lock_timeout = 500ms), never retried',
            'hot_row': 'inventory SKU-1 (reserveWithPayment holds it across a 300-800 ms '
                       'outbound call) and accounts rows',
            'idle_in_transaction_holder': 'reserveWithPayment: the row is held while the '
                                          'client sleeps (no statement runs)',
            'hot_counter': 'daily_totals today: bumped by the orders trigger in every '
                           'placeOrder; short waits (never logged: none reach 250 ms or 1 s)',
        },
        'findings_not_deserved': {
            'lock_queue_behind_ddl': 'no DDL ran during the load',
            'serialization_failure': 'no 40001: READ COMMITTED only',
            'external_call_span': 'no traces: the slow call cannot be named as a span',
        },
        'knowable_from_log': {
            'yes': [
                'each deadlock: victim pid, second, DETAIL with the cycle and each process\'s '
                'statement (with $n, no parameters), the tuple ctid and relation',
                'each lock timeout: pid, second, the UPDATE inventory statement (no parameters)',
                'lock waits whose one lock sleep passed deadlock_timeout 1s: still waiting / '
                'acquired with the holder pid and wait queue',
                'statements that ran 250 ms or more (lock waits included) with their '
                'parameters ($1 = \'SKU-1\'): the row for inventory and accounts',
                'the application_name (shop-api, the same for every path), user and database',
            ],
            'no': [
                'code paths (Go funcs): one application_name for all, statements under 250 ms '
                'never logged',
                'hold times and occupancy: no BEGIN, COMMIT or short statement is logged, so a '
                'hold\'s start and end are unknown; rankings by occupancy are not knowable',
                'the slow outbound call (reserveWithPayment sleeps with the row held): no '
                'statement runs during it',
                'waits under 250 ms and the lock sleeps under 1 s of longer waits (the '
                'daily_totals hot counter is invisible)',
                'whether a deadlock victim or a lock timeout was retried (no statement logged '
                'after it unless slow); which backend runs which path',
                'time finer than a second (syslog header; no %m in the prefix), the year',
                'the pool: 16 goroutines wait for 8 connections (client-side pool waits)',
            ],
        },
        'transactions': [tx_summary(t) for t in txs],
        'holds': holds,
        'waits': waits,
        'deadlocks': deadlocks,
        'lock_timeouts': timeouts,
    }
    with open(out_path, 'w') as f:
        json.dump(truth, f, indent=0, sort_keys=False)
        f.write('\n')


if __name__ == '__main__':
    main()
