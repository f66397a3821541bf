// cliques.cu: the stmatch engine's clique kernel, for patterns that are k >= 4 pairwise adjacent
// vertices with uniform labels (plan.AsClique). The CPU engine's clique counter
// (engine/cpu/cliques.go) is the same algorithm.
//
// Every clique is counted once, from its smallest vertex r: its other k-1 vertices form a
// (k-1)-clique inside S = N+(r), r's neighbours above it: the run from[r]..to[r]-1 of r's
// adjacency list in the graph's CSR (off/adj, uploaded as they are). Each warp takes work units
// one at a time from a counter. A unit is a root (all of its cliques) or, for a root with more
// than `split` upward neighbours, a task: the root's cliques whose second-smallest vertex is one
// of the members a..b-1 of S. The host lists the tasks first, largest roots first, so that no
// large root is left for the end.
//
// For a root with k-1 <= |S| <= bmax a warp lays out the subgraph S induces as a bit matrix in
// its slice of `rows` (row i, W = ceil(|S|/32) words: bit j set when j > i and S[i], S[j] are
// adjacent), then counts the (k-1)-cliques of that matrix depth-first with the candidate set of
// each depth as a bit set of W words (WPL words per lane: word w is lane w % 32's slot w / 32),
// 32 candidates an AND. The last two vertices are counted, not enumerated: each lane takes one
// member j of the last set B and adds popcount(B & row j). Roots with |S| > bmax are left to the
// host (the CPU clique counter).
//
// bmax is 1,024 (one word a lane) or 2,048: then a unit of a root of more than 1,024 members
// runs the same code with two words a lane (count_unit<2>), and every warp's slice of `rows`
// holds a matrix of 2,048 rows of 64 words, four times the memory. The candidate sets live in
// dynamic shared memory, k-1 rows of bmax/32 words a warp, and the row being scattered.
//
// Counts: each lane sums into a 64-bit counter; the warp's total is written to counts[warp]
// (the host adds the warps' counts with overflow checks). A wrapped counter sets
// ctl[C_OVERFLOW].

#define LANE_BITS 1024  // the members of a row one word a lane holds
#define WARPS 4  // warps per block: the host's threadsBlock / 32
#define FULL 0xffffffffu
#define C_NEXT 0       // the next unit of the launch's range, relative to lo
#define C_OVERFLOW 16  // set when a count wrapped
#define C_STOP 32      // set when a warp found the host's stop flag raised
#define C_POLL 48      // globaltimer ns from which the next warp to look reads the host's flag
#define POLL_NS 200000ull  // the host's flag is read once per 200 us at most, by one warp

typedef unsigned long long u64;

__device__ __forceinline__ unsigned warp_sum(unsigned x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
  return x;
}

