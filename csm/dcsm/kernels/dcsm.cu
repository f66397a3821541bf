// DCSM's kernels (csm/dcsm): the updater, which rewrites every vertex a wave of updates touches
// into a new block of the multi-version graph (one warp a vertex), and the executor, which runs
// every anchored search of every update of the wave against the versions visible at the update's
// own timestamp (one warp a search, persistent warps taking the next from a shared counter). The
// table layout repeats csm/dcsm/table.go, the wave's records wave.go.
//
// The pool: per entry a key (the neighbour's vertex label << 32 | its id), an edge label, and the
// interval [c, d) of timestamps in which the version exists; a vertex's entries are sorted by
// (key, c) in its block (voff, vlen).

typedef unsigned int u32;
typedef unsigned long long u64;

#define MAXN 8
#define TERM_HEADER 4
#define LEVEL_WORDS 32
#define TERM_WORDS (TERM_HEADER + MAXN * LEVEL_WORDS)
#define T_N 0
#define L_VLANY 0
#define L_VL 1
#define L_NPAR 2
#define L_NONADJ 3
#define L_INJ 4
#define L_ABOVE 5
#define L_BELOW 6
#define L_PPOS 7
#define L_PELANY 14
#define L_PEL 21
#define VREC_WORDS 12
#define TASK_WORDS 8
#define INF 0xffffffffu
#define MARK 0xffffffffu
#define FULL 0xffffffffu

// WARP is the lanes of a warp: 32, or 1 where internal/cudahost runs the executor and the lister
// on the host (one thread a warp; TestKernelHost).
#ifdef CUDAHOST
#define WARP 1
#include <algorithm>
using std::min;
template <class T> T __shfl_sync(unsigned, T x, int) { return x; }
#else
#define WARP 32
#endif

struct Pool {
  u64 *key;
  u32 *el, *c, *d;
  u64 *voff;
  u32 *vlen;
};

__device__ __forceinline__ Pool loadPool(const u64 *w) {
  Pool p;
  p.key = (u64 *)w[0];
  p.el = (u32 *)w[1];
  p.c = (u32 *)w[2];
  p.d = (u32 *)w[3];
  p.voff = (u64 *)w[4];
  p.vlen = (u32 *)w[5];
  return p;
}

// dcsm_update rewrites the wave's touched vertices. Pass 1 moves the kept entries (visible to a
// read at the wave's first timestamp or later) to their merged positions: their rank among the
// kept plus the insertions of smaller key; pass 2 fills the slots left with the insertions, in
// order; pass 3 ends, for each deletion, the last version of its key created before it.
extern "C" __global__ void dcsm_update(const u64 *pool, const u32 *vrec, u32 nv, const u64 *ikey, const u32 *iel,
                                       const u32 *ic, const u64 *dkey, const u32 *dt, u32 first, u32 *err) {
  const Pool P = loadPool(pool);
  const u32 lane = threadIdx.x & 31;
  const u32 nwarps = (gridDim.x * blockDim.x) >> 5;
  for (u32 r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < nv; r += nwarps) {
    const u32 *R = vrec + (u64)r * VREC_WORDS;
    const u32 v = R[0];
    const u64 oo = (u64)R[1] | ((u64)R[2] << 32), no = (u64)R[4] | ((u64)R[5] << 32);
    const u32 on = R[3], nn = R[6], ia = R[7], ib = R[8], da = R[9], db = R[10];
    for (u32 i = lane; i < nn; i += 32) P.c[no + i] = MARK;
    __syncwarp();
    u32 base = 0;
    for (u32 s = 0; s < on; s += 32) {
      const u32 i = s + lane;
      const bool keep = i < on && P.d[oo + i] >= first;
      const u32 m = __ballot_sync(FULL, keep);
      if (keep) {
        const u64 k = P.key[oo + i];
        const u64 p = no + base + __popc(m & ((1u << lane) - 1)) + csm_lower_bound(ikey + ia, ib - ia, k);
        if (p < no + nn) {
          P.key[p] = k;
          P.el[p] = P.el[oo + i];
          P.c[p] = P.c[oo + i];
          P.d[p] = P.d[oo + i];
        } else {
          atomicExch(err, 1u); // more kept than planned: never past the new block
        }
      }
      base += __popc(m);
    }
    __syncwarp();
    u32 g = 0;
    for (u32 s = 0; s < nn; s += 32) {
      const u32 i = s + lane;
      const bool gap = i < nn && P.c[no + i] == MARK;
      const u32 m = __ballot_sync(FULL, gap);
      if (gap) {
        const u32 j = ia + g + __popc(m & ((1u << lane) - 1));
        if (j < ib) {
          P.key[no + i] = ikey[j];
          P.el[no + i] = iel[j];
          P.c[no + i] = ic[j];
          P.d[no + i] = INF;
        }
      }
      g += __popc(m);
    }
    __syncwarp();
    for (u32 j = da + lane; j < db; j += 32) {
      const u64 k = dkey[j];
      const u32 t = dt[j];
      int hit = -1;
      for (u32 i = csm_lower_bound(P.key + no, nn, k); i < nn && P.key[no + i] == k; i++) {
        if (P.c[no + i] < t) hit = (int)i;
      }
      if (hit >= 0) P.d[no + hit] = t; else atomicExch(err, 2u);
    }
    __syncwarp();
    if (lane == 0) {
      if (g != ib - ia || base + g != nn) atomicExch(err, 1u);
      P.voff[v] = no;
      P.vlen[v] = nn;
    }
  }
}

