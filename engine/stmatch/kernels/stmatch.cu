// stmatch.cu: the generic (interpreted-plan) depth-first matching kernel of the stmatch engine,
// second version (the first is kept in stmatch_v1.cu for comparison).
//
// One persistent grid; every warp takes work units one at a time from a global counter and runs
// the plan's nested loops as an explicit stack. A work unit is (root index r, k, K): the subtree
// of root r restricted to the level-1 candidates at positions k, k+K, k+2K, ... of the root's
// level-1 set (K = 1: the whole subtree, as in v1). The host splits heavy roots into several
// units and orders the units heaviest first; below that, the work queue (see "Work queue") moves
// halves of long-running subtrees to idle warps and carries unfinished work from one time-sliced
// launch to the next.
//
// The state of the stack (the data vertex m[i] of each level, its index mi[i] in its vertex's
// candidate list, the loop position, end and stored size of each level's set) is kept by every
// lane alike (warp-uniform control flow); the candidate sets live in the warp's slice of a global
// buffer. A level's set is the intersection of its sources: the stored set of the level it reuses
// (plan Reuse: loop-invariant code motion), and the candidate-space lists of its other backward
// edges (plan Extra). The lanes stride over the smallest source, binary-search the others, apply
// the symmetry window, injectivity, induced non-adjacency and (when it reuses a set and has no
// list of its own) membership in its candidate list, and compact the survivors with a ballot.
// A level that a later level reuses stores its set before the injectivity and non-adjacency
// checks (and before the window unless NarrowShared), and applies them while it iterates. The
// last level is counted, not stored, unless the plan has postponed leaf groups: then every
// complete assignment of the levels adds the product of the groups' counts (leaf_product_t).
//
// Pieces: a level's buffer holds M_CAP candidates. When the host bounded it below what the set
// could hold (F_PIECES) and the smallest source is longer than that, the level's set is computed
// in pieces: each piece continues the stride over the source where the previous one stopped and
// ends before it could overflow the buffer; the level iterates a piece, then computes the next
// (pnext, the source position where it starts). A set in pieces is windowed and checked like an
// unstored one, and a later level that would reuse it intersects all its own backward lists
// instead (M_BACKALL; the bit of the level in `pieced` says which applies). Tasks carry the
// source position of their piece and whether the later pieces are theirs too.
//
// Plan metadata (meta, dynamic shared memory): META_STRIDE 64-bit words per level, see the M_*
// indices below; edge lists: eoff[ebase + k] .. eoff[ebase + k + 1] index evals for the k-th
// candidate of the parent.

#define MAXL 32
#define META_STRIDE 44
#define M_BACK 0      // mask of levels whose edge list (level j -> this level) is intersected
#define M_COLLIDE 1   // mask of levels whose vertex must differ from this level's
#define M_LOWER 2     // mask of levels whose vertex must be smaller than this level's
#define M_UPPER 3     // mask of levels whose vertex must be greater
#define M_NONADJ 4    // mask of levels that must not be adjacent (induced)
#define M_NEEDIDX 5   // 1 when a later level needs mi[i]
#define M_CANDOFF 6   // this level's vertex's candidate list in cands
#define M_CANDLEN 7
#define M_BUFOFF 8    // this level's buffer inside the warp's slice
#define M_FLAGS 9     // F_* below
#define M_EBASE 10    // + j: start in eoff of the edge (level j -> this level)
#define M_CAP 42      // this level's buffer capacity (candidates)
#define M_BACKALL 43  // every backward level, when the reused level may be in pieces (else 0)
// Hub bitmaps (see "Hub bitmaps" below): words of level 0's record, which has no backward
// levels and so no M_EBASE + j words of its own; the kernel writes them into its shared copy.
#define M_HROW (M_EBASE + 0)    // u32 per list (parallel to eoff, or to goff in graph mode): its bitmap row, or NO_ROW
#define M_HBITS (M_EBASE + 1)   // the bitmaps, M_HWORDS words a row
#define M_HWORDS (M_EBASE + 2)
#define NO_ROW 0xffffffffu
#define F_REUSE 0xffu       // reused level + 1 (0: none)
#define F_REUSED 0x100u     // a later level reuses this level's set: store it unchecked
#define F_NARROW 0x200u     // NarrowShared: the stored set may be narrowed to the window
#define F_CHECKCAND 0x400u  // test membership in this level's candidate list
#define F_GRAPH 0x800u      // no candidate space: the level's lists are the data graph's adjacency lists
#define F_PIECES 0x1000u    // the set may be longer than the buffer: computed in pieces when it is
#define NO_PIECE 0xffffffffffffffffull  // pnext of a level whose current piece is its last
#define F_GROUPK(f) (((f) >> 16) & 0xffu)  // leaf group record: the group's vertex count
#define F_ORDERED 0x1000000u                // leaf group record: symmetry orders the group
#define F_CLASSN(f) (((f) >> 25) & 0x7u)     // leaf group record: groups in its class (first group only)
#define MAX_CLASS 4                          // groups in a class counted together
#define MAX_CLASS_LISTS 16                   // parent lists of a class's groups, all together
#define MAX_CLASS_STATES 64                  // states of the class's distribution DP
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

// Symmetry window steps: win_above moves *b past the candidates not greater than lo (false when
// nothing can be: lo is the largest id), win_below moves *e to the first candidate not smaller
// than hi.
__device__ __forceinline__ bool win_above(u32 lo, const u32* a, u64 n, u64* b) {
	if (lo == 0xffffffffu) return false;
	u64 p = lower_bound(a, n, lo + 1);
	if (p > *b) *b = p;
	return true;
}

__device__ __forceinline__ void win_below(u32 hi, const u32* a, u64 n, u64* e) {
	u64 p = lower_bound(a, n, hi);
	if (p < *e) *e = p;
}

// ---- Hub bitmaps --------------------------------------------------------------------------
//
// The host may give the longest lists (the neighbourhoods of high-degree vertices, within a
// share of the memory budget) a bitmap over the data vertices: list k's row is hrow[k] (k the
// list's index in eoff, or in goff in graph mode), NO_ROW for the others, or no hrow at all.
// A membership test in a list with a row is one load instead of a binary search; the bitmap
// holds exactly the list's members, so the test's answer is the same. The sources of a level
// carry their row (hr), NO_ROW for a stored set.

__device__ __forceinline__ u32 hub_row(const u64* __restrict__ meta, u64 list) {
	const u32* hrow = (const u32*)meta[M_HROW];
	return hrow ? hrow[list] : NO_ROW;
}

// member says whether x is in the sorted a[0:n), whose bitmap row is row (NO_ROW: none).
__device__ __forceinline__ bool member(const u64* __restrict__ meta, const u32* __restrict__ a, u64 n, u32 row, u32 x) {
	if (row != NO_ROW) {
		const u32* bits = (const u32*)meta[M_HBITS] + (u64)row * meta[M_HWORDS];
		return (bits[x >> 5] >> (x & 31)) & 1u;
	}
	return contains(a, n, x);
}

// Sources of a level's set: add_stored appends the stored set of level j, add_list the
// candidate-space list of the edge (level j -> the level lv) for the candidate mi[j].
__device__ __forceinline__ int add_stored(const u64* __restrict__ meta, int j, const u64* sz, const u32* buf,
	const u32** lp, u64* ll, u32* hr, int nl)
{
	lp[nl] = buf + meta[(u64)j * META_STRIDE + M_BUFOFF];
	ll[nl] = sz[j];
	hr[nl] = NO_ROW;
	return nl + 1;
}

__device__ __forceinline__ int add_list(const u64* __restrict__ meta, const u64* lv, int j, const u32* mi,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32** lp, u64* ll, u32* hr, int nl)
{
	u64 base = lv[M_EBASE + j] + mi[j];
	u64 s = eoff[base];
	lp[nl] = evals + s;
	ll[nl] = eoff[base + 1] - s;
	hr[nl] = hub_row(meta, base);
	return nl + 1;
}

