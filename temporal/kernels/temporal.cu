// Temporal motif kernels (package temporal, file gpu.go): Everest/Matcha-style edge extension
// over a time-ordered event list, one thread per first event.
//
// The graph is package temporal's Graph as flat arrays: events (src, dst, time) in event order
// (time, then input order), per vertex the indexes of its outgoing (out_off/out_ev) and incoming
// (in_off/in_ev) events ascending, and per vertex its distinct out-neighbours (pair_off/pair_dst)
// each with a run of event indexes (pair_run into pair_ev), ascending.
//
// temporal_match: a pattern of m directed edges over k vertices (pat[2i], pat[2i+1]). Each
// thread takes first events r (grid-stride) and backtracks edge by edge exactly as the CPU
// matcher does (count.go): edge j scans, from the event after sel[j-1], the pair's events when
// both endpoints are mapped, the source's out-events or the target's in-events when one is, every
// event when neither is, stopping past the deadline t(r) + delta. A last edge between mapped
// vertices is counted by binary search (modes 0 and 1). Modes: 0 adds every count to *total;
// 1 writes each root's count to per_root[r - root_lo]; 2 writes the matches of the roots in
// lexicographic order of their event indexes (the CPU's order): root r's matches are numbered from
// offs[r - root_lo] - offs[0] on, and those numbered skip to skip + limit - 1 go to out + (number -
// skip) * m (a root with more matches than one buffer holds is listed in several launches, each
// enumerating it again up to its window's end).
//
// temporal_grid: the 36 three-event motifs. For each first event u->v, every second event e2 in
// the window touching u or v (out(u), in(u), out(v) but not v->u, in(v) but not u->v: each
// event once), then every third event e3: when e2 brought a third vertex w, the events of the six
// directed pairs among u, v, w (counted by binary search); otherwise again every event touching
// u or v. The sequence's key (vertices named in order of first appearance, base 3) indexes
// cell_of (729 entries, -1 for none), the cell's counter is incremented.
//
// Counts are unsigned 64-bit with overflow reported in *flags (bit 0: overflow; bit 1: a key
// that no cell holds, a bug).
//
// Both kernels take the host's stop flag (stop, null for none) and ctl, two zeroed device words,
// for stop_poll (package gpu's StopPollSource, prepended to this file): a thread polls every 16
// first events and every 4096 steps of a search, and leaves once it says so; the results are then
// partial (the host reports them as such).

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define TM_MAX_EDGES 16
#define TM_MAX_VERTS 17
#define TM_NONE 0xffffffffu

#define TM_PAIR 0
#define TM_OUT 1
#define TM_IN 2
#define TM_FREE 3

