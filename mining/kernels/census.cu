// Census kernels (package mining, file gpu.go): the local counts of locals.go that dominate the
// census, on the degree-ordered graph (ordered.go): off[n+1] (u64), nbr (u32, each list sorted),
// up[n] (u64: the first neighbour above the vertex). An out-edge is a position p >= up[u] of u's
// list; the host passes the out-edges as (eu[i], ep[i]) pairs.
//
// census_triangles: a warp per out-edge u -> v (v = nbr[p]) intersects the tail of u's list after
// p with v's out-list; each common w is a triangle u < v < w, counted on its three edges (te, at
// the out-positions p, pw, pvw) with the third vertex's degree added to sd, exactly as
// locals.triangles.
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

__device__ __forceinline__ u64 cs_warp_sum(u64 x) {
    for (int off = CS_LANES / 2; off > 0; off >>= 1) x += __shfl_xor_sync(FULL, x, off);
    return x;
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
                                            u64* __restrict__ sd) {
    const unsigned lane = threadIdx.x % CS_LANES;
    const u32 warp = ((blockIdx.x * blockDim.x + threadIdx.x) ) / CS_LANES;
    const u32 nwarps = ((gridDim.x * blockDim.x) ) / CS_LANES;
    for (u32 i = warp; i < nout; i += nwarps) {
        const u32 u = eu[i];
        const u64 p = ep[i];
        const u32 v = nbr[p];
        const u64 ue = off[u + 1];
        const u64 vb = up[v], ve = off[v + 1];
        const u64 du = ue - off[u], dv = ve - off[v];
        for (u64 pw = p + 1 + lane; pw < ue; pw += CS_LANES) {
            const u32 w = nbr[pw];
            const u64 pvw = cs_find(nbr, vb, ve, w);
            if (pvw == ve) continue;
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
                                          u64* __restrict__ sums, u32* __restrict__ flags) {
    const unsigned lane = threadIdx.x % CS_LANES;
    const u32 warp = ((blockIdx.x * blockDim.x + threadIdx.x) ) / CS_LANES;
    const u32 nwarps = ((gridDim.x * blockDim.x) ) / CS_LANES;
    u32* A = scratch + (u64)warp * 2 * scratch_words;
    u32* B = A + scratch_words;
    u64 k4 = 0, k5 = 0;
    bool over = false;
    for (u32 i = warp; i < nout; i += nwarps) {
        const u32 u = eu[i];
        const u64 p = ep[i];
        const u32 v = nbr[p];
        const u64 ue = off[u + 1];
        const u32 na = cs_collect(nbr + p + 1, ue - p - 1, nbr, up[v], off[v + 1], A, lane);
        for (u32 iw = 0; iw < na; ++iw) {
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
        if (k4) {
            u64 old = atomicAdd(&sums[0], k4);
            over |= old + k4 < old;
        }
        if (k5) {
            u64 old = atomicAdd(&sums[1], k5);
            over |= old + k5 < old;
        }
        if (over) atomicOr(flags, 1u);
    }
}

extern "C" __global__ void census_cycles(const u64* __restrict__ off, const u32* __restrict__ nbr,
                                         const u64* __restrict__ up, u32 n, int per_vertex,
                                         u32* __restrict__ counters, u32* __restrict__ seen_lists,
                                         u32* __restrict__ seen_counts, u64* __restrict__ c4v,
                                         u64* __restrict__ c4e, u64* __restrict__ sums, u32* __restrict__ flags) {
    u32* c = counters + (u64)blockIdx.x * n;
    u32* seen = seen_lists + (u64)blockIdx.x * n;
    u32* nseen = seen_counts + blockIdx.x;
    __shared__ u64 here;
    bool over = false;
    u64 mine = 0;
    for (u32 u = blockIdx.x; u < n; u += gridDim.x) {
        if (threadIdx.x == 0) here = 0;
        __syncthreads();
        const u64 lb = off[u], le = up[u];  // lower(u)
        for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
            const u32 v = nbr[q];
            for (u64 r = off[v]; r < off[v + 1]; ++r) {
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
            local += pairs;
            if (per_vertex && pairs) atomicAdd(&c4v[w], pairs);
        }
        if (local) atomicAdd(&here, local);
        __syncthreads();
        const u64 h = here;
        mine += threadIdx.x == 0 ? h : 0;
        if (per_vertex && h) {
            if (threadIdx.x == 0) atomicAdd(&c4v[u], h);
            for (u64 q = lb + threadIdx.x; q < le; q += blockDim.x) {
                const u32 v = nbr[q];
                u64 sv = 0;
                for (u64 r = off[v]; r < off[v + 1]; ++r) {
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
        if (mine) {
            u64 old = atomicAdd(&sums[0], mine);
            over |= old + mine < old;
        }
        if (over) atomicOr(flags, 1u);
    }
}
