// Census kernels (package mining, file gpu.go): the local counts of locals.go that dominate the
// census, on the degree-ordered graph (ordered.go): off[n+1] (u64), nbr (u32, each list sorted),
// up[n] (u64: the first neighbour above the vertex). An out-edge is a position p >= up[u] of u's
// list; the host passes the out-edges as (eu[i], ep[i]) pairs.
//
// census_triangles: a warp per out-edge u -> v (v = nbr[p]) intersects the tail of u's list after
// p with v's out-list; each common w is a triangle u < v < w, counted on its three edges (te, at
// the out-positions p, pw, pvw) with the third vertex's degree added to sd, exactly as
// locals.triangles. With tips set (te then complete, sd unused) it walks the same triangles and
// adds to each vertex t - 1 for the edge opposite it (the diamonds whose degree-2 vertex it is, as
// locals.diamondTips).
//
// census_cliques: a warp per out-edge u -> v builds A = (u's out-list after v) ∩ (v's out-list)
// in its scratch; for each w of A, B = A ∩ out(w) gives |B| 4-cliques u < v < w < x (k4, and
// with per_vertex k4v of u, v, w and each x); with five set, each x of B adds
// |B after x ∩ out(x)| 5-cliques. As locals.cliques.
//
// census_cycles: a block per vertex u (grid-stride) tallies, in a per-block counter array of n
// words in global memory, the wedges u - v - w with v, w below u; the pairs of wedges to one w
// are the 4-cycles whose highest vertex is u and opposite w. With per_vertex the counts are
// spread over c4v and c4e (at adjacency positions; the host folds them onto out-positions) as
// locals.cycles does.
//
// Sums are unsigned 64-bit, overflow flagged in *flags (bit 0).
//
// Every kernel takes the host's stop flag (stop: pinned host memory, null for none) and ctl, two
// device words (the next poll time, and a word set once a poll found the flag raised): a warp or
// block calls stop_poll (package gpu's StopPollSource, prepended to this file) every few units of
// work (out-edges, vertices, steps of a clique search) and leaves its loop once it says so, and
// each thread looks on its own every 64 steps of an inner loop over a hub's lists (CS_LEAVE):
// without those, a kernel on a dense graph ran on for 1.7 to 6 s after the flag was raised
// (H100). A stopped kernel's sums are partial: the host
// discards them (the census was cancelled).

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL 0xffffffffu
// Lanes of a warp: 32 on the GPU; 1 when the code runs on the host (package cudahost).
#ifdef CUDAHOST
#define CS_LANES 1
#else
#define CS_LANES 32
#endif