// add_adj (F_GRAPH) appends the data graph's adjacency list of m[j] (sorted by id): the whole
// list (M_EBASE + j is 0), or its edges of one label (the filtered CSR whose offsets start at
// goff + lv[M_EBASE + j]).
__device__ __forceinline__ int add_adj(const u64* __restrict__ meta, const u64* lv, int j, const u32* m,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, const u32** lp, u64* ll, u32* hr, int nl)
{
	u64 base = lv[M_EBASE + j] + m[j];
	u64 s = goff[base];
	lp[nl] = gadj + s;
	ll[nl] = goff[base + 1] - s;
	hr[nl] = hub_row(meta, base);
	return nl + 1;
}

// ---- Level descriptors ----------------------------------------------------------------------
//
// level_set and the main loop reach a level's structural plan (its flags, the sources of its set,
// its symmetry window and its per-candidate checks) through a descriptor type with static
// functions. LvlRun reads them from the plan metadata at run time: the generic (interpreted-plan)
// kernel. A per-query kernel (STMATCH_SPEC) defines Lvl<1> .. Lvl<L-1>, generated from the plan by
// codegen.go at the marker below, with each level's masks written out as code: the compiler then
// unrolls the sources and checks and keeps the source pointers in registers.

struct LvlRun {
	__device__ static __forceinline__ u32 flags(const u64* lv) { return (u32)lv[M_FLAGS]; }

	// sources writes the level's sources (its reused stored set, then its lists) to lp/ll and
	// returns how many there are (0: the level starts from its candidate list). When the reused
	// level's set is in pieces (its bit in pieced), the sources are all the level's backward lists.
	__device__ static __forceinline__ int sources(const u64* __restrict__ meta, const u64* lv, const u32* m, const u32* mi,
		const u64* sz, const u32* buf, const u64* __restrict__ eoff, const u32* __restrict__ evals,
		const u64* __restrict__ goff, const u32* __restrict__ gadj, u32 pieced, const u32** lp, u64* ll, u32* hr)
	{
		int nl = 0;
		int reuse = (int)(flags(lv) & F_REUSE) - 1;
		u32 back = (u32)lv[M_BACK];
		if (reuse >= 0) {
			if ((pieced >> reuse) & 1) back = (u32)lv[M_BACKALL];
			else nl = add_stored(meta, reuse, sz, buf, lp, ll, hr, nl);
		}
		if (flags(lv) & F_GRAPH)
			for (u32 b = back; b; b &= b - 1) nl = add_adj(meta, lv, __ffs(b) - 1, m, goff, gadj, lp, ll, hr, nl);
		else
			for (u32 b = back; b; b &= b - 1) nl = add_list(meta, lv, __ffs(b) - 1, mi, eoff, evals, lp, ll, hr, nl);
		return nl;
	}

	// window narrows the sorted a[0:n) to the level's symmetry window [*begin, *end) (false when
	// it is empty).
	__device__ static __forceinline__ bool window(const u64* lv, const u32* m, const u32* a, u64 n, u64* begin, u64* end) {
		u64 b = 0, e = n;
		for (u32 k = (u32)lv[M_LOWER]; k; k &= k - 1)
			if (!win_above(m[__ffs(k) - 1], a, n, &b)) { *begin = 0; *end = 0; return false; }
		for (u32 k = (u32)lv[M_UPPER]; k; k &= k - 1) win_below(m[__ffs(k) - 1], a, n, &e);
		*begin = b; *end = e;
		return b < e;
	}

	// accept applies the level's injectivity and induced non-adjacency checks to c.
	__device__ static __forceinline__ bool accept(const u64* lv, const u32* m, u32 c,
		const u64* __restrict__ goff, const u32* __restrict__ gadj)
	{
		bool ok = true;
		for (u32 b = (u32)lv[M_COLLIDE]; ok && b; b &= b - 1) ok = m[__ffs(b) - 1] != c;
		for (u32 b = (u32)lv[M_NONADJ]; ok && b; b &= b - 1) ok = !adjacent(goff, gadj, m[__ffs(b) - 1], c);
		return ok;
	}
};

template <int I> struct Lvl;

//@@STMATCH_SPEC@@

// Checked 64-bit arithmetic: *ovf is set when a result does not fit.
__device__ __forceinline__ u64 mul_checked(u64 a, u64 b, bool* ovf) {
	if (__umul64hi(a, b) != 0) *ovf = true;
	return a * b;
}

__device__ __forceinline__ u64 add_checked(u64 a, u64 b, bool* ovf) {
	u64 s = a + b;
	if (s < a) *ovf = true;
	return s;
}

__device__ __forceinline__ u64 gcd64(u64 a, u64 b) {
	while (b) { u64 t = a % b; a = b; b = t; }
	return a;
}

// falling returns n (n-1) ... (n-k+1); binomial returns C(n, k) (each step exact: r (n-i) / (i+1)
// with the common factors of r and i+1 cancelled first).
__device__ u64 falling(u64 n, u32 k, bool* ovf) {
	if (k > n) return 0;
	u64 r = 1;
	for (u32 i = 0; i < k; i++) r = mul_checked(r, n - i, ovf);
	return r;
}

__device__ u64 binomial(u64 n, u32 k, bool* ovf) {
	if (k > n) return 0;
	if (k > n - k) k = (u32)(n - k);
	u64 r = 1;
	for (u32 i = 0; i < k; i++) {
		u64 d = i + 1, g = gcd64(r, d);
		r = mul_checked(r / g, (n - i) / (d / g), ovf);
	}
	return r;
}

