// SGSI's kernels (package engine/sgsi): the signature filter and the four passes of one join
// step over a chunk of rows (first edge, other edges, counts, link), which look at the host's
// stop flag as they go (Stopper), as the direct count's sgsi_last does. HostBackend in backend.go
// is the same logic in Go; the two must stay in step.
//
// A join kernel deals the rows of its index list to its threads by one of SGSI+'s four
// load-balance layers (dealRows() below): a warp per row, a block's task pool, a block per row, or
// the whole grid per row. Buffers hold candidates or INVALID.
//
// Package gpu's stop polling (gpu.StopPollSource: stop_poll) is prepended to this file.

#define INVALID 0xffffffffu
#define BLOCK 256

#ifdef CUDAHOST
// The host build (package internal/cudahost) runs one-lane warps: nothing to add from other lanes.
template <class T> T __shfl_down_sync(unsigned, T, int) { return 0; }
template <class T> T __shfl_up_sync(unsigned, T, int) { return 0; }
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

// lowerBound is the first position of the sorted list whose entry is not below x.
__device__ __forceinline__ u32 lowerBound(const u32* list, u32 len, u32 x) {
	u32 a = 0, b = len;
	while (a < b) {
		u32 m = (a + b) / 2;
		if (list[m] < x) a = m + 1; else b = m;
	}
	return a;
}

// POLL_EVERY is how many ticks (rows and items or list entries) a thread of a join kernel or of
// sgsi_last takes between two looks at the host's stop flag (HostBackend: pollEvery), the first
// look at its first tick.
#define POLL_EVERY 1024u

// Stopper is a thread's polling of the stop flag (stop, ctl: gpu.StopPollSource); once it has
// seen the flag raised, tick says stop for good. Every kernel's threads start with a look, and
// the polling words keep a raise seen (ctl[1]): once one thread of a kernel has left its work,
// every thread of the kernels queued after it leaves at its first tick, so that nothing reads
// the output a stopped kernel left in part (the host discards it: the count or listing is
// partial).
struct Stopper {
	const volatile unsigned* stop;
	u64* ctl;
	u32 left; // ticks before the next look
	bool stopped;

	__device__ __forceinline__ bool tick() {
		if (left == 0) {
			left = POLL_EVERY;
			if (!stopped && stop_poll(stop, ctl)) stopped = true;
		}
		left--;
		return stopped;
	}
};

// The load-balance layers. A join kernel's work is its rows' items (buffer entries, or list
// positions): an Op says how many items row r has (open, which fills the row's state), does one
// (item: 1 when it counts a hit), and takes a thread's hits on a row (done). dealRows() deals the
// rows of idx to the threads, by the kernel's G:
//   G = 32: a warp per row; G = blockDim.x: a block per row; G = gridDim.x * blockDim.x: the
//   whole grid per row (the largest rows: the host's stand-in for SGSI+'s dynamically launched
//   kernel, each block a strided slice of the row); G = 0: the task pool (pool()).
// Every thread of a group runs open for its row; the group's lanes take its items in turn. On
// the whole grid, row r's item j goes to thread (F[r] + j) mod G (F: the rows' buffer offsets),
// so that rows shorter than the grid spread over it rather than all starting at its first threads.
// A thread ticks its Stopper (sp) for each row it opens and each item it does; once stopped it
// opens no more rows and does no more items, but still takes part in its group's and block's
// barriers (the task pool's rounds, Link's cursor), so that a stop never leaves a barrier waiting.

#define POOL BLOCK // rows a block's task pool holds at a time

// groupSync waits for the group of G threads when it shares a cursor (Link's).
__device__ __forceinline__ void groupSync(u32 G) {
	if (G == 32) __syncwarp(); else __syncthreads();
}

