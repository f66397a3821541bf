// pbe's inter-partition stage on the device (engine/pbe/intergpu.go; docs/out-of-core.md, "The
// inter stage on the device"): the host stage's flat programs (inter.go), run by one thread per
// seed. A seed is one adjacency entry e of the data graph: the directed edge (v, w), v the owner
// of e, w = nbr[e]; a cut edge (of[v] != of[w]) seeds every program whose first two positions
// take v and w, and the thread extends it depth first with an explicit stack of MAXP levels.
// Candidates of a position come from the label runs of its earlier neighbour of smallest degree
// (each sorted by id, clipped by binary search to the window the symmetry restrictions and
// DUPREMOVE leave), the other earlier neighbours are looked up by binary search, and the checks
// are the host's (place/admit): candidate bitsets, injectivity, DUPREMOVE (edgeKey against the
// prime data edge), non-adjacency. A count's last position is counted, not extended.
// Heavy seeds (a program whose third position's candidate list may hold heavyMin entries or more,
// bounded by the degrees of the seed's ends) are left out of the launches over entries and run by
// launches over a list of them, slices threads a seed: slice s takes the candidates at the
// positions p = s (mod slices) of the third position's list (with their subtrees), and slice 0
// counts the seed and the third position's node, so the counters equal the host stage's. Counters
// (matches, seeds, nodes, bytes, as the host stage counts them) are summed per warp and added
// with atomics into out[0..3]; out[4] is set when the match count wrapped (the host reports an
// overflow).
// Threads never wait on each other, so package cudahost runs the kernel one thread at a time.

#define MAXP 16
#define STEP_W 24
#define PROG_W (1 + MAXP * STEP_W)
#define NO_CAND 0xffffffffu
#define POLL_EVERY 1024u
#if defined(CUDAHOST_WARP)
#define LANES CUDAHOST_WARP
#elif defined(CUDAHOST)
#define LANES 1
#else
#define LANES 32
#endif

typedef unsigned long long u64;
typedef unsigned u32;

#ifdef CUDAHOST
#define CTZ(m) ((u32)__builtin_ctz(m))
#else
#define CTZ(m) ((u32)(__ffs(m) - 1))
#endif

__device__ __forceinline__ u64 max64(u64 a, u64 b) { return a > b ? a : b; }
__device__ __forceinline__ u64 min64(u64 a, u64 b) { return a < b ? a : b; }

// A step's words (inter.go's step, flattened by flattenInter): flags (bit 0: any vertex label),
// the vertex label, the candidate bitset's first word in cand (NO_CAND: none), then masks over
// the earlier positions: adjacent ones, those whose edge label is a wildcard, non-adjacent ones
// (induced), those that must be smaller, those that must be larger; then the edge label to every
// earlier position.
enum { S_FLAGS, S_VL, S_CAND, S_BACK, S_ELANY, S_NONADJ, S_LESS, S_MORE, S_EL };

struct Run {
    u32 vl, el;
    u64 start;
};

struct InterGraph {
    const u64* offs;
    const u32* nbr;
    const u32* elab; // null: every edge label is 0
    const u32* vlab;
    const u64* runOff;
    const Run* runs;
    const u32* of;
    const u64* cand;
    u32 plain, plainLabel;
};

__device__ __forceinline__ u64 edge_key(u32 x, u32 y) {
    return x < y ? ((u64)x << 32 | y) : ((u64)y << 32 | x);
}

// lower_bound is the first position of a[lo, hi) holding x or more (hi when none).
__device__ __forceinline__ u64 lower_bound(const u32* a, u64 lo, u64 hi, u32 x) {
    while (lo < hi) {
        u64 h = lo + (hi - lo) / 2;
        if (a[h] < x) lo = h + 1;
        else hi = h;
    }
    return lo;
}

// run_end is where run r of x ends.
__device__ __forceinline__ u64 run_end(const InterGraph& g, u32 x, u64 r) {
    return r + 1 < g.runOff[x + 1] ? g.runs[r + 1].start : g.offs[x + 1];
}

// first_run is the first run of x not below (vl, el).
__device__ __forceinline__ u64 first_run(const InterGraph& g, u32 x, u32 vl, u32 el) {
    u64 lo = g.runOff[x], hi = g.runOff[x + 1];
    while (lo < hi) {
        u64 h = lo + (hi - lo) / 2;
        Run r = g.runs[h];
        if (r.vl < vl || (r.vl == vl && r.el < el)) lo = h + 1;
        else hi = h;
    }
    return lo;
}