// class_count_t counts the injective assignments of the n (2..MAX_CLASS) groups of one collision
// class starting at record L + g0, as the CPU engine does (engine/cpu/leaves.go): the size of the
// intersection of every subset of the groups' sets S (minus the mapped vertices in it), the Venn
// regions by Möbius inversion, and a dynamic programme over the regions that distributes the
// groups' vertices (state: each group's vertices still unplaced, in mixed radix). The warp
// computes it together (Lane false: the lanes split the set scans, every lane runs the small DP),
// or one lane alone (Lane true, for leaf_product_t<true>).
template <bool Lane>
__device__ u64 class_count_t(const u64* __restrict__ meta, int L, int g0, int n, const u32* m, const u32* mi,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands, int lane, bool* ovf)
{
	const u32* lp[MAX_CLASS_LISTS];
	u64 ll[MAX_CLASS_LISTS];
	int owner[MAX_CLASS_LISTS];
	int nl = 0;
	int size[MAX_CLASS];
	bool ordered[MAX_CLASS];
	for (int b = 0; b < n; b++) {
		const u64* gv = meta + (u64)(L + g0 + b) * META_STRIDE;
		u32 f = (u32)gv[M_FLAGS];
		size[b] = F_GROUPK(f);
		ordered[b] = (f & F_ORDERED) != 0;
		for (u32 k = (u32)gv[M_BACK]; k; k &= k - 1) {
			int j = __ffs(k) - 1;
			u64 base = gv[M_EBASE + j] + mi[j];
			u64 s = eoff[base], e = eoff[base + 1];
			lp[nl] = evals + s; ll[nl] = e - s; owner[nl] = b;
			nl++;
		}
		if (!gv[M_BACK]) {  // an isolated group: its set is its candidate list
			lp[nl] = cands + gv[M_CANDOFF]; ll[nl] = gv[M_CANDLEN]; owner[nl] = b;
			nl++;
		}
	}
	const int full = (1 << n) - 1;
	long long inter[1 << MAX_CLASS], region[1 << MAX_CLASS];
	for (int mask = 1; mask <= full; mask++) {
		int best = -1;
		for (int k = 0; k < nl; k++)
			if ((mask >> owner[k]) & 1 && (best < 0 || ll[k] < ll[best])) best = k;
		u64 cnt = 0;
		if constexpr (Lane) {
			for (u64 idx = 0; idx < ll[best]; idx++) {
				bool ok = true;
				for (int k = 0; ok && k < nl; k++)
					if (k != best && ((mask >> owner[k]) & 1)) ok = contains(lp[k], ll[k], lp[best][idx]);
				cnt += ok;
			}
			for (int j = 0; j < L; j++) {
				bool in = true;
				for (int k = 0; in && k < nl; k++)
					if ((mask >> owner[k]) & 1) in = contains(lp[k], ll[k], m[j]);
				cnt -= in;
			}
		} else {
			for (u64 base = 0; base < ll[best]; base += 32) {
				u64 idx = base + lane;
				bool ok = idx < ll[best];
				u32 c = ok ? lp[best][idx] : 0;
				for (int k = 0; ok && k < nl; k++)
					if (k != best && ((mask >> owner[k]) & 1)) ok = contains(lp[k], ll[k], c);
				cnt += __popc(__ballot_sync(FULL, ok));
			}
			bool in = lane < L;
			u32 x = in ? m[lane] : 0;
			for (int k = 0; in && k < nl; k++)
				if ((mask >> owner[k]) & 1) in = contains(lp[k], ll[k], x);
			cnt -= __popc(__ballot_sync(FULL, in));
		}
		inter[mask] = (long long)cnt;
	}
	for (int mask = 1; mask <= full; mask++) {
		long long r = 0;
		for (int sup = mask; sup <= full; sup = (sup + 1) | mask)
			r += (__popc(sup ^ mask) & 1) ? -inter[sup] : inter[sup];
		region[mask] = r;
	}
	int radix[MAX_CLASS], rem[MAX_CLASS], pick[MAX_CLASS];
	int states = 1;
	for (int b = 0; b < n; b++) { radix[b] = size[b] + 1; states *= radix[b]; }
	u64 dp[MAX_CLASS_STATES], ndp[MAX_CLASS_STATES];
	for (int s = 0; s < states; s++) dp[s] = 0;
	dp[states - 1] = 1;  // every vertex unplaced
	for (int mask = 1; mask <= full; mask++) {
		long long r = region[mask];
		if (r <= 0) continue;
		for (int s = 0; s < states; s++) ndp[s] = 0;
		for (int s = 0; s < states; s++) {
			if (dp[s] == 0) continue;
			for (int b = 0, x = s; b < n; b++) { rem[b] = x % radix[b]; x /= radix[b]; pick[b] = 0; }
			for (;;) {
				// Ways to place pick[b] vertices of each group b of mask into the region.
				u64 ways = 1;
				long long left = r;
				for (int b = 0; b < n && ways; b++) {
					int j = pick[b];
					if (j == 0) continue;
					u64 f = ordered[b] ? binomial((u64)left, j, ovf)
						: mul_checked(binomial((u64)rem[b], j, ovf), falling((u64)left, j, ovf), ovf);
					ways = f ? mul_checked(ways, f, ovf) : 0;
					left -= j;
				}
				if (ways) {
					int t = 0;
					for (int b = n - 1; b >= 0; b--) t = t * radix[b] + rem[b] - pick[b];
					ndp[t] = add_checked(ndp[t], mul_checked(dp[s], ways, ovf), ovf);
				}
				// Next pick vector: an odometer over the groups of mask, pick[b] <= rem[b].
				int b = 0;
				for (; b < n; b++) {
					if (!((mask >> b) & 1)) continue;
					if (pick[b] < rem[b]) { pick[b]++; break; }
					pick[b] = 0;
				}
				if (b == n) break;
			}
		}
		for (int s = 0; s < states; s++) dp[s] = ndp[s];
	}
	return dp[0];
}

// group_lists writes the lists of leaf group record gv for the assignment's candidate indexes mi
// to lp/ll/hr, the shortest first, and returns how many there are: its parents' candidate-space
// lists, or for an isolated group (no parents) its candidate list.
__device__ __forceinline__ int group_lists(const u64* __restrict__ meta, const u64* gv, const u32* mi, const u64* __restrict__ eoff,
	const u32* __restrict__ evals, const u32* __restrict__ cands, const u32** lp, u64* ll, u32* hr)
{
	int nl = 0, best = 0;
	for (u32 b = (u32)gv[M_BACK]; b; b &= b - 1) {
		int j = __ffs(b) - 1;
		u64 base = gv[M_EBASE + j] + mi[j];
		u64 s = eoff[base], e = eoff[base + 1];
		lp[nl] = evals + s; ll[nl] = e - s; hr[nl] = hub_row(meta, base);
		if (ll[nl] < ll[best]) best = nl;
		nl++;
	}
	if (nl == 0) {
		lp[0] = cands + gv[M_CANDOFF]; ll[0] = gv[M_CANDLEN]; hr[0] = NO_ROW;
		return 1;
	}
	const u32* tp = lp[best]; u64 tl = ll[best]; u32 th = hr[best];
	lp[best] = lp[0]; ll[best] = ll[0]; hr[best] = hr[0];
	lp[0] = tp; ll[0] = tl; hr[0] = th;
	return nl;
}

// group_count is the count of a leaf group (record gv) of one collision class with size
// candidates of which used are mapped: (size - used)_k, or C(size - used, k) when symmetry
// orders the group.
__device__ __forceinline__ u64 group_count(const u64* gv, u64 size, u64 used, bool* ovf) {
	u32 f = (u32)gv[M_FLAGS];
	return (f & F_ORDERED) ? binomial(size - used, F_GROUPK(f), ovf) : falling(size - used, F_GROUPK(f), ovf);
}

// leaf_product_t counts the injective assignments of the postponed leaf groups for the complete
// assignment m: the product over collision classes of the class's count. A class of one group
// counts (|S| - used)_k, or C(|S| - used, k) for an ordered group, where S is the intersection of
// the parents' candidate-space lists (for an isolated group, which has no parents, its candidate
// list) and used the number of mapped vertices in S; a class of several groups is counted by
// class_count_t. Group g's record is meta level L + g: M_BACK its parents, M_EBASE their lists,
// M_CANDOFF/M_CANDLEN its candidates, M_FLAGS its size and order, and on a class's first group
// the number of groups in the class (the class's groups follow it).
//
// The warp computes it together (Lane false: the lanes split the set scans) or one lane alone
// (Lane true: sequential scans, no warp-wide operation, so only the lanes with an assignment
// call it; leaf_batch runs it on 32 candidates at once, and for plans with collision classes of
// several groups only with Options.UnrollClasses).
template <bool Lane>
__device__ u64 leaf_product_t(const u64* __restrict__ meta, int L, int G, const u32* m, const u32* mi,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands, int lane, bool* ovf)
{
	u64 prod = 1;
	for (int g = 0; g < G; g++) {
		const u64* gv = meta + (u64)(L + g) * META_STRIDE;
		int cn = F_CLASSN((u32)gv[M_FLAGS]);
		if (cn > 1) {
			u64 c = class_count_t<Lane>(meta, L, g, cn, m, mi, eoff, evals, cands, lane, ovf);
			if (c == 0) return 0;
			prod = mul_checked(prod, c, ovf);
			g += cn - 1;
			continue;
		}
		const u32* lp[MAXL];
		u64 ll[MAXL];
		u32 hr[MAXL];
		int nl = group_lists(meta, gv, mi, eoff, evals, cands, lp, ll, hr);
		if (ll[0] == 0) return 0;
		u64 size = ll[0], used = 0;
		if constexpr (Lane) {
			if (nl > 1) {
				size = 0;
				for (u64 x = 0; x < ll[0]; x++) {
					bool ok = true;
					for (int k = 1; ok && k < nl; k++) ok = member(meta, lp[k], ll[k], hr[k], lp[0][x]);
					size += ok;
				}
			}
			for (int j = 0; j < L; j++) {
				bool in = true;
				for (int k = 0; in && k < nl; k++) in = member(meta, lp[k], ll[k], hr[k], m[j]);
				used += in;
			}
		} else {
			if (nl > 1) {
				size = 0;
				for (u64 base = 0; base < ll[0]; base += 32) {
					u64 idx = base + lane;
					bool ok = idx < ll[0];
					u32 c = ok ? lp[0][idx] : 0;
					for (int k = 1; ok && k < nl; k++) ok = member(meta, lp[k], ll[k], hr[k], c);
					size += __popc(__ballot_sync(FULL, ok));
				}
			}
			bool in = lane < L;
			u32 x = in ? m[lane] : 0;
			for (int k = 0; in && k < nl; k++) in = member(meta, lp[k], ll[k], hr[k], x);
			used = __popc(__ballot_sync(FULL, in));
		}
		u64 c = group_count(gv, size, used, ovf);
		if (c == 0) return 0;
		prod = mul_checked(prod, c, ovf);
	}
	return prod;
}