// First index in [lo, hi) with a[i] >= x.
__device__ __forceinline__ u64 cs_lower(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
    while (lo < hi) {
        u64 mid = lo + ((hi - lo) >> 1);
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Index of x in the sorted a[lo, hi), or hi.
__device__ __forceinline__ u64 cs_find(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
    u64 i = cs_lower(a, lo, hi, x);
    return (i < hi && a[i] == x) ? i : hi;
}

#ifdef CUDAHOST
__device__ __forceinline__ bool cs_bcast(bool x) { return x; }
#else
__device__ __forceinline__ bool cs_bcast(bool x) { return __shfl_sync(FULL, (int)x, 0) != 0; }
#endif

// cs_warp_stopped is stop_poll (gpu.StopPollSource, prepended) for a whole warp (lane 0 looks; every lane gets the answer).
__device__ __forceinline__ bool cs_warp_stopped(const volatile u32* stop, u64* ctl, unsigned lane) {
    bool s = false;
    if (lane == 0) s = stop_poll(stop, ctl);
    return cs_bcast(s);
}

// cs_block_stopped is stop_poll for a whole block (thread 0 looks; a barrier hands the answer
// on). Every thread of the block must call it at the same point.
__device__ __forceinline__ bool cs_block_stopped(const volatile u32* stop, u64* ctl) {
    __shared__ bool halt;
    if (threadIdx.x == 0) halt = stop_poll(stop, ctl);
    __syncthreads();
    const bool h = halt;
    __syncthreads();
    return h;
}

// CS_LEAVE is a thread's own look inside an inner loop with no warp or block operation in it:
// every 64 of its steps (steps: a counter of the thread's), as inner loops over a hub's lists can
// take seconds on dense graphs. stop_poll returns at once, from device memory, once a poll found
// the flag raised.
#define CS_LEAVE(steps) ((++(steps) & 63) == 0 && stop_poll(stop, ctl))

__device__ __forceinline__ u64 cs_warp_sum(u64 x) {
    for (int off = CS_LANES / 2; off > 0; off >>= 1) x += __shfl_xor_sync(FULL, x, off);
    return x;
}

// cs_flush adds a thread's partial sum v to sums[i] (v == 0: nothing), flagging a wrap.
__device__ __forceinline__ void cs_flush(u64* sums, int i, u64 v, bool* over) {
    if (v == 0) return;
    const u64 old = atomicAdd(&sums[i], v);
    if (old + v < old) *over = true;
}

// |a[0, na) ∩ b[lo, hi)| over the warp (every lane gets the count).
__device__ __forceinline__ u64 cs_count(const u32* __restrict__ a, u64 na, const u32* __restrict__ b, u64 lo,
                                        u64 hi, unsigned lane) {
    u64 c = 0;
    for (u64 i = lane; i < na; i += CS_LANES) c += cs_find(b, lo, hi, a[i]) < hi;
    return cs_warp_sum(c);
}

// Writes a[0, na) ∩ b[lo, hi) in order to out; returns the count (every lane).
__device__ __forceinline__ u32 cs_collect(const u32* __restrict__ a, u64 na, const u32* __restrict__ b, u64 lo,
                                          u64 hi, u32* __restrict__ out, unsigned lane) {
    u32 n = 0;
    for (u64 base = 0; base < na; base += CS_LANES) {
        u64 i = base + lane;
        bool in = i < na && cs_find(b, lo, hi, a[i]) < hi;
        unsigned m = __ballot_sync(FULL, in);
        if (in) out[n + __popc(m & ((1u << lane) - 1u))] = a[i];
        n += __popc(m);
    }
    __syncwarp();
    return n;
}

extern "C" __global__ void census_triangles(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                            const u64* __restrict__ up, const u32* __restrict__ eu,
                                            const u32* __restrict__ ep, u32 nout, u32* __restrict__ te,
                                            u64* __restrict__ sd, u64* __restrict__ tips,
        const volatile u32* stop, u64* __restrict__ ctl) {
    const unsigned lane = threadIdx.x % CS_LANES;
    const u32 warp = ((blockIdx.x * blockDim.x + threadIdx.x) ) / CS_LANES;
    const u32 nwarps = ((gridDim.x * blockDim.x) ) / CS_LANES;
    u32 it = 0, steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u32 i = warp; i < nout; i += nwarps) {
        if ((it++ & 31) == 0 && cs_warp_stopped(stop, ctl, lane)) break;
        const u32 u = eu[i];
        const u64 p = ep[i];
        const u32 v = nbr[p];
        const u64 ue = off[u + 1];
        const u64 vb = up[v], ve = off[v + 1];
        const u64 du = ue - off[u], dv = ve - off[v];
        for (u64 pw = p + 1 + lane; pw < ue && !gone; pw += CS_LANES) {
            if (CS_LEAVE(steps)) gone = true;
            const u32 w = nbr[pw];
            const u64 pvw = cs_find(nbr, vb, ve, w);
            if (pvw == ve) continue;
            if (tips) {
                atomicAdd(&tips[u], (u64)te[pvw] - 1);
                atomicAdd(&tips[v], (u64)te[pw] - 1);
                atomicAdd(&tips[w], (u64)te[p] - 1);
                continue;
            }
            const u64 dw = off[w + 1] - off[w];
            atomicAdd(&te[p], 1u);
            atomicAdd(&te[pw], 1u);
            atomicAdd(&te[pvw], 1u);
            atomicAdd(&sd[p], dw);
            atomicAdd(&sd[pw], dv);
            atomicAdd(&sd[pvw], du);
        }
    }
}

extern "C" __global__ void census_cliques(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                          const u64* __restrict__ up, const u32* __restrict__ eu,
                                          const u32* __restrict__ ep, u32 nout, int five, int per_vertex,
                                          u32* __restrict__ scratch, u64 scratch_words, u64* __restrict__ k4v,
                                          u64* __restrict__ sums, u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    const unsigned lane = threadIdx.x % CS_LANES;
    const u32 warp = ((blockIdx.x * blockDim.x + threadIdx.x) ) / CS_LANES;
    const u32 nwarps = ((gridDim.x * blockDim.x) ) / CS_LANES;
    u32* A = scratch + (u64)warp * 2 * scratch_words;
    u32* B = A + scratch_words;
    u64 k4 = 0, k5 = 0;
    bool over = false;
    u32 it = 0;
    for (u32 i = warp; i < nout; i += nwarps) {
        if ((it++ & 31) == 0 && cs_warp_stopped(stop, ctl, lane)) break;
        const u32 u = eu[i];
        const u64 p = ep[i];
        const u32 v = nbr[p];
        const u64 ue = off[u + 1];
        const u32 na = cs_collect(nbr + p + 1, ue - p - 1, nbr, up[v], off[v + 1], A, lane);
        for (u32 iw = 0; iw < na; ++iw) {
            if ((iw & 3) == 3 && cs_warp_stopped(stop, ctl, lane)) break;
            const u32 w = A[iw];
            const u64 wb = up[w], we = off[w + 1];
            u64 nb;
            if (!five && !per_vertex) {
                nb = cs_count(A + iw + 1, na - iw - 1, nbr, wb, we, lane);
            } else {
                nb = cs_collect(A + iw + 1, na - iw - 1, nbr, wb, we, B, lane);
            }
            u64 s = k4 + nb;
            over |= s < k4;
            k4 = s;
            if (nb == 0) continue;
            if (per_vertex) {
                if (lane == 0) {
                    atomicAdd(&k4v[u], nb);
                    atomicAdd(&k4v[v], nb);
                    atomicAdd(&k4v[w], nb);
                }
                for (u32 j = lane; j < nb; j += CS_LANES) atomicAdd(&k4v[B[j]], 1ull);
            }
            if (five) {
                for (u32 j = 0; j + 1 < nb; ++j) {
                    if ((j & 15) == 15 && cs_warp_stopped(stop, ctl, lane)) break;
                    const u32 x = B[j];
                    u64 c = cs_count(B + j + 1, nb - j - 1, nbr, up[x], off[x + 1], lane);
                    u64 t = k5 + c;
                    over |= t < k5;
                    k5 = t;
                }
            }
            __syncwarp();
        }
    }
    if (lane == 0) {
        cs_flush(sums, 0, k4, &over);
        cs_flush(sums, 1, k5, &over);
        if (over) atomicOr(flags, 1u);
    }
}

extern "C" __global__ void census_cycles(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                         const u64* __restrict__ up, u32 n, int per_vertex,
                                         u32* __restrict__ counters, u32* __restrict__ seen_lists,
                                         u32* __restrict__ seen_counts, u64* __restrict__ c4v,
                                         u64* __restrict__ c4e, u64* __restrict__ sums, u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    u32* c = counters + (u64)blockIdx.x * n;
    u32* seen = seen_lists + (u64)blockIdx.x * n;
    u32* nseen = seen_counts + blockIdx.x;
    __shared__ u64 here;
    bool over = false;
    u64 mine = 0;
    u32 steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u32 u = blockIdx.x; u < n; u += gridDim.x) {
        if (cs_block_stopped(stop, ctl)) break;
        if (threadIdx.x == 0) here = 0;
        __syncthreads();
        const u64 lb = off[u], le = up[u];  // lower(u)
        for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
            const u32 v = nbr[q];
            for (u64 r = off[v]; r < off[v + 1] && !gone; ++r) {
                if (CS_LEAVE(steps)) {
                    gone = true;
                    break;
                }
                const u32 w = nbr[r];
                if (w >= u) break;
                if (atomicAdd(&c[w], 1u) == 0) seen[atomicAdd(nseen, 1u)] = w;
            }
        }
        __syncthreads();
        const u32 ns = *nseen;
        u64 local = 0;
        for (u32 j = threadIdx.x; j < ns; j += blockDim.x) {
            const u32 w = seen[j];
            const u64 k = c[w];
            const u64 pairs = k * (k - 1) / 2;
            if (local + pairs < local) over = true;
            local += pairs;
            if (per_vertex && pairs) atomicAdd(&c4v[w], pairs);
        }
        if (local && atomicAdd(&here, local) + local < local) over = true;
        __syncthreads();
        const u64 h = here;
        if (threadIdx.x == 0) {
            if (mine + h < mine) over = true;
            mine += h;
        }
        if (per_vertex && h) {
            if (threadIdx.x == 0) atomicAdd(&c4v[u], h);
            for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
                const u32 v = nbr[q];
                u64 sv = 0;
                for (u64 r = off[v]; r < off[v + 1] && !gone; ++r) {
                    if (CS_LEAVE(steps)) {
                        gone = true;
                        break;
                    }
                    const u32 w = nbr[r];
                    if (w >= u) break;
                    const u64 x = (u64)c[w] - 1;
                    if (x) {
                        sv += x;
                        atomicAdd(&c4e[r], x);
                    }
                }
                if (sv) {
                    atomicAdd(&c4v[v], sv);
                    atomicAdd(&c4e[q], sv);
                }
            }
        }
        __syncthreads();
        for (u32 j = threadIdx.x; j < ns; j += blockDim.x) c[seen[j]] = 0;
        __syncthreads();
        if (threadIdx.x == 0) *nseen = 0;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        cs_flush(sums, 0, mine, &over);
        if (over) atomicOr(flags, 1u);
    }
}