// First index in [lo, hi) whose event index is >= x.
__device__ __forceinline__ u32 tm_lower_idx(const u32* __restrict__ a, u32 lo, u32 hi, u32 x) {
    while (lo < hi) {
        u32 mid = lo + ((hi - lo) >> 1);
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// tm_deadline is t0 + delta (delta >= 0), saturated at the largest time: the sum must not wrap,
// and a signed overflow test after the fact is undefined behaviour the compiler may drop.
__device__ __forceinline__ i64 tm_deadline(i64 t0, i64 delta) {
    return t0 > 0x7fffffffffffffffLL - delta ? 0x7fffffffffffffffLL : t0 + delta;
}

// First index in [lo, hi) whose event's time is > t (a holds event indexes; a == 0: the
// index itself is the event).
__device__ __forceinline__ u32 tm_after_time(const u32* __restrict__ a, const i64* __restrict__ time,
                                             u32 lo, u32 hi, i64 t) {
    while (lo < hi) {
        u32 mid = lo + ((hi - lo) >> 1);
        u32 e = a ? a[mid] : mid;
        if (time[e] <= t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// The run of events u->v in pair_ev: [*lo, *hi); false when there is none.
__device__ __forceinline__ bool tm_pair(const u32* __restrict__ pair_off, const u32* __restrict__ pair_dst,
                                        const u32* __restrict__ pair_run, u32 u, u32 v, u32* lo, u32* hi) {
    u32 a = pair_off[u], b = pair_off[u + 1];
    u32 k = tm_lower_idx(pair_dst, a, b, v);
    if (k >= b || pair_dst[k] != v) return false;
    *lo = pair_run[k];
    *hi = pair_run[k + 1];
    return true;
}

__device__ __forceinline__ bool tm_add(u64* acc, u64 x) {
    u64 s = *acc + x;
    bool over = s < *acc;
    *acc = s;
    return over;
}

extern "C" __global__ void temporal_match(
    const u32* __restrict__ src, const u32* __restrict__ dst, const i64* __restrict__ time, u32 nev,
    const u32* __restrict__ out_off, const u32* __restrict__ out_ev,
    const u32* __restrict__ in_off, const u32* __restrict__ in_ev,
    const u32* __restrict__ pair_off, const u32* __restrict__ pair_dst,
    const u32* __restrict__ pair_run, const u32* __restrict__ pair_ev,
    const int* __restrict__ pat, int m, int k, i64 delta, int strict,
    u32 root_lo, u32 root_hi, int mode,
    u64* __restrict__ total, u32* __restrict__ flags,
    u64* __restrict__ per_root, const u64* __restrict__ offs, u32* __restrict__ out, u64 skip, u64 limit,
    const volatile u32* stop, u64* __restrict__ ctl) {
    u32 vmap[TM_MAX_VERTS];
    u32 sel[TM_MAX_EDGES];
    u32 cur[TM_MAX_EDGES], end[TM_MAX_EDGES];
    unsigned char kind[TM_MAX_EDGES], asg[TM_MAX_EDGES];
    u64 acc = 0;
    bool over = false;
    const u32 stride = gridDim.x * blockDim.x;
    const u64 wend = skip + limit;  // mode 2: the window's end (limit <= 2^62)
    u32 it = 0;
    u32 steps = 0;
    bool halted = false;
    for (u32 r = root_lo + blockIdx.x * blockDim.x + threadIdx.x; r < root_hi && !halted; r += stride) {
        if ((it++ & 15) == 0 && stop_poll(stop, ctl)) break;
        u64 base = 0;
        if (mode == 2) {
            base = offs[r - root_lo] - offs[0];
            if (base >= wend) continue;
        }
        for (int i = 0; i < k; ++i) vmap[i] = TM_NONE;
        const i64 t0 = time[r];
        const i64 deadline = tm_deadline(t0, delta);
        vmap[pat[0]] = src[r];
        vmap[pat[1]] = dst[r];
        sel[0] = r;
        u64 cnt = 0;
        u64 written = 0;
        if (m == 1) {
            cnt = 1;
            if (mode == 2 && base >= skip) out[base - skip] = r;
        } else {
            int j = 1;
            bool fresh = true;
            while (j >= 1) {
                if ((++steps & 4095) == 0 && stop_poll(stop, ctl)) {
                    halted = true;
                    break;
                }
                const int s = pat[2 * j], d = pat[2 * j + 1];
                if (fresh) {
                    fresh = false;
                    const u32 prev = sel[j - 1];
                    const i64 pt = time[prev];
                    const u32 ms = vmap[s], md = vmap[d];
                    const u32* list = 0;
                    u32 lo = 0, hi = 0;
                    asg[j] = 0;
                    if (ms != TM_NONE && md != TM_NONE) {
                        kind[j] = TM_PAIR;
                        if (!tm_pair(pair_off, pair_dst, pair_run, ms, md, &lo, &hi)) lo = hi = 0;
                        list = pair_ev;
                    } else if (ms != TM_NONE) {
                        kind[j] = TM_OUT;
                        lo = out_off[ms]; hi = out_off[ms + 1];
                        list = out_ev;
                        asg[j] = 2;
                    } else if (md != TM_NONE) {
                        kind[j] = TM_IN;
                        lo = in_off[md]; hi = in_off[md + 1];
                        list = in_ev;
                        asg[j] = 1;
                    } else {
                        kind[j] = TM_FREE;
                        lo = 0; hi = nev;
                        list = 0;
                        asg[j] = 3;
                    }
                    u32 start;
                    if (strict) start = tm_after_time(list, time, lo, hi, pt);
                    else start = list ? tm_lower_idx(list, lo, hi, prev + 1) : prev + 1;
                    if (start > hi) start = hi;
                    if (kind[j] == TM_PAIR && j == m - 1 && mode != 2) {
                        u32 stop = tm_after_time(list, time, start, hi, deadline);
                        over |= tm_add(&cnt, (u64)(stop - start));
                        --j;
                        continue;
                    }
                    cur[j] = start;
                    end[j] = hi;
                }
                // next candidate of level j
                if (asg[j] & 1) vmap[s] = TM_NONE;
                if (asg[j] & 2) vmap[d] = TM_NONE;
                bool found = false;
                while (cur[j] < end[j]) {
                    const u32 pos = cur[j]++;
                    u32 x;
                    switch (kind[j]) {
                    case TM_PAIR: x = pair_ev[pos]; break;
                    case TM_OUT: x = out_ev[pos]; break;
                    case TM_IN: x = in_ev[pos]; break;
                    default: x = pos; break;
                    }
                    if (time[x] > deadline) {
                        cur[j] = end[j];
                        break;
                    }
                    const u32 es = src[x], ed = dst[x];
                    bool ok = true;
                    if (asg[j] & 1) {
                        for (int q = 0; q < k; ++q) ok &= vmap[q] != es;
                    }
                    if (asg[j] & 2) {
                        for (int q = 0; q < k; ++q) ok &= vmap[q] != ed;
                    }
                    if (!ok) continue;
                    if (asg[j] & 1) vmap[s] = es;
                    if (asg[j] & 2) vmap[d] = ed;
                    sel[j] = x;
                    found = true;
                    break;
                }
                if (!found) {
                    --j;
                    continue;
                }
                if (j == m - 1) {
                    over |= tm_add(&cnt, 1);
                    if (mode == 2) {
                        const u64 num = base + written++;
                        if (num >= skip) {
                            u32* o = out + (num - skip) * (u64)m;
                            for (int q = 0; q < m; ++q) o[q] = sel[q];
                        }
                        if (num + 1 >= wend) j = 0;  // the window is full: this root is done
                    }
                } else {
                    ++j;
                    fresh = true;
                }
            }
            // leave vmap clean for the next root (levels popped with their assignments cleared
            // only on the next candidate)
        }
        if (halted) break;
        if (mode == 1) per_root[r - root_lo] = cnt;
        else if (mode == 0) over |= tm_add(&acc, cnt);
    }
    if (mode == 0 && acc != 0) {
        u64 old = atomicAdd(total, acc);
        over |= old + acc < old;
    }
    if (over) atomicOr(flags, 1u);
}

// The name of vertex x in a sequence that began u->v (0, 1) and possibly brought w (2).
__device__ __forceinline__ int tm_name(u32 x, u32 u, u32 v) { return x == u ? 0 : (x == v ? 1 : 2); }

// Adds n to the cell of the sequence (u->v, a2->b2, a3->b3) with w the third vertex (if any).
__device__ __forceinline__ void tm_cell(u64* cells, const signed char* __restrict__ cell_of, u32 u, u32 v,
                                        u32 a2, u32 b2, u32 a3, u32 b3, u64 n, bool* over, bool* bad) {
    int key = 1;  // u->v: names 0, 1
    key = key * 3 + tm_name(a2, u, v);
    key = key * 3 + tm_name(b2, u, v);
    key = key * 3 + tm_name(a3, u, v);
    key = key * 3 + tm_name(b3, u, v);
    int c = cell_of[key];
    if (c < 0) {
        *bad = true;
        return;
    }
    *over |= tm_add(&cells[c], n);
}

// Calls f(e) for every event e > after with time <= deadline touching u or v, each once.
template <typename F>
__device__ __forceinline__ void tm_touching(const u32* __restrict__ src, const u32* __restrict__ dst,
                                            const i64* __restrict__ time,
                                            const u32* __restrict__ out_off, const u32* __restrict__ out_ev,
                                            const u32* __restrict__ in_off, const u32* __restrict__ in_ev,
                                            u32 u, u32 v, u32 after, i64 deadline, F f) {
    for (int l = 0; l < 4; ++l) {
        const u32 x = (l < 2) ? u : v;
        const u32* list = (l & 1) ? in_ev : out_ev;
        const u32* off = (l & 1) ? in_off : out_off;
        const u32 hi = off[x + 1];
        for (u32 p = tm_lower_idx(list, off[x], hi, after + 1); p < hi; ++p) {
            const u32 e = list[p];
            if (time[e] > deadline) break;
            if (l == 2 && dst[e] == u) continue;  // v->u: seen in in(u)
            if (l == 3 && src[e] == u) continue;  // u->v: seen in out(u)
            f(e);
        }
    }
}

extern "C" __global__ void temporal_grid(
    const u32* __restrict__ src, const u32* __restrict__ dst, const i64* __restrict__ time, u32 nev,
    const u32* __restrict__ out_off, const u32* __restrict__ out_ev,
    const u32* __restrict__ in_off, const u32* __restrict__ in_ev,
    const u32* __restrict__ pair_off, const u32* __restrict__ pair_dst,
    const u32* __restrict__ pair_run, const u32* __restrict__ pair_ev,
    i64 delta, const signed char* __restrict__ cell_of,
    u64* __restrict__ grid, u32* __restrict__ flags, const volatile u32* stop, u64* __restrict__ ctl) {
    __shared__ u64 block_cells[36];
    for (int i = threadIdx.x; i < 36; i += blockDim.x) block_cells[i] = 0;
    __syncthreads();
    u64 cells[36];
    for (int i = 0; i < 36; ++i) cells[i] = 0;
    bool over = false, bad = false;
    const u32 stride = gridDim.x * blockDim.x;
    u32 it = 0;
    for (u32 r = blockIdx.x * blockDim.x + threadIdx.x; r < nev; r += stride) {
        if ((it++ & 15) == 0 && stop_poll(stop, ctl)) break;
        const u32 u = src[r], v = dst[r];
        const i64 t0 = time[r];
        const i64 deadline = tm_deadline(t0, delta);
        tm_touching(src, dst, time, out_off, out_ev, in_off, in_ev, u, v, r, deadline, [&](u32 e2) {
            const u32 a2 = src[e2], b2 = dst[e2];
            const u32 w = (a2 != u && a2 != v) ? a2 : ((b2 != u && b2 != v) ? b2 : TM_NONE);
            if (w != TM_NONE) {
                const u32 vs[3] = {u, v, w};
                for (int i = 0; i < 3; ++i) {
                    for (int q = 0; q < 3; ++q) {
                        if (i == q) continue;
                        u32 lo, hi;
                        if (!tm_pair(pair_off, pair_dst, pair_run, vs[i], vs[q], &lo, &hi)) continue;
                        const u32 s = tm_lower_idx(pair_ev, lo, hi, e2 + 1);
                        const u32 stop = tm_after_time(pair_ev, time, s, hi, deadline);
                        if (stop > s) tm_cell(cells, cell_of, u, v, a2, b2, vs[i], vs[q], (u64)(stop - s), &over, &bad);
                    }
                }
            } else {
                tm_touching(src, dst, time, out_off, out_ev, in_off, in_ev, u, v, e2, deadline, [&](u32 e3) {
                    tm_cell(cells, cell_of, u, v, a2, b2, src[e3], dst[e3], 1, &over, &bad);
                });
            }
        });
    }
    for (int i = 0; i < 36; ++i) {
        if (cells[i] == 0) continue;
        u64 old = atomicAdd(&block_cells[i], cells[i]);
        over |= old + cells[i] < old;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 36; i += blockDim.x) {
        if (block_cells[i] == 0) continue;
        u64 old = atomicAdd(&grid[i], block_cells[i]);
        if (old + block_cells[i] < old) over = true;
    }
    if (over) atomicOr(flags, 1u);
    if (bad) atomicOr(flags, 2u);
}
