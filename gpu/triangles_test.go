package gpu

// The triangle counter is the runtime's own test application: a small CUDA kernel
// (testdata/triangles.cu) that exercises compiling, uploading, launching and reading back, checked
// against a CPU count. It is not part of the product.

import (
	_ "embed"
	"fmt"
	"slices"
	"time"
)

// TriangleStats reports where the time of a CountTriangles call went.
type TriangleStats struct {
	Module       *Module        // the compiled kernel (CacheHit, CompileTime)
	Upload       time.Duration  // allocation and host-to-device copies
	Kernel       time.Duration  // the kernel, timed with CUDA events
	Total        time.Duration  // the whole call, compilation included
	Variant      TriangleKernel // the kernel used
	Blocks       int
	ThreadsBlock int
	DeviceBytes  uint64 // device memory used
}

// TriangleKernel selects the work distribution of the triangle kernel.
type TriangleKernel int

const (
	// TrianglesPerEdge gives each warp a chunk of 32 adjacency entries u->v (balanced on skewed
	// graphs).
	TrianglesPerEdge TriangleKernel = iota
	// TrianglesPerVertex gives each warp one vertex and all its edges.
	TrianglesPerVertex
)

//go:embed testdata/triangles.cu
var trianglesSource string

func init() { RegisterKernel("triangles.cu", trianglesSource) }

// edgeChunk is EDGE_CHUNK of triangles.cu.
const edgeChunk = 32

func (k TriangleKernel) String() string {
	if k == TrianglesPerVertex {
		return "per-vertex"
	}
	return "per-edge"
}

func (k TriangleKernel) function() string {
	if k == TrianglesPerVertex {
		return "count_triangles"
	}
	return "count_triangles_edge"
}

// CountTriangles counts the triangles of an undirected graph in CSR form on the device: offsets
// has n+1 entries and neighbors[offsets[u]:offsets[u+1]] are u's neighbours, sorted by id
// (strictly increasing, so no duplicates), without self-loops, and symmetric. The adjacency lists
// of package graph are sorted by (label, edge label, id): convert them with SortAdjacency first
// (for an unlabelled graph they already are sorted by id).
func CountTriangles(d *Device, offsets []uint64, neighbors []uint32) (uint64, error) {
	c, _, err := CountTrianglesStats(d, offsets, neighbors)
	return c, err
}

// CountTrianglesStats is CountTriangles that also reports timings.
func CountTrianglesStats(d *Device, offsets []uint64, neighbors []uint32) (uint64, TriangleStats, error) {
	return CountTrianglesWith(d, offsets, neighbors, TrianglesPerEdge)
}

// CountTrianglesWith is CountTrianglesStats with a chosen kernel.
func CountTrianglesWith(d *Device, offsets []uint64, neighbors []uint32, kernel TriangleKernel) (uint64, TriangleStats, error) {
	st := TriangleStats{Variant: kernel}
	t0 := time.Now()
	if err := CheckCSR(offsets, neighbors); err != nil {
		return 0, st, err
	}
	n := uint64(len(offsets) - 1)
	if len(neighbors) == 0 {
		return 0, st, nil
	}
	mod, err := d.CompileKernel("triangles.cu", nil)
	if err != nil {
		return 0, st, err
	}
	st.Module = mod
	fn, err := mod.Function(kernel.function())
	if err != nil {
		return 0, st, err
	}

	tu := time.Now()
	var bufs []*Buffer
	defer func() {
		for _, b := range bufs {
			b.Free()
		}
	}()
	dOff, err := Upload(d, offsets)
	if err != nil {
		return 0, st, fmt.Errorf("triangles: offsets: %w", err)
	}
	bufs = append(bufs, dOff)
	dNbr, err := Upload(d, neighbors)
	if err != nil {
		return 0, st, fmt.Errorf("triangles: neighbours: %w", err)
	}
	bufs = append(bufs, dNbr)
	dCount, err := d.Alloc(8)
	if err != nil {
		return 0, st, fmt.Errorf("triangles: counter: %w", err)
	}
	bufs = append(bufs, dCount)
	if err := dCount.Memset(0); err != nil {
		return 0, st, err
	}
	st.Upload = time.Since(tu)
	st.DeviceBytes = dOff.Size() + dNbr.Size() + dCount.Size()

	const threads = 256
	warpsPerBlock := uint64(threads / 32)
	items := n
	if kernel == TrianglesPerEdge {
		items = (uint64(len(neighbors)) + edgeChunk - 1) / edgeChunk
	}
	blocks := (items + warpsPerBlock - 1) / warpsPerBlock
	if maxBlocks := uint64(max(d.info.SMs, 1) * 16); blocks > maxBlocks {
		blocks = maxBlocks
	}
	st.Blocks, st.ThreadsBlock = int(blocks), threads
	st.Kernel, err = fn.LaunchSync(Dim3{X: uint32(blocks)}, Dim3{X: threads}, 0, dOff, dNbr, n, dCount)
	if err != nil {
		return 0, st, err
	}
	var out [1]uint64
	if err := CopyToHost(out[:], dCount, 0); err != nil {
		return 0, st, err
	}
	st.Total = time.Since(t0)
	return out[0], st, nil
}

