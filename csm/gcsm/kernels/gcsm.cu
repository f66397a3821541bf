// GCSM's matching kernel: an interpreter of the delta-query table (csm/gcsm/table.go; the
// constants below repeat its layout). One warp per anchored search (persistent warps take
// searches from a shared counter), depth-first, a level's candidates a chunk at a time: the lanes
// stride over the entries of the parent with the fewest entries of the level's label and check
// each candidate against every other constraint (edges and non-edges by binary search in the
// earlier vertices' lists, injectivity, symmetry bounds, the other graph's changed elements);
// the survivors are compacted into the level's buffer, and the last level is only counted (as
// are the independent tail levels, whose matches are the product of their candidates' numbers).
// A list is read from the device cache (DCSR; a per-vertex slot array gives a cached vertex's row)
// when it is there, else from the host's pinned memory through the mapping (zero-copy).

typedef unsigned int u32;
typedef unsigned long long u64;

#define MAXN 8
#define TERM_HEADER 8
#define LEVEL_WORDS 64
#define TERM_WORDS (TERM_HEADER + MAXN * LEVEL_WORDS)
#define T_N 0
#define T_ANCHORS 1
#define T_TAIL 3
#define L_VLANY 0
#define L_VL 1
#define L_NPAR 2
#define L_NONADJ 3
#define L_INJ 4
#define L_ABOVE 5
#define L_BELOW 6
#define L_OTHERV 7
#define L_OTHERP 8
#define L_PPOS 9
#define L_PELANY 17
#define L_PEL 25
#define L_OPADJ 33
#define L_OPELANY 41
#define L_OPEL 49
#define FULL 0xffffffffu
#define TASK_WORDS 6
// A spilled search (SPILL_WORDS): term, its host task, depth d (levels f[0..d-1] fixed and
// checked), flags (SF_ABS: level d's source is the absolute range [lo, hi) of its list), lo, hi,
// two spare words, f[0..MAXN-1].
#define SPILL_WORDS 16
#define SF_ABS 1u
// The control words (u64) of a launch (device.go's c* constants repeat them).
#define C_READS 0
#define C_HITS 1
#define C_OVF 2
#define C_NEXT 3
#define C_BUSY 4
#define C_BUSYMAX 5
#define C_TASKMAX 6
#define C_IDLE 7
#define C_SPILLS 8
#define C_REFUSED 9
#define C_POLL 10  // the two polling words of gpu.StopPollSource's stop_poll: the next read's time
#define C_STOP 11  // and the relayed flag
#define C_LISTERR 12
// A listed match (LIST_WORDS): the search's task (relative to the listing's first) and the data
// vertices in level order.
#define LIST_WORDS (1 + MAXN)

// Listing: where a search's matches go. Every task's matches have their own range of out
// (cursor[task] its next free record, set by the host from the counting launch's counts).
struct Lister {
  u32 *out;
  u64 *cursor;
  u64 cap;
  u64 *ctl;
};

struct Params {
  const u64 *hoff;
  const u32 *hlen, *hlab;
  const u64 *hkeys;
  const u32 *helab;
  u32 nrows;
  const u32 *slot; // per vertex: its row in the cache, or ~0
  const u64 *roff;
  const u32 *rlen;
  const u64 *ckeys;
  const u32 *celab;
  const u32 *cv, *cvAlive, *cvLabel;
  u32 ncv;
  const u64 *cpKey;
  const u32 *cpPresent, *cpLabel;
  u32 ncp;
  u32 *freq;
};

struct List {
  const u64 *k;
  const u32 *e;
  u32 n;
};

__device__ __forceinline__ Params loadParams(const u64 *w) {
  Params p;
  p.hoff = (const u64 *)w[0];
  p.hlen = (const u32 *)w[1];
  p.hlab = (const u32 *)w[2];
  p.hkeys = (const u64 *)w[3];
  p.helab = (const u32 *)w[4];
  p.nrows = (u32)w[5];
  p.slot = (const u32 *)w[6];
  p.roff = (const u64 *)w[7];
  p.rlen = (const u32 *)w[8];
  p.ckeys = (const u64 *)w[9];
  p.celab = (const u32 *)w[10];
  p.cv = (const u32 *)w[11];
  p.cvAlive = (const u32 *)w[12];
  p.cvLabel = (const u32 *)w[13];
  p.ncv = (u32)w[14];
  p.cpKey = (const u64 *)w[15];
  p.cpPresent = (const u32 *)w[16];
  p.cpLabel = (const u32 *)w[17];
  p.ncp = (u32)w[18];
  p.freq = (u32 *)w[19];
  return p;
}

