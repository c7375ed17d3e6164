import csv,sys,statistics as st
def load(f):
  rows=list(csv.DictReader(open(f))); by={}
  for r in rows: by[(int(r['sessions']),int(r['round']),r['client'])]=r
  return by
base='netty 4.1 callbacks'; vt='VT java.net.Socket'
C={'weft cont(1) mina':('MINA 1p',0.9),'weft cont(1) mina, 3 processors':('MINA 3p',0.9),'weft cont(1) netty':('Netty',0.95)}
for wl in sys.argv[1:]:
  by=load(f'/tmp/q16b/{wl}/peers.csv')
  Ns=sorted({k[0] for k in by})
  print(f"## {wl}")
  for N in Ns:
    rounds=sorted({k[1] for k in by if k[0]==N})
    for c,(name,need) in C.items():
      rt=[];cpu=[];v=[];p99=[];cs=[]
      for R in rounds:
        a=by.get((N,R,c)); b=by.get((N,R,base)); w=by.get((N,R,vt))
        if not a: continue
        rt.append(float(a['round_trips_per_s'])/float(b['round_trips_per_s']))
        cpu.append(float(a['cpu_us_per_rt'])/float(b['cpu_us_per_rt']))
        v.append(float(a['round_trips_per_s'])/float(w['round_trips_per_s']))
        p99.append(float(a['p99_us'])/float(b['p99_us']))
        cs.append(float(a['context_switches_per_rt']))
      m=st.median
      r1='MET' if m(rt)>=need and m(cpu)<=1.2 else 'MISSED'
      r2='MET' if m(v)>=1.3 else 'MISSED'
      r3='MET' if m(cs)<=0.02 else 'MISSED'
      p=f" p99 {m(p99):.2f}x {'MET' if m(p99)<=1.0 else 'MISSED'}" if N==10000 else ''
      print(f"N={N:>6} {name:8s} rt {m(rt):.3f}x cpu {m(cpu):.3f}x {r1:6s} | xVT {m(v):.3f} {r2:6s} | ctx {m(cs):.3f} {r3}{p}")