// warpScan is the inclusive sum over a warp's lanes up to this one (a one-lane warp on the host).
__device__ __forceinline__ u32 warpScan(u32 x) {
	u32 lane = threadIdx.x & 31;
	for (int o = 1; o < 32; o *= 2) {
		u32 y = __shfl_up_sync(0xffffffffu, x, o);
		if (lane >= (u32)o) x += y;
	}
	return x;
}

// blockScan returns the sum of x over the block's threads before this one and sets *total to the
// block's sum. Every thread of the block calls it.
__device__ __forceinline__ u32 blockScan(u32 x, u32* total) {
	__shared__ u32 warps[32];
	u32 lane = threadIdx.x & 31, w = threadIdx.x / 32, nw = (blockDim.x + 31) / 32;
	u32 inc = warpScan(x);
	if (lane == 31 || threadIdx.x == blockDim.x - 1) warps[w] = inc;
	__syncthreads();
	if (w == 0) {
		u32 s = warpScan(lane < nw ? warps[lane] : 0);
		if (lane < nw) warps[lane] = s;
	}
	__syncthreads();
	u32 before = (w ? warps[w - 1] : 0) + inc - x;
	*total = warps[nw - 1];
	__syncthreads(); // warps is read before the next call writes it
	return before;
}

// pool is the task-pool layer (SGSI+'s rows of (W3, W2] items). A block takes an equal share of
// the rows, POOL at a time: it loads them into shared memory (each thread opens its slots' rows),
// numbers their items by a block-wide scan, and its threads take the items in turn, each finding
// its row by a binary search of the rows' first items. The block's threads thus divide its
// rows' items evenly, however they are spread over the rows (SGSI+'s pool holds 1,024 items
// and refills it twice a round; this one holds POOL rows, up to W2 items each, numbered in
// place). A row's hits add up in shared memory; the thread that opened it passes them on.
template <class Op> __device__ void pool(Op& op, const u32* idx, u32 nidx, Stopper& sp) {
	__shared__ typename Op::Row row[POOL];
	__shared__ u32 rid[POOL], start[POOL], acc[POOL];
	u32 from = threadIdx.x * POOL / blockDim.x, to = (threadIdx.x + 1) * POOL / blockDim.x; // the thread's slots
	u32 lo = (u64)blockIdx.x * nidx / gridDim.x, hi = (u64)(blockIdx.x + 1) * nidx / gridDim.x;
	for (u32 b = lo; b < hi; b += POOL) {
		u32 mine = 0;
		for (u32 s = from; s < to; s++) {
			u32 k = b + s;
			u32 n = 0;
			if (k < hi) {
				rid[s] = idx[k];
				if (!sp.tick()) n = op.open(rid[s], row[s]);
			}
			start[s] = n; // its item count until the scan below
			acc[s] = 0;
			mine += n;
		}
		u32 items;
		u32 at = blockScan(mine, &items);
		for (u32 s = from; s < to; s++) {
			u32 n = start[s];
			start[s] = at;
			at += n;
		}
		__syncthreads();
		u32 cur = INVALID, c = 0;
		for (u32 e = threadIdx.x; e < items; e += blockDim.x) {
			if (sp.tick()) break;
			u32 x = 0, y = POOL; // the last row whose first item is at most e
			while (y - x > 1) {
				u32 m = (x + y) / 2;
				if (start[m] <= e) x = m; else y = m;
			}
			if (x != cur) {
				if (c) atomicAdd(&acc[cur], c);
				cur = x;
				c = 0;
			}
			c += op.item(row[x], e - start[x], &acc[x]);
		}
		if (c) atomicAdd(&acc[cur], c);
		__syncthreads();
		for (u32 s = from; s < to; s++) {
			if (b + s < hi) op.done(rid[s], row[s], acc[s]);
		}
		__syncthreads(); // the slots are read before the next rows overwrite them
	}
}