struct List {
  const u64 *k;
  const u32 *e, *c, *d;
  u32 n;
};

__device__ __forceinline__ List getList(const Pool &P, u32 v) {
  List L;
  const u64 o = P.voff[v];
  L.k = P.key + o;
  L.e = P.el + o;
  L.c = P.c + o;
  L.d = P.d + o;
  L.n = P.vlen[v];
  return L;
}

// findVisible is the index of key's version visible at tau in L, or -1.
__device__ __forceinline__ int findVisible(const List &L, u64 key, u32 tau) {
  for (u32 i = csm_lower_bound(L.k, L.n, key); i < L.n && L.k[i] == key; i++) {
    if (L.c[i] <= tau && tau < L.d[i]) return (int)i;
  }
  return -1;
}

__device__ bool accept(const u32 *lv, int k, u32 c, u32 lab, int skip, const u32 *f, const List *ls, u32 tau) {
  if (!csm_order_ok(lv[L_INJ], lv[L_ABOVE], lv[L_BELOW], k, c, f)) return false;
  if (!lv[L_VLANY] && lab != lv[L_VL]) return false;
  const u64 key = ((u64)lab << 32) | c;
  const u32 np = lv[L_NPAR];
  for (u32 i = 0; i < np; i++) {
    if ((int)i == skip) continue;
    const List &L = ls[lv[L_PPOS + i]];
    const int at = findVisible(L, key, tau);
    if (at < 0) return false;
    if (!lv[L_PELANY + i] && L.e[at] != lv[L_PEL + i]) return false;
  }
  const u32 na = lv[L_NONADJ];
  for (int j = 0; j < k; j++) {
    if ((na & (1u << j)) && findVisible(ls[j], key, tau) >= 0) return false;
  }
  return true;
}

// Src is a level's source list (the parent with the fewest entries of its label) and how far
// the lanes got in it.
struct Src {
  u32 cur, end;
  int src;
};

// gen produces level k's accepted candidates (f[0..k-1] set), a chunk of source entries at a
// time: with first set it chooses the source (and with phi non-zero narrows it to a search's
// part); with out non-null it compacts them into out and
// stops before exceeding cap; with out null it counts them all. It returns their number.
__device__ u32 gen(const Pool &P, const u32 *rec, int k, const u32 *f, u32 *out, u32 cap, Src &s, bool first, u32 tau,
                   u32 plo, u32 phi, u32 lane) {
  const u32 *lv = rec + TERM_HEADER + k * LEVEL_WORDS;
  List ls[MAXN];
  u32 need = lv[L_NONADJ];
  const u32 np = lv[L_NPAR];
  for (u32 i = 0; i < np; i++) need |= 1u << lv[L_PPOS + i];
  for (int j = 0; j < k; j++) {
    if (need & (1u << j)) ls[j] = getList(P, f[j]);
  }
  if (first) {
    u32 lo, hi;
    const int src = csm_source(lv + L_PPOS, np, ls, lv[L_VLANY] != 0, lv[L_VL], &lo, &hi);
    if (phi) { // a part of the search: entries [plo, phi) of the source range (phi ~0: to its end)
      const u32 a = (u32)min((u64)lo + plo, (u64)hi);
      const u32 b = phi == 0xffffffffu ? hi : (u32)min((u64)lo + phi, (u64)hi);
      lo = a;
      hi = b;
    }
    s.src = src;
    s.cur = lo;
    s.end = hi;
  }
  const List &S = ls[lv[L_PPOS + s.src]];
  const bool elAny = lv[L_PELANY + s.src] != 0;
  const u32 el = lv[L_PEL + s.src];
  u32 total = 0;
  while (s.cur < s.end && (!out || total + WARP <= cap)) {
    const u32 i = s.cur + lane;
    bool ok = i < s.end;
    u32 c = 0;
    if (ok) {
      const u64 key = S.k[i];
      c = (u32)key;
      ok = S.c[i] <= tau && tau < S.d[i] && (elAny || S.e[i] == el) && accept(lv, k, c, (u32)(key >> 32), s.src, f, ls, tau);
    }
    const u32 m = __ballot_sync(FULL, ok);
    if (out && ok) out[total + __popc(m & ((1u << lane) - 1))] = c;
    total += __popc(m);
    s.cur += WARP;
  }
  __syncwarp();
  return total;
}

