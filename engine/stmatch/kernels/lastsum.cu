// lastsum.cu: the stmatch engine's last-level-sum kernel, the device counterpart of the CPU
// engine's last-level sum (engine/cpu/lastsum.go, whose comment derives the formula). It counts
// plans whose last level v has no symmetry window and whose postponed vertices are e (one vertex
// with v among its parents, and at least one other parent) and optionally b (one vertex whose
// parents are earlier levels), where every level that v's set D and e's other parents' set S_E
// depend on (the key) comes before some level that is not the last: STMatch's q1 (two triangles
// sharing a vertex c; key c, the free level a, v = d, e and b the triangles' third vertices).
//
// Each warp takes work units (a root and a stride over its level-1 set, as the plan kernel's
// units) and runs the levels before v as nested loops. When the key levels (0..T-1) have their
// data vertices, it builds the key's tables in its slice of `buf`: D, S_E, |E_x| = |S_E ∩ N(x)|
// for every x of D (a lane per x; the matches are also scattered into |D ∩ N(y)| for every y of
// S_E, atomically) and their sum. Every assignment of the levels before v is then counted by the
// formula, with inclusion-exclusion over the used vertices U (at most 31) and the elements of B̄
// (b's set less U, a lane per element), instead of looping over D: the loop's one intersection
// per (assignment, x) becomes |D| intersections per key.
//
// The candidate space gives every list: level j -> level i's at the position of j's vertex in
// its candidate list (as in stmatch.cu); x ∈ D and y ∈ S_E are adjacent (the v-e edge) when y is
// in the list v -> e of x. The lists hold candidates only, as the plan kernel's leaf counts do.
//
// Counts: lane 0 adds each assignment's count to a 64-bit counter and writes the warp's total to
// counts[warp]; a product or sum that wraps sets ctl[C_OVERFLOW] (the host reports overflow).
// Under CUDAHOST (package cudahost: the source compiled as C++ and run on the host) a warp is one
// lane, or CUDAHOST_WARP lanes where cudahost emulates them (BuildLanes); with LASTSUM_READS
// defined, the list entries the kernel reads are counted in lastsum_reads, and the most that one
// unit read in lastsum_unit_max (the host measurement of its work).

#if defined(CUDAHOST_WARP)
#define WARP CUDAHOST_WARP
#elif defined(CUDAHOST)
#define WARP 1
template <class T> T __shfl_sync(unsigned, T x, int) { return x; }
#else
#define WARP 32
#endif
#define FULL 0xffffffffu
#define MAXL 32

// The plan's records (metaStride words each; the M_* of stmatch.cu), flattened without reuse.
#define META 44
#define M_BACK 0
#define M_COLLIDE 1
#define M_LOWER 2
#define M_UPPER 3
#define M_CANDOFF 6
#define M_CANDLEN 7
#define M_BUFOFF 8
#define M_EBASE 10

// The descriptor (desc) the host writes (lastSumDesc in lastsum.go).
#define D_L 0        // levels; v is level L-1
#define D_T 1        // the key is levels 0..T-1 (T <= L-2)
#define D_EREC 2     // e's record in meta
#define D_BREC 3     // b's record, or 0 when there is no b
#define D_STRIDE 4   // a warp's slice of buf, words
#define D_SIZEE 5    // |E_x| for the k-th x of D (D is level L-1's buffer)
#define D_SE 6       // S_E
#define D_COUNTD 7   // |D ∩ N(y)| for the q-th y of S_E
#define D_VE 8       // the start in off of the edge index v -> e
#define D_EOTHER 9   // mask of e's parents other than v
#define D_DPOS 10    // the position of the k-th x of D in v's candidate list

#define C_NEXT 0       // the next unit of the launch's range, relative to lo
#define C_OVERFLOW 16  // set when a count wrapped
#define C_STOP 32      // set when a warp found the host's stop flag raised
#define C_POLL 48      // globaltimer ns from which the next warp to look reads the host's flag
#define POLL_NS 200000ull  // the host's flag is read once per 200 us at most, by one warp
#define STOP_STEPS 1023    // a warp looks at the flag every 1,024 assignments of the levels