// level_sources writes the sources of the level described by D and lv to lp/ll/hr (its
// candidate list when it has none) and returns how many there are; *best is the shortest (the
// first of equal ones). level_set_t and count_last_t both take their stride source from it.
template <class D>
__device__ __forceinline__ int level_sources(const u64* __restrict__ meta, const u64* lv, const u32* m, const u32* mi,
	const u64* sz, const u32* buf, const u64* __restrict__ eoff, const u32* __restrict__ evals,
	const u32* __restrict__ cands, const u64* __restrict__ goff, const u32* __restrict__ gadj, u32 pieced,
	const u32** lp, u64* ll, u32* hr, int* best)
{
	int nl = D::sources(meta, lv, m, mi, sz, buf, eoff, evals, goff, gadj, pieced, lp, ll, hr);
	if (nl == 0) {
		lp[0] = cands + lv[M_CANDOFF];
		ll[0] = lv[M_CANDLEN];
		hr[0] = NO_ROW;
		nl = 1;
	}
	*best = 0;
	for (int k = 1; k < nl; k++)
		if (ll[k] < ll[*best]) *best = k;
	return nl;
}

// level_set_t computes the candidate set of level i, described by D (all of the warp's lanes call
// it alike), and returns its size; unless last, the survivors are written to out in increasing
// order. A level that a later level reuses (F_REUSED) stores its set without the per-candidate
// checks and, unless F_NARROW, without the window. The lanes stride over the smallest source and
// search the others.
//
// Pieces: when the set may not fit the level's buffer (F_PIECES and a smallest source longer
// than M_CAP), level_set_t sets the level's bit in *pieced and computes one piece: the survivors
// of the source's window from position `from` on, stopping before the buffer could overflow;
// *next is where the next piece starts, or NO_PIECE after the last one (always without pieces).
template <class D>
__device__ __forceinline__ u64 level_set_t(const u64* __restrict__ meta, int i, bool last,
	const u32* m, const u32* mi, const u64* sz, const u32* buf,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, u32* __restrict__ out, int lane,
	u64 from, u64* next, u32* pieced)
{
	const u64* lv = meta + (u64)i * META_STRIDE;
	const u32 flags = D::flags(lv);
	const u32* lp[MAXL + 1];
	u64 ll[MAXL + 1];
	u32 hr[MAXL + 1];
	int best;
	const int nl = level_sources<D>(meta, lv, m, mi, sz, buf, eoff, evals, cands, goff, gadj, *pieced, lp, ll, hr, &best);
	const u32* src = lp[best];
	const u64 srcLen = ll[best];
	*next = NO_PIECE;
	const bool pieces = (flags & F_PIECES) && !last && srcLen > lv[M_CAP];
	if (pieces) *pieced |= 1u << i; else *pieced &= ~(1u << i);
	if (srcLen == 0) return 0;
	bool store = (flags & F_REUSED) && !last && !pieces;   // unchecked set for a later level
	bool narrow = !store || (flags & F_NARROW);
	u64 begin = 0, end = srcLen;
	if (narrow && !D::window(lv, m, src, srcLen, &begin, &end)) return 0;
	if (from > begin) begin = from;
	const u64 cap = pieces ? lv[M_CAP] : NO_PIECE - 32;
	if (cap < 32) __trap();  // a piece must hold a whole pass (the host keeps M_CAP >= 32)
	bool checkCand = flags & F_CHECKCAND;
	const u32* cl = cands + lv[M_CANDOFF];
	u64 cn = lv[M_CANDLEN];
	u64 count = 0;
	u64 base = begin;
	for (; base < end && count + 32 <= cap; base += 32) {
		u64 idx = base + lane;
		bool ok = idx < end;
		u32 c = ok ? src[idx] : 0;
		for (int k = 0; k < nl; k++)
			if (ok && k != best) ok = member(meta, lp[k], ll[k], hr[k], c);
		if (ok && checkCand) ok = contains(cl, cn, c);
		if (ok && !store) ok = D::accept(lv, m, c, goff, gadj);
		u32 mask = __ballot_sync(FULL, ok);
		if (!last && ok) out[count + __popc(mask & ((1u << lane) - 1))] = c;
		count += __popc(mask);
	}
	if (base < end) *next = base;
	__syncwarp();
	return count;
}

// The per-level entry points of the main loop: with a per-query kernel a switch over the levels
// generated by codegen.go (STMATCH_LEVELS(X) expands X(1) ... X(L-1)); a level outside it traps,
// which the host reports as a launch error. The per-query level_set is not inlined: its switch
// holds a copy of the set loop per level, and inlining that at each of the main loop's call sites
// made 7-level kernels up to 40% slower than the generic one (H100, labelled wiki-Vote).
#ifdef STMATCH_SPEC
#define LEVEL_SET_INLINE __noinline__
#else
#define LEVEL_SET_INLINE
#endif
__device__ LEVEL_SET_INLINE u64 level_set(const u64* __restrict__ meta, int i, bool last,
	const u32* m, const u32* mi, const u64* sz, const u32* buf,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, u32* __restrict__ out, int lane,
	u64 from, u64* next, u32* pieced)
{
#ifdef STMATCH_SPEC
#define LEVEL_SET_CASE(k) case k: return level_set_t<Lvl<k>>(meta, k, last, m, mi, sz, buf, eoff, evals, cands, goff, gadj, out, lane, from, next, pieced);
	switch (i) { STMATCH_LEVELS(LEVEL_SET_CASE) }
	__trap();
	return 0;
#else
	return level_set_t<LvlRun>(meta, i, last, m, mi, sz, buf, eoff, evals, cands, goff, gadj, out, lane, from, next, pieced);
#endif
}

__device__ __forceinline__ bool window_at(int i, const u64* lv, const u32* m, const u32* a, u64 n, u64* begin, u64* end) {
#ifdef STMATCH_SPEC
#define WINDOW_CASE(k) case k: return Lvl<k>::window(lv, m, a, n, begin, end);
	switch (i) { STMATCH_LEVELS(WINDOW_CASE) }
	__trap();
	return false;
#else
	return LvlRun::window(lv, m, a, n, begin, end);
#endif
}

__device__ __forceinline__ bool accept_at(int i, const u64* lv, const u32* m, u32 c,
	const u64* __restrict__ goff, const u32* __restrict__ gadj)
{
#ifdef STMATCH_SPEC
#define ACCEPT_CASE(k) case k: return Lvl<k>::accept(lv, m, c, goff, gadj);
	switch (i) { STMATCH_LEVELS(ACCEPT_CASE) }
	__trap();
	return false;
#else
	return LvlRun::accept(lv, m, c, goff, gadj);
#endif
}