// The triangle list of the edge at adjacency position p: tl[tof[canon[p]], tof[canon[p] + 1]).
__device__ __forceinline__ void cs_tlist(const u64* __restrict__ tof, const u32* __restrict__ canon, u64 p,
                                         u64* lo, u64* hi) {
    const u64 c = canon[p];
    *lo = tof[c];
    *hi = tof[c + 1];
}

// a * b + *acc, overflow flagged.
__device__ __forceinline__ void cs_addmul(u64* acc, u64 a, u64 b, bool* over) {
    if (__umul64hi(a, b) != 0) *over = true;
    const u64 p = a * b, s = *acc + p;
    if (s < *acc) *over = true;
    *acc = s;
}

// census_gem: a warp per out-edge u -> v walks its triangles u < v < w as census_triangles does
// and adds, as locals.gemSum, (t_uv - 1)(t_uw - 1) + (t_uv - 1)(t_vw - 1) + (t_uw - 1)(t_vw - 1)
// to sums[0]; with c the common third vertices of the edges u-v and u-w (their sorted triangle
// lists), C(c, 2) to sums[1] and c to k4e of the three edges.
extern "C" __global__ void census_gem(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                      const u64* __restrict__ up, const u32* __restrict__ eu,
                                      const u32* __restrict__ ep, u32 nout, const u32* __restrict__ te,
                                      const u64* __restrict__ tof, const u32* __restrict__ tl,
                                      u64* __restrict__ k4e, u64* __restrict__ sums, u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    const unsigned lane = threadIdx.x % CS_LANES;
    const u32 warp = ((blockIdx.x * blockDim.x + threadIdx.x)) / CS_LANES;
    const u32 nwarps = ((gridDim.x * blockDim.x)) / CS_LANES;
    u64 gem = 0, k5 = 0;
    bool over = false;
    u32 it = 0, steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u32 i = warp; i < nout; i += nwarps) {
        if ((it++ & 31) == 0 && cs_warp_stopped(stop, ctl, lane)) break;
        const u32 u = eu[i];
        const u64 p = ep[i];
        const u32 v = nbr[p];
        const u64 ue = off[u + 1];
        const u64 vb = up[v], ve = off[v + 1];
        for (u64 pw = p + 1 + lane; pw < ue && !gone; pw += CS_LANES) {
            // a triangle's merge of two triangle lists can be long: a look every 4
            if ((++steps & 3) == 0 && stop_poll(stop, ctl)) gone = true;
            const u64 pvw = cs_find(nbr, vb, ve, nbr[pw]);
            if (pvw == ve) continue;
            const u64 tuv = (u64)te[p] - 1, tuw = (u64)te[pw] - 1, tvw = (u64)te[pvw] - 1;
            cs_addmul(&gem, tuv, tuw, &over);
            cs_addmul(&gem, tuv, tvw, &over);
            cs_addmul(&gem, tuw, tvw, &over);
            if (tuv == 0 || tuw == 0 || tvw == 0) continue;
            u64 a = tof[p], ae = tof[p + 1], b = tof[pw], be = tof[pw + 1];
            u64 c = 0;
            while (a < ae && b < be) {
                const u32 x = tl[a], y = tl[b];
                if (x < y) ++a;
                else if (x > y) ++b;
                else { ++c; ++a; ++b; }
            }
            if (c == 0) continue;
            const u64 s = k5 + c * (c - 1) / 2;
            if (s < k5) over = true;
            k5 = s;
            atomicAdd(&k4e[p], c);
            atomicAdd(&k4e[pw], c);
            atomicAdd(&k4e[pvw], c);
        }
    }
    cs_flush(sums, 0, gem, &over);
    cs_flush(sums, 1, k5, &over);
    if (over) atomicOr(flags, 1u);
}

