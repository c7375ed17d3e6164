"""Issue 21's targets for every continuation client of a PeersBenchmark run, medians of the
within-round ratios: python3 targets-by-hand.py <folder with reconnect/ and keepalive/>.
Reads run a (main: cont1 = MINA's default processors, cont1-p1 = one) and run b (lead16: cont1 =
one processor, cont1-pn = MINA's default)."""
import csv, os, re, statistics as st, sys

BASE, VT = 'netty 4.1 callbacks', 'VT java.net.Socket'


def clients(names):
    if 'weft cont(1) mina, 1 processor' in names:
        one, many = 'weft cont(1) mina, 1 processor', 'weft cont(1) mina'
    else:
        one = 'weft cont(1) mina'
        many = next(n for n in names if re.fullmatch(r'weft cont\(1\) mina, \d+ processors', n))
    return {one: ('MINA 1p', 0.9), many: ('MINA 3p', 0.9), 'weft cont(1) netty': ('Netty', 0.95)}


folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for wl in ('reconnect', 'keepalive'):
    by = {}
    for r in csv.DictReader(open(os.path.join(folder, wl, 'peers.csv'))):
        by[(int(r['sessions']), int(r['round']), r['client'])] = r
    print(f'## {wl}')
    for n in sorted({k[0] for k in by}):
        rounds = sorted({k[1] for k in by if k[0] == n})
        for c, (name, need) in clients({k[2] for k in by}).items():
            rt, cpu, v, p99, cs = [], [], [], [], []
            for rd in rounds:
                a, b, w = by.get((n, rd, c)), by.get((n, rd, BASE)), by.get((n, rd, VT))
                if not a:
                    continue
                rt.append(float(a['round_trips_per_s']) / float(b['round_trips_per_s']))
                cpu.append(float(a['cpu_us_per_rt']) / float(b['cpu_us_per_rt']))
                v.append(float(a['round_trips_per_s']) / float(w['round_trips_per_s']))
                p99.append(float(a['p99_us']) / float(b['p99_us']))
                cs.append(float(a['context_switches_per_rt']))
            m = st.median
            r1 = 'MET' if m(rt) >= need and m(cpu) <= 1.2 else 'MISSED'
            r2 = 'MET' if m(v) >= 1.3 else 'MISSED'
            r3 = 'MET' if m(cs) <= 0.02 else 'MISSED'
            p = f" p99 {m(p99):.2f}x {'MET' if m(p99) <= 1.0 else 'MISSED'}" if n == 10000 else ''
            print(f'N={n:>6} {name:8s} rt {m(rt):.3f}x cpu {m(cpu):.3f}x {r1:6s} | xVT {m(v):.3f} {r2:6s}'
                  f' | ctx {m(cs):.3f} {r3}{p}')