// lowerBound is the first index i < n with a[i] >= x (n if none); a is sorted.
template <class T>
__device__ __forceinline__ u32 lowerBound(const T *a, u32 n, T x) {
  u32 lo = 0, hi = n;
  while (lo < hi) {
    u32 m = (lo + hi) >> 1;
    if (a[m] < x) lo = m + 1; else hi = m;
  }
  return lo;
}

// findSorted is x's index in the sorted a, or -1.
template <class T>
__device__ __forceinline__ int findSorted(const T *a, u32 n, T x) {
  const u32 i = lowerBound<T>(a, n, x);
  return (i < n && a[i] == x) ? (int)i : -1;
}

struct Counters {
  u64 reads, hits;
};

__device__ __forceinline__ List getList(const Params &P, u32 v, Counters &ct, u32 lane) {
  List L;
  if (lane == 0) {
    ct.reads++;
    if (P.freq) atomicAdd(&P.freq[v], 1u);
  }
  if (P.nrows) {
    u32 r = P.slot[v];
    if (r != 0xffffffffu) {
      if (lane == 0) ct.hits++;
      u64 o = P.roff[r];
      L.k = P.ckeys + o;
      L.e = P.celab + o;
      L.n = P.rlen[r];
      return L;
    }
  }
  u64 o = P.hoff[v];
  L.k = P.hkeys + o;
  L.e = P.helab + o;
  L.n = P.hlen[v];
  return L;
}

__device__ bool accept(const Params &P, const u32 *lv, int k, u32 c, u32 lab, int skip, const u32 *f, const List *ls) {
  if (!csm_order_ok(lv[L_INJ], lv[L_ABOVE], lv[L_BELOW], k, c, f)) return false;
  if (!lv[L_VLANY] && lab != lv[L_VL]) return false;
  u64 key = ((u64)lab << 32) | c;
  u32 np = lv[L_NPAR];
  for (u32 i = 0; i < np; i++) {
    if ((int)i == skip) continue;
    const List &L = ls[lv[L_PPOS + i]];
    int idx = findSorted<u64>(L.k, L.n, key);
    if (idx < 0) return false;
    if (!lv[L_PELANY + i] && L.e[idx] != lv[L_PEL + i]) return false;
  }
  u32 na = lv[L_NONADJ];
  for (int j = 0; j < k; j++) {
    if ((na & (1u << j)) && findSorted<u64>(ls[j].k, ls[j].n, key) >= 0) return false;
  }
  if (lv[L_OTHERV] && P.ncv) {
    int i = findSorted<u32>(P.cv, P.ncv, c);
    if (i >= 0 && (!P.cvAlive[i] || (!lv[L_VLANY] && P.cvLabel[i] != lv[L_VL]))) return false;
  }
  u32 om = lv[L_OTHERP];
  if (om && P.ncp) {
    for (int j = 0; j < k; j++) {
      if (!(om & (1u << j))) continue;
      u32 a = c, b = f[j];
      if (a > b) { u32 t = a; a = b; b = t; }
      int i = findSorted<u64>(P.cpKey, P.ncp, ((u64)a << 32) | b);
      if (i < 0) continue;
      bool valid = !P.cpPresent[i];
      if (lv[L_OPADJ + j]) valid = P.cpPresent[i] && (lv[L_OPELANY + j] || P.cpLabel[i] == lv[L_OPEL + j]);
      if (!valid) return false;
    }
  }
  return true;
}

__device__ __forceinline__ u64 nowNs() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ u64 vload(const u64 *p) { return *(volatile const u64 *)p; }

// stopped says whether the host raised its stop flag (warp-uniform): lane 0 asks stop_poll
// (package gpu's StopPollSource, prepended to this file), which lets one thread at a time read the
// pinned host word and relays it to ctl[C_STOP] in device memory.
__device__ bool stopped(const volatile u32 *stop, u64 *ctl, u32 lane) {
  if (stop == 0) return false;
  u32 s = 0;
  if (lane == 0) s = stop_poll(stop, &ctl[C_POLL]);
  return __shfl_sync(FULL, s, 0) != 0;
}