// adjacent reports whether x and v are joined by an edge whose label is el (any: whatever its
// label), searching the shorter list.
__device__ bool adjacent(const InterGraph& g, u32 x, u32 v, bool any, u32 el) {
    if (g.offs[x + 1] - g.offs[x] > g.offs[v + 1] - g.offs[v]) {
        u32 t = x;
        x = v;
        v = t;
    }
    if (g.plain) {
        if (!any && el != 0) return false;
        u64 hi = g.offs[x + 1], p = lower_bound(g.nbr, g.offs[x], hi, v);
        return p < hi && g.nbr[p] == v;
    }
    u32 vl = g.vlab[v];
    u64 rend = g.runOff[x + 1];
    for (u64 r = first_run(g, x, vl, any ? 0 : el); r < rend; ++r) {
        Run run = g.runs[r];
        if (run.vl != vl || (!any && run.el != el)) break;
        u64 hi = run_end(g, x, r), p = lower_bound(g.nbr, run.start, hi, v);
        if (p < hi && g.nbr[p] == v) return true;
        if (!any) break;
    }
    return false;
}

__device__ __forceinline__ bool in_cand(const InterGraph& g, const u32* st, u32 v) {
    return st[S_CAND] == NO_CAND || (g.cand[st[S_CAND] + (v >> 6)] >> (v & 63) & 1);
}

__device__ __forceinline__ bool label_ok(const u32* st, u32 l) { return (st[S_FLAGS] & 1) || st[S_VL] == l; }

// Level is one position's place in its candidate source: the earlier vertex src, its run r
// (runs up to rEnd; the whole list on a plain graph), the entries [p, pe) left of the current
// run, and the id window [lo, hi). The level takes the run's positions p = phase (mod step): all
// of them (step 1) but at a heavy seed's third position, whose slices share its list.
struct Level {
    u32 src, srcPos, step, phase;
    u64 r, rEnd, p, pe, lo, hi;
};

// next_run moves lv to its next run whose labels the step takes (across the edge to srcPos),
// clipped to the window; false when there is none.
__device__ bool next_run(const InterGraph& g, const u32* st, Level& lv) {
    const bool vany = st[S_FLAGS] & 1, eany = st[S_ELANY] >> lv.srcPos & 1;
    const u32 vl = st[S_VL], el = st[S_EL + lv.srcPos];
    while (lv.r < lv.rEnd) {
        u64 a, b;
        if (g.plain) {
            a = g.offs[lv.src];
            b = g.offs[lv.src + 1];
        } else {
            Run run = g.runs[lv.r];
            if (!vany && run.vl != vl) {
                lv.r = lv.rEnd; // past the vertex label's runs
                return false;
            }
            if (!eany && run.el != el) {
                ++lv.r;
                continue;
            }
            a = run.start;
            b = run_end(g, lv.src, lv.r);
        }
        ++lv.r;
        if (lv.lo > 0) a = lower_bound(g.nbr, a, b, (u32)lv.lo);
        if (lv.hi < (1ull << 32)) b = lower_bound(g.nbr, a, b, (u32)lv.hi);
        if (lv.step > 1 && a < b) a += (lv.phase + lv.step - a % lv.step) % lv.step;
        if (a < b) {
            lv.p = a;
            lv.pe = b;
            return true;
        }
    }
    return false;
}

// open_level sets level i up for the partial match f[0, i): its window, its candidate source (the
// earlier neighbour of smallest degree) and that source's first run; it adds the node and the
// bytes the host stage counts for it.
__device__ void open_level(const InterGraph& g, const u32* st, const u32* f, u32 i, u64 prime, u32 entry, Level& lv,
                     u64& nodes, u64& bytes) {
    ++nodes;
    u64 lo = 0, hi = 1ull << 32;
    for (u32 m = st[S_LESS]; m; m &= m - 1) lo = max64(lo, (u64)f[CTZ(m)] + 1);
    for (u32 m = st[S_MORE]; m; m &= m - 1) hi = min64(hi, (u64)f[CTZ(m)]);
    u32 back = st[S_BACK];
    u32 src = 0, srcPos = 0;
    u64 best = ~0ull;
    bool split = false;
    u32 part = g.of[f[CTZ(back)]];
    for (u32 m = back; m; m &= m - 1) {
        u32 j = CTZ(m), x = f[j];
        u64 d = g.offs[x + 1] - g.offs[x];
        bytes += d * entry;
        if (d < best) {
            best = d;
            src = x;
            srcPos = j;
        }
        split |= g.of[x] != part;
    }
    // DUPREMOVE as a window: a candidate across the cut from an earlier neighbour must close a
    // larger cut edge than the prime one, so it lies above the prime edge's smaller end.
    if (split) lo = max64(lo, (prime >> 32) + 1);
    lv.src = src;
    lv.srcPos = srcPos;
    lv.step = 1;
    lv.phase = 0;
    lv.lo = lo;
    lv.hi = hi;
    lv.p = lv.pe = 0;
    if (lo >= hi) {
        lv.r = lv.rEnd = 0;
    } else if (g.plain) {
        bool ok = ((st[S_FLAGS] & 1) || st[S_VL] == g.plainLabel) && ((st[S_ELANY] >> srcPos & 1) || st[S_EL + srcPos] == 0);
        lv.r = 0;
        lv.rEnd = ok ? 1 : 0;
    } else {
        lv.rEnd = g.runOff[src + 1];
        lv.r = (st[S_FLAGS] & 1) ? g.runOff[src] : first_run(g, src, st[S_VL], (st[S_ELANY] >> srcPos & 1) ? 0 : st[S_EL + srcPos]);
    }
}

