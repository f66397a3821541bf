package mining

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"time"

	"github.com/submatch/submatch/internal/setops"
)

// Five-vertex orbits (ORCA's 15-72) per vertex, non-induced (docs/mining.md, "Per-vertex
// orbits"). 44 of the 58 come from the rooted counts of the six-vertex decomposition (a rooted
// count at x is the number of injective maps of the shape that put the orbit's vertex on x: the
// copies times the orbit's stabiliser). The other 14 orbits, those whose every cut and edge lies
// on a cycle (the 5-cycle, K2,3, the 4-wheels, the dense ones), are counted here by equations
// over quantities of x's neighbourhood, as ORCA does:
//
//   - a pass per vertex x over the wedges x-n-y gives, for every y != x, cd(y) = |N(x) ∩ N(y)|,
//     sT(y) = the triangles on the edges n-y summed over those n, and, over the triangles x-n-n',
//     E(y) = the edges among the common neighbours of x and y;
//   - the pairs (x, y) then give the orbits whose copies are fixed by such a pair: K2,3's hubs
//     sum_y C(cd, 3), the 4-wheel minus a spoke's non-adjacent degree-3 pair sum_y E (cd - 2),
//     the banner's vertex opposite its degree-3 vertex, the house's bottom and the 5-cycle
//     (closed walks x-a-c-d-b-x, sum over the ordered edges c-d of cd(c) cd(d), minus the walks
//     with a = b, a = d or b = c, plus a = d and b = c);
//   - the same pairs hand a weight to each common neighbour n of x and y: C(cd - 1, 2) (K2,3's
//     degree-2 vertices) and E (the 4-wheel minus a spoke's degree-2 vertex, less the choices
//     that use n itself); each pair is seen from both ends, so these are halved;
//   - per triangle x-n-h, the common neighbours y of n and h other than x give the 4-wheel minus
//     a spoke's adjacent degree-3 pair (weight cd(y) - 2, halved) and the 4-wheels (the 4-cycles
//     of h's neighbourhood through x: pairs of such y's common neighbours);
//   - each triangle once, with its common neighbours (an intersection of two triangle lists),
//     gives the 4-cliques, 5-cliques and 5-cliques minus an edge, and each 4-clique with its
//     edges' triangle counts the K5 minus a 3-path's degree-3 vertices.

// Special 5-vertex orbits (ORCA numbers) counted here rather than by rooted decomposition.
const (
	orbC5        = 34 // 5-cycle
	orbBannerOpp = 36 // banner, opposite the degree-3 vertex
	orbK23Leaf   = 49
	orbK23Hub    = 50
	orbHouseBot  = 51 // house, bottom (degree 2, not the roof)
	orbW4sTip    = 62 // 4-wheel minus spoke, degree 2
	orbW4sFar    = 63 // 4-wheel minus spoke, the non-adjacent degree-3 pair
	orbW4sNear   = 64 // 4-wheel minus spoke, the adjacent degree-3 pair
	orbK5P3Mid   = 66 // K5 minus 3-path, degree 3
	orbW4Rim     = 68
	orbW4Hub     = 69
	orbK5eLow    = 70 // 5-clique minus edge, degree 3
	orbK5eHigh   = 71
	orbK5        = 72
)

// specialOrbits lists the orbits above in a fixed order; their index is the row in fiveSpecial.
var specialOrbits = []int{orbC5, orbBannerOpp, orbK23Leaf, orbK23Hub, orbHouseBot, orbW4sTip, orbW4sFar,
	orbW4sNear, orbK5P3Mid, orbW4Rim, orbW4Hub, orbK5eLow, orbK5eHigh, orbK5}

// fiveWorker is one worker's scratch: per-vertex tallies of the current x and its shares of the
// counts that other vertices receive.
type fiveWorker struct {
	cd, f tally
	sT    []uint64
	e2    []uint32 // twice E(y)
	share [][]uint64
	over  bool
	pos   []uint64        // positions n -> n' of the edges among N(x) at n
	_     [cacheLine]byte // over is written per count: each worker's on its own line
}