// Level state of the depth-first search: the level's source list (the parent with the fewest
// entries of its label) and how far the lanes got in it.
struct Src {
  u32 cur, end;
  int src;
};

// gen produces level k's accepted candidates (f[0..k-1] set). With first set it chooses the
// source list; else it goes on where the previous call stopped. With out non-null it compacts
// them into out and stops before exceeding cap (the level's buffer); with out null it counts
// them all; plo, phi (phi 0: all) narrow the source to a task's part, relative to the start of
// the label's range, or with abs the absolute range [plo, phi) of the source list (a spilled
// search). It returns their number.
__device__ u32 gen(const Params &P, const u32 *rec, int k, const u32 *f, u32 *out, u32 cap, Src &s, bool first,
                   u32 plo, u32 phi, bool abs, Counters &ct, u32 lane, const Lister *lst = 0, u32 orig = 0) {
  const u32 *lv = rec + TERM_HEADER + k * LEVEL_WORDS;
  List ls[MAXN];
  u32 need = lv[L_NONADJ];
  u32 np = lv[L_NPAR];
  for (u32 i = 0; i < np; i++) need |= 1u << lv[L_PPOS + i];
  for (int j = 0; j < k; j++) {
    if (need & (1u << j)) ls[j] = getList(P, f[j], ct, lane);
  }
  if (first) {
    u32 lo, hi;
    const int src = csm_source(lv + L_PPOS, np, ls, lv[L_VLANY] != 0, lv[L_VL], &lo, &hi);
    if (abs) {
      lo = plo;
      hi = phi;
    } else if (phi) { // the task's part of the source entries
      u32 a = min(lo + plo, hi), b = min(lo + phi, hi);
      lo = a;
      hi = b;
    }
    s.src = src;
    s.cur = lo;
    s.end = hi;
  }
  const List &S = ls[lv[L_PPOS + s.src]];
  bool elAny = lv[L_PELANY + s.src] != 0;
  u32 el = lv[L_PEL + s.src];
  u32 total = 0;
  while (s.cur < s.end && (!out || total + 32 <= cap)) {
    u32 i = s.cur + lane;
    bool ok = i < s.end;
    u32 c = 0;
    if (ok) {
      u64 key = S.k[i];
      c = (u32)key;
      ok = (elAny || S.e[i] == el) && accept(P, lv, k, c, (u32)(key >> 32), s.src, f, ls);
    }
    u32 m = __ballot_sync(FULL, ok);
    if (out && ok) out[total + __popc(m & ((1u << lane) - 1))] = c;
    if (lst && m) { // listing the last level: each match f[0..k-1], c in its task's range
      u64 at = 0;
      if (lane == 0) at = atomicAdd(&lst->cursor[orig], (u64)__popc(m));
      at = __shfl_sync(FULL, at, 0) + __popc(m & ((1u << lane) - 1));
      if (ok) {
        if (at < lst->cap) {
          u32 *r = lst->out + at * LIST_WORDS;
          r[0] = orig;
          for (int q = 0; q < MAXN; q++) r[1 + q] = q < k ? f[q] : (q == k ? c : 0u);
        } else {
          atomicExch(&lst->ctl[C_LISTERR], 1ull);
        }
      }
    }
    total += __popc(m);
    s.cur += 32;
  }
  s.cur = min(s.cur, s.end);
  __syncwarp();
  return total;
}

// tailCount counts the independent tail levels t..n-1 as the product of their candidates'
// numbers (plo, phi, abs: the search's part when t is its first free level); on overflow it
// sets ovf.
__device__ u64 tailCount(const Params &P, const u32 *rec, int t, int n, const u32 *f, Src *src, u32 plo, u32 phi,
                         bool abs, Counters &ct, u32 lane, bool &ovf) {
  u64 prod = 1;
  for (int i = t; i < n; i++) {
    u64 c = gen(P, rec, i, f, 0, 0, src[i], true, plo, phi, abs, ct, lane);
    plo = phi = 0;
    abs = false;
    if (c == 0) return 0;
    if (__umul64hi(prod, c) != 0) {
      ovf = true;
      return 0;
    }
    prod *= c;
  }
  return prod;
}