// CheckCSR verifies what CountTriangles relies on: offsets start at 0, never decrease and end at
// len(neighbors); every neighbour id is < n; every list is strictly increasing and has no
// self-loop. (Symmetry is not checked.)
func CheckCSR(offsets []uint64, neighbors []uint32) error {
	if len(offsets) == 0 {
		return fmt.Errorf("csr: offsets must have n+1 entries, got none")
	}
	n := uint64(len(offsets) - 1)
	if n > 1<<32 {
		return fmt.Errorf("csr: %d vertices do not fit 32-bit ids", n)
	}
	if offsets[0] != 0 || offsets[n] != uint64(len(neighbors)) {
		return fmt.Errorf("csr: offsets run from %d to %d, want 0 to %d", offsets[0], offsets[n], len(neighbors))
	}
	for u := uint64(0); u < n; u++ {
		b, e := offsets[u], offsets[u+1]
		if e < b || e > uint64(len(neighbors)) {
			return fmt.Errorf("csr: offsets of vertex %d are %d..%d", u, b, e)
		}
		for i := b; i < e; i++ {
			v := uint64(neighbors[i])
			if v >= n {
				return fmt.Errorf("csr: vertex %d has neighbour %d, beyond %d vertices", u, v, n)
			}
			if v == u {
				return fmt.Errorf("csr: vertex %d has a self-loop", u)
			}
			if i > b && neighbors[i-1] >= neighbors[i] {
				return fmt.Errorf("csr: neighbours of vertex %d are not strictly increasing at position %d (%d then %d)", u, i-b, neighbors[i-1], neighbors[i])
			}
		}
	}
	return nil
}

// SortAdjacency returns a copy of neighbors with each vertex's list sorted by id (package graph
// sorts lists by labels first).
func SortAdjacency(offsets []uint64, neighbors []uint32) []uint32 {
	out := slices.Clone(neighbors)
	for u := 0; u+1 < len(offsets); u++ {
		slices.Sort(out[offsets[u]:offsets[u+1]])
	}
	return out
}

// BuildCSR builds a symmetric CSR over vertices 0..n-1 from an edge list: both directions of
// every edge, lists sorted by id, duplicates and self-loops dropped. Edges with an end >= n are
// an error.
func BuildCSR(n int, edges [][2]uint32) ([]uint64, []uint32, error) {
	deg := make([]uint64, n+1)
	for _, e := range edges {
		if int64(e[0]) >= int64(n) || int64(e[1]) >= int64(n) {
			return nil, nil, fmt.Errorf("csr: edge %d-%d is beyond %d vertices", e[0], e[1], n)
		}
		if e[0] == e[1] {
			continue
		}
		deg[e[0]+1]++
		deg[e[1]+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	nbr := make([]uint32, deg[n])
	pos := slices.Clone(deg[:n])
	for _, e := range edges {
		if e[0] == e[1] {
			continue
		}
		nbr[pos[e[0]]] = e[1]
		pos[e[0]]++
		nbr[pos[e[1]]] = e[0]
		pos[e[1]]++
	}
	// Sort and deduplicate each list, compacting in place.
	offsets := make([]uint64, n+1)
	w := uint64(0)
	for u := 0; u < n; u++ {
		list := nbr[deg[u]:deg[u+1]]
		slices.Sort(list)
		list = slices.Compact(list)
		copy(nbr[w:], list)
		w += uint64(len(list))
		offsets[u+1] = w
	}
	return offsets, nbr[:w:w], nil
}

// CountTrianglesCPU is the host reference: the same orientation (u < v < w, counted at u), with
// merge intersections, or binary searches when one list is much shorter than the other.
func CountTrianglesCPU(offsets []uint64, neighbors []uint32) uint64 {
	var total uint64
	n := len(offsets) - 1
	for u := 0; u < n; u++ {
		nu := neighbors[offsets[u]:offsets[u+1]]
		start, _ := slices.BinarySearch(nu, uint32(u)+1)
		if uint64(u)+1 > 0xffffffff {
			start = len(nu)
		}
		for i := start; i < len(nu); i++ {
			v := nu[i]
			a := nu[i+1:]
			nv := neighbors[offsets[v]:offsets[v+1]]
			j, found := slices.BinarySearch(nv, v)
			if found {
				j++
			}
			total += intersectCount(a, nv[j:])
		}
	}
	return total
}

func intersectCount(a, b []uint32) uint64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	var c uint64
	if len(a) == 0 {
		return 0
	}
	if len(a)*16 < len(b) {
		for _, x := range a {
			if _, ok := slices.BinarySearch(b, x); ok {
				c++
			}
		}
		return c
	}
	x, y := 0, 0
	for x < len(a) && y < len(b) {
		switch {
		case a[x] < b[y]:
			x++
		case a[x] > b[y]:
			y++
		default:
			c++
			x++
			y++
		}
	}
	return c
}
