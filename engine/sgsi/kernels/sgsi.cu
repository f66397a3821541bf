// SGSI's kernels (package engine/sgsi): the signature filter and the four passes of one join
// step over a chunk of rows (first edge, other edges, counts, link). HostBackend in backend.go
// is the same logic in Go; the two must stay in step.
//
// A join kernel gives each row of its index list a group of G threads: G = 32 (a warp per row)
// or G = blockDim.x (a block per row, for rows whose buffers are long), SGSI's warp and block
// load-balance layers. Buffers hold candidates or INVALID.

#define INVALID 0xffffffffu
#define BLOCK 256

#ifdef CUDAHOST
// The host build (package internal/cudahost) runs one-lane warps: nothing to add from other lanes.
template <class T> T __shfl_down_sync(unsigned, T, int) { return 0; }
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

extern "C" __global__ void sgsi_filter(const u32* sigs, const u32* labels, u32 n, u32 base,
                                       const u32* qsigs, const u32* qlab, u32 nq, u32* bits, u32 words) {
	for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		u32 v = base + i;
		u32 s0 = sigs[i], s1 = sigs[n + i], s2 = sigs[2 * n + i], s3 = sigs[3 * n + i];
		u32 l = labels[i];
		for (u32 u = 0; u < nq; u++) {
			const u32* q = qsigs + 4 * u;
			bool ok = (qlab[u] == INVALID || qlab[u] == l) && (s0 & q[0]) == q[0] && (s1 & q[1]) == q[1] &&
			          (s2 & q[2]) == q[2] && (s3 & q[3]) == q[3];
			if (ok) atomicOr(&bits[(u64)u * words + v / 32], 1u << (v & 31));
		}
	}
}

struct Group {
	u32 id, n, lane;
};

__device__ __forceinline__ Group group(u32 G) {
	u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	Group g;
	g.id = t / G;
	g.n = gridDim.x * blockDim.x / G;
	g.lane = t % G;
	return g;
}

// rowList finds row r's list in the segment and its vertex: false when the vertex lies outside it.
// With nref > 0 the offsets are sparse: segOff holds nref vertices (sorted), then their nref+1
// offsets; a vertex of [lo, hi) not among them has an empty list.
__device__ __forceinline__ bool rowList(const u32* rows, u32 width, u32 r, u32 col, const u32* segOff,
                                        const u32* segNbr, u32 lo, u32 hi, u32 nref, const u32** list, u32* len,
                                        u32* v) {
	if (col == INVALID) {
		*list = segNbr;
		*len = hi;
		*v = lo;
		return true;
	}
	*v = rows[(u64)r * width + col];
	if (*v < lo || *v >= hi) return false;
	u32 i = *v - lo;
	if (nref) {
		u32 x = 0, y = nref;
		while (x < y) {
			u32 m = (x + y) / 2;
			if (segOff[m] < *v) x = m + 1; else y = m;
		}
		if (x == nref || segOff[x] != *v) {
			*list = segNbr;
			*len = 0;
			return true;
		}
		i = nref + x;
	}
	u32 a = segOff[i], b = segOff[i + 1];
	*list = segNbr + a;
	*len = b - a;
	return true;
}

// sgsi_first fills the buffers from the segment's lists. A list may be cut into parts over
// several segments: the segment's part of vertex lo's list starts at list position head. Only
// list positions [winLo, winHi) are written, at buf[position - winLo].
extern "C" __global__ void sgsi_first(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx, u32 G,
                                      u32 col, const u32* segOff, const u32* segNbr, u32 lo, u32 hi, u32 nref, u32 head,
                                      u32 winLo, u32 winHi, const u32* bits, const u32* desc, u32* gba) {
	Group g = group(G);
	u32 nless = desc[0], ngreater = desc[1];
	for (u32 k = g.id; k < nidx; k += g.n) {
		u32 r = idx[k];
		const u32* list;
		u32 len, v;
		if (!rowList(rows, width, r, col, segOff, segNbr, lo, hi, nref, &list, &len, &v)) continue;
		u32 skip = v == lo ? head : 0;
		const u32* row = rows + (u64)r * width;
		u32* buf = gba + F[r];
		if (winHi <= skip) continue; // the window ends before the segment's part
		u32 from = winLo > skip ? winLo - skip : 0;
		u32 to = winHi - skip < len ? winHi - skip : len;
		for (u32 j = from + g.lane; j < to; j += G) {
			u32 w = list[j];
			bool keep = (bits[w / 32] >> (w & 31)) & 1;
			for (u32 c = 0; keep && c < width; c++) keep = row[c] != w;
			for (u32 c = 0; keep && c < nless; c++) keep = row[desc[2 + c]] < w;
			for (u32 c = 0; keep && c < ngreater; c++) keep = w < row[desc[2 + nless + c]];
			buf[skip + j - winLo] = keep ? w : INVALID;
		}
	}
}

