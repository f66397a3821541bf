// Triangle counting on an undirected graph in CSR form.
//
// offsets: n+1 entries; nbrs[offsets[u] .. offsets[u+1]) are u's neighbours, sorted by id, no
// duplicates, no self-loops, symmetric (v in N(u) iff u in N(v)).
//
// Each triangle {u < v < w} is counted once, at its smallest vertex u: one warp per vertex u (a
// grid-stride loop over vertices); for each neighbour v > u, the warp counts the common neighbours
// w > v of u and v: its lanes stride over the shorter of the two sorted tails (> v) and binary-search
// each element in the longer. Per-lane counts are reduced in the warp and added to *count with one
// atomicAdd per warp.
//
// Two kernels, same result:
// - count_triangles (one warp per vertex): simple, but a hub's edges all fall on one warp, so skewed
//   graphs are limited by their largest degrees;
// - count_triangles_edge (one warp per chunk of 32 adjacency entries u->v): balanced over edges; the
//   warp finds the chunk's first u by binary search in offsets, then walks the chunk.
//
// Launch with a block size that is a multiple of 32.

typedef unsigned int u32;
typedef unsigned long long u64;

// First index i in [lo, hi) with a[i] > x (hi if none).
__device__ __forceinline__ u64 upper_bound_u32(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
    while (lo < hi) {
        u64 mid = lo + ((hi - lo) >> 1);
        if (a[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// First index i in [lo, hi) with a[i] >= x (hi if none).
__device__ __forceinline__ u64 lower_bound_u32(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
    while (lo < hi) {
        u64 mid = lo + ((hi - lo) >> 1);
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void count_triangles(const u64* __restrict__ offsets,
                                           const u32* __restrict__ nbrs,
                                           u64 n,
                                           u64* __restrict__ count) {
    const unsigned lane = threadIdx.x & 31u;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const u64 nwarps = ((u64)gridDim.x * blockDim.x) >> 5;
    u64 local = 0;
    for (u64 u = warp; u < n; u += nwarps) {
        const u64 ub = offsets[u], ue = offsets[u + 1];
        for (u64 i = upper_bound_u32(nbrs, ub, ue, (u32)u); i < ue; ++i) {
            const u32 v = nbrs[i];
            const u64 a_lo = i + 1, a_hi = ue;  // N(u) beyond v: all > v
            const u64 vb = offsets[v], ve = offsets[(u64)v + 1];
            const u64 b_lo = upper_bound_u32(nbrs, vb, ve, v), b_hi = ve;  // N(v) beyond v
            if (a_lo >= a_hi || b_lo >= b_hi) continue;
            u64 s_lo, s_hi, l_lo, l_hi;
            if (a_hi - a_lo <= b_hi - b_lo) {
                s_lo = a_lo; s_hi = a_hi; l_lo = b_lo; l_hi = b_hi;
            } else {
                s_lo = b_lo; s_hi = b_hi; l_lo = a_lo; l_hi = a_hi;
            }
            for (u64 k = s_lo + lane; k < s_hi; k += 32) {
                const u32 w = nbrs[k];
                const u64 p = lower_bound_u32(nbrs, l_lo, l_hi, w);
                if (p < l_hi && nbrs[p] == w) ++local;
            }
        }
    }
    for (int off = 16; off > 0; off >>= 1) local += __shfl_down_sync(0xffffffffu, local, off);
    if (lane == 0 && local != 0) atomicAdd(count, local);
}

// Counts, for the entry e (u -> v, u < v), the common neighbours w > v of u and v: the warp's lanes
// stride over the shorter tail and binary-search the longer one.
__device__ __forceinline__ u64 warp_tail_intersect(const u64* __restrict__ offsets,
                                                  const u32* __restrict__ nbrs,
                                                  u64 e, u64 ue, u32 v, unsigned lane) {
    const u64 a_lo = e + 1, a_hi = ue;  // N(u) beyond v
    const u64 vb = offsets[v], ve = offsets[(u64)v + 1];
    const u64 b_lo = upper_bound_u32(nbrs, vb, ve, v), b_hi = ve;  // N(v) beyond v
    if (a_lo >= a_hi || b_lo >= b_hi) return 0;
    u64 s_lo, s_hi, l_lo, l_hi;
    if (a_hi - a_lo <= b_hi - b_lo) {
        s_lo = a_lo; s_hi = a_hi; l_lo = b_lo; l_hi = b_hi;
    } else {
        s_lo = b_lo; s_hi = b_hi; l_lo = a_lo; l_hi = a_hi;
    }
    u64 c = 0;
    for (u64 k = s_lo + lane; k < s_hi; k += 32) {
        const u32 w = nbrs[k];
        const u64 p = lower_bound_u32(nbrs, l_lo, l_hi, w);
        if (p < l_hi && nbrs[p] == w) ++c;
    }
    return c;
}

// Entries per work item of count_triangles_edge: a warp finds the first entry's vertex by binary
// search, then walks the chunk, advancing the vertex as lists end.
#define EDGE_CHUNK 32

extern "C" __global__ void count_triangles_edge(const u64* __restrict__ offsets,
                                                const u32* __restrict__ nbrs,
                                                u64 n,
                                                u64* __restrict__ count) {
    const unsigned lane = threadIdx.x & 31u;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const u64 nwarps = ((u64)gridDim.x * blockDim.x) >> 5;
    const u64 entries = offsets[n];
    const u64 chunks = (entries + EDGE_CHUNK - 1) / EDGE_CHUNK;
    u64 local = 0;
    for (u64 c = warp; c < chunks; c += nwarps) {
        const u64 e0 = c * EDGE_CHUNK;
        const u64 e1 = (e0 + EDGE_CHUNK < entries) ? e0 + EDGE_CHUNK : entries;
        // u: the last vertex with offsets[u] <= e0 (empty lists share their offset with the next).
        u64 lo = 0, hi = n - 1;
        while (lo < hi) {
            const u64 mid = lo + ((hi - lo + 1) >> 1);
            if (offsets[mid] <= e0) lo = mid; else hi = mid - 1;
        }
        u64 u = lo, uend = offsets[u + 1];
        for (u64 e = e0; e < e1; ++e) {
            while (uend <= e) uend = offsets[++u + 1];
            const u32 v = nbrs[e];
            if ((u64)v <= u) continue;
            local += warp_tail_intersect(offsets, nbrs, e, uend, v, lane);
        }
    }
    for (int off = 16; off > 0; off >>= 1) local += __shfl_down_sync(0xffffffffu, local, off);
    if (lane == 0 && local != 0) atomicAdd(count, local);
}