template <class Op> __device__ void dealRows(Op& op, const u32* idx, u32 nidx, u32 G, const u32* F, Stopper& sp) {
	if (G == 0) {
		pool(op, idx, nidx, sp);
		return;
	}
	__shared__ u32 cur[BLOCK / 32]; // a group's cursor (Op::cursor: Link), a warp's or a block's
	Group g = group(G);
	u32 slot = G < blockDim.x ? threadIdx.x / G : 0;
	u32 rounds = (nidx + g.n - 1) / g.n; // the same for every thread of a group
	for (u32 t = 0; t < rounds; t++) {
		u32 k = g.id + t * g.n;
		if (Op::cursor) {
			if (g.lane == 0) cur[slot] = 0;
			groupSync(G);
		}
		if (k < nidx && !sp.tick()) {
			u32 r = idx[k];
			typename Op::Row s;
			u32 n = op.open(r, s);
			u32 c = 0;
			u32 j = g.lane;
			if (G > blockDim.x) j = (g.lane + G - F[r] % G) % G; // item j on thread (F[r] + j) mod G
			for (; j < n && !sp.tick(); j += G) c += op.item(s, j, &cur[slot]);
			op.done(r, s, c);
		}
		if (Op::cursor) groupSync(G);
	}
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

// FirstOp fills the buffers from the segment's lists. A list may be cut into parts over several
// segments: the segment's part of vertex lo's list starts at list position head. Only list
// positions [winLo, winHi) are written, at buf[position - winLo]. A row's items: its list
// positions in the segment and the window.
struct FirstOp {
	enum { cursor = 0 }; // no shared cursor (dealRows)
	struct Row {
		const u32* list; // from the row's first item
		u32* out;        // its buffer slot
		u32 r;
	};
	const u32* rows;
	u32 width;
	const u32* F;
	u32 col;
	const u32 *segOff, *segNbr;
	u32 lo, hi, nref, head, winLo, winHi;
	const u32 *bits, *desc;
	u32* gba;
	u32 nless, ngreater; // desc[0], desc[1]

	__device__ u32 open(u32 r, Row& s) {
		const u32* list;
		u32 len, v;
		if (!rowList(rows, width, r, col, segOff, segNbr, lo, hi, nref, &list, &len, &v)) return 0;
		u32 skip = v == lo ? head : 0;
		if (winHi <= skip) return 0; // the window ends before the segment's part
		u32 from = winLo > skip ? winLo - skip : 0;
		u32 to = winHi - skip < len ? winHi - skip : len;
		if (to <= from) return 0;
		s.list = list + from;
		s.out = gba + F[r] + skip + from - winLo;
		s.r = r;
		return to - from;
	}
	__device__ u32 item(const Row& s, u32 j, u32*) {
		const u32* row = rows + (u64)s.r * width;
		u32 w = s.list[j];
		bool keep = (bits[w / 32] >> (w & 31)) & 1;
		for (u32 c = 0; keep && c < width; c++) keep = row[c] != w;
		for (u32 c = 0; keep && c < nless; c++) keep = row[desc[2 + c]] < w;
		for (u32 c = 0; keep && c < ngreater; c++) keep = w < row[desc[2 + nless + c]];
		s.out[j] = keep ? w : INVALID;
		return 0;
	}
	__device__ void done(u32, const Row&, u32) {}
};

extern "C" __global__ void sgsi_first(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx, u32 G,
                                      u32 col, const u32* segOff, const u32* segNbr, u32 lo, u32 hi, u32 nref, u32 head,
                                      u32 winLo, u32 winHi, const u32* bits, const u32* desc, u32* gba,
                                      const volatile unsigned* stop, u64* ctl) {
	FirstOp op = {rows, width, F, col, segOff, segNbr, lo, hi, nref, head, winLo, winHi, bits, desc, gba, desc[0], desc[1]};
	Stopper sp = {stop, ctl, 0, false};
	dealRows(op, idx, nidx, G, F, sp);
}

// IntersectOp invalidates the buffer entries absent from (negate: present in) the row's list.
// When the list is cut into parts, a part decides only the entries in its value range: above
// prev (the last entry of the parts before) when vertex lo's list has head > 0 entries before the
// segment, and up to its last entry when vertex hi-1's list goes on after it (tail). A row's
// items: its buffer's entries, when its vertex lies in the segment.
struct IntersectOp {
	enum { cursor = 0 }; // no shared cursor (dealRows)
	struct Row {
		const u32* list;
		u32* buf;
		u32 len;
		u32 below, above; // entries <= prev belong to earlier parts; entries > list[len-1] to later ones
	};
	const u32* rows;
	u32 width;
	const u32* F;
	u32 col;
	const u32 *segOff, *segNbr;
	u32 lo, hi, nref, head, prev, tail, negate;
	u32* gba;

	__device__ u32 open(u32 r, Row& s) {
		u32 v;
		if (!rowList(rows, width, r, col, segOff, segNbr, lo, hi, nref, &s.list, &s.len, &v)) return 0;
		s.below = v == lo && head > 0;
		s.above = v == hi - 1 && tail != 0;
		s.buf = gba + F[r];
		return F[r + 1] - F[r];
	}
	__device__ u32 item(const Row& s, u32 j, u32*) {
		u32 x = s.buf[j];
		if (x == INVALID) return 0;
		if ((s.below && x <= prev) || (s.above && x > s.list[s.len - 1])) return 0;
		u32 a = lowerBound(s.list, s.len, x);
		bool found = a < s.len && s.list[a] == x;
		if (found == (negate != 0)) s.buf[j] = INVALID;
		return 0;
	}
	__device__ void done(u32, const Row&, u32) {}
};

extern "C" __global__ void sgsi_intersect(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx,
                                          u32 G, u32 col, const u32* segOff, const u32* segNbr, u32 lo, u32 hi,
                                          u32 nref, u32 head, u32 prev, u32 tail, u32 negate, u32* gba,
                                          const volatile unsigned* stop, u64* ctl) {
	IntersectOp op = {rows, width, F, col, segOff, segNbr, lo, hi, nref, head, prev, tail, negate, gba};
	Stopper sp = {stop, ctl, 0, false};
	dealRows(op, idx, nidx, G, F, sp);
}

// CountOp counts each row's valid entries into cnt[r] (hasCnt) and the thread's sum.
struct CountOp {
	enum { cursor = 0 }; // no shared cursor (dealRows)
	struct Row {
		const u32* buf;
	};
	const u32* F;
	const u32* gba;
	u32* cnt;
	u32 hasCnt;
	u64 sum;

	__device__ u32 open(u32 r, Row& s) {
		s.buf = gba + F[r];
		return F[r + 1] - F[r];
	}
	__device__ u32 item(const Row& s, u32 j, u32*) { return s.buf[j] != INVALID; }
	__device__ void done(u32 r, const Row&, u32 c) {
		if (hasCnt && c) atomicAdd(&cnt[r], c);
		sum += c;
	}
};

extern "C" __global__ void sgsi_count(const u32* F, const u32* idx, u32 nidx, u32 G, const u32* gba, u32* cnt,
                                      u32 hasCnt, u64* total, const volatile unsigned* stop, u64* ctl) {
	CountOp op = {F, gba, cnt, hasCnt, 0};
	Stopper sp = {stop, ctl, 0, false};
	dealRows(op, idx, nidx, G, F, sp);
	u64 sum = op.sum;
	for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0 && sum) atomicAdd(total, sum);
}