__device__ __forceinline__ void addCount(u64 &count, u64 x, bool &ovf) {
  if (count + x < count) ovf = true;
  count += x;
}

// Win is a listing launch's range of one search's matches: those of ranks [skip, skip + room) in
// the search's fixed order go to out (MAXN words a match, level order) from its first slot;
// seen counts every match enumerated so far.
struct Win {
  u32 *out;
  u64 skip, room, seen;
};

// put writes the match f[0..n-1] (rank W.seen + i) if its rank is in the window.
__device__ __forceinline__ void put(Win &W, u64 i, const u32 *f, int n, u32 last) {
  const u64 j = W.seen + i;
  if (j < W.skip || j - W.skip >= W.room) return;
  u32 *o = W.out + (j - W.skip) * MAXN;
  for (int q = 0; q < n - 1; q++) o[q] = f[q];
  o[n - 1] = last;
}

// leaf handles the last level k (f[0..k-1] set): counts its candidates, or with LIST lists
// them through buf (the level's candidates, a chunk at a time, in source order) into W.
template <bool LIST>
__device__ u64 leaf(const Pool &P, const u32 *rec, int k, const u32 *f, u32 *buf, u32 stride, Src &s, u32 tau, u32 plo,
                    u32 phi, u32 lane, Win &W) {
  if (!LIST) return gen(P, rec, k, f, 0, 0, s, true, tau, plo, phi, lane);
  u64 total = 0;
  bool first = true;
  do {
    const u32 cnt = gen(P, rec, k, f, buf, stride, s, first, tau, plo, phi, lane);
    first = false;
    for (u32 i = lane; i < cnt; i += WARP) put(W, i, f, k + 1, buf[i]);
    W.seen += cnt;
    total += cnt;
    __syncwarp();
  } while (s.cur < s.end && W.seen < W.skip + W.room); // past the window: nothing more to write
  return total;
}

// walk runs one anchored search (levels 2 on; the host checked the anchors) and returns its
// matches; with LIST it also lists them into W, in the order it always enumerates them, and
// stops once the window is written (a window's launch walks ranks up to skip + room, not the
// whole search: its return value is then not the search's count; W.seen is at least the ranks
// the window needs).
template <bool LIST>
__device__ u64 walk(const Pool &P, const u32 *rec, const u32 *task, u32 *mybuf, u32 stride, u32 lane, bool &ovf, Win &W) {
  u32 f[MAXN], cnt[MAXN], idx[MAXN];
  Src src[MAXN];
  const int n = (int)rec[T_N];
  const u32 tau = task[3];
  f[0] = task[1];
  f[1] = task[2];
  if (n == 2) {
    if (LIST) {
      if (lane == 0) put(W, 0, f, 2, f[1]);
      W.seen++;
    }
    return 1;
  }
  if (n == 3) return leaf<LIST>(P, rec, 2, f, mybuf + 2 * stride, stride, src[2], tau, task[6], task[7], lane, W);
  u64 count = 0;
  int k = 2;
  cnt[k] = gen(P, rec, k, f, mybuf + k * stride, stride, src[k], true, tau, task[6], task[7], lane);
  idx[k] = 0;
  for (;;) {
    if (LIST && W.seen >= W.skip + W.room) break; // the window is written: a listing walk ends there
    if (idx[k] >= cnt[k]) {
      if (src[k].cur < src[k].end) { // the level's next chunk
        cnt[k] = gen(P, rec, k, f, mybuf + k * stride, stride, src[k], false, tau, 0, 0, lane);
        idx[k] = 0;
        continue;
      }
      if (k == 2) break;
      k--;
      idx[k]++;
      continue;
    }
    f[k] = mybuf[k * stride + idx[k]];
    const int k1 = k + 1;
    if (k1 == n - 1) {
      addCount(count, leaf<LIST>(P, rec, k1, f, mybuf + k1 * stride, stride, src[k1], tau, 0, 0, lane, W), ovf);
      idx[k]++;
    } else {
      cnt[k1] = gen(P, rec, k1, f, mybuf + k1 * stride, stride, src[k1], true, tau, 0, 0, lane);
      idx[k1] = 0;
      k = k1;
    }
  }
  return count;
}