typedef unsigned long long u64;
typedef unsigned u32;

#ifdef LASTSUM_READS
static u64 lastsum_reads = 0, lastsum_unit_max = 0;  // all reads, and the most of one unit
#define READS(n) __atomic_fetch_add(&lastsum_reads, (u64)(n), __ATOMIC_RELAXED)
#else
#define READS(n) ((void)0)
#endif

#define NONE (~0ull)

// lb returns the first index i with a[i] >= x (n if none); a is sorted.
__device__ __forceinline__ u64 lb(const u32* __restrict__ a, u64 n, u32 x) {
  u64 lo = 0, hi = n;
  while (lo < hi) {
    const u64 mid = (lo + hi) >> 1;
    READS(1);
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// find returns the index of x in the sorted a, or NONE.
__device__ __forceinline__ u64 find(const u32* __restrict__ a, u64 n, u32 x) {
  const u64 i = lb(a, n, x);
  READS(i < n);
  return i < n && a[i] == x ? i : NONE;
}

#ifdef CUDAHOST
static u64 lastsum_clock = 0;  // the host's stand-in for %globaltimer: 100 us a reading
__device__ __forceinline__ u64 clock_ns() { return __atomic_add_fetch(&lastsum_clock, 100000ull, __ATOMIC_RELAXED); }
#else
__device__ __forceinline__ u64 clock_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

#ifdef CUDAHOST_WARP
__device__ __forceinline__ u64 vload(const u64* p) { return cudahost_vload(p); }
#else
__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }
#endif

// stopped says whether the host raised its stop flag (warp-uniform): one warp at a time reads
// the pinned flag, at most once per POLL_NS, and relays it to ctl[C_STOP] (as cliques.cu does).
__device__ bool stopped(const volatile unsigned* stop, u64* ctl, u32 lane) {
  u32 s = 0;
  if (lane == 0) {
    const u64 now = clock_ns(), at = vload(&ctl[C_POLL]);
    if (now >= at && atomicCAS(&ctl[C_POLL], at, now + POLL_NS) == at && *stop != 0) atomicExch(&ctl[C_STOP], 1ull);
    s = vload(&ctl[C_STOP]) != 0;
  }
  return __shfl_sync(FULL, s, 0) != 0;
}

__device__ __forceinline__ u64 warp_sum(u64 x) {
  for (int o = WARP / 2; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
  return x;
}

// Space is the candidate space: off and val are the edge indexes' offsets and values, cands the
// candidate lists of the plan's vertices, meta the records.
struct Space {
  const u64* __restrict__ meta;
  const u64* __restrict__ off;
  const u32* __restrict__ val;
  const u32* __restrict__ cands;

  __device__ __forceinline__ const u64* rec(u64 i) const { return meta + i * META; }
  // list returns the list of the edge index at ebase for the candidate at position k.
  __device__ __forceinline__ const u32* list(u64 ebase, u64 k, u64& n) const {
    const u64 a = off[ebase + k];
    n = off[ebase + k + 1] - a;
    return val + a;
  }
  __device__ __forceinline__ const u32* cand(const u64* r, u64& n) const {
    n = r[M_CANDLEN];
    return cands + r[M_CANDOFF];
  }
};

// intersect writes into out the members of the lists (level j -> record r) for the j of mask
// (r's candidate list when mask is 0) that pass the filters: differ from m[j] for j in differ,
// are above m[j] for j in lower and below it for j in upper. mi are the levels' positions in
// their candidate lists. Lanes take the shortest list's members in turn. It returns the count.
__device__ u64 intersect(const Space& sp, const u64* r, u32 mask, u32 differ, u32 lower, u32 upper,
                         const u32* m, const u64* mi, u32* out, u32 lane) {
  const u32* drv = nullptr;
  u64 n = 0;
  int dj = -1;
  if (mask == 0) {
    drv = sp.cand(r, n);
  } else {
    for (int j = 0; j < MAXL; j++) {
      if (!(mask >> j & 1)) continue;
      u64 len;
      const u32* l = sp.list(r[M_EBASE + j], mi[j], len);
      if (dj < 0 || len < n) drv = l, n = len, dj = j;
    }
  }
  u64 count = 0;
  // out (a level's buffer, D or S_E) may still be read by lanes behind: a ballot converges the
  // lanes but, unlike __syncwarp, does not order their memory accesses.
  __syncwarp();
  for (u64 base = 0; base < n; base += WARP) {
    const u64 i = base + lane;
    bool keep = i < n;
    u32 x = 0;
    if (keep) {
      x = drv[i];
      READS(1);
      for (int j = 0; j < MAXL && keep; j++) {
        const u32 bit = 1u << j;
        if ((differ & bit) && x == m[j]) keep = false;
        if ((lower & bit) && x <= m[j]) keep = false;
        if ((upper & bit) && x >= m[j]) keep = false;
        if ((mask & bit) && j != dj) {
          u64 len;
          const u32* l = sp.list(r[M_EBASE + j], mi[j], len);
          keep = keep && find(l, len, x) != NONE;
        }
      }
    }
    const u32 hits = __ballot_sync(FULL, keep);
    if (keep) out[count + __popc(hits & ((1u << lane) - 1))] = x;
    count += __popc(hits);
  }
  __syncwarp();
  return count;
}

// Tables are one key's: D (nD members), S_E (nS), |E_x| (sizeE), |D ∩ N(y)| (countD), Σ|E_x|,
// and the members of D's positions in v's candidate list (dpos: their lists v -> e).
struct Tables {
  u32 *D, *S, *sizeE, *countD, *dpos;
  u64 nD, nS, total;
  const u64 *vr, *er;  // v's and e's records
  u64 ve;              // the edge index v -> e
  const u32* vc;       // v's candidate list
  u64 nvc;

  // adjacent reports whether D[k] and y (a candidate of e) are joined by the v-e edge.
  __device__ __forceinline__ bool adjacent(const Space& sp, u64 k, u32 y) const {
    u64 n;
    const u32* l = sp.list(ve, dpos[k], n);
    return find(l, n, y) != NONE;
  }
};

// build computes the tables for the key in m/mi.
__device__ void build(const Space& sp, Tables& tb, u32 eother, const u32* m, const u64* mi, u32 lane) {
  tb.nD = intersect(sp, tb.vr, (u32)tb.vr[M_BACK], 0, 0, 0, m, mi, tb.D, lane);
  tb.nS = intersect(sp, tb.er, eother, 0, 0, 0, m, mi, tb.S, lane);
  for (u64 q = lane; q < tb.nS; q += WARP) tb.countD[q] = 0;
  __syncwarp();
  u64 sum = 0;
  for (u64 k = lane; k < tb.nD; k += WARP) {
    const u64 pos = lb(tb.vc, tb.nvc, tb.D[k]);
    tb.dpos[k] = (u32)pos;
    u64 n;
    const u32* l = sp.list(tb.ve, pos, n);
    u32 c = 0;
    if (n <= tb.nS) {
      for (u64 p = 0; p < n; p++) {
        READS(1);
        const u64 q = find(tb.S, tb.nS, l[p]);
        if (q != NONE) c++, atomicAdd(&tb.countD[q], 1u);
      }
    } else {
      for (u64 q = 0; q < tb.nS; q++) {
        READS(1);
        if (find(l, n, tb.S[q]) != NONE) c++, atomicAdd(&tb.countD[q], 1u);
      }
    }
    tb.sizeE[k] = c;
    sum += c;
  }
  tb.total = warp_sum(sum);
  __syncwarp();
}

// evaluate returns the number of assignments of v, e and b for the used vertices m[0..L-2]
// (wrapped is set when the count, nb * t1 - t23, does not fit 64 bits; the product alone may).
__device__ u64 evaluate(const Space& sp, const Tables& tb, const u64* brec, int L, const u32* m, const u64* mi,
                        u32 lane, bool& wrapped) {
  const int nu = L - 1;
  u64 pd[MAXL], ps[MAXL];  // the used vertices' positions in D and S_E (NONE: not there)
  u64 t1 = tb.total;
  for (int j = 0; j < nu; j++) {
    pd[j] = find(tb.D, tb.nD, m[j]);
    ps[j] = find(tb.S, tb.nS, m[j]);
    if (pd[j] != NONE) t1 -= tb.sizeE[pd[j]];
  }
  for (int j = 0; j < nu; j++) {
    if (ps[j] == NONE) continue;
    u64 c = tb.countD[ps[j]];
    for (int i = 0; i < nu; i++)
      if (pd[i] != NONE && tb.adjacent(sp, pd[i], m[j])) c--;
    t1 -= c;
  }
  if (brec == nullptr) return t1;
  // B̄: b's set less U, a lane per member of its shortest list.
  const u32 bmask = (u32)brec[M_BACK];
  const u32 used = nu == 32 ? FULL : (1u << nu) - 1;
  const u32* drv = nullptr;
  u64 n = 0;
  int dj = -1;
  for (int j = 0; j < nu; j++) {
    if (!(bmask >> j & 1)) continue;
    u64 len;
    const u32* l = sp.list(brec[M_EBASE + j], mi[j], len);
    if (dj < 0 || len < n) drv = l, n = len, dj = j;
  }
  u64 nb = 0, t23 = 0;
  for (u64 i = lane; i < n; i += WARP) {
    const u32 y = drv[i];
    READS(1);
    bool keep = true;
    for (int j = 0; j < nu && keep; j++) {
      if ((used >> j & 1) && y == m[j]) keep = false;
      if ((bmask >> j & 1) && j != dj) {
        u64 len;
        const u32* l = sp.list(brec[M_EBASE + j], mi[j], len);
        keep = keep && find(l, len, y) != NONE;
      }
    }
    if (!keep) continue;
    nb++;
    // Σ over B̄ ∩ D of |E_y ∖ U|, and over B̄ ∩ S_E of |D ∩ N(y) ∖ U|.
    const u64 q = find(tb.D, tb.nD, y);
    if (q != NONE) {
      t23 += tb.sizeE[q];
      for (int j = 0; j < nu; j++)
        if (ps[j] != NONE && tb.adjacent(sp, q, m[j])) t23--;
    }
    const u64 s = find(tb.S, tb.nS, y);
    if (s != NONE) {
      t23 += tb.countD[s];
      for (int j = 0; j < nu; j++)
        if (pd[j] != NONE && tb.adjacent(sp, pd[j], y)) t23--;
    }
  }
  nb = warp_sum(nb);
  t23 = warp_sum(t23);
  const u64 lo = nb * t1;
  if (__umul64hi(nb, t1) - (lo < t23 ? 1 : 0) != 0) wrapped = true;
  return lo - t23;
}

// Units lo..hi-1 of units: root (bits 0-31: its position in level 0's candidate list) and the
// positions k, k+K, ... of its level-1 set (k: bits 32-47, K: bits 48-63). Each warp writes its
// count to counts[warp]; ctl[C_NEXT] hands out the units. A warp takes no unit after sliceNs of
// its start but its first; ctl[C_NEXT] then tells the host how many were taken (and finished).
// When the host raises *stop (pinned host memory; stop may be null) the warps leave their units
// unfinished (the count is then a lower bound) and take no more.
extern "C" __global__ void stmatch_lastsum(const u64* __restrict__ meta, const u64* __restrict__ off,
                                           const u32* __restrict__ val, const u32* __restrict__ cands,
                                           const u64* __restrict__ desc, const u64* __restrict__ units,
                                           u64 lo, u64 hi, u64 sliceNs, const volatile unsigned* stop,
                                           u32* __restrict__ buf, u64* ctl, u64* counts) {
  const Space sp = {meta, off, val, cands};
  const u32 lane = threadIdx.x % WARP;
  const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
  const int L = (int)desc[D_L], T = (int)desc[D_T];
  u32* slice = buf + warp * desc[D_STRIDE];
  Tables tb;
  tb.vr = sp.rec(L - 1);
  tb.er = sp.rec(desc[D_EREC]);
  tb.ve = desc[D_VE];
  tb.vc = sp.cand(tb.vr, tb.nvc);
  tb.D = slice + tb.vr[M_BUFOFF];
  tb.sizeE = slice + desc[D_SIZEE];
  tb.S = slice + desc[D_SE];
  tb.countD = slice + desc[D_COUNTD];
  tb.dpos = slice + desc[D_DPOS];
  tb.nD = tb.nS = tb.total = 0;
  const u64* brec = desc[D_BREC] != 0 ? sp.rec(desc[D_BREC]) : nullptr;
  const u32 eother = (u32)desc[D_EOTHER];
  u64 acc = 0;
  bool wrapped = false;
  u32 m[MAXL];
  u64 mi[MAXL], n[MAXL], idx[MAXL];
  u32 steps = 0;
  bool left = false;  // the warp left a unit at the host's stop flag
  u64 start = 0;
  if (lane == 0) start = clock_ns();
  for (bool first = true; !left; first = false) {
    if (stop != nullptr && stopped(stop, ctl, lane)) break;
    u64 unit = 0;
    if (lane == 0) unit = !first && clock_ns() - start >= sliceNs ? hi : lo + atomicAdd(&ctl[C_NEXT], 1ull);
    unit = __shfl_sync(FULL, unit, 0);
    if (unit >= hi) break;
#if defined(LASTSUM_READS) && !defined(CUDAHOST_WARP)
    const u64 reads0 = lastsum_reads;
#endif
    const u64 u = units[unit];
    const u64 root = u & 0xffffffffu, k0 = (u >> 32) & 0xffff, K = u >> 48;
    u64 nc;
    const u32* c0 = sp.cand(sp.rec(0), nc);
    m[0] = c0[root];
    mi[0] = root;
    if (T == 1) build(sp, tb, eother, m, mi, lane);
    // Level i's set is in its buffer (n[i] members); idx[i] is the next member to take.
    const u64* r1 = sp.rec(1);
    n[1] = intersect(sp, r1, (u32)r1[M_BACK], (u32)r1[M_COLLIDE], (u32)r1[M_LOWER], (u32)r1[M_UPPER], m, mi,
                     slice + r1[M_BUFOFF], lane);
    idx[1] = k0;
    int i = 1;
    while (i > 0) {
      if (stop != nullptr && (++steps & STOP_STEPS) == 0 && stopped(stop, ctl, lane)) {
        left = true;
        break;
      }
      if (idx[i] >= n[i]) {
        i--;
        continue;
      }
      const u64* r = sp.rec(i);
      const u32 x = slice[r[M_BUFOFF] + idx[i]];
      idx[i] += i == 1 ? K : 1;
      u64 len;
      const u32* ci = sp.cand(r, len);
      m[i] = x;
      mi[i] = lb(ci, len, x);
      if (i == L - 2) {
        const u64 c = evaluate(sp, tb, brec, L, m, mi, lane, wrapped);
        if (lane == 0) {
          const u64 before = acc;
          acc += c;
          wrapped |= acc < before;
        }
        continue;
      }
      if (i + 1 == T) build(sp, tb, eother, m, mi, lane);
      const u64* rn = sp.rec(i + 1);
      n[i + 1] = intersect(sp, rn, (u32)rn[M_BACK], (u32)rn[M_COLLIDE], (u32)rn[M_LOWER], (u32)rn[M_UPPER], m, mi,
                           slice + rn[M_BUFOFF], lane);
      idx[i + 1] = 0;
      i++;
    }
#if defined(LASTSUM_READS) && !defined(CUDAHOST_WARP)  // (lanes interleave their units)
    if (lastsum_reads - reads0 > lastsum_unit_max) lastsum_unit_max = lastsum_reads - reads0;
#endif
  }
  if (__ballot_sync(FULL, wrapped) != 0 && lane == 0) atomicExch(&ctl[C_OVERFLOW], 1ull);
  if (lane == 0) counts[warp] = acc;
}