// sharedOrbits are the special orbits whose counts other vertices hand to a vertex (kept per
// worker and summed at the end); shareSlot is an orbit's index among them.
var (
	sharedOrbits = []int{orbK23Leaf, orbW4sTip, orbW4sNear, orbW4Hub, orbK5P3Mid, orbK5eLow, orbK5eHigh, orbK5}
	shareSlot    = func() (s [orbK5 + 1]int) {
		for i, orb := range sharedOrbits {
			s[orb] = i
		}
		return
	}()
)

// addTo adds x to *dst, flagging a wrap.
func (w *fiveWorker) addTo(dst *uint64, x uint64) {
	r, c := bits.Add64(*dst, x, 0)
	*dst = r
	w.over = w.over || c != 0
}

func (w *fiveWorker) give(orbit int, v uint32, x uint64) {
	s := w.share[shareSlot[orbit]]
	r, c := bits.Add64(s[v], x, 0)
	s[v] = r
	w.over = w.over || c != 0
}

// fiveSpecial returns, per ordered vertex, the non-induced counts (copies) of the special orbits,
// one row per entry of specialOrbits.
func fiveSpecial(ctx context.Context, l *locals, threads int) ([][]uint64, error) {
	o := l.o
	n := o.n
	out := make([][]uint64, len(specialOrbits))
	row := map[int]int{}
	for i, orb := range specialOrbits {
		out[i] = make([]uint64, n)
		row[orb] = i
	}
	shared := sharedOrbits
	// per worker and vertex: cd, f, e2 (4 bytes each), sT and the shared counts (8 each)
	threads = scratchThreads(threads, n, 12+8*uint64(1+len(shared)), l.scratch)
	nw := workersCount(threads, n)
	ws := make([]fiveWorker, nw)
	for i := range ws {
		w := &ws[i]
		w.cd.c = make([]uint32, n)
		w.f.c = make([]uint32, n)
		w.sT = make([]uint64, n)
		w.e2 = make([]uint32, n)
		for range shared {
			w.share = append(w.share, make([]uint64, n))
		}
	}
	var failed bool
	bad := make([]error, nw)
	_, err := o.vertexWorkers(ctx, threads, func(wk, x int) {
		w := &ws[wk]
		if bad[wk] != nil {
			return
		}
		if err := w.pairPass(l, x, out, row); err != nil {
			bad[wk] = err
		}
	})
	if err != nil {
		return nil, err
	}
	_, err = o.vertexWorkers(ctx, threads, func(wk, u int) { ws[wk].cliquePass(l, u) })
	if err != nil {
		return nil, err
	}
	for _, e := range bad {
		if e != nil {
			return nil, e
		}
	}
	for j, orb := range shared {
		r := out[row[orb]]
		for i := range ws {
			failed = failed || ws[i].over
			for v, x := range ws[i].share[j] {
				s, c := bits.Add64(r[v], x, 0)
				r[v] = s
				failed = failed || c != 0
			}
		}
	}
	if failed {
		return nil, ErrOverflow
	}
	// halve or quarter what each pair or hub gave from both ends, and subtract the choices that
	// use the receiving vertex itself
	tip, near, leaf, hub := out[row[orbW4sTip]], out[row[orbW4sNear]], out[row[orbK23Leaf]], out[row[orbW4Hub]]
	for x := range n {
		leaf[x] /= 2
		near[x] /= 2
		hub[x] /= 4
		var s sum
		for i := range o.all(x) {
			t := uint64(l.te[l.canon[o.off[x]+uint64(i)]])
			s.add(t * (t - min(t, 1)) / 2) // t < 2^32: the product fits
		}
		if s.over {
			return nil, ErrOverflow
		}
		if tip[x]%4 != 0 || tip[x]/4 < s.v {
			return nil, fmt.Errorf("4-wheel minus spoke tips: inconsistent counts (a bug)")
		}
		tip[x] = tip[x]/4 - s.v
	}
	return out, nil
}

