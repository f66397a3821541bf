// geneva.cu: GENEVA's phase kernels (Lai et al., TPDS, Algorithms 3-7) over interval-PCSR.
//
// A table holds partial embeddings, one row of `width` 32-bit new ids per embedding. A step
// (package geneva, Step) is either an extension, which appends nNew columns to every row of a
// chunk of its input, or an elimination, which keeps the rows whose data vertices are joined by
// the step's edges. The host encodes the step into desc (layout below) and launches one kernel
// per step and chunk; the kernels write the output rows claimed with atomicAdd (warp-aggregated:
// one atomic per warp and round), or, for the last step of a count, only count them.
//
// geneva_extend (ExtPhaseKernel): one warp per input row. Lanes 0..nNew-1 find each new
// vertex's candidates: the row of its source in its partition (interval index, in shared memory
// when it fits: Section 4.1) narrowed to the vertex label by binary search (rows are sorted by
// (label, id)), or the query vertex's candidate list for an initial vertex. The lanes then stride
// over the product of the candidate lists (one new vertex: NExt / single-vertex matching; two:
// DouExt, where two lists of one source and label are the same list, OptDouExt's case; more:
// NExt of patterns 5-7), decode each index into one candidate per new vertex and keep the
// combinations that pass the candidate bitmaps, injectivity, symmetry restrictions and induced
// non-adjacency, and, when the host fused an elimination into the step, the edges to check.
//
// geneva_eliminate (EliPhaseKernel): one thread per input row; a row survives when every edge of
// the step is present (binary search in the row of one end).
//
// geneva_extend tries, per row, only the combinations whose index lies in [win0, win1): the host
// splits a row whose output alone exceeds a table into such windows.
//
// geneva_count (the Counting step, the last step of a count whose query has closing vertices):
// one warp per input row; it adds to ctr[0] the number of ways to extend the row by the counted
// vertices, the product over the step's classes (package geneva, count.go, says what is counted
// and why it is exact). Per class, lanes 0..pairs-1 find the (label-narrowed) rows of the
// parents of its sets; a class of one set with one parent is its row's length less the row's
// vertices found in it; otherwise the lanes scan each set's shortest parent row, test each vertex
// against the row's vertices, the set's other parents and the class's other sets, and count it
// once in a histogram by the sets holding it, from which lanes 1..15 sum the size of each
// intersection of sets; lane 0 then evaluates the falling factorial, the binomial or the
// inclusion-exclusion terms (128-bit, exact) and multiplies the row's count.
//
// ctr[0] counts the rows produced (written only below cap) or matched; ctr[1] is set when a
// count overflows 64 bits or a product of list lengths does; ctr[2] is the largest number of
// combinations of one row.

typedef unsigned long long u64;
typedef unsigned int u32;

#define FULL 0xffffffffu
#define WARPS 8
#define MAXNEW 32

// Step descriptor words.
#define D_KIND 0
#define D_WIDTH 1
#define D_NNEW 2
#define D_NLESS 3
#define D_NNONADJ 4
#define D_NEDGES 5
#define D_UNION 6
#define D_HEADER 8
#define NEW_WORDS 8  // source, part, any, label, vertex, listOffLo, listOffHi, listLen
// A Counting step's descriptor: D_KIND 2, D_WIDTH, D_NCLASSES, then per class the words
// kind (0 falling, 1 binomial, 2 terms), k, nSets, nTerms; per set any, label, nParents and a
// (column, partition) pair per parent; per term its coefficient (signed), nFactors and the
// factors (bit sets of the class's sets).
#define D_NCLASSES 2
#define MAXSETS 4
#define MAXPAIRS 32

struct Part {
	const u32* starts;
	const u32* bases;
	const u64* offsets;
	const u32* nbrs;
	u32 nIntervals;
	u32 pad;
};

extern __shared__ u32 sIntervals[];  // the shared partition's starts, then its bases