// ---- Unrolling ---------------------------------------------------------------------------------
//
// count_last_t counts, in one go, the last level's sets (level i + 1 = L - 1, described by D) for
// up to 32 candidates of level i: those at positions p, p + step, ... < e of level i's buffer.
// Counting them one at a time leaves most lanes idle when the sets are short (a low-degree graph,
// a selective label); here every lane first takes one candidate (accepting it as level i, and
// finding its sources and window for the last level), a warp scan lays their windows end to end,
// and the lanes stride over the concatenation, each finding its candidate by a binary search over
// the scan. Every lane keeps its own copy of m and mi, so a lane sets m[i] and mi[i] to the
// candidate it works for (the main loop sets them again before it reads them).
template <class D>
__device__ __forceinline__ u64 count_last_t(const u64* __restrict__ meta, int i, u64 p, u64 step, u64 e,
	u32* m, u32* mi, const u64* sz, const u32* buf,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, u32 pieced, int lane)
{
	const u64* lv = meta + (u64)i * META_STRIDE;
	const u64* ln = lv + META_STRIDE;
	const bool reusedI = (u32)lv[M_FLAGS] & F_REUSED;
	const u32 flags = D::flags(ln);
	const bool checkCand = flags & F_CHECKCAND;
	const u32* cl = cands + ln[M_CANDOFF];
	const u64 cn = ln[M_CANDLEN];
	const u32* lp[MAXL + 1];
	u64 ll[MAXL + 1];
	u32 hr[MAXL + 1];
	// sources sets the lane's lists for the last level with m[i] = c; best is the smallest.
	auto sources = [&](int* best) -> int {
		return level_sources<D>(meta, ln, m, mi, sz, buf, eoff, evals, cands, goff, gadj, pieced, lp, ll, hr, best);
	};
	// This lane's candidate of level i, its last-level window [b, b + n) and smallest list.
	u64 idx = p + (u64)lane * step;
	bool have = idx < e;
	u32 c = have ? buf[lv[M_BUFOFF] + idx] : 0;
	if (have && reusedI) have = accept_at(i, lv, m, c, goff, gadj);
	u32 ci = 0;
	u64 b = 0, n = 0;
	int best = 0;
	if (have) {
		m[i] = c;
		if (lv[M_NEEDIDX]) ci = mi[i] = (u32)lower_bound(cands + lv[M_CANDOFF], lv[M_CANDLEN], c);
		sources(&best);
		u64 wb, we;
		if (ll[best] > 0 && D::window(ln, m, lp[best], ll[best], &wb, &we)) { b = wb; n = we - wb; }
	}
	// Inclusive scan of the windows' lengths.
	u64 incl = n;
	for (int d = 1; d < 32; d <<= 1) {
		u64 v = __shfl_up_sync(FULL, incl, d);
		if (lane >= d) incl += v;
	}
	const u64 total = __shfl_sync(FULL, incl, 31);
	u64 count = 0;
	for (u64 base = 0; base < total; base += 32) {
		u64 g = base + lane;
		// The candidate lane u whose window holds g: the first with incl > g.
		int lo = 0, hi = 31;
		for (int s = 0; s < 5; s++) {
			int mid = (lo + hi) >> 1;
			if (__shfl_sync(FULL, incl, mid) > g) hi = mid; else lo = mid + 1;
		}
		const int u = lo;
		u32 cu = __shfl_sync(FULL, c, u);
		u32 ciu = __shfl_sync(FULL, ci, u);
		u64 bu = __shfl_sync(FULL, b, u);
		u64 startu = __shfl_sync(FULL, incl - n, u);
		int bestu = __shfl_sync(FULL, best, u);
		bool ok = g < total;
		if (ok) {
			m[i] = cu;
			mi[i] = ciu;
			int bo;
			int nl = sources(&bo);
			u32 x = lp[bestu][bu + (g - startu)];
			for (int k = 0; ok && k < nl; k++)
				if (k != bestu) ok = member(meta, lp[k], ll[k], hr[k], x);
			if (ok && checkCand) ok = contains(cl, cn, x);
			if (ok) ok = D::accept(ln, m, x, goff, gadj);
		}
		count += __popc(__ballot_sync(FULL, ok));
	}
	return count;
}

#ifdef STMATCH_SPEC
#define COUNT_LAST_INLINE __noinline__
#else
#define COUNT_LAST_INLINE
#endif
__device__ COUNT_LAST_INLINE u64 count_last(const u64* __restrict__ meta, int i, u64 p, u64 step, u64 e,
	u32* m, u32* mi, const u64* sz, const u32* buf,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj, u32 pieced, int lane)
{
#ifdef STMATCH_SPEC
#define COUNT_LAST_CASE(k) case k - 1: return count_last_t<Lvl<k>>(meta, k - 1, p, step, e, m, mi, sz, buf, eoff, evals, cands, goff, gadj, pieced, lane);
	switch (i) { STMATCH_LEVELS(COUNT_LAST_CASE) }
	__trap();
	return 0;
#else
	return count_last_t<LvlRun>(meta, i, p, step, e, m, mi, sz, buf, eoff, evals, cands, goff, gadj, pieced, lane);
#endif
}

// LANE_WORK_MAX bounds the entries of one lane's smallest leaf lists (summed over the groups, a
// class's weighted by its subsets) for which leaf_batch lets every lane count its own
// candidate; above it the warp counts them one at a time, each with all lanes
// (leaf_product_t<false>).
#define LANE_WORK_MAX 256

// leaf_batch (unrolling with leaf groups) adds the leaf products of up to 32 complete
// assignments: level i = L - 1 takes the candidates at positions p, p + step, ... < e of its
// buffer, one a lane. When every lane's lists are short each lane computes its own product
// (leaf_product_t<true>), else the warp computes them in turn. The sum and the overflow flag are
// the warp's (uniform); m[i] and mi[i] are left lane-divergent, as count_last leaves them.
__device__ u64 leaf_batch(const u64* __restrict__ meta, int L, int G, int i, u64 p, u64 step, u64 e,
	u32* m, u32* mi, const u32* buf,
	const u64* __restrict__ eoff, const u32* __restrict__ evals, const u32* __restrict__ cands, int lane, bool* ovf)
{
	const u64* lv = meta + (u64)i * META_STRIDE;
	u64 idx = p + (u64)lane * step;
	bool have = idx < e;
	u32 c = have ? buf[lv[M_BUFOFF] + idx] : 0;
	u32 ci = 0;
	u64 work = 0;
	if (have) {
		m[i] = c;
		if (lv[M_NEEDIDX]) ci = mi[i] = (u32)lower_bound(cands + lv[M_CANDOFF], lv[M_CANDLEN], c);
		// The entries a lane scans: a single group's shortest list unless it has only one; a
		// class of n groups scans, for each of its 2^n - 1 subsets, the shortest list of one of
		// them, counted here as each group's shortest list 2^(n-1) times.
		int cn = 1, inClass = 0;
		for (int g = 0; g < G; g++) {
			const u64* gv = meta + (u64)(L + g) * META_STRIDE;
			if (inClass == 0) { cn = F_CLASSN((u32)gv[M_FLAGS]); inClass = cn > 1 ? cn : 1; }
			inClass--;
			const u32* lp[MAXL];
			u64 ll[MAXL];
			u32 hr[MAXL];
			int nl = group_lists(meta, gv, mi, eoff, evals, cands, lp, ll, hr);
			if (cn > 1) work += ll[0] << (cn - 1);
			else if (nl > 1) work += ll[0];
		}
	}
	u64 most = work;
	for (int d = 16; d > 0; d >>= 1) {
		u64 v = __shfl_xor_sync(FULL, most, d);
		if (v > most) most = v;
	}
	bool lovf = false;
	u64 sum = 0;
	if (most <= LANE_WORK_MAX) {
		sum = have ? leaf_product_t<true>(meta, L, G, m, mi, eoff, evals, cands, lane, &lovf) : 0;
		// A butterfly: every partial sum is over distinct lanes, so an overflow is the total's.
		for (int d = 16; d > 0; d >>= 1) sum = add_checked(sum, __shfl_xor_sync(FULL, sum, d), &lovf);
	} else {
		for (int u = 0; u < 32; u++) {
			if (!__shfl_sync(FULL, (int)have, u)) continue;
			m[i] = __shfl_sync(FULL, c, u);
			mi[i] = __shfl_sync(FULL, ci, u);
			sum = add_checked(sum, leaf_product_t<false>(meta, L, G, m, mi, eoff, evals, cands, lane, &lovf), &lovf);
		}
	}
	if (__any_sync(FULL, lovf)) *ovf = true;
	return sum;
}

