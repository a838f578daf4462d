"""Sum a `LOCKSPAN_TIMING=sql-all lockspan report` stderr's pass statements
by kind and unit (kinds.txt: statement id, kind, unit, decided by hand
from each statement's text and runs at 1 GiB; docs/streaming.md, "The
streaming design, measured"). Usage: kinds.py SQL_ALL_STDERR [by-pass]"""
import collections
import os
import re
import sys

over = {}
for l in open(os.path.join(os.path.dirname(__file__), "kinds.txt")):
    a=l.split(); over[a[0]]=(a[1],a[2])
cat=collections.Counter(); unit=collections.Counter(); cov=0; S=0
bp=collections.defaultdict(collections.Counter)
for l in open(sys.argv[1]):
    m=re.match(r'lockspan: sql\s+(\d+) steps\s+([\d.]+) s\s+(\d+) runs\s+#(\w+) \[(.*?)\] (.*)',l)
    if not m: continue
    steps,hid,pas,text=int(m.group(1)),m.group(4),m.group(5),m.group(6)
    if pas=='-': continue
    S+=steps
    if hid in over:
        c,u=over[hid]; cov+=steps
    else:
        c,u='rest','rest'
    cat[c]+=steps; unit[u]+=steps; bp[pas][c]+=steps
print(f'pass statements {S:,}; classified by hand {cov:,} ({100*cov/S:.1f}%)')
for k,v in cat.most_common(): print(f'  {k:10s} {v:>12,} {100*v/S:5.1f}%')
for k,v in unit.most_common(): print(f'  per {k:6s} {v:>12,} {100*v/S:5.1f}%')
if len(sys.argv)>2:
  for p,c in bp.items(): print(' ',p, {k:f'{v/1e6:.2f}' for k,v in c.items()})