// row_range finds the neighbour range [b, e) of new id v in partition p; false when v has none.
__device__ __forceinline__ bool row_range(const Part& p, bool inShared, u32 v, u64* b, u64* e) {
	const u32* starts = inShared ? sIntervals : p.starts;
	const u32* bases = inShared ? sIntervals + p.nIntervals : p.bases;
	// Last interval whose start <= v.
	u32 lo = 0, hi = p.nIntervals;
	while (lo < hi) {
		u32 mid = (lo + hi) >> 1;
		if (starts[mid] <= v) lo = mid + 1; else hi = mid;
	}
	if (lo == 0) return false;
	u32 i = lo - 1;
	u64 r = (u64)bases[i] + (u64)(v - starts[i]);
	if (r >= (u64)bases[i + 1]) return false;
	*b = p.offsets[r];
	*e = p.offsets[r + 1];
	return true;
}

// label_range narrows [b, e) (sorted by (label, id)) to the entries labelled l.
__device__ __forceinline__ void label_range(const u32* nbrs, const u32* vlabels, u32 l, u64* b, u64* e) {
	u64 lo = *b, hi = *e;
	while (lo < hi) {
		u64 mid = (lo + hi) >> 1;
		if (vlabels[nbrs[mid]] < l) lo = mid + 1; else hi = mid;
	}
	u64 first = lo;
	hi = *e;
	while (lo < hi) {
		u64 mid = (lo + hi) >> 1;
		if (vlabels[nbrs[mid]] <= l) lo = mid + 1; else hi = mid;
	}
	*b = first;
	*e = lo;
}

// has_edge reports whether new ids a and x are adjacent in partition p.
__device__ bool has_edge(const Part& p, bool inShared, const u32* vlabels, u32 a, u32 x) {
	u64 b, e;
	if (!row_range(p, inShared, a, &b, &e)) return false;
	label_range(p.nbrs, vlabels, vlabels[x], &b, &e);
	while (b < e) {
		u64 mid = (b + e) >> 1;
		u32 y = p.nbrs[mid];
		if (y == x) return true;
		if (y < x) b = mid + 1; else e = mid;
	}
	return false;
}

// load_intervals copies partition sp's interval index to shared memory (all threads call it).
__device__ void load_intervals(const Part* parts, int sp) {
	if (sp < 0) return;
	const Part& p = parts[sp];
	for (u32 i = threadIdx.x; i < p.nIntervals; i += blockDim.x) sIntervals[i] = p.starts[i];
	for (u32 i = threadIdx.x; i <= p.nIntervals; i += blockDim.x) sIntervals[p.nIntervals + i] = p.bases[i];
	__syncthreads();
}

// count_add adds v to ctr[0] and flags a 64-bit overflow in ctr[1].
__device__ __forceinline__ void count_add(u64* ctr, u64 v) {
	if (v == 0) return;
	u64 old = atomicAdd(ctr, v);
	if (old + v < old) atomicExch(ctr + 1, 1ull);
}

// claim_slot gives each lane with ok set its output slot: one atomicAdd per warp for all of
// them (warp aggregation); lanes without ok get ~0. Every lane of the warp must call it.
__device__ __forceinline__ u64 claim_slot(bool ok, int lane, u64* ctr) {
	u32 mask = __ballot_sync(FULL, ok);
	u64 slot0 = 0;
	if (lane == 0 && mask) slot0 = atomicAdd(ctr, (u64)__popc(mask));
	slot0 = __shfl_sync(FULL, slot0, 0);
	return ok ? slot0 + __popc(mask & ((1u << lane) - 1)) : ~0ull;
}

__device__ __forceinline__ u64 warp_sum(u64 v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
	return v;
}