// Adds x to a block's tally (counter array c, list of touched entries seen, its length *ns).
__device__ __forceinline__ void cs_tally(u32* __restrict__ c, u32* __restrict__ seen, u32* ns, u32 x) {
    if (atomicAdd(&c[x], 1u) == 0) seen[atomicAdd(ns, 1u)] = x;
}

// census_pairs: a block per vertex a, as locals.pairs: tallies the wedges a - x - b with b < a
// (c[b]: codeg(a, b)) and, from the triangle lists, e[b]: the edges x - y among the common
// neighbours of a and b; adds C(c[b], 3) to sums[0] and e[b] (c[b] - 2) to sums[1].
extern "C" __global__ void census_pairs(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                        const u64* __restrict__ up, u32 n, const u64* __restrict__ tof,
                                        const u32* __restrict__ tl, const u32* __restrict__ canon,
                                        u32* __restrict__ counters, u32* __restrict__ seen_lists,
                                        u32* __restrict__ seen_counts, u64* __restrict__ sums,
                                        u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    u32* c = counters + (u64)blockIdx.x * 2 * n;
    u32* e = c + n;
    u32* seen = seen_lists + (u64)blockIdx.x * n;
    u32* ns = seen_counts + blockIdx.x;
    u64 k23 = 0, spoke = 0;
    bool over = false;
    u32 steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u32 a = blockIdx.x; a < n; a += gridDim.x) {
        if (cs_block_stopped(stop, ctl)) break;
        const u64 ab = off[a], ae = off[a + 1];
        for (u64 q = ab + threadIdx.x; q < ae; q += blockDim.x) {
            const u32 x = nbr[q];
            for (u64 r = off[x]; r < off[x + 1] && !gone; ++r) {
                if (CS_LEAVE(steps)) {
                    gone = true;
                    break;
                }
                const u32 b = nbr[r];
                if (b >= a) break;
                cs_tally(c, seen, ns, b);
            }
        }
        for (u64 q = ab + threadIdx.x; q < ae; q += blockDim.x) {
            const u32 x = nbr[q];
            u64 lo, hi;
            cs_tlist(tof, canon, q, &lo, &hi);
            for (u64 t = lo; t < hi && !gone; ++t) {
                const u32 y = tl[t];
                if (y <= x) continue;
                // the edge x - y, at its out-position (x < y)
                const u64 pxy = cs_find(nbr, up[x], off[x + 1], y);
                u64 lo2, hi2;
                cs_tlist(tof, canon, pxy, &lo2, &hi2);
                for (u64 s = lo2; s < hi2 && !gone; ++s) {
                    if (CS_LEAVE(steps)) {
                        gone = true;
                        break;
                    }
                    const u32 b = tl[s];
                    if (b >= a) break;
                    atomicAdd(&e[b], 1u);
                }
            }
        }
        __syncthreads();
        const u32 m = *ns;
        for (u32 j = threadIdx.x; j < m; j += blockDim.x) {
            const u32 b = seen[j];
            const u64 k = c[b];
            if (k >= 3) {
                // C(k, 3) without an intermediate wrap: 3 divides k - 2 or k(k - 1) / 2.
                const u64 p2 = k * (k - 1) / 2;
                const u64 a3 = (k - 2) % 3 == 0 ? p2 : p2 / 3, b3 = (k - 2) % 3 == 0 ? (k - 2) / 3 : k - 2;
                if (__umul64hi(a3, b3) != 0) over = true;
                const u64 ch = a3 * b3;
                const u64 s = k23 + ch;
                if (s < k23) over = true;
                k23 = s;
                cs_addmul(&spoke, (u64)e[b], k - 2, &over);
            }
            c[b] = 0;
            e[b] = 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) *ns = 0;
        __syncthreads();
    }
    cs_flush(sums, 0, k23, &over);
    cs_flush(sums, 1, spoke, &over);
    if (over) atomicOr(flags, 1u);
}