// pairPass runs the per-x passes: wedges, then triangles at x, then the pairs (x, y).
func (w *fiveWorker) pairPass(l *locals, x int, out [][]uint64, row map[int]int) error {
	o := l.o
	cd := &w.cd
	ux := uint32(x)
	// wedges x-n-y: cd and sT
	for _, nb := range o.all(x) {
		for j, y := range o.all(int(nb)) {
			if y == ux {
				continue
			}
			cd.add(y)
			w.addTo(&w.sT[y], uint64(l.te[l.canon[o.off[nb]+uint64(j)]]))
		}
	}
	// triangles x-n-n': E (twice), the 4-wheels with hub n, the near pair of the 4-wheel minus a
	// spoke (n at the orbit, n' its partner)
	var rim sum
	for i, nb := range o.all(x) {
		tl := l.triangleList(o.off[x] + uint64(i))
		if len(tl) == 0 {
			continue
		}
		w.pos = w.pos[:0]
		setops.IntersectEach(o.all(int(nb)), tl, func(a, _ int) { w.pos = append(w.pos, o.off[nb]+uint64(a)) })
		var nearSum sum
		for _, q := range w.pos {
			for _, y := range l.triangleList(q) {
				if y == ux {
					continue
				}
				w.e2[y]++
				w.f.add(y)
				nearSum.add(uint64(cd.c[y]) - 2)
			}
		}
		var c sum
		for _, y := range w.f.seen {
			f := uint64(w.f.c[y])
			c.add(f * (f - 1) / 2) // f < 2^32: the product fits
		}
		w.f.clear()
		w.over = w.over || c.over || nearSum.over
		rim.add(c.v)
		w.give(orbW4Hub, nb, c.v)
		w.give(orbW4sNear, nb, nearSum.v)
	}
	// the pairs (x, y)
	var hub, far, banner, house, c5 signed
	for _, y := range cd.seen {
		c := uint64(cd.c[y])
		e := uint64(w.e2[y]) / 2
		if c >= 3 {
			v, over := choose(c, 3)
			w.over = w.over || over
			hub.add(v)
		}
		if e > 0 {
			far.addProduct(e, c-2)
		}
		if c >= 2 {
			banner.addProduct3(c, c-1, o.degree(int(y))-2)
		}
		house.addProduct(c-1, w.sT[y])
		house.subProduct(2, e)
		var s sum
		for _, z := range o.all(int(y)) {
			s.add(uint64(cd.c[z]))
		}
		w.over = w.over || s.over
		c5.addProduct(c, s.v)
	}
	// corrections at x's neighbours
	for i, a := range o.all(x) {
		t := uint64(l.te[l.canon[o.off[x]+uint64(i)]])
		banner.subProduct(t, t-min(t, 1))
		house.subProduct(t, t-min(t, 1))
		c5.subProduct(2, l.tv[a]-t)
		c5.subProduct(2*(o.degree(int(a))-1), t)
	}
	c5.addProduct(2, l.tv[x])
	// weights handed to the common neighbours of x and y
	for _, nb := range o.all(x) {
		var leaf, tip sum
		for _, y := range o.all(int(nb)) {
			if y == ux {
				continue
			}
			c := uint64(cd.c[y])
			if c >= 3 {
				leaf.add((c - 1) * (c - 2) / 2) // c < 2^32: the product fits
			}
			tip.add(uint64(w.e2[y]))
		}
		w.over = w.over || leaf.over || tip.over
		w.give(orbK23Leaf, nb, leaf.v)
		w.give(orbW4sTip, nb, tip.v)
	}
	for _, y := range cd.seen {
		w.sT[y] = 0
		w.e2[y] = 0
	}
	cd.clear()
	set := func(orb int, s signed, div uint64) error {
		v, err := s.result()
		if err != nil {
			return fmt.Errorf("orbit %d: %w", orb, err)
		}
		if v%div != 0 {
			return fmt.Errorf("orbit %d: %d not a multiple of %d (a bug)", orb, v, div)
		}
		out[row[orb]][x] = v / div
		return nil
	}
	var rimS signed
	rimS.pos = rim
	for _, e := range []struct {
		orb int
		s   signed
		div uint64
	}{{orbK23Hub, hub, 1}, {orbW4sFar, far, 1}, {orbBannerOpp, banner, 2}, {orbHouseBot, house, 1}, {orbC5, c5, 2}, {orbW4Rim, rimS, 1}} {
		if err := set(e.orb, e.s, e.div); err != nil {
			return err
		}
	}
	return nil
}