// sgsi_intersect invalidates the buffer entries absent from (negate: present in) the row's list.
// When the list is cut into parts, a part decides only the entries in its value range: above
// prev (the last entry of the parts before) when vertex lo's list has head > 0 entries before the
// segment, and up to its last entry when vertex hi-1's list goes on after it (tail).
extern "C" __global__ void sgsi_intersect(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx,
                                          u32 G, u32 col, const u32* segOff, const u32* segNbr, u32 lo, u32 hi,
                                          u32 nref, u32 head, u32 prev, u32 tail, u32 negate, u32* gba) {
	Group g = group(G);
	for (u32 k = g.id; k < nidx; k += g.n) {
		u32 r = idx[k];
		const u32* list;
		u32 len, v;
		if (!rowList(rows, width, r, col, segOff, segNbr, lo, hi, nref, &list, &len, &v)) continue;
		bool below = v == lo && head > 0;        // entries <= prev belong to earlier parts
		bool above = v == hi - 1 && tail != 0;   // entries > list[len-1] belong to later parts
		for (u32 j = F[r] + g.lane; j < F[r + 1]; j += G) {
			u32 x = gba[j];
			if (x == INVALID) continue;
			if ((below && x <= prev) || (above && x > list[len - 1])) continue;
			u32 a = 0, b = len;
			while (a < b) {
				u32 m = (a + b) / 2;
				if (list[m] < x) a = m + 1; else b = m;
			}
			bool found = a < len && list[a] == x;
			if (found == (negate != 0)) gba[j] = INVALID;
		}
	}
}

extern "C" __global__ void sgsi_count(const u32* F, const u32* idx, u32 nidx, u32 G, const u32* gba, u32* cnt,
                                      u32 hasCnt, u64* total) {
	Group g = group(G);
	u64 sum = 0;
	for (u32 k = g.id; k < nidx; k += g.n) {
		u32 r = idx[k];
		u32 c = 0;
		for (u32 j = F[r] + g.lane; j < F[r + 1]; j += G) c += gba[j] != INVALID;
		if (hasCnt && c) atomicAdd(&cnt[r], c);
		sum += c;
	}
	for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0 && sum) atomicAdd(total, sum);
}

// sgsi_link copies the rows of [A, B) with each valid entry of their buffers appended to out, row
// r's first at off[r] - off[A]; the order within a row is that of a shared-memory cursor.
extern "C" __global__ void sgsi_link(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx, u32 G,
                                     const u32* gba, const u32* off, u32 A, u32 B, u32* out) {
	__shared__ u32 cur[BLOCK / 32];
	Group g = group(G);
	u32 slot = threadIdx.x / G;
	u32 base = off[A];
	u32 rounds = (nidx + g.n - 1) / g.n; // the same for every thread of a group
	for (u32 t = 0; t < rounds; t++) {
		u32 k = g.id + t * g.n;
		if (g.lane == 0) cur[slot] = 0;
		if (G == 32) __syncwarp(); else __syncthreads();
		u32 r = k < nidx ? idx[k] : INVALID;
		if (r != INVALID && r >= A && r < B) {
			const u32* row = rows + (u64)r * width;
			u64 at = off[r] - base;
			for (u32 j = F[r] + g.lane; j < F[r + 1]; j += G) {
				u32 x = gba[j];
				if (x == INVALID) continue;
				u32 p = atomicAdd(&cur[slot], 1u);
				u32* o = out + (at + p) * (width + 1);
				for (u32 c = 0; c < width; c++) o[c] = row[c];
				o[width] = x;
			}
		}
		if (G == 32) __syncwarp(); else __syncthreads();
	}
}

// keyList finds vertex v's list in a key upload (link entry l: its nref vertices, sorted, then
// their nref+1 offsets, then their lists, from word off = l[4] | l[5] << 32 of mem): a vertex not
// among them has an empty list.
__device__ __forceinline__ void keyList(const u32* mem, const u32* l, u32 v, const u32** list, u32* len) {
	u32 nref = l[2];
	const u32* refs = mem + ((u64)l[5] << 32 | l[4]);
	u32 x = 0, y = nref;
	while (x < y) {
		u32 m = (x + y) / 2;
		if (refs[m] < v) x = m + 1; else y = m;
	}
	*list = refs;
	*len = 0;
	if (x == nref || refs[x] != v) return;
	const u32* off = refs + nref;
	*list = refs + 2 * nref + 1 + off[x];
	*len = off[x + 1] - off[x];
}

#define MAXCOLS 32

// lowerBound is the first position of the sorted list whose entry is not below x.
__device__ __forceinline__ u32 lowerBound(const u32* list, u32 len, u32 x) {
	u32 a = 0, b = len;
	while (a < b) {
		u32 m = (a + b) / 2;
		if (list[m] < x) a = m + 1; else b = m;
	}
	return a;
}