__device__ __forceinline__ void addCount(u64 &count, u64 x, bool &ovf) {
  if (count + x < count) ovf = true;
  count += x;
}

// spill writes what is left of a search, stopped at the top of its depth-first loop (levels
// d..k buffered, level k's candidate idx[k] not yet taken), as spilled searches for the next
// launch: per level j, each buffered candidate not yet taken (f[0..j-1] and it: depth j+1),
// and the rest of level j's source (depth j, SF_ABS). It reserves their room at once; when the
// spill buffer lacks it, it writes nothing and returns false (the warp goes on itself).
__device__ bool spill(int d, int k, u32 term, u32 orig, const u32 *f, const u32 *cnt, const u32 *idx, const Src *src,
                      const u32 *mybuf, u32 stride, u32 *out, u32 cap, u64 *ctl, u32 lane) {
  u32 R = 0;
  for (int j = d; j <= k; j++) R += cnt[j] - idx[j] - (j < k ? 1u : 0u) + (src[j].cur < src[j].end ? 1u : 0u);
  u64 base = 0;
  if (lane == 0) {
    u64 old = vload(&ctl[C_SPILLS]);
    for (;;) {
      if (old + R > cap) {
        base = ~0ull;
        atomicAdd(&ctl[C_REFUSED], 1ull);
        break;
      }
      u64 seen = atomicCAS(&ctl[C_SPILLS], old, old + R);
      if (seen == old) {
        base = old;
        break;
      }
      old = seen;
    }
  }
  base = __shfl_sync(FULL, base, 0);
  if (base == ~0ull) return false;
  u64 pos = base;
  for (int j = d; j <= k; j++) {
    const u32 from = idx[j] + (j < k ? 1u : 0u), m = cnt[j] - from;
    for (u32 i = lane; i < m; i += 32) {
      u32 *r = out + (pos + i) * SPILL_WORDS;
      r[0] = term;
      r[1] = orig;
      r[2] = (u32)j + 1;
      r[3] = r[4] = r[5] = r[6] = r[7] = 0;
      for (int q = 0; q < MAXN; q++) r[8 + q] = q < j ? f[q] : (q == j ? mybuf[j * stride + from + i] : 0u);
    }
    pos += m;
    if (src[j].cur < src[j].end) {
      if (lane == 0) {
        u32 *r = out + pos * SPILL_WORDS;
        r[0] = term;
        r[1] = orig;
        r[2] = (u32)j;
        r[3] = SF_ABS;
        r[4] = src[j].cur;
        r[5] = src[j].end;
        r[6] = r[7] = 0;
        for (int q = 0; q < MAXN; q++) r[8 + q] = q < j ? f[q] : 0u;
      }
      pos++;
    }
  }
  __syncwarp();
  return true;
}