// admit checks candidate v of position i, read from the run of f[srcPos] on the step's labels
// and within the window: the candidate set, injectivity, DUPREMOVE, the other earlier
// neighbours' edges and non-adjacency.
__device__ bool admit(const InterGraph& g, const u32* st, const u32* f, u32 i, u32 srcPos, u32 v, u64 prime) {
    if (!in_cand(g, st, v)) return false;
    for (u32 j = 0; j < i; ++j)
        if (f[j] == v) return false;
    const u32 back = st[S_BACK], pv = g.of[v];
    for (u32 m = back; m; m &= m - 1) {
        u32 x = f[CTZ(m)];
        if (g.of[x] != pv && edge_key(v, x) < prime) return false; // a smaller cut image edge
    }
    for (u32 m = back & ~(1u << srcPos); m; m &= m - 1) {
        u32 j = CTZ(m);
        if (!adjacent(g, f[j], v, st[S_ELANY] >> j & 1, st[S_EL + j])) return false;
    }
    for (u32 m = st[S_NONADJ]; m; m &= m - 1)
        if (adjacent(g, f[CTZ(m)], v, true, 0)) return false;
    return true;
}

// owner is the vertex whose adjacency holds entry e (the last whose list starts at or before it),
// searched from from (a thread's entries ascend, so its last owner bounds the next one).
__device__ __forceinline__ u32 owner(const InterGraph& g, u64 from, u64 n, u64 e) {
    u64 lo = from, hi = n - 1;
    while (lo < hi) {
        u64 h = lo + (hi - lo + 1) / 2;
        if (g.offs[h] <= e) lo = h;
        else hi = h - 1;
    }
    return (u32)lo;
}

// list_bound bounds the third position's candidate list (the step st) for the seed (v, w): the
// smaller degree of its earlier neighbours among them, as open_level picks its source. The host's
// heavySeeds computes the same bound (over every program) to list the heavy seeds.
__device__ __forceinline__ u64 list_bound(const InterGraph& g, const u32* st, u32 v, u32 w) {
    u64 d = ~0ull;
    if (st[S_BACK] & 1) d = g.offs[v + 1] - g.offs[v];
    if (st[S_BACK] & 2) d = min64(d, g.offs[w + 1] - g.offs[w]);
    return d;
}

#ifdef CUDAHOST
// pbe_inter_work, when a host test sets it, gets every thread's work (candidates looked at and
// search nodes opened, and one for each item taken) added at its global index: the balance of a
// launch's threads.
static u64* pbe_inter_work = nullptr;
#endif