// LinkOp copies the rows of [A, B) with each valid entry of their buffers appended to out, row
// r's first at off[r] - off[A]; the order within a row is that of a shared-memory cursor (the
// row's group's, or its task-pool slot's: never the whole grid's, which shares no memory).
struct LinkOp {
	enum { cursor = 1 }; // a shared cursor per row (dealRows)
	struct Row {
		const u32* buf;
		u32* out;
		u32 r;
	};
	const u32* rows;
	u32 width;
	const u32* F;
	const u32* gba;
	const u32* off;
	u32 A, B;
	u32* out;

	__device__ u32 open(u32 r, Row& s) {
		if (r < A || r >= B) return 0;
		s.buf = gba + F[r];
		s.out = out + (u64)(off[r] - off[A]) * (width + 1);
		s.r = r;
		return F[r + 1] - F[r];
	}
	__device__ u32 item(const Row& s, u32 j, u32* cur) {
		u32 x = s.buf[j];
		if (x == INVALID) return 0;
		const u32* row = rows + (u64)s.r * width;
		u32* o = s.out + (u64)atomicAdd(cur, 1u) * (width + 1);
		for (u32 c = 0; c < width; c++) o[c] = row[c];
		o[width] = x;
		return 0;
	}
	__device__ void done(u32, const Row&, u32) {}
};