// gcsm_match runs a phase's searches: in the first launch the host's tasks (TASK_WORDS each:
// term, anchors, pattern, part), in later ones (spilled set) the searches an earlier launch
// spilled (SPILL_WORDS each). Each warp's stack in buf holds levels buffers of stride candidates
// (levels: the largest pattern's vertices less one; the last level is never buffered).
// Persistent warps take searches from ctl[C_NEXT]; each adds its
// count to its host task's taskCounts entry. Load balance: once half of the launch's warps
// found no more searches (ctl[C_IDLE]), a warp whose search has run minSpillNs spills what is
// left of it into spillOut (at most spillCap records, counted in ctl[C_SPILLS]) and takes the
// next; the host launches again over the spilled searches until none is left. spillMask: the
// warps look every spillMask+1 steps of their loop; force (tests) spills at every look. When
// the host raises *stop, the warps leave their searches (ctl[C_STOP] set). With listOut set the
// launch lists: no tail is counted as a product, and each match of the last level is written to
// its task's range of listOut (cursor; C_LISTERR when a range overflows: a host error).
extern "C" __global__ void gcsm_match(const u64 *params, const u32 *table, const u32 *tasks, u32 ntasks, u32 spilled,
                                      u64 *taskCounts, u32 *buf, u32 stride, u32 levels, u64 *ctl, u32 *spillOut, u32 spillCap,
                                      u64 minSpillNs, u32 spillMask, u32 force, const volatile u32 *stop,
                                      u32 *listOut, u64 *cursor, u64 listCap) {
  const Lister lister = {listOut, cursor, listCap, ctl};
  const Lister *lst = listOut ? &lister : 0;
  const Params P = loadParams(params);
  const u32 lane = threadIdx.x & 31;
  const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const u64 nwarps = ((u64)gridDim.x * blockDim.x) >> 5;
  u32 *mybuf = buf + warp * levels * (u64)stride;
  Counters ct = {0, 0};
  u32 f[MAXN];
  u32 cnt[MAXN], idx[MAXN];
  Src src[MAXN];
  bool ovf = false;
  const u64 start = nowNs();
  u64 taskMax = 0;
  u32 tick = 0;
  for (;;) {
    if (stopped(stop, ctl, lane)) break;
    const u64 t0 = nowNs();
    u64 tt = 0;
    if (lane == 0) tt = atomicAdd(&ctl[C_NEXT], 1ull);
    tt = __shfl_sync(FULL, tt, 0);
    if (tt >= ntasks) break;
    const u32 t = (u32)tt;
    u32 term, orig, lo, hi;
    int d;
    bool abs = false, ok = true;
    const u32 *rec;
    if (!spilled) {
      const u32 *task = tasks + TASK_WORDS * (u64)t;
      term = task[0];
      orig = t;
      rec = table + (u64)term * TERM_WORDS;
      f[0] = task[1];
      f[1] = task[2];
      lo = task[4];
      hi = task[5];
      d = (int)rec[T_ANCHORS];
      // The anchor levels.
      for (int k = 0; k < d && ok; k++) {
        const u32 *lv = rec + TERM_HEADER + k * LEVEL_WORDS;
        List ls[MAXN];
        for (int j = 0; j < k; j++) {
          if ((lv[L_NONADJ] & (1u << j)) || (lv[L_NPAR] > 0 && lv[L_PPOS] == (u32)j)) ls[j] = getList(P, f[j], ct, lane);
        }
        ok = accept(P, lv, k, f[k], P.hlab[f[k]], -1, f, ls);
      }
    } else {
      const u32 *r = tasks + SPILL_WORDS * (u64)t;
      term = r[0];
      orig = r[1];
      d = (int)r[2];
      abs = (r[3] & SF_ABS) != 0;
      lo = r[4];
      hi = r[5];
      for (int q = 0; q < MAXN; q++) f[q] = r[8 + q];
      rec = table + (u64)term * TERM_WORDS;
    }
    const int n = (int)rec[T_N];
    const int tail = lst ? n : (int)rec[T_TAIL]; // listing enumerates every level
    u64 count = 0;
    if (ok) {
      if (n == d) {
        count = 1;
        if (lst) {
          u64 at = 0;
          if (lane == 0) at = atomicAdd(&cursor[orig], 1ull);
          at = __shfl_sync(FULL, at, 0);
          if (lane == 0) {
            if (at < listCap) {
              u32 *r = listOut + at * LIST_WORDS;
              r[0] = orig;
              for (int q = 0; q < MAXN; q++) r[1 + q] = q < n ? f[q] : 0u;
            } else {
              atomicExch(&ctl[C_LISTERR], 1ull);
            }
          }
        }
      } else if (tail == d) {
        count = tailCount(P, rec, d, n, f, src, lo, hi, abs, ct, lane, ovf);
      } else if (d == n - 1) {
        count = gen(P, rec, d, f, 0, 0, src[d], true, lo, hi, abs, ct, lane, lst, orig);
      } else {
        int k = d;
        cnt[k] = gen(P, rec, k, f, mybuf + k * stride, stride, src[k], true, lo, hi, abs, ct, lane);
        idx[k] = 0;
        for (;;) {
          if (idx[k] >= cnt[k]) {
            if (src[k].cur < src[k].end) { // the level's next chunk
              cnt[k] = gen(P, rec, k, f, mybuf + k * stride, stride, src[k], false, 0, 0, false, ct, lane);
              idx[k] = 0;
              continue;
            }
            if (k == d) break;
            k--;
            idx[k]++;
            continue;
          }
          if (((++tick) & spillMask) == 0) {
            if (stopped(stop, ctl, lane)) break;
            u32 go = 0;
            if (lane == 0 && spillOut)
              go = force || (nowNs() - t0 >= minSpillNs && 2 * vload(&ctl[C_IDLE]) >= nwarps);
            if (__shfl_sync(FULL, go, 0) && spill(d, k, term, orig, f, cnt, idx, src, mybuf, stride, spillOut, spillCap, ctl, lane))
              break;
          }
          f[k] = mybuf[k * stride + idx[k]];
          int k1 = k + 1;
          if (k1 == tail) {
            addCount(count, tailCount(P, rec, k1, n, f, src, 0, 0, false, ct, lane, ovf), ovf);
            idx[k]++;
          } else if (k1 == n - 1) {
            addCount(count, gen(P, rec, k1, f, 0, 0, src[k1], true, 0, 0, false, ct, lane, lst, orig), ovf);
            idx[k]++;
          } else {
            cnt[k1] = gen(P, rec, k1, f, mybuf + k1 * stride, stride, src[k1], true, 0, 0, false, ct, lane);
            idx[k1] = 0;
            k = k1;
          }
        }
      }
    }
    if (lane == 0 && count != 0) {
      const u64 old = atomicAdd(&taskCounts[orig], count);
      if (old + count < old) ovf = true;
    }
    taskMax = max(taskMax, nowNs() - t0);
    __syncwarp();
  }
  if (lane == 0) {
    const u64 busy = nowNs() - start;
    atomicAdd(&ctl[C_IDLE], 1ull);
    atomicAdd(&ctl[C_READS], ct.reads);
    atomicAdd(&ctl[C_HITS], ct.hits);
    if (ovf) atomicExch(&ctl[C_OVF], 1ull);
    atomicAdd(&ctl[C_BUSY], busy);
    atomicMax(&ctl[C_BUSYMAX], busy);
    atomicMax(&ctl[C_TASKMAX], taskMax);
  }
}

