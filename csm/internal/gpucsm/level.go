package gpucsm

import "slices"

// LevelSource is the CUDA code both engines' kernels prepend to their source (with a #line
// directive after it): how a level chooses its candidates' source and checks a candidate against
// the earlier levels' vertices. Level.Source and Level.OrderOK are the same on the host (the
// emulations); TestLevelSourceHost runs this code on the host against them.
//
// A level's candidates come from one parent's neighbour list, the one with the fewest entries of
// the level's vertex label.
// csm_label_range sets [*a, *b) to the entries of keys k[0..n) (sorted; label << 32 | vertex)
// with label vl (all of them when any). csm_source returns the rank of that parent among np
// parents at positions ppos[0..np) of ls (a list type with fields k and n) and its range; the
// first such on ties, -1 with no parent. csm_order_ok checks candidate c against the vertices
// f[0..k) of the earlier levels: it differs from those in mask inj, is larger than those in
// above and smaller than those in below.
const LevelSource = `// level helpers (package csm/internal/gpucsm, LevelSource)
__device__ __forceinline__ unsigned csm_lower_bound(const unsigned long long *k, unsigned n, unsigned long long x) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    const unsigned m = (lo + hi) >> 1;
    if (k[m] < x) lo = m + 1; else hi = m;
  }
  return lo;
}
__device__ __forceinline__ void csm_label_range(const unsigned long long *k, unsigned n, bool any, unsigned vl, unsigned *a, unsigned *b) {
  *a = 0;
  *b = n;
  if (any || n == 0) return;
  // (the common cases first: the whole list has the label, or none of it)
  if ((unsigned)(k[0] >> 32) != vl) *a = csm_lower_bound(k, n, (unsigned long long)vl << 32);
  if ((unsigned)(k[n - 1] >> 32) != vl) *b = vl == 0xffffffffu ? n : csm_lower_bound(k, n, (unsigned long long)(vl + 1) << 32);
}
template <class L>
__device__ __forceinline__ int csm_source(const unsigned *ppos, unsigned np, const L *ls, bool any, unsigned vl, unsigned *lo, unsigned *hi) {
  int src = -1;
  *lo = 0;
  *hi = 0;
  for (unsigned i = 0; i < np; i++) {
    const L &l = ls[ppos[i]];
    unsigned a, b;
    csm_label_range(l.k, l.n, any, vl, &a, &b);
    if (src < 0 || b - a < *hi - *lo) {
      src = (int)i;
      *lo = a;
      *hi = b;
    }
  }
  return src;
}
__device__ __forceinline__ bool csm_order_ok(unsigned inj, unsigned above, unsigned below, int k, unsigned c, const unsigned *f) {
  for (int j = 0; j < k; j++) {
    const unsigned bit = 1u << j;
    if ((inj & bit) && f[j] == c) return false;
    if ((above & bit) && f[j] >= c) return false;
    if ((below & bit) && f[j] <= c) return false;
  }
  return true;
}
`

// LabelRange returns the entries [a, b) of keys (sorted; label << 32 | vertex) with label vl.
func LabelRange(keys []uint64, vl uint32) (a, b int) {
	a, _ = slices.BinarySearch(keys, uint64(vl)<<32)
	if vl == ^uint32(0) {
		return a, len(keys)
	}
	b, _ = slices.BinarySearch(keys, uint64(vl+1)<<32)
	return a, b
}

// Source is the kernels' csm_source for the level record lv laid out by l: among its parents,
// the one whose list (keys(position)) has the fewest entries of the level's label, the first
// such; it returns the parent's rank and that range of its list (-1 with no parent).
func (l Level) Source(lv []uint32, keys func(pos uint32) []uint64) (src, lo, hi int) {
	src = -1
	for i := range int(lv[l.NPar]) {
		k := keys(lv[l.PPos+i])
		a, b := 0, len(k)
		if lv[l.VLAny] == 0 {
			a, b = LabelRange(k, lv[l.VL])
		}
		if src < 0 || b-a < hi-lo {
			src, lo, hi = i, a, b
		}
	}
	return src, lo, hi
}

// OrderOK is the kernels' csm_order_ok for the level record lv laid out by l: candidate c
// differs from the earlier levels' vertices f[:k] in the level's injectivity mask, is larger
// than those of its Above mask and smaller than those of its Below mask.
func (l Level) OrderOK(lv []uint32, k int, c uint32, f []uint32) bool {
	inj, above, below := lv[l.Inj], lv[l.Above], lv[l.Below]
	for j := range k {
		bit := uint32(1) << j
		if inj&bit != 0 && f[j] == c || above&bit != 0 && f[j] >= c || below&bit != 0 && f[j] <= c {
			return false
		}
	}
	return true
}