// census_wheels: a block per adjacency position h -> a (grid-stride over the 2m positions, so
// that a hub's neighbours spread over blocks), as locals.wheels: the paths a - b - x inside N(h)
// with b, x < a (b from the edge h-a's triangles, x from h-b's) tallied per x; sum C(c[x], 2) to
// sums[0].
extern "C" __global__ void census_wheels(const u64* __restrict__ off, const u32* __restrict__ nbr, u32 n,
                                         u64 nadj, const u64* __restrict__ tof, const u32* __restrict__ tl,
                                         const u32* __restrict__ canon, u32* __restrict__ counters,
                                         u32* __restrict__ seen_lists, u32* __restrict__ seen_counts,
                                         u64* __restrict__ sums, u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    u32* c = counters + (u64)blockIdx.x * n;
    u32* seen = seen_lists + (u64)blockIdx.x * n;
    u32* ns = seen_counts + blockIdx.x;
    u64 w4 = 0;
    bool over = false;
    u32 it = 0, steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u64 pa = blockIdx.x; pa < nadj; pa += gridDim.x) {
        if ((it++ & 3) == 0 && cs_block_stopped(stop, ctl)) break;
        u64 lo, hi;
        cs_tlist(tof, canon, pa, &lo, &hi);
        if (lo == hi) continue;  // uniform over the block
        // the hub: the vertex whose list holds position pa
        u64 a0 = 0, a1 = n;
        while (a0 < a1) {
            const u64 mid = a0 + ((a1 - a0) >> 1);
            if (off[mid + 1] <= pa) a0 = mid + 1; else a1 = mid;
        }
        const u64 hb = off[a0], he = off[a0 + 1];
        const u32 a = nbr[pa];
        for (u64 t = lo + threadIdx.x; t < hi; t += blockDim.x) {
            const u32 b = tl[t];
            if (b >= a) continue;
            const u64 pb = cs_find(nbr, hb, he, b);
            u64 lo2, hi2;
            cs_tlist(tof, canon, pb, &lo2, &hi2);
            for (u64 s = lo2; s < hi2 && !gone; ++s) {
                if (CS_LEAVE(steps)) {
                    gone = true;
                    break;
                }
                const u32 x = tl[s];
                if (x >= a) break;
                cs_tally(c, seen, ns, x);
            }
        }
        __syncthreads();
        const u32 m = *ns;
        for (u32 j = threadIdx.x; j < m; j += blockDim.x) {
            const u32 x = seen[j];
            const u64 k = c[x];
            const u64 s = w4 + k * (k - 1) / 2;
            if (s < w4) over = true;
            w4 = s;
            c[x] = 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) *ns = 0;
        __syncthreads();
    }
    cs_flush(sums, 0, w4, &over);
    if (over) atomicOr(flags, 1u);
}