// gcsm_gather fills the device cache from the host graph through the mapping (one pass over the
// PCIe link, no host-side packing or staging): a block per row (rows[i], its entries at roff[i],
// rlen[i] of them), its threads striding over the row's keys and edge labels GATHER_UNROLL loads
// at a time each (so that a hub's row does not take a link round trip per 32 entries); each
// row's vertex gets its row number in slot. The rows are i = 0..nrows-1 (a rebuild: the host
// set slot to ~0 before), or with sel the rows sel[0..nrows-1] (an update of the kept cache), and the
// nevict vertices of evict (none of them a row's) get ~0.
#define GATHER_UNROLL 4
extern "C" __global__ void gcsm_gather(const u64 *hoff, const u64 *hkeys, const u32 *helab, const u32 *rows,
                                       const u64 *roff, const u32 *rlen, u32 nrows, u64 *ckeys, u32 *celab, u32 *slot,
                                       const u32 *sel, const u32 *evict, u32 nevict) {
  for (u32 j = blockIdx.x * blockDim.x + threadIdx.x; j < nevict; j += gridDim.x * blockDim.x) slot[evict[j]] = 0xffffffffu;
  for (u64 s = blockIdx.x; s < nrows; s += gridDim.x) {
    const u64 r = sel ? (u64)sel[s] : s;
    const u32 v = rows[r];
    const u64 from = hoff[v], to = roff[r];
    const u32 n = rlen[r];
    for (u32 i = threadIdx.x; i < n; i += GATHER_UNROLL * blockDim.x) {
      u64 k[GATHER_UNROLL];
      u32 e[GATHER_UNROLL];
#pragma unroll
      for (int j = 0; j < GATHER_UNROLL; j++) {
        const u32 at = i + j * blockDim.x;
        if (at < n) {
          k[j] = hkeys[from + at];
          e[j] = helab[from + at];
        }
      }
#pragma unroll
      for (int j = 0; j < GATHER_UNROLL; j++) {
        const u32 at = i + j * blockDim.x;
        if (at < n) {
          ckeys[to + at] = k[j];
          celab[to + at] = e[j];
        }
      }
    }
    if (threadIdx.x == 0) slot[v] = (u32)r;
  }
}