// lastRow is the group's lane's part of the count of one row (sgsi_last). lp and ll hold the
// links' lists: those of the links in the bit mask known already (a generating vertex's), the
// others found here.
__device__ __forceinline__ u64 lastRow(const u32* mem, const u32* row, u32 width, const u32* links, u32 nlinks,
                                       const u32* bits, const u32* desc, u32 lane, u32 G, const u32** lp, u32* ll,
                                       u32 known) {
	u32 nless = desc[0], ngreater = desc[1];
	u32 best = INVALID, blen = INVALID;
	for (u32 i = 0; i < nlinks; i++) {
		const u32* l = links + 6 * i;
		if (!((known >> i) & 1)) keyList(mem, l, row[l[0]], &lp[i], &ll[i]);
		if (!l[1] && ll[i] < blen) {
			best = i;
			blen = ll[i];
		}
	}
	if (best == INVALID) return 0; // (the schedule gives every row a link not negated)
	u64 sum = 0;
	for (u32 j = lane; j < blen; j += G) {
		u32 w = lp[best][j];
		bool keep = (bits[w / 32] >> (w & 31)) & 1;
		for (u32 c = 0; keep && c < width; c++) keep = row[c] != w;
		for (u32 c = 0; keep && c < nless; c++) keep = row[desc[2 + c]] < w;
		for (u32 c = 0; keep && c < ngreater; c++) keep = w < row[desc[2 + nless + c]];
		for (u32 i = 0; keep && i < nlinks; i++) {
			if (i == best) continue;
			u32 a = lowerBound(lp[i], ll[i], w);
			bool found = a < ll[i] && lp[i][a] == w;
			keep = found != (links[6 * i + 1] != 0);
		}
		sum += keep;
	}
	return sum;
}

// sgsi_last counts a count's last step without buffers (the direct count): each row (a group of
// G threads) takes the entries of its shortest list among the links not negated, checks each as
// sgsi_first does (candidate bit, not in the row, restrictions desc) and looks it up in the other
// links' lists (found; negated: not found), every list resident. links holds nlinks entries of
// six words: column, negate, then the key upload the link reads (nref, unused, offset low, high:
// see keyList). The rows are read from rows (nrows rows of width words), or, with ngen > 0,
// generated from edges: a group takes each of the ngen vertices a of gen in turn and counts its
// rows (a, b), b an entry of a's list in link genLink's upload, when b is a candidate (bits1),
// not a, and passes the step before's restrictions (desc0: counts of "a < b" and "b < a", a
// descriptor whose columns are all 0). Only the rows whose column rcol holds a vertex of [rlo,
// rhi) are counted (a piece of the second column's lists; generated rows: rcol is 1).
extern "C" __global__ void sgsi_last(const u32* mem, const u32* rows, u32 width, u32 nrows, u32 G, const u32* links,
                                     u32 nlinks, const u32* bits, const u32* desc, const u32* gen, u32 ngen, u32 genLink,
                                     const u32* bits1, const u32* desc0, u32 rcol, u32 rlo, u32 rhi, u64* total) {
	Group g = group(G);
	u32 row[MAXCOLS];
	const u32* lp[MAXCOLS];
	u32 ll[MAXCOLS];
	u64 sum = 0;
	if (ngen) {
		for (u32 x = g.id; x < ngen; x += g.n) {
			u32 a = gen[x];
			const u32* list;
			u32 len;
			keyList(mem, links + 6 * genLink, a, &list, &len);
			u32 known = 0; // the links of a's column: their lists once for all of a's rows
			for (u32 i = 0; i < nlinks; i++) {
				if (links[6 * i] == 0) {
					keyList(mem, links + 6 * i, a, &lp[i], &ll[i]);
					known |= 1u << i;
				}
			}
			u32 to = lowerBound(list, len, rhi);
			for (u32 j = lowerBound(list, len, rlo); j < to; j++) {
				u32 b = list[j];
				bool ok = b != a && ((bits1[b / 32] >> (b & 31)) & 1);
				for (u32 c = 0; ok && c < desc0[0]; c++) ok = a < b;
				for (u32 c = 0; ok && c < desc0[1]; c++) ok = b < a;
				if (!ok) continue;
				row[0] = a;
				row[1] = b;
				sum += lastRow(mem, row, 2, links, nlinks, bits, desc, g.lane, G, lp, ll, known);
			}
		}
	} else {
		for (u32 k = g.id; k < nrows; k += g.n) {
			for (u32 c = 0; c < width; c++) row[c] = rows[(u64)k * width + c];
			if (row[rcol] < rlo || row[rcol] >= rhi) continue;
			sum += lastRow(mem, row, width, links, nlinks, bits, desc, g.lane, G, lp, ll, 0);
		}
	}
	for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0 && sum) atomicAdd(total, sum);
}
