// stmatch_v1.cu: the FIRST VERSION of the stmatch kernel, kept unchanged so that Options{V1: true}
// can run it for comparison (the current kernel is stmatch.cu).
//
// The generic (interpreted-plan) depth-first matching kernel of the stmatch engine.
//
// One persistent grid; every warp takes root candidates one at a time from a global counter and
// runs the plan's nested loops as an explicit stack. The state of the stack (the data vertex m[i]
// of each level, its index mi[i] in its vertex's candidate list, the loop position and the size
// of each level's candidate set) is kept by every lane of the warp alike (warp-uniform control
// flow); the candidate sets live in the warp's slice of a global buffer. A level's set is the
// intersection of the candidate-space lists of its backward edges: the lanes stride over the
// smallest list, binary-search the others, apply the symmetry bounds, injectivity and induced
// non-adjacency, and compact the survivors with a ballot. The last level is counted, not stored.
//
// Plan metadata (meta): META_STRIDE 64-bit words per level, see the M_* indices below; edge
// lists: eoff[ebase + k] .. eoff[ebase + k + 1] index evals for the k-th candidate of the parent.

#define MAXL 32
#define META_STRIDE 44  // as the v2 kernel's (host.go lays out one metadata format for both)
#define M_BACK 0      // mask of levels with a backward edge to this level
#define M_COLLIDE 1   // mask of levels whose vertex must differ from this level's
#define M_LOWER 2     // mask of levels whose vertex must be smaller than this level's
#define M_UPPER 3     // mask of levels whose vertex must be greater
#define M_NONADJ 4    // mask of levels that must not be adjacent (induced)
#define M_NEEDIDX 5   // 1 when a later level needs mi[i]
#define M_CANDOFF 6   // this level's vertex's candidate list in cands
#define M_CANDLEN 7
#define M_BUFOFF 8    // this level's buffer inside the warp's slice
#define M_EBASE 10    // + j: start in eoff of the edge (level j -> this level)
#define FULL 0xffffffffu

typedef unsigned long long u64;
typedef unsigned int u32;

__device__ __forceinline__ u64 lower_bound(const u32* __restrict__ a, u64 n, u32 x) {
	u64 lo = 0, hi = n;
	while (lo < hi) {
		u64 mid = (lo + hi) >> 1;
		if (a[mid] < x) lo = mid + 1; else hi = mid;
	}
	return lo;
}

__device__ __forceinline__ bool contains(const u32* __restrict__ a, u64 n, u32 x) {
	u64 i = lower_bound(a, n, x);
	return i < n && a[i] == x;
}

__device__ __forceinline__ bool adjacent(const u64* __restrict__ goff, const u32* __restrict__ gadj, u32 a, u32 b) {
	u64 sa = goff[a], ea = goff[a + 1], sb = goff[b], eb = goff[b + 1];
	if (ea - sa <= eb - sb) return contains(gadj + sa, ea - sa, b);
	return contains(gadj + sb, eb - sb, a);
}