extern "C" __global__ void sgsi_link(const u32* rows, u32 width, const u32* F, const u32* idx, u32 nidx, u32 G,
                                     const u32* gba, const u32* off, u32 A, u32 B, u32* out,
                                     const volatile unsigned* stop, u64* ctl) {
	LinkOp op = {rows, width, F, gba, off, A, B, out};
	Stopper sp = {stop, ctl, 0, false};
	dealRows(op, idx, nidx, G, F, sp);
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

// lastRow is the group's lane's part of the count of one row (sgsi_last). lp and ll hold the
// links' lists: those of the links in the bit mask known already (a generating vertex's), the
// others found here.
__device__ __forceinline__ u64 lastRow(const u32* mem, const u32* row, u32 width, const u32* links, u32 nlinks,
                                       const u32* bits, const u32* desc, u32 lane, u32 G, const u32** lp, u32* ll,
                                       u32 known, Stopper& sp) {
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
		if (sp.tick()) break;
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
//
// A thread looks at the host's stop flag (stop, ctl: gpu.StopPollSource; stop null: never) at
// its first row and every POLL_EVERY rows and entries after (Stopper): once raised, it leaves its
// rows and adds what it counted so far, so a stopped launch's total is partial.
extern "C" __global__ void sgsi_last(const u32* mem, const u32* rows, u32 width, u32 nrows, u32 G, const u32* links,
                                     u32 nlinks, const u32* bits, const u32* desc, const u32* gen, u32 ngen, u32 genLink,
                                     const u32* bits1, const u32* desc0, u32 rcol, u32 rlo, u32 rhi, u64* total,
                                     const volatile unsigned* stop, u64* ctl) {
	Group g = group(G);
	Stopper sp = {stop, ctl, 0, false};
	u32 row[MAXCOLS];
	const u32* lp[MAXCOLS];
	u32 ll[MAXCOLS];
	u64 sum = 0;
	if (ngen) {
		for (u32 x = g.id; x < ngen && !sp.stopped; x += g.n) {
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
				if (sp.tick()) break;
				u32 b = list[j];
				bool ok = b != a && ((bits1[b / 32] >> (b & 31)) & 1);
				for (u32 c = 0; ok && c < desc0[0]; c++) ok = a < b;
				for (u32 c = 0; ok && c < desc0[1]; c++) ok = b < a;
				if (!ok) continue;
				row[0] = a;
				row[1] = b;
				sum += lastRow(mem, row, 2, links, nlinks, bits, desc, g.lane, G, lp, ll, known, sp);
			}
		}
	} else {
		for (u32 k = g.id; k < nrows; k += g.n) {
			if (sp.tick()) break;
			for (u32 c = 0; c < width; c++) row[c] = rows[(u64)k * width + c];
			if (row[rcol] < rlo || row[rcol] >= rhi) continue;
			sum += lastRow(mem, row, width, links, nlinks, bits, desc, g.lane, G, lp, ll, 0, sp);
		}
	}
	for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0 && sum) atomicAdd(total, sum);
}