__device__ __forceinline__ void add_out(u64* out, u32 k, u64 x) {
#if LANES > 1
    for (int o = LANES / 2; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    if ((threadIdx.x & (LANES - 1)) != 0) return;
#endif
    if (x == 0) return;
    u64 old = atomicAdd(&out[k], x);
    if (k == 0 && old + x < old) atomicOr(&out[4], 1ull); // the match count wrapped
}

// pbe_inter runs the nprog programs of prog (PROG_W words each: the number of steps, then the
// steps) over the items [lo, hi) (grid-stride, one thread an item), adding to out (matches,
// seeds, nodes, bytes, overflow). With heavy null an item is an adjacency entry of the graph's n
// vertices, and its seed's programs whose list_bound is below heavyMin run; else item i is slice
// i % slices of the seed at entry heavy[i / slices] (ascending), and its programs whose
// list_bound is heavyMin or more run (the light ones ran over the entries). flags: bit 0 plain
// (one vertex label, plainLabel, no edge labels: a vertex's list is one run), bit 1 the graph has
// edge labels (elab). entry is the bytes an adjacency entry moves (the bytes counter's unit). The
// host's stop flag (stop, ctl: gpu.StopPollSource) is polled every POLL_EVERY candidates a thread looks at;
// a stopped launch's counters are partial.
extern "C" __global__ void pbe_inter(const u64* offs, const u32* nbr, const u32* elab, const u32* vlab,
                                     const u64* runOff, const Run* runs, const u32* of, const u64* cand,
                                     const u32* prog, u32 nprog, u64 n, u32 flags, u32 plainLabel, u32 entry,
                                     u64 lo, u64 hi, const u64* heavy, u32 slices, u64 heavyMin, u64* out,
                                     const volatile unsigned* stop, u64* ctl) {
    InterGraph g;
    g.offs = offs;
    g.nbr = nbr;
    g.elab = (flags & 2) ? elab : 0;
    g.vlab = vlab;
    g.runOff = runOff;
    g.runs = runs;
    g.of = of;
    g.cand = cand;
    g.plain = flags & 1;
    g.plainLabel = plainLabel;
    u64 matches = 0, seeds = 0, nodes = 0, bytes = 0, work = 0;
    u32 f[MAXP];
    Level lv[MAXP];
    bool stopped = false;
    u32 poll = 0;
    u64 from = 0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 it = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; it < hi && !stopped; it += stride) {
        const u64 e = heavy ? heavy[it / slices] : it;
        const u32 slice = heavy ? (u32)(it % slices) : 0;
        const u32 v = owner(g, from, n, e), w = nbr[e];
        from = v;
        ++work; // the item's own cost: the owner's search, the seed checks
        if (of[v] == of[w]) continue;
        const u32 el = g.elab ? g.elab[e] : 0;
        const u32 labV = g.plain ? plainLabel : vlab[v], labW = g.plain ? plainLabel : vlab[w];
        const u64 prime = edge_key(v, w);
        for (u32 k = 0; k < nprog && !stopped; ++k) {
            const u32* pr = prog + (u64)k * PROG_W;
            const u32 ns = pr[0];
            const u32* s0 = pr + 1;
            const u32* s1 = s0 + STEP_W;
            if (!label_ok(s0, labV) || !in_cand(g, s0, v) || !label_ok(s1, labW) || !in_cand(g, s1, w)) continue;
            if (!(s1[S_ELANY] & 1) && s1[S_EL] != el) continue;
            if ((s1[S_LESS] & 1) && v >= w) continue;
            if ((s1[S_MORE] & 1) && v <= w) continue;
            if (ns == 2) {
                if (!heavy) {
                    ++seeds;
                    ++matches;
                }
                continue;
            }
            if ((list_bound(g, s0 + 2 * STEP_W, v, w) >= heavyMin) != (heavy != 0)) continue; // the other launches'
            f[0] = v;
            f[1] = w;
            u32 i = 2;
            u64 n2 = 0, b2 = 0;
            open_level(g, s0 + 2 * STEP_W, f, 2, prime, entry, lv[2], n2, b2);
            work += n2;
            if (slice == 0) { // a heavy seed's slices count its seed and this node once
                ++seeds;
                nodes += n2;
                bytes += b2;
            }
            if (heavy) {
                lv[2].step = slices;
                lv[2].phase = slice;
            }
            while (i >= 2) {
                const u32* st = s0 + i * STEP_W;
                Level& l = lv[i];
                bool got = false;
                u32 c = 0;
                for (;;) {
                    if (l.p < l.pe) {
                        c = nbr[l.p];
                        l.p += l.step;
                        ++work;
                        // Polled per candidate looked at, not per node: a hub's list at the
                        // last position is scanned without descending, and polling per node
                        // left a cancelled launch running for minutes (the device, R-MAT 16).
                        if (++poll == POLL_EVERY) {
                            poll = 0;
                            if (stop_poll(stop, ctl)) {
                                stopped = true;
                                break;
                            }
                        }
                        if (admit(g, st, f, i, l.srcPos, c, prime)) {
                            if (i + 1 == ns) {
                                ++matches; // the last position: counted, not extended
                                continue;
                            }
                            got = true;
                            break;
                        }
                        continue;
                    }
                    if (!next_run(g, st, l)) break;
                }
                if (stopped) break;
                if (!got) {
                    --i;
                    continue;
                }
                f[i] = c;
                ++i;
                ++work;
                open_level(g, st + STEP_W, f, i, prime, entry, lv[i], nodes, bytes);
            }
        }
    }
#ifdef CUDAHOST
    if (pbe_inter_work) pbe_inter_work[(u64)blockIdx.x * blockDim.x + threadIdx.x] += work;
#endif
    add_out(out, 0, matches);
    add_out(out, 1, seeds);
    add_out(out, 2, nodes);
    add_out(out, 3, bytes);
}