extern "C" __global__ void geneva_extend(
	const u32* __restrict__ desc, const Part* __restrict__ parts, int sharedPart,
	const u32* __restrict__ vlabels, const u64* __restrict__ cands, u64 candWords,
	const u32* __restrict__ lists,
	const u32* __restrict__ in, u64 rowLo, u64 rowHi, u64 win0, u64 win1,
	u32* __restrict__ out, u64 cap, int countOnly, u64* ctr)
{
	__shared__ u64 sBeg[WARPS][MAXNEW];
	__shared__ u64 sLen[WARPS][MAXNEW];
	__shared__ u32 sRow[WARPS][MAXNEW];
	__shared__ int sAlt[WARPS][MAXNEW];   // fused edge a new vertex is enumerated along, or -1
	__shared__ int sPart[WARPS][MAXNEW];  // partition its candidates come from (-1: the list)
	load_intervals(parts, sharedPart);

	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const int width = (int)desc[D_WIDTH], nNew = (int)desc[D_NNEW];
	const int nLess = (int)desc[D_NLESS], nNonAdj = (int)desc[D_NNONADJ], nEdges = (int)desc[D_NEDGES];
	const u32* nd = desc + D_HEADER;
	const u32* less = nd + NEW_WORDS * nNew;
	const u32* nonadj = less + 2 * nLess;
	const u32* edges = nonadj + 2 * nNonAdj;  // (a, b, partition) triples
	const int outWidth = width + nNew;
	const u64 warpsTotal = (u64)gridDim.x * WARPS;
	u64 counted = 0;

	for (u64 r = rowLo + (u64)blockIdx.x * WARPS + w; r < rowHi; r += warpsTotal) {
		if (lane < width) sRow[w][lane] = in[r * width + lane];
		__syncwarp();
		if (lane < nNew) {
			const u32* d = nd + NEW_WORDS * lane;
			int src = (int)d[0];
			u64 b = 0, e = 0;
			int alt = -1, part = -1;
			if (src < 0) {
				b = (u64)d[5] | ((u64)d[6] << 32);
				e = b + d[7];
			} else {
				int pi = (int)d[1];
				const Part& p = parts[pi];
				if (row_range(p, pi == sharedPart, sRow[w][src], &b, &e) && !d[2]) {
					label_range(p.nbrs, vlabels, d[3], &b, &e);
				}
				if (e < b) e = b;
				// Enumerate along whichever edge to a matched vertex has the fewest candidates
				// (the tree edge is then checked instead): a vertex closing a cycle is found
				// from its rarest neighbour, not always from its source.
				for (int i = 0; i < nEdges && e > b; i++) {
					int a = (int)edges[3 * i], c = (int)edges[3 * i + 1], ei = (int)edges[3 * i + 2];
					int other = a == width + lane ? c : (c == width + lane ? a : -1);
					if (other < 0 || other >= width) continue;
					u64 b2 = 0, e2 = 0;
					const Part& q = parts[ei];
					if (row_range(q, ei == sharedPart, sRow[w][other], &b2, &e2) && !d[2]) {
						label_range(q.nbrs, vlabels, d[3], &b2, &e2);
					}
					if (e2 < b2) e2 = b2;
					if (e2 - b2 < e - b) {
						b = b2;
						e = e2;
						alt = i;
						pi = ei;
					}
				}
				part = pi;
			}
			sAlt[w][lane] = alt;
			sPart[w][lane] = part;
			sBeg[w][lane] = b;
			sLen[w][lane] = e > b ? e - b : 0;
		}
		__syncwarp();
		u64 total = 1;
		bool tooMany = false;
		for (int j = 0; j < nNew; j++) {
			u64 len = sLen[w][j];
			if (len != 0 && total > ~0ull / len) tooMany = true;
			total *= len;
		}
		if (tooMany) {
			if (lane == 0) atomicExch(ctr + 1, 1ull);
			total = 0;
		}
		if (lane == 0 && total > 0) atomicMax(ctr + 2, total);
		const u64 end = total < win1 ? total : win1;
		for (u64 base = win0; base < end; base += 32) {
			u64 idx = base + lane;
			bool ok = idx < end;
			u32 vals[MAXNEW];
			if (ok) {
				for (int j = nNew - 1; j >= 0; j--) {
					const u32* d = nd + NEW_WORDS * j;
					u64 len = sLen[w][j];
					u64 k = nNew == 1 ? idx : idx % len;
					idx = nNew == 1 ? 0 : idx / len;
					u64 at = sBeg[w][j] + k;
					int pj = sPart[w][j];
					u32 v = pj < 0 ? lists[at] : parts[pj].nbrs[at];
					vals[j] = v;
					u32 u = d[4];
					if (!((cands[u * candWords + (v >> 6)] >> (v & 63)) & 1)) ok = false;
				}
			}
			for (int j = 0; ok && j < nNew; j++) {
				u32 v = vals[j];
				for (int c = 0; c < width; c++) if (sRow[w][c] == v) ok = false;
				for (int c = 0; c < j; c++) if (vals[c] == v) ok = false;
			}
			for (int i = 0; ok && i < nLess; i++) {
				int a = (int)less[2 * i], b = (int)less[2 * i + 1];
				u32 va = a < width ? sRow[w][a] : vals[a - width];
				u32 vb = b < width ? sRow[w][b] : vals[b - width];
				if (va >= vb) ok = false;
			}
			for (int i = 0; ok && i < nNonAdj; i++) {
				int a = (int)nonadj[2 * i], b = (int)nonadj[2 * i + 1];
				u32 va = a < width ? sRow[w][a] : vals[a - width];
				u32 vb = b < width ? sRow[w][b] : vals[b - width];
				// The union partition's index is in the descriptor's header.
				int up = (int)desc[D_UNION];
				if (has_edge(parts[up], up == sharedPart, vlabels, va, vb)) ok = false;
			}
			for (int j = 0; ok && j < nNew; j++) {
				// A vertex enumerated along another edge must still have its tree edge.
				if (sAlt[w][j] < 0) continue;
				const u32* d = nd + NEW_WORDS * j;
				int pi = (int)d[1];
				if (!has_edge(parts[pi], pi == sharedPart, vlabels, sRow[w][(int)d[0]], vals[j])) ok = false;
			}
			for (int i = 0; ok && i < nEdges; i++) {
				bool along = false;  // the edge a new vertex was enumerated along holds already
				for (int j = 0; j < nNew; j++) along |= sAlt[w][j] == i;
				if (along) continue;
				int a = (int)edges[3 * i], b = (int)edges[3 * i + 1], pi = (int)edges[3 * i + 2];
				u32 va = a < width ? sRow[w][a] : vals[a - width];
				u32 vb = b < width ? sRow[w][b] : vals[b - width];
				if (!has_edge(parts[pi], pi == sharedPart, vlabels, va, vb)) ok = false;
			}
			if (countOnly) {
				counted += ok;
				continue;
			}
			u64 slot = claim_slot(ok, lane, ctr);
			if (ok && slot < cap) {
				u32* o = out + slot * outWidth;
				for (int c = 0; c < width; c++) o[c] = sRow[w][c];
				for (int j = 0; j < nNew; j++) o[width + j] = vals[j];
			}
		}
		__syncwarp();
	}
	if (countOnly) {
		counted = warp_sum(counted);
		if (lane == 0) count_add(ctr, counted);
	}
}