// lower_bound returns the first index i with a[i] >= x (n if none); a is sorted.
__device__ __forceinline__ unsigned lower_bound(const unsigned* a, unsigned n, unsigned x) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    unsigned mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// upper_bound returns the first index i with a[i] > x (n if none).
__device__ __forceinline__ unsigned upper_bound(const unsigned* a, unsigned n, unsigned x) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    unsigned mid = (lo + hi) >> 1;
    if (a[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }

__device__ __forceinline__ u64 clock_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// stopped says whether the host has raised its stop flag (warp-uniform). Reads of pinned host
// memory from many warps at once are serialised: read once per unit by every warp, the flag
// made R-MAT 22's 4-cliques 25 times slower (H200). So one warp at a time, claiming the turn
// with a CAS on ctl[C_POLL], reads it, at most once per POLL_NS, and relays it to ctl[C_STOP],
// which the others read from device memory.
__device__ bool stopped(const volatile unsigned* stop, u64* ctl, unsigned lane) {
  unsigned s = 0;
  if (lane == 0) {
    const u64 now = clock_ns(), at = vload(&ctl[C_POLL]);
    if (now >= at && atomicCAS(&ctl[C_POLL], at, now + POLL_NS) == at && *stop != 0) atomicExch(&ctl[C_STOP], 1ull);
    s = vload(&ctl[C_STOP]) != 0;
  }
  return __shfl_sync(FULL, s, 0) != 0;
}

__device__ __forceinline__ unsigned bit_length(unsigned x) { return 32 - __clz(x); }

// Upward is the oriented graph: vertex v's upward list is adj[off[v] + from[v] .. off[v] + to[v]).
struct Upward {
  const u64* __restrict__ off;
  const unsigned* __restrict__ adj;
  const unsigned* __restrict__ from;
  const unsigned* __restrict__ to;

  __device__ __forceinline__ const unsigned* list(unsigned v) const { return adj + off[v] + from[v]; }
  __device__ __forceinline__ unsigned size(unsigned v) const { return to[v] - from[v]; }
};

// lay_out writes the d rows of the bit matrix of S into R (W words each). Row i is found either
// by searching each later member of S in u's upward list (one ballot per word) or by scattering
// u's upward list into S (a binary search in S each, bits set in shared memory), whichever
// searches less.
template <int WPL>
__device__ void lay_out(const Upward g, const unsigned* S, unsigned d, unsigned W, unsigned* R, unsigned* tmp, unsigned lane) {
  const unsigned last = S[d - 1];
  for (unsigned i = 0; i < d; i++) {
    const unsigned u = S[i];
    const unsigned* N = g.list(u);
    const unsigned nu = upper_bound(N, g.size(u), last);
    const unsigned rest = d - i - 1;
    unsigned mine[WPL];  // words lane + 32 q of the row
#pragma unroll
    for (int q = 0; q < WPL; q++) mine[q] = 0;
    if ((u64)rest * bit_length(nu) <= (u64)nu * bit_length(d)) {
      for (unsigned w = (i + 1) >> 5; w < W; w++) {
        const unsigned j = (w << 5) + lane;
        bool hit = false;
        if (j > i && j < d) {
          const unsigned x = S[j];
          const unsigned p = lower_bound(N, nu, x);
          hit = p < nu && N[p] == x;
        }
        const unsigned word = __ballot_sync(FULL, hit);
#pragma unroll
        for (int q = 0; q < WPL; q++)
          if (w == lane + 32 * q) mine[q] = word;
      }
    } else {
#pragma unroll
      for (int q = 0; q < WPL; q++) tmp[lane + 32 * q] = 0;
      __syncwarp();
      for (unsigned t = lane; t < nu; t += 32) {
        const unsigned x = N[t];  // x > u = S[i]: its position in S is above i
        const unsigned j = lower_bound(S, d, x);
        if (j < d && S[j] == x) atomicOr(&tmp[j >> 5], 1u << (j & 31));
      }
      __syncwarp();
#pragma unroll
      for (int q = 0; q < WPL; q++) mine[q] = tmp[lane + 32 * q];
      __syncwarp();
    }
#pragma unroll
    for (int q = 0; q < WPL; q++)
      if (lane + 32 * q < W) R[(u64)i * W + lane + 32 * q] = mine[q];
  }
  __syncwarp();
}

// A task packs its root in bits 0-31, a in bits 32-47 and b in bits 48-63 (a < b <= bmax).
#define TASK_ROOT(x) ((unsigned)(x))
#define TASK_A(x) ((unsigned)((x) >> 32) & 0xffff)
#define TASK_B(x) ((unsigned)((x) >> 48))

// count_unit counts the (k-1)-cliques of the matrix of S (d members, WPL words a lane) whose
// first member is one of a..b-1, into acc. B is the warp's candidate sets (k-1 rows of wmax
// words), tmp its scatter row. It returns true when the host's stop flag made it leave early.
template <int WPL>
__device__ bool count_unit(const Upward g, const unsigned* S,
                           unsigned d, unsigned a, unsigned b, int k, unsigned* R, unsigned* B, unsigned wmax,
                           unsigned* tmp, const volatile unsigned* stop, u64* ctl, unsigned lane,
                           unsigned& steps, u64& acc, bool& wrapped) {
  const unsigned W = (d + 31) >> 5;
  lay_out<WPL>(g, S, d, W, R, tmp, lane);

  // Depth t holds the members that may still join; need = k-1-t of them are wanted. Depth 0
  // holds the members from a up; its choices stop at b.
#pragma unroll
  for (int q = 0; q < WPL; q++) {
    const unsigned w = lane + 32 * q;
    unsigned all = 0;
    if (w < W) all = (w + 1 < W || (d & 31) == 0) ? FULL : (1u << (d & 31)) - 1;
    if ((w << 5) + 32 <= a) all = 0;
    else if ((w << 5) < a) all &= FULL << (a & 31);
    B[w] = all;
  }
  __syncwarp();
  int t = 0;
  while (t >= 0) {
    if (stop != nullptr && (++steps & 1023) == 0 && stopped(stop, ctl, lane)) return true;
    unsigned* Bt = B + t * wmax;
    const unsigned need = (unsigned)(k - 1 - t);
    if (need == 2) {
      // The edges among B[t]: lane per member j, popcount(B[t] & row j).
      unsigned mine = 0;
#pragma unroll
      for (int q = 0; q < WPL; q++) mine += __popc(Bt[lane + 32 * q]);
      const unsigned total = warp_sum(mine);
      for (unsigned s = lane; s < total; s += 32) {
        unsigned w = 0, rem = s;
        for (;;) {
          const unsigned pc = __popc(Bt[w]);
          if (rem < pc) break;
          rem -= pc;
          w++;
        }
        unsigned m = Bt[w];
        for (; rem > 0; rem--) m &= m - 1;  // drop the rem lowest members of word w
        const unsigned j = (w << 5) + (__ffs(m) - 1);
        const unsigned* rj = R + (u64)j * W;
        unsigned c = 0;
        for (unsigned x = w; x < W; x++) c += __popc(Bt[x] & rj[x]);
        const u64 before = acc;
        acc += c;
        wrapped |= acc < before;
      }
      __syncwarp();
      t--;
      continue;
    }
    // Take the smallest member j of B[t]; descend with B[t] & row j when it can hold the
    // need-1 vertices still wanted.
    unsigned word[WPL];
#pragma unroll
    for (int q = 0; q < WPL; q++) word[q] = Bt[lane + 32 * q];
    // The first non-zero word: slot fq of lane f.
    int fq = -1;
    unsigned f = 0;
#pragma unroll
    for (int q = WPL - 1; q >= 0; q--) {
      const unsigned nz = __ballot_sync(FULL, word[q] != 0);
      if (nz != 0) fq = q, f = __ffs(nz) - 1;
    }
    if (fq < 0) {
      t--;
      continue;
    }
    unsigned wf = 0;
#pragma unroll
    for (int q = 0; q < WPL; q++) {
      const unsigned x = __shfl_sync(FULL, word[q], f);
      if (q == fq) wf = x;
    }
    const unsigned j = ((f + 32 * fq) << 5) + (__ffs(wf) - 1);
    if (t == 0 && j >= b) return false;  // the task's last choice at depth 0 is done
    unsigned left = 0, found = 0, next[WPL];
#pragma unroll
    for (int q = 0; q < WPL; q++) {
      if (q == fq && lane == f) word[q] = wf & (wf - 1);
      const unsigned w = lane + 32 * q;
      next[q] = w < W ? word[q] & R[(u64)j * W + w] : 0;
      left += __popc(word[q]);
      found += __popc(next[q]);
    }
    left = warp_sum(left);
    found = warp_sum(found);
    __syncwarp();
#pragma unroll
    for (int q = 0; q < WPL; q++) Bt[lane + 32 * q] = word[q];
    if (left < need - 1) {
      // Neither j nor any later member of B[t] has need-1 members above it.
      __syncwarp();
      t--;
      continue;
    }
    if (found >= need - 1) {
#pragma unroll
      for (int q = 0; q < WPL; q++) Bt[wmax + lane + 32 * q] = next[q];
      t++;
    }
    __syncwarp();
  }
  return false;
}

// Units lo..hi-1: unit u < ntasks is tasks[u], any other the root u - ntasks, skipped when it
// has more than split upward neighbours (its tasks, or the host, count it). A warp takes no unit
// after sliceNs of its own start, nor once a warp has relayed the host's stop flag; ctl[C_NEXT]
// then tells the host how many were taken. When the host raises *stop (pinned host memory; stop
// may be null), the warps leave their units unfinished (the count is partial then: a lower
// bound) and end; they look every 1,024 steps. bmax is 1,024 or 2,048 (see above); the dynamic
// shared memory is WARPS * k * bmax / 32 words.
extern "C" __global__ void stmatch_cliques(const u64* __restrict__ off, const unsigned* __restrict__ adj,
                                           const unsigned* __restrict__ from, const unsigned* __restrict__ to,
                                           const u64* __restrict__ tasks, u64 ntasks, unsigned split,
                                           unsigned bmax, u64 lo, u64 hi, int k, u64 sliceNs,
                                           const volatile unsigned* stop, unsigned* __restrict__ rows,
                                           u64* ctl, u64* counts) {
  extern __shared__ unsigned shared[];
  const Upward g = {off, adj, from, to};
  const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  const u64 warp = (u64)blockIdx.x * WARPS + wib;
  const unsigned wmax = bmax >> 5;
  unsigned* R = rows + warp * (u64)bmax * wmax;
  unsigned* B = shared + wib * k * wmax;  // k-1 rows of candidates (depths 0..k-2), then the scatter row
  unsigned* tmp = B + (k - 1) * wmax;
  u64 acc = 0;
  bool wrapped = false;
  u64 start = 0;
  if (lane == 0) start = clock_ns();
  unsigned steps = 0;
  for (;;) {
    u64 unit = 0;
    if (lane == 0) {
      const bool past = clock_ns() - start >= sliceNs || (stop != nullptr && vload(&ctl[C_STOP]) != 0);
      unit = past ? hi : lo + atomicAdd(&ctl[C_NEXT], 1ull);
    }
    unit = __shfl_sync(FULL, unit, 0);
    if (unit >= hi) break;
    u64 r;
    unsigned a = 0, b = bmax;
    if (unit < ntasks) {
      const u64 task = tasks[unit];
      r = TASK_ROOT(task), a = TASK_A(task), b = TASK_B(task);
    } else {
      r = unit - ntasks;
    }
    const unsigned* S = g.list(r);
    const unsigned d = g.size(r);
    if (d < (unsigned)(k - 1) || d > bmax || (unit >= ntasks && d > split)) continue;
    const bool left = d <= LANE_BITS
                          ? count_unit<1>(g, S, d, a, b, k, R, B, wmax, tmp, stop, ctl, lane, steps, acc, wrapped)
                          : count_unit<2>(g, S, d, a, b, k, R, B, wmax, tmp, stop, ctl, lane, steps, acc, wrapped);
    if (left) break;
  }
  // The warp's total, with overflow detection.
  for (int o = 16; o > 0; o >>= 1) {
    const u64 other = __shfl_xor_sync(FULL, acc, o);
    const u64 before = acc;
    acc += other;
    wrapped |= acc < before;
  }
  if (__any_sync(FULL, wrapped) && lane == 0) atomicExch(&ctl[C_OVERFLOW], 1ull);
  if (lane == 0) counts[warp] = acc;
}