// cliquePass takes the triangles whose lowest vertex is u, with their common neighbours C:
// C(|C|, 2) to the triangle's vertices and |C| - 1 to each vertex of C (5-cliques minus an
// edge); the 4-cliques among them (the vertices of C above the triangle) give the K5 minus a
// 3-path's degree-3 vertices, and the 5-cliques one each to their vertices.
func (w *fiveWorker) cliquePass(l *locals, u int) {
	o := l.o
	var common []uint32
	o.fwd.At(u, func(v, x uint32, puv, pux, pvx uint64) {
		a, b := l.tl[l.tOff[puv]:l.tOff[puv+1]], l.tl[l.tOff[pux]:l.tOff[pux+1]]
		if c := l.tl[l.tOff[pvx]:l.tOff[pvx+1]]; len(c) < len(a) {
			a = c
		}
		common = setops.Intersect(a, b, common)
		if len(common) == 0 {
			return
		}
		k := uint64(len(common))
		for _, z := range [3]uint32{uint32(u), v, x} {
			w.give(orbK5eHigh, z, k*(k-1)/2)
		}
		for _, z := range common {
			w.give(orbK5eLow, z, k-1)
		}
		tri := [3]uint32{uint32(u), v, x}
		tpos := [3]uint64{puv, pux, pvx} // edges u-v, u-x, v-x
		for i, z := range common {
			if z <= x {
				continue
			}
			// the 4-clique u < v < x < z: its edges' triangles minus 2
			var t [6]uint64
			t[0], t[1], t[2] = uint64(l.te[tpos[0]])-2, uint64(l.te[tpos[1]])-2, uint64(l.te[tpos[2]])-2
			for j, y := range tri {
				t[3+j] = uint64(l.te[l.edgePos(y, z)]) - 2
			}
			// vertex -> the edges not touching it: u: v-x, v-z, x-z; v: u-x, u-z, x-z; x: u-v, u-z,
			// v-z; z: u-v, u-x, v-x
			w.give(orbK5P3Mid, uint32(u), t[2]+t[4]+t[5])
			w.give(orbK5P3Mid, v, t[1]+t[3]+t[5])
			w.give(orbK5P3Mid, x, t[0]+t[3]+t[4])
			w.give(orbK5P3Mid, z, t[0]+t[1]+t[2])
			for _, y := range common[i+1:] {
				if o.adjacent(int(z), int(y)) {
					for _, q := range [5]uint32{uint32(u), v, x, z, y} {
						w.give(orbK5, q, 1)
					}
				}
			}
		}
	})
}