// level_set computes the candidate set of level i (all of the warp's lanes call it alike) and
// returns its size; unless last, the survivors are written to out in increasing order.
__device__ u64 level_set(const u64* __restrict__ meta, int i, bool last,
	const u32* m, const u32* mi,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, u32* __restrict__ out, int lane)
{
	const u64* lv = meta + (u64)i * META_STRIDE;
	u32 back = (u32)lv[M_BACK];
	u64 ls[MAXL];   // list starts (in evals), the smallest first
	u64 ll[MAXL];   // list lengths
	int nl = 0;
	const u32* src;
	u64 srcLen;
	if (back == 0) {
		src = cands + lv[M_CANDOFF];
		srcLen = lv[M_CANDLEN];
	} else {
		int best = 0;
		for (u32 b = back; b; b &= b - 1) {
			int j = __ffs(b) - 1;
			u64 base = lv[M_EBASE + j] + mi[j];
			u64 s = eoff[base], e = eoff[base + 1];
			ls[nl] = s; ll[nl] = e - s;
			if (ll[nl] < ll[best]) best = nl;
			nl++;
		}
		if (ll[best] == 0) return 0;
		u64 ts = ls[best], tl = ll[best];
		ls[best] = ls[0]; ll[best] = ll[0];
		ls[0] = ts; ll[0] = tl;
		src = evals + ls[0];
		srcLen = ll[0];
	}
	// Symmetry window: c > every m[lower], c < every m[upper]; narrowed on the sorted source.
	u64 begin = 0, end = srcLen;
	for (u32 b = (u32)lv[M_LOWER]; b; b &= b - 1) {
		u32 lo = m[__ffs(b) - 1];
		if (lo == 0xffffffffu) return 0;
		u64 p = lower_bound(src, srcLen, lo + 1);
		if (p > begin) begin = p;
	}
	for (u32 b = (u32)lv[M_UPPER]; b; b &= b - 1) {
		u64 p = lower_bound(src, srcLen, m[__ffs(b) - 1]);
		if (p < end) end = p;
	}
	u32 collide = (u32)lv[M_COLLIDE];
	u32 nonadj = (u32)lv[M_NONADJ];
	u64 count = 0;
	for (u64 base = begin; base < end; base += 32) {
		u64 idx = base + lane;
		bool ok = idx < end;
		u32 c = ok ? src[idx] : 0;
		for (int k = 1; ok && k < nl; k++) ok = contains(evals + ls[k], ll[k], c);
		for (u32 b = collide; ok && b; b &= b - 1) ok = m[__ffs(b) - 1] != c;
		for (u32 b = nonadj; ok && b; b &= b - 1) ok = !adjacent(goff, gadj, m[__ffs(b) - 1], c);
		u32 mask = __ballot_sync(FULL, ok);
		if (!last && ok) out[count + __popc(mask & ((1u << lane) - 1))] = c;
		count += __popc(mask);
	}
	__syncwarp();
	return count;
}

extern "C" __global__ void stmatch_count_v1(
	const u64* __restrict__ gmeta, int L,
	const u64* __restrict__ eoff, const u32* __restrict__ evals,
	const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj,
	u32* __restrict__ bufs, u64 warpStride,
	u64 rootBegin, u64 rootEnd, u64* __restrict__ nextRoot,
	u64* __restrict__ counts)
{
	__shared__ u64 meta[MAXL * META_STRIDE];
	for (int k = threadIdx.x; k < L * META_STRIDE; k += blockDim.x) meta[k] = gmeta[k];
	__syncthreads();

	const int lane = threadIdx.x & 31;
	const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	u32* buf = bufs + warp * warpStride;
	u32 m[MAXL], mi[MAXL];
	u64 pos[MAXL], sz[MAXL];
	u64 total = 0;
	const u32* roots = cands + meta[M_CANDOFF];

	for (;;) {
		u64 r = 0;
		if (lane == 0) r = atomicAdd(nextRoot, 1ULL) + rootBegin;
		r = __shfl_sync(FULL, r, 0);
		if (r >= rootEnd) break;
		m[0] = roots[r];
		mi[0] = (u32)r;
		if (L == 1) { total++; continue; }
		if (L == 2) {
			total += level_set(meta, 1, true, m, mi, eoff, evals, cands, goff, gadj, 0, lane);
			continue;
		}
		int i = 1;
		sz[1] = level_set(meta, 1, false, m, mi, eoff, evals, cands, goff, gadj, buf + meta[META_STRIDE + M_BUFOFF], lane);
		pos[1] = 0;
		while (i >= 1) {
			if (pos[i] == sz[i]) { i--; continue; }
			const u64* lv = meta + (u64)i * META_STRIDE;
			u32 c = buf[lv[M_BUFOFF] + pos[i]];
			pos[i]++;
			m[i] = c;
			if (lv[M_NEEDIDX]) mi[i] = (u32)lower_bound(cands + lv[M_CANDOFF], lv[M_CANDLEN], c);
			if (i + 1 == L - 1) {
				total += level_set(meta, i + 1, true, m, mi, eoff, evals, cands, goff, gadj, 0, lane);
			} else {
				const u64* nv = lv + META_STRIDE;
				sz[i + 1] = level_set(meta, i + 1, false, m, mi, eoff, evals, cands, goff, gadj, buf + nv[M_BUFOFF], lane);
				pos[i + 1] = 0;
				i++;
			}
		}
	}
	if (lane == 0) counts[warp] = total;
}