// warpBuf is the calling warp's part of the stacks (MAXN levels of stride candidates).
__device__ __forceinline__ u32 *warpBuf(u32 *buf, u32 stride) {
  const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  return buf + warp * MAXN * (u64)stride;
}

// nextTask is the next search a warp takes (idle warps compete for the next): from, plus the
// searches taken so far (flags[0]).
__device__ __forceinline__ u32 nextTask(u32 *flags, u32 from, u32 lane) {
  u32 t = 0;
  if (lane == 0) t = from + atomicAdd(&flags[0], 1u);
  return __shfl_sync(FULL, t, 0);
}

// dcsm_match runs the wave's anchored searches and adds each one's count to its update's
// counter (and, with tcounts non-null, stores it by search: listing); flags[0] is the next
// search, flags[1] set on overflow.
extern "C" __global__ void dcsm_match(const u64 *pool, const u32 *table, const u32 *tasks, u32 ntasks, u64 *counts,
                                      u64 *tcounts, u32 *buf, u32 stride, u32 *flags) {
  const Pool P = loadPool(pool);
  const u32 lane = threadIdx.x & 31;
  u32 *mybuf = warpBuf(buf, stride);
  bool ovf = false;
  for (;;) {
    const u32 t = nextTask(flags, 0, lane);
    if (t >= ntasks) break;
    const u32 *task = tasks + TASK_WORDS * (u64)t;
    const u32 *rec = table + (u64)task[0] * TERM_WORDS;
    Win W = {0, 0, 0, 0};
    const u64 count = walk<false>(P, rec, task, mybuf, stride, lane, ovf, W);
    if (lane == 0 && tcounts) tcounts[t] = count;
    if (lane == 0 && count) {
      u64 *slot = &counts[2 * (u64)task[4] + task[5]];
      const u64 old = atomicAdd(slot, count);
      if (old + count < old) ovf = true;
    }
    __syncwarp();
  }
  if (lane == 0 && ovf) atomicExch(&flags[1], 1u);
}

// dcsm_list lists the matches of the counted searches [lo, hi) of the wave just run (before the
// next wave's updater changes the pool): with limit 0, search t's into out from slot
// cursor[t - lo] (the counts of the searches before it) and listed[t - lo] the matches it found;
// with limit > 0 (one search), the ranks [skip, skip + limit) of its matches from slot 0 and
// listed[0] the matches written. flags[0] is the next search, flags[1] set on overflow.
extern "C" __global__ void dcsm_list(const u64 *pool, const u32 *table, const u32 *tasks, u32 lo, u32 hi,
                                     const u64 *cursor, u64 skip, u64 limit, u32 *out, u64 *listed, u32 *buf, u32 stride,
                                     u32 *flags) {
  const Pool P = loadPool(pool);
  const u32 lane = threadIdx.x & 31;
  u32 *mybuf = warpBuf(buf, stride);
  bool ovf = false;
  for (;;) {
    const u32 t = nextTask(flags, lo, lane);
    if (t >= hi) break;
    const u32 *task = tasks + TASK_WORDS * (u64)t;
    const u32 *rec = table + (u64)task[0] * TERM_WORDS;
    const u64 at = cursor[t - lo];
    Win W = {out + at * MAXN, skip, limit ? limit : cursor[t - lo + 1] - at, 0};
    walk<true>(P, rec, task, mybuf, stride, lane, ovf, W);
    if (lane == 0) {
      u64 n = W.seen;
      if (limit) n = W.seen <= skip ? 0 : min(W.seen - skip, limit);
      listed[t - lo] = n;
    }
    __syncwarp();
  }
  if (lane == 0 && ovf) atomicExch(&flags[1], 1u);
}

// dcsm_copy copies n words (a pool or vertex table that grows).
extern "C" __global__ void dcsm_copy(u32 *dst, const u32 *src, u64 n) {
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) dst[i] = src[i];
}