// ---- Work queue ------------------------------------------------------------------------------
//
// Tasks are parts of a subtree: the prefix m[0..f-1] (and the candidate indexes mi[0..f-1]) and the
// positions a, a+K, a+2K, ... < b of level f's set (of its piece that starts at source position
// ps, and when `more` is set the level's later pieces too, whole, with the same stride). A warp
// that takes a task recomputes level f's set (and the stored sets of earlier levels that later
// levels reuse) from the prefix: level sets are deterministic, so the positions mean what they
// meant to the warp that made the task.
//
// Tasks come from two places: a busy warp donates the upper half of the remaining iterations of
// its shallowest open level (or, when that piece is nearly done, the level's later pieces) when
// warps are idle and it has been on its current unit or task for donateNs (work stealing below
// the root level: a short subtree is not worth moving), and at the end of a time slice every busy
// warp spills its whole stack as tasks, so that a launch ends promptly (cancellation, progress)
// and the next launch resumes from the queue.
//
// The queue is a bounded ring of `cap` slots (a power of two): a producer reserves room first
// (C_QSIZE, released when a task has been taken), then takes a ticket t from C_HEAD, waits until
// slot t % cap is free (seq == t), writes the task and publishes it (seq = t + 1); a consumer takes
// the ticket C_TAIL when its slot is published (seq == tail + 1), reads it and frees the slot
// (seq = t + cap). Reserving first guarantees that a producer never waits on a slot nobody frees.
//
// Termination: C_WORK counts queued tasks plus running warps (a warp adds itself when it starts and
// leaves when it finds no host unit; a taken task is released when it is finished or spilled); a
// warp with nothing to do waits until a task appears, C_WORK reaches 0 (nothing can appear any
// more) or the slice ends.

#define TASK_WORDS (6 + 2 * MAXL)  // f, K, a, b, ps, more, m[MAXL], mi[MAXL]
#define TO_PIECE_END 0xffffffffull  // a task's b: up to the end of its piece
// Each control word has a 128-byte line of its own, so that the idle warps' polling does not
// slow down the busy warps' atomics on the others.
#define C_LINE 16
#define C_NEXT (0 * C_LINE)      // next host unit (relative to unitBegin)
#define C_OVERFLOW (1 * C_LINE)  // a count did not fit in 64 bits
#define C_WORK (2 * C_LINE)
#define C_IDLE (3 * C_LINE)      // warps waiting for a task
#define C_HEAD (4 * C_LINE)
#define C_TAIL (5 * C_LINE)
#define C_QSIZE (6 * C_LINE)     // reserved or queued slots
#define C_DONATED (7 * C_LINE)   // statistics: tasks donated, tasks spilled, tasks taken
#define C_SPILLED (8 * C_LINE)
#define C_TAKEN (9 * C_LINE)
#define C_OUT (10 * C_LINE)      // listing: rows written to the output buffer in this launch
#define C_STOP (11 * C_LINE)     // listing: the output buffer is full, every warp stops
#define C_PIECES (12 * C_LINE)   // statistics: pieces computed after a level's first
#define C_CANCEL (13 * C_LINE)   // a warp found the host's stop flag raised: every warp leaves its work
#define C_POLL (14 * C_LINE)     // globaltimer ns from which the next warp to look reads the host's flag
#define C_WORDS (15 * C_LINE)
#define POLL_NS 200000ull        // the host's flag is read once per 200 us at most, by one warp
#define LOOK_NS 50000ull         // a warp looks at C_CANCEL once per 50 us at most
#define CANCELLED 0xffffffffffffffffull  // cancelled's *next once the warp has seen the cancellation
#define OPT_STEAL 1u
#define OPT_LIST 2u  // listing: the last level's candidates are written out as rows, not counted
#define OPT_UNROLL 4u  // the last level is counted for 32 candidates of the level above at once
#define OPT_UNROLL_LEAVES 8u  // leaf products of 32 last-level candidates at once (the host's choice of plans)

struct Task {
	int f;        // level
	u64 K, a, b;  // positions a, a+K, ... < b of the piece
	u64 ps;       // source position where the piece starts (0: the first piece, or no pieces)
	int more;     // the level's later pieces belong to the task too
};

__device__ __forceinline__ u64 vload(const u64* p) { return *(volatile const u64*)p; }