extern "C" __global__ void geneva_eliminate(
	const u32* __restrict__ desc, const Part* __restrict__ parts, int sharedPart,
	const u32* __restrict__ vlabels,
	const u32* __restrict__ in, u64 rowLo, u64 rowHi,
	u32* __restrict__ out, u64 cap, int countOnly, u64* ctr)
{
	load_intervals(parts, sharedPart);
	const int lane = threadIdx.x & 31;
	const int width = (int)desc[D_WIDTH], nEdges = (int)desc[D_NEDGES];
	const u32* edges = desc + D_HEADER;
	const u64 threads = (u64)gridDim.x * blockDim.x;
	u64 counted = 0;
	// The loop bound is uniform across a warp (base steps by whole warps), so every lane takes
	// part in the ballot.
	u64 first = rowLo + (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
	for (u64 base = first; base < rowHi; base += threads) {
		u64 r = base + lane;
		bool ok = r < rowHi;
		const u32* row = in + r * width;
		for (int i = 0; ok && i < nEdges; i++) {
			int pi = (int)edges[3 * i + 2];
			ok = has_edge(parts[pi], pi == sharedPart, vlabels, row[edges[3 * i]], row[edges[3 * i + 1]]);
		}
		if (countOnly) {
			counted += ok;
			continue;
		}
		u64 slot = claim_slot(ok, lane, ctr);
		if (ok && slot < cap) {
			u32* o = out + slot * width;
			for (int c = 0; c < width; c++) o[c] = row[c];
		}
	}
	if (countOnly) {
		counted = warp_sum(counted);
		if (lane == 0) count_add(ctr, counted);
	}
}

// in_ids reports whether new id x is in nbrs[b, e), a range of one vertex label (sorted by id).
__device__ __forceinline__ bool in_ids(const u32* nbrs, u64 b, u64 e, u32 x) {
	while (b < e) {
		u64 mid = (b + e) >> 1;
		u32 y = nbrs[mid];
		if (y == x) return true;
		if (y < x) b = mid + 1; else e = mid;
	}
	return false;
}

// in_row_range reports whether new id x is in nbrs[b, e), a range sorted by (label, id).
__device__ __forceinline__ bool in_row_range(const u32* nbrs, const u32* vlabels, u64 b, u64 e, u32 x) {
	label_range(nbrs, vlabels, vlabels[x], &b, &e);
	return in_ids(nbrs, b, e, x);
}

// count_member reports whether x is in the counting set whose descriptor is set and whose
// parents' ranges are pairs [first, last) of beg/end/part, not testing pair skip.
__device__ bool count_member(const u32* set, int first, int last, int skip, u32 x,
	const u32* vlabels, const Part* parts, const u64* beg, const u64* end, const int* part)
{
	const bool any = set[0] != 0;
	if (!any && vlabels[x] != set[1]) return false;
	for (int q = first; q < last; q++) {
		if (q == skip) continue;
		const u32* nbrs = parts[part[q]].nbrs;
		if (any ? !in_row_range(nbrs, vlabels, beg[q], end[q], x) : !in_ids(nbrs, beg[q], end[q], x)) return false;
	}
	return true;
}

// falling returns n(n-1)...(n-k+1); on overflow it sets *ovf (the value is then not zero).
__device__ u64 falling(u64 n, int k, bool* ovf) {
	if (n < (u64)k) return 0;
	u64 r = 1;
	for (int i = 0; i < k; i++) {
		u64 f = n - (u64)i;
		if (__umul64hi(r, f) != 0) {
			*ovf = true;
			return 1;
		}
		r *= f;
	}
	return r;
}

__device__ u64 gcd64(u64 a, u64 b) {
	while (b != 0) {
		u64 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

// binomial returns C(n, k) as C(n, i+1) = (C(n, i)/g) * ((n-i)/((i+1)/g)), g = gcd(C(n, i), i+1),
// exact without a wider intermediate; on overflow it sets *ovf (geneva.binomial says why an
// overflow on the way is one of the result).
__device__ u64 binomial(u64 n, int k, bool* ovf) {
	if (n < (u64)k) return 0;
	u64 r = 1;
	for (u64 i = 0; i < (u64)k; i++) {
		u64 g = gcd64(r, i + 1);
		u64 a = r / g, f = (n - i) / ((i + 1) / g);
		if (__umul64hi(a, f) != 0) {
			*ovf = true;
			return 1;
		}
		r = a * f;
	}
	return r;
}

// mul128 multiplies the 128-bit (hi, lo) by x; false when the product needs more than 128 bits.
__device__ __forceinline__ bool mul128(u64* hi, u64* lo, u64 x) {
	u64 carry = __umul64hi(*lo, x);
	u64 top = __umul64hi(*hi, x);
	u64 mid = *hi * x;
	u64 h = mid + carry;
	*lo = *lo * x;
	*hi = h;
	return top == 0 && h >= mid;
}

__device__ __forceinline__ void add128(u64* hi, u64* lo, u64 bh, u64 bl) {
	u64 l = *lo + bl;
	*hi += bh + (l < bl ? 1ull : 0ull);
	*lo = l;
}

// eval_terms sums the class's inclusion-exclusion terms over x (intersection sizes by bit set of
// sets), positive and negative parts apart in 128 bits; on overflow it sets *ovf.
__device__ u64 eval_terms(const u32* t, int nTerms, const u32* x, bool* ovf) {
	u64 ph = 0, pl = 0, nh = 0, nl = 0;
	for (int i = 0; i < nTerms; i++) {
		const int coef = (int)t[0], nf = (int)t[1];
		u64 hi = 0, lo = (u64)(coef < 0 ? -coef : coef);
		for (int f = 0; f < nf; f++) {
			if (!mul128(&hi, &lo, (u64)x[t[2 + f]])) {
				*ovf = true;
				return 1;
			}
		}
		if (coef > 0) add128(&ph, &pl, hi, lo); else add128(&nh, &nl, hi, lo);
		t += 2 + nf;
	}
	u64 lo = pl - nl;
	u64 hi = ph - nh - (pl < nl ? 1ull : 0ull);
	if (hi != 0) {
		*ovf = true;
		return 1;
	}
	return lo;
}

extern "C" __global__ void geneva_count(
	const u32* __restrict__ desc, const Part* __restrict__ parts, int sharedPart,
	const u32* __restrict__ vlabels,
	const u32* __restrict__ in, u64 rowLo, u64 rowHi, u64* ctr)
{
	__shared__ u64 cBeg[WARPS][MAXPAIRS];
	__shared__ u64 cEnd[WARPS][MAXPAIRS];
	__shared__ int cPart[WARPS][MAXPAIRS];
	__shared__ u32 cRow[WARPS][MAXNEW];
	__shared__ u32 cHist[WARPS][1 << MAXSETS];
	__shared__ u32 cX[WARPS][1 << MAXSETS];
	load_intervals(parts, sharedPart);

	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const int width = (int)desc[D_WIDTH], nClasses = (int)desc[D_NCLASSES];
	const u64 warpsTotal = (u64)gridDim.x * WARPS;
	u64 counted = 0;  // lane 0's sum over its rows
	bool overflow = false;

	for (u64 r = rowLo + (u64)blockIdx.x * WARPS + w; r < rowHi; r += warpsTotal) {
		if (lane < width) cRow[w][lane] = in[r * width + lane];
		__syncwarp();
		u64 rowCount = 1;  // lane 0's
		bool rowOvf = false;
		int zero = 0;  // a class counted zero: the row has no extension (uniform across the warp)
		const u32* c = desc + D_HEADER;
		for (int ci = 0; ci < nClasses && !zero; ci++) {
			const int kind = (int)c[0], k = (int)c[1], nSets = (int)c[2], nTerms = (int)c[3];
			const u32* setDesc[MAXSETS];
			int first[MAXSETS + 1];
			const u32* sp = c + 4;
			int pairs = 0;
			for (int j = 0; j < nSets; j++) {
				setDesc[j] = sp;
				first[j] = pairs;
				const int np = (int)sp[2];
				const int i = lane - pairs;
				if (i >= 0 && i < np) {
					const int col = (int)sp[3 + 2 * i], pi = (int)sp[4 + 2 * i];
					const Part& p = parts[pi];
					u64 b = 0, e = 0;
					if (row_range(p, pi == sharedPart, cRow[w][col], &b, &e) && !sp[0]) {
						label_range(p.nbrs, vlabels, sp[1], &b, &e);
					}
					if (e < b) e = b;
					cBeg[w][lane] = b;
					cEnd[w][lane] = e;
					cPart[w][lane] = pi;
				}
				pairs += np;
				sp += 3 + 2 * np;
			}
			first[nSets] = pairs;
			const u32* terms = sp;
			__syncwarp();
			u64 x1;
			if (nSets == 1 && pairs == 1) {
				// One set, one parent: the row's length less the row's vertices in it.
				const u32* s0 = setDesc[0];
				const u64 b = cBeg[w][0], e = cEnd[w][0];
				const u32* nbrs = parts[cPart[w][0]].nbrs;
				bool hit = false;
				if (lane < width) {
					const u32 v = cRow[w][lane];
					hit = s0[0] ? in_row_range(nbrs, vlabels, b, e, v) : (vlabels[v] == s0[1] && in_ids(nbrs, b, e, v));
				}
				x1 = (e - b) - (u64)__popc(__ballot_sync(FULL, hit));
			} else {
				if (lane < (1 << MAXSETS)) cHist[w][lane] = 0;
				__syncwarp();
				for (int j = 0; j < nSets; j++) {
					int d = first[j];  // the set's shortest parent range drives the scan
					for (int q = first[j] + 1; q < first[j + 1]; q++) {
						if (cEnd[w][q] - cBeg[w][q] < cEnd[w][d] - cBeg[w][d]) d = q;
					}
					const u64 db = cBeg[w][d], dlen = cEnd[w][d] - db;
					const u32* dn = parts[cPart[w][d]].nbrs;
					for (u64 base = 0; base < dlen; base += 32) {
						if (base + lane >= dlen) continue;
						const u32 x = dn[db + base + lane];
						bool ok = true;
						for (int cc = 0; ok && cc < width; cc++) ok = cRow[w][cc] != x;
						ok = ok && count_member(setDesc[j], first[j], first[j + 1], d, x, vlabels, parts, cBeg[w], cEnd[w], cPart[w]);
						u32 mask = 1u << j;
						for (int i = 0; ok && i < nSets; i++) {
							if (i == j || !count_member(setDesc[i], first[i], first[i + 1], -1, x, vlabels, parts, cBeg[w], cEnd[w], cPart[w])) continue;
							if (i < j) ok = false;  // counted with set i
							else mask |= 1u << i;
						}
						if (ok) atomicAdd(&cHist[w][mask], 1u);
					}
				}
				__syncwarp();
				if (lane > 0 && lane < (1 << nSets)) {
					u32 sum = 0;
					for (int m = lane; m < (1 << nSets); m++) {
						if ((m & lane) == lane) sum += cHist[w][m];
					}
					cX[w][lane] = sum;
				}
				__syncwarp();
				x1 = cX[w][1];
			}
			if (lane == 0) {
				bool ovf = false;
				u64 v;
				if (kind == 0) v = falling(x1, k, &ovf);
				else if (kind == 1) v = binomial(x1, k, &ovf);
				else v = eval_terms(terms, nTerms, cX[w], &ovf);
				if (ovf) {
					rowOvf = true;
				} else if (v == 0) {
					zero = 1;
				} else {
					if (__umul64hi(rowCount, v) != 0) rowOvf = true;
					rowCount *= v;
				}
			}
			zero = __shfl_sync(FULL, zero, 0);
			for (int i = 0; i < nTerms; i++) terms += 2 + terms[1];
			c = terms;
			__syncwarp();  // the next class overwrites the ranges and the histogram
		}
		if (lane == 0 && !zero) {
			if (rowOvf) {
				overflow = true;
			} else {
				u64 s = counted + rowCount;
				if (s < counted) overflow = true;
				counted = s;
			}
		}
		__syncwarp();  // the next row overwrites cRow
	}
	if (lane == 0) {
		if (overflow) atomicExch(ctr + 1, 1ull);
		count_add(ctr, counted);
	}
}