// census_cycles5: a block per highest vertex u, as locals.fiveCycles: P2[x] (c, the wedges
// u - v - x with v, x below u) tallied, then sums[0] gets the positive terms (P2[x] times the sum
// of P2 over x's neighbours below u, and twice top[u]) and sums[1] the negative ones (for each v
// below u, 2 P2[v] times v's neighbours below u, and twice the triangles at v below u: the
// prefix of tmax[v] below u).
extern "C" __global__ void census_cycles5(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                          const u64* __restrict__ up, u32 n, const u64* __restrict__ tm_off,
                                          const u32* __restrict__ tmax, const u64* __restrict__ top,
                                          u32* __restrict__ counters, u32* __restrict__ seen_lists,
                                          u32* __restrict__ seen_counts, u64* __restrict__ sums,
                                          u32* __restrict__ flags,
        const volatile u32* stop, u64* __restrict__ ctl) {
    u32* c = counters + (u64)blockIdx.x * n;
    u32* seen = seen_lists + (u64)blockIdx.x * n;
    u32* ns = seen_counts + blockIdx.x;
    u64 pos = 0, neg = 0;
    bool over = false;
    u32 steps = 0;
    bool gone = false;  // this thread saw the stop flag in an inner loop
    for (u32 u = blockIdx.x; u < n; u += gridDim.x) {
        if (cs_block_stopped(stop, ctl)) break;
        const u64 lb = off[u], le = up[u];
        for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
            const u32 v = nbr[q];
            for (u64 r = off[v]; r < off[v + 1] && !gone; ++r) {
                if (CS_LEAVE(steps)) {
                    gone = true;
                    break;
                }
                const u32 w = nbr[r];
                if (w >= u) break;
                cs_tally(c, seen, ns, w);
            }
        }
        __syncthreads();
        const u32 m = *ns;
        for (u32 j = threadIdx.x; j < m; j += blockDim.x) {
            const u32 x = seen[j];
            u64 s = 0;
            for (u64 r = off[x]; r < off[x + 1] && !gone; ++r) {
                if (CS_LEAVE(steps)) {
                    gone = true;
                    break;
                }
                const u32 y = nbr[r];
                if (y >= u) break;
                s += c[y];
            }
            cs_addmul(&pos, (u64)c[x], s, &over);
        }
        for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
            const u32 v = nbr[q];
            const u64 below = cs_lower(nbr, off[v], off[v + 1], u) - off[v];
            cs_addmul(&neg, 2 * (u64)c[v], below, &over);
            const u64 k = cs_lower(tmax, tm_off[v], tm_off[v + 1], u) - tm_off[v];
            const u64 t = neg + 2 * k;
            if (t < neg) over = true;
            neg = t;
        }
        if (threadIdx.x == 0) {
            const u64 t = pos + 2 * top[u];
            if (t < pos) over = true;
            pos = t;
        }
        __syncthreads();
        for (u32 j = threadIdx.x; j < m; j += blockDim.x) c[seen[j]] = 0;
        __syncthreads();
        if (threadIdx.x == 0) *ns = 0;
        __syncthreads();
    }
    cs_flush(sums, 0, pos, &over);
    cs_flush(sums, 1, neg, &over);
    if (over) atomicOr(flags, 1u);
}

// ---------------------------------------------------------------------------------------------
// census_labelled (motifs --labelled on the GPU; labelled.go): a thread per out-edge r -> w
// (grid-stride) enumerates the connected induced k-vertex subgraphs (k = 3..5) whose lowest vertex
// is r and that descend from {r, w} (r's children in the search are its out-neighbours, all
// kept), each once, by reverse search: a set S comes from its parent S - c(S), c(S) the highest
// vertex of S other than r whose removal leaves S connected. From a parent P of d vertices the
// candidates are, for each j < d, the neighbours w of P's j-th vertex above r, outside P and
// adjacent to none of P's vertices before j (so each w once), and P + w is kept when no vertex x
// of P other than r, above w, leaves P + w - x connected (w = c(P + w)); P + w - w = P is connected.
// Each subgraph adds one to the dense tally's table[rank << pairs | code] (or to its slot of the
// hash tally, below): its vertices sorted by label index
// (lab, dense in [0, L)), rank the sorted label multiset's combinatorial rank (sum of
// C(l_i + i, i + 1)), code its adjacency in that order, bit pair_index(a, b) for a < b in the
// order (0,1), (0,2), ..., (0,k-1), (1,2), ... The host turns the table's entries into labelled
// classes (labelled.go). A thread looks at the stop flag every 16 out-edges (its first included) and
// every 64 candidates. Tallies of up to CS_LTALLY entries (k = 5 with one label, k = 4 with up to
// 5 labels, k = 3 with up to 14) are kept per block in shared memory and added to table at the
// end; a thread adds a run of subgraphs with the same entry at once.