__device__ __forceinline__ u64 clock_ns() {
	u64 t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// cancelled (lane 0) says whether the count was cancelled: the host raised *stop (pinned host
// memory, may be null), and the warps leave their work without spilling it (the count is partial
// anyway). Reads of pinned host memory from many warps are serialised, so one warp at a time,
// claiming the turn with a CAS on ctl[C_POLL], reads the flag, at most once per POLL_NS, and
// relays it to ctl[C_CANCEL], which the others read from device memory; and each warp looks at
// ctl[C_CANCEL] only once per LOOK_NS of its own (*next, lane 0's), keeping the busy warps' checks
// off the memory system. It is what bounds the stop latency when a slice's spill finds the work
// queue full and the warps work on.
// Once a warp has seen the cancellation, *next holds CANCELLED and every later call says so at
// once (the warp takes no more work).
__device__ bool cancelled(const volatile unsigned* stop, u64* ctl, u64 now, u64* next) {
	if (*next == CANCELLED) return true;
	if (stop == nullptr || now < *next) return false;
	*next = now + LOOK_NS;
	if (vload(&ctl[C_CANCEL]) != 0) {
		*next = CANCELLED;
		return true;
	}
	const u64 at = vload(&ctl[C_POLL]);
	if (now >= at && atomicCAS(&ctl[C_POLL], at, now + POLL_NS) == at && *stop != 0) {
		atomicExch(&ctl[C_CANCEL], 1ULL);
		*next = CANCELLED;
		return true;
	}
	return false;
}

// q_reserve reserves n slots (warp-uniform result).
__device__ bool q_reserve(u64* ctl, u64 n, u64 cap, int lane) {
	int ok = 0;
	if (lane == 0) {
		u64 old = atomicAdd(&ctl[C_QSIZE], n);
		if (old + n <= cap) {
			ok = 1;
			atomicAdd(&ctl[C_WORK], n);  // queued tasks are work
		} else {
			atomicAdd(&ctl[C_QSIZE], (u64)0 - n);
		}
	}
	return __shfl_sync(FULL, ok, 0);
}

// q_push writes a reserved task with the prefix m/mi[0..tk.f-1].
__device__ void q_push(u64* ctl, u64* seq, u32* tasks, u64 cap, const Task& tk, const u32* m, const u32* mi, int lane) {
	u64 t = 0;
	if (lane == 0) {
		t = atomicAdd(&ctl[C_HEAD], 1ULL);
		while (vload(&seq[t & (cap - 1)]) != t) __nanosleep(64);
	}
	t = __shfl_sync(FULL, t, 0);
	u32* dst = tasks + (t & (cap - 1)) * TASK_WORDS;
	if (lane == 0) {
		dst[0] = (u32)tk.f; dst[1] = (u32)tk.K; dst[2] = (u32)tk.a; dst[3] = (u32)tk.b;
		dst[4] = (u32)tk.ps; dst[5] = (u32)tk.more;
	}
	if (lane < tk.f) { dst[6 + lane] = m[lane]; dst[6 + MAXL + lane] = mi[lane]; }
	__threadfence();
	__syncwarp();
	if (lane == 0) atomicExch(&seq[t & (cap - 1)], t + 1);
}

// q_pop takes a task if one is published (warp-uniform result) into tk, m and mi.
__device__ bool q_pop(u64* ctl, u64* seq, const u32* tasks, u64 cap, Task* tk, u32* m, u32* mi, int lane) {
	u64 t = 0;
	int got = 0;
	if (lane == 0) {
		for (int tries = 0; tries < 8; tries++) {
			t = vload(&ctl[C_TAIL]);
			long long d = (long long)(vload(&seq[t & (cap - 1)]) - (t + 1));
			if (d < 0) break;                  // empty, or the task is still being written
			if (d > 0) continue;               // another consumer took it: tail moved on
			if (atomicCAS(&ctl[C_TAIL], t, t + 1) == t) { got = 1; break; }
		}
	}
	got = __shfl_sync(FULL, got, 0);
	if (!got) return false;
	t = __shfl_sync(FULL, t, 0);
	__threadfence();
	const volatile u32* src = tasks + (t & (cap - 1)) * TASK_WORDS;
	tk->f = (int)src[0]; tk->K = src[1]; tk->a = src[2]; tk->b = src[3]; tk->ps = src[4]; tk->more = (int)src[5];
	for (int j = 0; j < tk->f; j++) { m[j] = src[6 + j]; mi[j] = src[6 + MAXL + j]; }
	__threadfence();
	__syncwarp();
	if (lane == 0) {
		atomicExch(&seq[t & (cap - 1)], t + cap);
		atomicAdd(&ctl[C_QSIZE], (u64)0 - 1);
		atomicAdd(&ctl[C_TAKEN], 1ULL);
	}
	return true;
}

// emit_rows (listing) writes the rows prefix m[0..L-2] + set[p] for p = a, a+K, ... < b to the
// output buffer (row-major, L words a row, in level order), reserving them all at once. It
// returns false, writing nothing, when they do not fit: the caller queues the rows' task again
// and the launch stops, so the host can drain the buffer.
__device__ bool emit_rows(u64* ctl, u32* out, u64 outCap, int L, const u32* m, const u32* set,
	u64 a, u64 b, u64 K, int lane)
{
	if (a >= b) return true;
	u64 n = (b - a + K - 1) / K;
	u64 base = 0;
	int ok = 1;
	if (lane == 0) {
		u64 cur = vload(&ctl[C_OUT]);
		for (;;) {
			if (cur + n > outCap) { ok = 0; break; }
			u64 seen = atomicCAS(&ctl[C_OUT], cur, cur + n);
			if (seen == cur) break;
			cur = seen;
		}
		base = cur;
	}
	if (!__shfl_sync(FULL, ok, 0)) return false;
	base = __shfl_sync(FULL, base, 0);
	u32* dst = out + base * (u64)L;
	for (u64 idx = lane; idx < n * (u64)L; idx += 32) {
		u64 row = idx / (u64)L;
		int col = (int)(idx - row * (u64)L);
		dst[idx] = col < L - 1 ? m[col] : set[a + row * K];
	}
	return true;
}

extern "C" __global__ void stmatch_count(
	const u64* __restrict__ gmeta, int L,
	const u64* __restrict__ eoff, const u32* __restrict__ evals,
	const u32* __restrict__ cands,
	const u64* __restrict__ goff, const u32* __restrict__ gadj,
	u32* __restrict__ bufs, u64 warpStride,
	const u64* __restrict__ units, u64 unitBegin, u64 unitEnd,
	u64* ctl, u64* counts, int G,
	u32* tasks, u64* seq, u64 cap, u64 sliceNs, unsigned int opts, u64 donateNs,
	u32* out, u64 outCap, const volatile unsigned* stop,
	const u32* __restrict__ hrow, const u32* __restrict__ hbits, u64 hwords)
{
	extern __shared__ u64 meta[];  // (L + G) * META_STRIDE words
	for (int k = threadIdx.x; k < (L + G) * META_STRIDE; k += blockDim.x) {
		u64 v = gmeta[k];
		if (k == M_HROW) v = (u64)hrow;  // level 0's free words: the hub bitmaps
		else if (k == M_HBITS) v = (u64)hbits;
		else if (k == M_HWORDS) v = hwords;
		meta[k] = v;
	}
	__syncthreads();

	const int lane = threadIdx.x & 31;
	const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	u32* buf = bufs + warp * warpStride;
	u32 m[MAXL], mi[MAXL];
	// Per level: loop position and end in the current piece, the piece's size, the source
	// positions where the piece starts and where the next one does (NO_PIECE: none).
	u64 pos[MAXL], end[MAXL], sz[MAXL], pbeg[MAXL], pnext[MAXL];
	u32 pieced = 0;  // bit i: level i's current set is in pieces
	u64 total = 0;
	bool ovf = false;
	const u32* roots = cands + meta[M_CANDOFF];
	const bool steal = opts & OPT_STEAL;
	const bool list = opts & OPT_LIST;
	const bool unroll = (opts & OPT_UNROLL) && !list && G == 0;
	const bool unrollLeaves = (opts & OPT_UNROLL_LEAVES) && !list && G > 0;
	unsigned int lost = 0;

	u64 start = 0;
	if (lane == 0) {
		start = clock_ns();
		atomicAdd(&ctl[C_WORK], 1ULL);
	}
	start = __shfl_sync(FULL, start, 0);
	bool own = true;  // this warp's own share of C_WORK, held while it takes host units
	u64 look = 0;     // lane 0: when this warp next looks for a cancellation
	unsigned int tick = 0;

	// stored computes level j's set, or the piece of it that starts at source position from,
	// into its buffer and returns its size (pnext[j]: where the next piece starts).
	auto stored = [&](int j, u64 from) -> u64 {
		pbeg[j] = from;
		return level_set(meta, j, false, m, mi, sz, buf, eoff, evals, cands, goff, gadj,
			buf + meta[(u64)j * META_STRIDE + M_BUFOFF], lane, from, &pnext[j], &pieced);
	};
	// enter computes level j's set (or its piece from source position from) and starts its loop
	// at offset k: a stored unchecked set is narrowed to the level's window first.
	auto enter = [&](int j, u64 from, u64 k) {
		const u64* lj = meta + (u64)j * META_STRIDE;
		sz[j] = stored(j, from);
		pos[j] = 0; end[j] = sz[j];
		u32 fl = (u32)lj[M_FLAGS];
		if ((fl & F_REUSED) && !(fl & F_NARROW)) window_at(j, lj, m, buf + lj[M_BUFOFF], sz[j], &pos[j], &end[j]);
		pos[j] += k;
	};
	// list_last (listing) writes the rows of the last level L-1 for the prefix m: positions
	// tk.a, tk.a + tk.K, ... < tk.b of the piece at tk.ps, then with tk.more the later pieces.
	// When the output buffer is full it queues what is left, tells every warp to stop and returns
	// false.
	auto list_last = [&](Task tk) -> bool {
		const int j = L - 1;
		u32* set = buf + meta[(u64)j * META_STRIDE + M_BUFOFF];
		for (;;) {
			u64 n = stored(j, tk.ps);
			u64 e = tk.b < n ? tk.b : n;
			if (!emit_rows(ctl, out, outCap, L, m, set, tk.a, e, tk.K, lane)) {
				tk.more = tk.more && pnext[j] != NO_PIECE;
				if (q_reserve(ctl, 1, cap, lane)) q_push(ctl, seq, tasks, cap, tk, m, mi, lane);
				else if (lane == 0) lost = 1;  // cannot happen: the queue has room for every warp's stack
				if (lane == 0) atomicExch(&ctl[C_STOP], 1ULL);
				return false;
			}
			if (!tk.more || pnext[j] == NO_PIECE) return true;
			tk.ps = pnext[j]; tk.a %= tk.K; tk.b = TO_PIECE_END;
			if (lane == 0) atomicAdd(&ctl[C_PIECES], 1ULL);
		}
	};

	for (;;) {
		// Find work: a queued task, else a host unit, else wait for a task. Queued tasks come
		// first: they are the older work (spilled at the end of the last slice, or donated), and
		// a queue that warps fill at every slice's end but drain only once the host units have
		// run out fills up over the launches, after which the slice-end spills find no room and
		// the warps work on past the slice (q18 on wiki-Vote: launches of seconds).
		int past = 0;
		if (lane == 0) {
			const u64 now = clock_ns();
			past = now - start >= sliceNs || (list && vload(&ctl[C_STOP])) || cancelled(stop, ctl, now, &look);
		}
		past = __shfl_sync(FULL, past, 0);
		int kind = 0;  // 1: host unit, 2: task
		u64 u = 0;
		Task tk = {1, 1, 0, 0, 0, 0};
		if (!past && q_pop(ctl, seq, tasks, cap, &tk, m, mi, lane)) kind = 2;
		if (kind == 0 && own && !past) {
			if (lane == 0) u = atomicAdd(&ctl[C_NEXT], 1ULL) + unitBegin;
			u = __shfl_sync(FULL, u, 0);
			if (u < unitEnd) kind = 1;
		}
		if (kind == 0 && own) {
			own = false;
			if (lane == 0) atomicAdd(&ctl[C_WORK], (u64)0 - 1);
		}
		if (kind == 0) {
			if (lane == 0) atomicAdd(&ctl[C_IDLE], 1ULL);
			for (unsigned int nap = 256;; nap = min(2 * nap, 8192u)) {
				int idleEnd = 0;
				if (lane == 0) {
					const u64 now = clock_ns();
					idleEnd = now - start >= sliceNs || vload(&ctl[C_WORK]) == 0 || (list && vload(&ctl[C_STOP])) || cancelled(stop, ctl, now, &look);
				}
				if (__shfl_sync(FULL, idleEnd, 0)) break;
				__nanosleep(nap);
				if (q_pop(ctl, seq, tasks, cap, &tk, m, mi, lane)) { kind = 2; break; }
			}
			if (lane == 0) atomicAdd(&ctl[C_IDLE], (u64)0 - 1);
			if (kind == 0) break;
		}

		int first = 1;
		u64 K = 1;
		u64 kofs = 0;   // the first level's offset: its positions are kofs, kofs + K, ... in every piece
		u64 began = 0;  // when this unit or task started (donations only from long-running ones)
		if (lane == 0) began = clock_ns();
		if (kind == 1) {
			u64 w = units[u];
			u32 r = (u32)w;
			kofs = (w >> 32) & 0xffff;
			K = w >> 48;
			m[0] = roots[r];
			mi[0] = r;
			if (L == 1) {
				total = add_checked(total, G ? leaf_product_t<false>(meta, L, G, m, mi, eoff, evals, cands, lane, &ovf) : 1, &ovf);
				continue;
			}
			if (L == 2 && G == 0) {  // the host gives K = 1 here
				if (list) list_last(Task{1, 1, 0, TO_PIECE_END, 0, 1});
				else {
					u64 nx;
					total += level_set(meta, 1, true, m, mi, sz, buf, eoff, evals, cands, goff, gadj, 0, lane, 0, &nx, &pieced);
				}
				continue;
			}
			enter(1, 0, kofs);
		} else {
			// Recompute the stored sets of earlier levels that later levels reuse (or their
			// pieced bits), then the task's piece of level f.
			first = tk.f;
			K = tk.K;
			kofs = tk.a % K;  // K > 1 only on a unit's first level, whose window starts at 0
			for (int j = 1; j < first; j++)
				if ((u32)meta[(u64)j * META_STRIDE + M_FLAGS] & F_REUSED) sz[j] = stored(j, 0);
			if (list && first == L - 1) {  // rows that did not fit in an earlier launch
				list_last(tk);
				if (lane == 0) atomicAdd(&ctl[C_WORK], (u64)0 - 1);
				continue;
			}
			enter(first, tk.ps, 0);
			pos[first] = tk.a;
			if (tk.b < end[first]) end[first] = tk.b;
			if (!tk.more) pnext[first] = NO_PIECE;
		}

		int i = first;
		while (i >= first) {
			if (((++tick) & 7) == 0) {
				// Every few steps: end of the slice (spill everything), or idle warps (donate).
				int act = 0;
				if (lane == 0) {
					u64 now = clock_ns();
					if (cancelled(stop, ctl, now, &look)) act = 3;
					else if (now - start >= sliceNs || (list && vload(&ctl[C_STOP]))) act = 1;
					else if (steal && now - began >= donateNs && vload(&ctl[C_IDLE]) > vload(&ctl[C_QSIZE])) act = 2;
				}
				act = __shfl_sync(FULL, act, 0);
				if (act == 3) break;  // cancelled: the stack is dropped, the count is partial
				if (act == 1) {
					u64 n = 0;
					for (int j = first; j <= i; j++) n += pos[j] < end[j] || pnext[j] != NO_PIECE;
					if (n == 0) break;
					if (q_reserve(ctl, n, cap, lane)) {
						for (int j = first; j <= i; j++) {
							u64 step = j == first ? K : 1;
							if (pos[j] < end[j])
								q_push(ctl, seq, tasks, cap, Task{j, step, pos[j], end[j], pbeg[j], pnext[j] != NO_PIECE}, m, mi, lane);
							else if (pnext[j] != NO_PIECE)
								q_push(ctl, seq, tasks, cap, Task{j, step, j == first ? kofs : 0, TO_PIECE_END, pnext[j], 1}, m, mi, lane);
						}
						if (lane == 0) atomicAdd(&ctl[C_SPILLED], n);
						break;
					}
				} else if (act == 2) {
					for (int j = first; j <= i; j++) {
						u64 step = j == first ? K : 1;
						u64 rem = (end[j] > pos[j]) ? (end[j] - pos[j] + step - 1) / step : 0;
						if (rem >= 2) {
							if (q_reserve(ctl, 1, cap, lane)) {
								u64 mid = pos[j] + ((rem + 1) / 2) * step;
								q_push(ctl, seq, tasks, cap, Task{j, step, mid, end[j], pbeg[j], 0}, m, mi, lane);
								end[j] = mid;
								if (lane == 0) atomicAdd(&ctl[C_DONATED], 1ULL);
							}
							break;
						}
						if (pnext[j] != NO_PIECE) {  // this piece is nearly done: give the later ones
							if (q_reserve(ctl, 1, cap, lane)) {
								q_push(ctl, seq, tasks, cap, Task{j, step, j == first ? kofs : 0, TO_PIECE_END, pnext[j], 1}, m, mi, lane);
								pnext[j] = NO_PIECE;
								if (lane == 0) atomicAdd(&ctl[C_DONATED], 1ULL);
							}
							break;
						}
					}
				}
			}
			if (pos[i] >= end[i]) {
				if (pnext[i] != NO_PIECE) {
					if (lane == 0) atomicAdd(&ctl[C_PIECES], 1ULL);
					enter(i, pnext[i], i == first ? kofs : 0);
				} else {
					i--;
				}
				continue;
			}
			if (unroll && i + 1 == L - 1) {  // count the last level for the next 32 candidates
				const u64 step = (i == first) ? K : 1;
				total = add_checked(total, count_last(meta, i, pos[i], step, end[i], m, mi, sz, buf, eoff, evals, cands, goff, gadj, pieced, lane), &ovf);
				pos[i] += 32 * step;
				tick |= 7;  // a batch is 32 steps' work: look at the slice and idle warps after each
				continue;
			}
			if (unrollLeaves && i == L - 1) {  // the leaf products of the next 32 candidates
				const u64 step = (i == first) ? K : 1;
				total = add_checked(total, leaf_batch(meta, L, G, i, pos[i], step, end[i], m, mi, buf, eoff, evals, cands, lane, &ovf), &ovf);
				pos[i] += 32 * step;
				tick |= 7;
				continue;
			}
			const u64* lv = meta + (u64)i * META_STRIDE;
			u32 c = buf[lv[M_BUFOFF] + pos[i]];
			pos[i] += (i == first) ? K : 1;
			if (((u32)lv[M_FLAGS] & F_REUSED) && !accept_at(i, lv, m, c, goff, gadj)) continue;
			m[i] = c;
			if (lv[M_NEEDIDX]) mi[i] = (u32)lower_bound(cands + lv[M_CANDOFF], lv[M_CANDLEN], c);
			if (i == L - 1) {  // only with leaf groups: the last level is iterated
				total = add_checked(total, leaf_product_t<false>(meta, L, G, m, mi, eoff, evals, cands, lane, &ovf), &ovf);
			} else if (G == 0 && i + 1 == L - 1) {
				if (list) {
					if (!list_last(Task{L - 1, 1, 0, TO_PIECE_END, 0, 1})) tick = 7;  // the next step spills the rest of the stack
				} else {
					u64 nx;
					total = add_checked(total, level_set(meta, i + 1, true, m, mi, sz, buf, eoff, evals, cands, goff, gadj, 0, lane, 0, &nx, &pieced), &ovf);
				}
			} else {
				enter(i + 1, 0, 0);
				i++;
			}
		}
		if (kind == 2 && lane == 0) atomicAdd(&ctl[C_WORK], (u64)0 - 1);
	}
	if (lane == 0) {
		counts[warp] = total;
		if (ovf) ctl[C_OVERFLOW] = 1;
		if (lost) ctl[C_OVERFLOW] = 2;
	}
}