// fiveOrbits fills ni[15..72] for every ordered vertex: the special orbits from fiveSpecial,
// the others from rooted decomposition (copies = rooted maps / the orbit's stabiliser). The
// rooted vectors of different orbits are independent (the decomposition's cache is shared, each
// vector computed once): they are spread over the threads, one worker each.
func fiveOrbits(ctx context.Context, l *locals, threads int, orbits []Orbit, ni [][]uint64, log *slog.Logger) error {
	start := time.Now()
	spec, err := fiveSpecial(ctx, l, threads)
	if err != nil {
		return err
	}
	log.Debug("per-vertex 5-vertex orbits: equations (pair and clique passes)", "elapsed", time.Since(start).Round(time.Microsecond))
	start = time.Now()
	defer func() {
		log.Debug("per-vertex 5-vertex orbits: rooted vectors", "orbits", len(orbits)-15-len(specialOrbits), "elapsed", time.Since(start).Round(time.Microsecond))
	}()
	for i, orb := range specialOrbits {
		for x := range ni {
			ni[x][orb] = spec[i][x]
		}
	}
	var todo []Orbit
	for _, ob := range orbits[15:] {
		if !slices.Contains(specialOrbits, ob.ORCA) {
			todo = append(todo, ob)
		}
	}
	d := newDecomp(l, nil)
	// the orbits are the parallelism; inside a vector the sums over data edges (triangle cores)
	// are shared out too, so that the last orbits' vectors do not run on one thread (rooted
	// vectors need no homomorphism count, hence no per-worker dense scratch)
	d.threads, d.ctx, d.special = threads, ctx, spec
	errs := make([]error, len(todo))
	_, err = workersCtx(ctx, threads, len(todo), func(_, i int) {
		errs[i] = d.fiveOrbit(todo[i], ni)
	})
	if err != nil {
		return err
	}
	return errors.Join(errs...)
}

// fiveOrbit fills column ob.ORCA of ni from ob's rooted vector.
func (d *decomp) fiveOrbit(ob Orbit, ni [][]uint64) error {
	v, err := d.vertexVec(withRoots(ob.shape, ob.vertex))
	if err != nil {
		return fmt.Errorf("orbit %d (%s): %w", ob.ORCA, ob.Name, err)
	}
	cls := orbitClasses(ob.shape)
	size := uint64(0)
	for _, c := range cls {
		if c == cls[ob.vertex] {
			size++
		}
	}
	stab := ob.shape.Automorphisms() / size
	for x := range ni {
		if v[x]%stab != 0 {
			return fmt.Errorf("orbit %d: %d rooted maps, not a multiple of %d (a bug)", ob.ORCA, v[x], stab)
		}
		ni[x][ob.ORCA] = v[x] / stab
	}
	return nil
}

// fiveRooted returns the rooted counts of a 5-vertex shape rooted at vertex 0 whose orbit is
// one of the special orbits (counted per vertex by fiveSpecial), or errNoRule.
func (d *decomp) fiveRooted(s Shape) ([]uint64, error) {
	c := s.Canonical()
	var orb *Orbit
	for _, ob := range Orbits(5)[15:] {
		if ob.shape != c || !slices.Contains(specialOrbits, ob.ORCA) {
			continue
		}
		// is vertex 0 of s in ob's orbit? map s onto c
		for _, p := range permutations(5) {
			if s.permute(p) == c {
				cls := orbitClasses(c)
				if cls[p[0]] == cls[ob.vertex] {
					orb = &ob
				}
				break
			}
		}
		if orb != nil {
			break
		}
	}
	if orb == nil {
		return nil, errNoRule
	}
	special, err := d.specialOrbits()
	if err != nil {
		return nil, err
	}
	cls := orbitClasses(c)
	var size uint64
	for _, x := range cls {
		if x == cls[orb.vertex] {
			size++
		}
	}
	stab := c.Automorphisms() / size
	copies := special[slices.Index(specialOrbits, orb.ORCA)]
	out := make([]uint64, len(copies))
	for x, v := range copies {
		p, over := mul(v, stab)
		if over {
			return nil, ErrOverflow
		}
		out[x] = p
	}
	return out, nil
}

// specialOrbits returns the special 5-vertex orbits per vertex (fiveSpecial), computing them
// on the first call (the callers of other goroutines wait for it).
func (d *decomp) specialOrbits() ([][]uint64, error) {
	d.specialMu.Lock()
	defer d.specialMu.Unlock()
	if d.special != nil {
		return d.special, nil
	}
	ctx := d.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	sp, err := fiveSpecial(ctx, d.l, d.threads)
	if err != nil {
		return nil, err
	}
	d.special = sp
	return sp, nil
}