// C(n, r) for small r (exact at every step: c is C(n - r + i - 1, i - 1)).
__device__ __forceinline__ u64 cs_choose(u64 n, int r) {
    if ((u64)r > n) return 0;
    u64 c = 1;
    for (int i = 1; i <= r; ++i) c = c * (n - r + i) / i;
    return c;
}

// census_labelled keeps tallies of at most this many entries (32 KiB) per block in shared memory.
#define CS_LTALLY 4096

// Whether the positions of mask induce a connected graph (adj: adjacency rows by position).
__device__ __forceinline__ bool cs_connected(const u32* adj, int k, u32 mask) {
    u32 seen = mask & (~mask + 1u);
    for (;;) {
        u32 next = seen;
        for (int i = 0; i < k; ++i)
            if ((seen >> i) & 1u) next |= adj[i] & mask;
        if (next == seen) return seen == mask;
        seen = next;
    }
}

// Whether a and b are adjacent (a binary search in the shorter list).
__device__ __forceinline__ bool cs_adjacent(const u64* __restrict__ off, const u32* __restrict__ nbr, u32 a, u32 b) {
    if (off[b + 1] - off[b] < off[a + 1] - off[a]) { u32 t = a; a = b; b = t; }
    return cs_find(nbr, off[a], off[a + 1], b) < off[a + 1];
}

// The hash tally (hkeys non-null: any number of labels): slot s's key is hkeys[8s + 1 .. 8s + 6]
// (the k sorted label indexes, zeros after them, then the code), hkeys[8s] its state (0 empty, 1
// being written, 2 written) and table[s] its count; the table holds size slots (a power of two).
// A subgraph whose key's hash has (h >> 40) mod hmod != hres belongs to another pass and is not
// counted. Once more than 3/4 of the slots are taken hctl[1] is raised and the pass is void (the
// host runs it again in a larger table, or as two passes of twice the modulus).

__device__ __forceinline__ u64 cs_key_hash(const u32* key) {
    u64 h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 6; ++i) {
        h = (h ^ key[i]) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h ^= h >> 29;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
}

// cs_hash_add adds n to key's slot (claiming an empty one, linear probing), false once the table
// is too full (hctl[1] raised: the pass is void).
__device__ bool cs_hash_add(u32* __restrict__ hkeys, u64* __restrict__ counts, u64 size, u32* __restrict__ hctl,
                            const u32* key, u64 h, u64 n) {
    const u64 limit = size - size / 4;
    u64 s = h & (size - 1);
    for (u64 probe = 0; probe < size; ++probe, s = (s + 1) & (size - 1)) {
        volatile u32* slot = (volatile u32*)(hkeys + 8 * s);
        u32 tag = slot[0];
        if (tag == 0) {
            if (((volatile u32*)hctl)[1] != 0) return false;
            tag = atomicCAS(hkeys + 8 * s, 0u, 1u);
            if (tag == 0) {
                for (int i = 0; i < 6; ++i) slot[1 + i] = key[i];
                __threadfence();
                atomicExch(hkeys + 8 * s, 2u);
                atomicAdd(&counts[s], n);
                if ((u64)atomicAdd(&hctl[0], 1u) + 1 > limit) {
                    atomicExch(&hctl[1], 1u);
                    return false;
                }
                return true;
            }
        }
        while (tag == 1) tag = slot[0];  // another thread is writing this slot's key
        __threadfence();                 // its key before its state (the writer's fence)
        bool same = true;
        for (int i = 0; i < 6; ++i) same = same && slot[1 + i] == key[i];
        if (same) {
            atomicAdd(&counts[s], n);
            return true;
        }
    }
    atomicExch(&hctl[1], 1u);
    return false;
}

extern "C" __global__ void census_labelled(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                           const u32* __restrict__ eu, const u32* __restrict__ ep, u32 nout, int k,
                                           const u32* __restrict__ lab, u64* __restrict__ table, u64 size,
                                           u32* __restrict__ hkeys, u32 hres, u32 hmod, u32* __restrict__ hctl,
                                           const volatile u32* stop, u64* __restrict__ ctl) {
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 nth = gridDim.x * blockDim.x;
    const int pairs = k * (k - 1) / 2;
    // a small tally (few labels) is kept per block in shared memory, added to table at the end;
    // each thread also holds its last entry's run (the same shape and labels, over and over)
    __shared__ u64 local[CS_LTALLY];
    const bool hashed = hkeys != 0;
    const bool small = !hashed && size <= CS_LTALLY;
    u32 runK[6] = {0, 0, 0, 0, 0, 0};
    u64 runH = 0;
    bool void_ = false;
    if (small) {
        for (u64 i = threadIdx.x; i < size; i += blockDim.x) local[i] = 0;
        __syncthreads();
    }
    u64* const tally = small ? local : table;
    u64 runE = 0, runN = 0;
    u32 steps = 0, roots = 0;
    for (u32 item = tid; item < nout; item += nth) {
        if ((roots++ & 15) == 0 && stop_poll(stop, ctl)) goto done;
        // the subtree of the sets {r, w, ...}: r's children are its out-neighbours w, each kept
        u32 S[5], adj[5], jj[6];
        u64 pp[6];
        const u32 r = eu[item];
        S[0] = r;
        S[1] = nbr[ep[item]];
        adj[0] = 2u;
        adj[1] = 1u;
        int d = 2;  // the set is S[0, d); frame d adds S[d]
        jj[2] = 0;
        pp[2] = cs_lower(nbr, off[r], off[r + 1], r + 1);
        while (d >= 2) {
            if (d == k) {
                // record: positions sorted by label (insertion sort), then rank and code
                int idx[5];
                for (int i = 0; i < k; ++i) {
                    int j = i;
                    while (j > 0 && lab[S[idx[j - 1]]] > lab[S[i]]) { idx[j] = idx[j - 1]; --j; }
                    idx[j] = i;
                }
                u64 rank = 0;
                u32 code = 0;
                int bit = 0;
                for (int a = 0; a < k; ++a) {
                    if (!hashed) rank += cs_choose((u64)lab[S[idx[a]]] + a, a + 1);
                    for (int b = a + 1; b < k; ++b, ++bit)
                        if ((adj[idx[a]] >> idx[b]) & 1u) code |= 1u << bit;
                }
                if (hashed) {
                    u32 key[6] = {0, 0, 0, 0, 0, code};
                    for (int a = 0; a < k; ++a) key[a] = lab[S[idx[a]]];
                    const u64 h = cs_key_hash(key);
                    if (((h >> 40) & (u64)(hmod - 1)) == hres) {
                        bool same = runN > 0;
                        for (int i = 0; i < 6; ++i) same = same && runK[i] == key[i];
                        if (runN > 0 && !same) {
                            if (!cs_hash_add(hkeys, table, size, hctl, runK, runH, runN)) {
                                void_ = true;
                                goto done;
                            }
                            runN = 0;
                        }
                        for (int i = 0; i < 6; ++i) runK[i] = key[i];
                        runH = h;
                        ++runN;
                    }
                } else {
                    const u64 e = (rank << pairs) | code;
                    if (runN > 0 && e != runE) { atomicAdd(&tally[runE], runN); runN = 0; }
                    runE = e;
                    ++runN;
                }
                --d;
                for (int i = 0; i < d; ++i) adj[i] &= ~(1u << d);
                continue;
            }
            bool pushed = false;
            while (jj[d] < (u32)d) {
                const u32 s = S[jj[d]];
                if (pp[d] >= off[s + 1]) {
                    if (++jj[d] < (u32)d) { const u32 t = S[jj[d]]; pp[d] = cs_lower(nbr, off[t], off[t + 1], r + 1); }
                    continue;
                }
                if (CS_LEAVE(steps)) goto done;
                const u32 w = nbr[pp[d]++];
                bool skip = false;
                u32 bits = 1u << jj[d];
                for (int i = 0; i < d && !skip; ++i) {
                    if (S[i] == w) skip = true;
                    else if (i < (int)jj[d]) skip = cs_adjacent(off, nbr, S[i], w);  // found from an earlier vertex
                    else if (i > (int)jj[d] && cs_adjacent(off, nbr, S[i], w)) bits |= 1u << i;
                }
                if (skip) continue;
                S[d] = w;
                adj[d] = bits;
                for (int i = 0; i < d; ++i)
                    if ((bits >> i) & 1u) adj[i] |= 1u << d;
                const u32 all = (1u << (d + 1)) - 1u;
                bool ok = true;
                for (int x = 1; x < d && ok; ++x)
                    if (S[x] > w && cs_connected(adj, d + 1, all & ~(1u << x))) ok = false;
                if (!ok) {
                    for (int i = 0; i < d; ++i) adj[i] &= ~(1u << d);
                    continue;
                }
                ++d;
                if (d < k) { jj[d] = 0; pp[d] = cs_lower(nbr, off[r], off[r + 1], r + 1); }
                pushed = true;
                break;
            }
            if (!pushed) {
                --d;
                for (int i = 0; i < d; ++i) adj[i] &= ~(1u << d);
            }
        }
    }
done:
    if (hashed) {
        if (runN > 0 && !void_) cs_hash_add(hkeys, table, size, hctl, runK, runH, runN);
    } else if (runN > 0) {
        atomicAdd(&tally[runE], runN);
    }
    if (small) {
        __syncthreads();
        for (u64 i = threadIdx.x; i < size; i += blockDim.x)
            if (local[i] != 0) atomicAdd(&table[i], local[i]);
    }
}
