package updates

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/huge"
	"github.com/submatch/submatch/internal/mmapfile"
)

// LoadDynamic reads a graph file in the CSM study's format (`v id label`, `e u v [label]`)
// straight into a dynamic graph, parsing on all cores. Files it does not take on this fast path
// (an edge label other than 0, a self-loop, a vertex given twice, any other line) are read by the
// line-by-line loader instead, whose errors name the line.
func LoadDynamic(path string, opts formats.Options) (*dynamic.Graph, error) {
	g, _, err := loadDynamic(path, opts, false)
	return g, err
}

// A Copier builds another copy of a graph as it was loaded, independent of it (it reads what
// the loader kept, not the graph: it may run while the graph changes).
type Copier func() (*dynamic.Graph, error)

// LoadDynamicCopier is LoadDynamic, with a Copier for more copies of the graph as loaded (from
// the parsed arrays, which it keeps; from the careful loader's immutable graph).
func LoadDynamicCopier(path string, opts formats.Options) (*dynamic.Graph, Copier, error) {
	return loadDynamic(path, opts, true)
}

// loadDynamic is LoadDynamicCopier, with a nil Copier unless withCopier (whose copies of the
// vertex arrays cost a load time and memory).
func loadDynamic(path string, opts formats.Options, withCopier bool) (*dynamic.Graph, Copier, error) {
	if data, unmap, ok := mapPlain(path); ok {
		defer unmap()
		g, cp, ok, err := fastLoadMapped(path, data, withCopier)
		if err != nil || ok {
			return g, cp, err
		}
	}
	r, name, err := formats.Open(context.Background(), path) // gzip and zstd; no FIFOs
	if err != nil {
		return nil, nil, err
	}
	hint := 0
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() < 1<<40 {
		hint = int(st.Size()) // one read of a plain file
	}
	data, err := readAll(r, hint)
	r.Close()
	if err != nil {
		return nil, nil, err
	}
	if g, cp, ok := fastLoad(data, withCopier, nil); ok {
		return g, cp, nil
	}
	// The careful loader reads the same bytes (a file is read once, and stdin can be).
	opts.Name = name
	sg, err := formats.Read(context.Background(), bytes.NewReader(data), "csm", opts)
	if err != nil {
		return nil, nil, err
	}
	var cp Copier
	if withCopier {
		cp = func() (*dynamic.Graph, error) { return dynamic.FromGraph(sg), nil }
	}
	return dynamic.FromGraph(sg), cp, nil
}

// copier returns the Copier of a graph built by build(orig, labels) from arrays that stay
// unchanged (the edges); build keeps orig and labels, which the first graph may change, so the
// copier takes its own now. Without want, nil.
func copier(want bool, orig []int64, labels []uint32, build func(orig []int64, labels []uint32) (*dynamic.Graph, error)) Copier {
	if !want {
		return nil
	}
	o, l := slices.Clone(orig), slices.Clone(labels)
	return func() (*dynamic.Graph, error) { return build(slices.Clone(o), slices.Clone(l)) }
}

// mapPlain maps the file at path when it is a regular, non-empty file that is not compressed
// (gzip or zstd, which formats.Open decompresses), for fastLoad to parse in place.
func mapPlain(path string) (data []byte, unmap func(), ok bool) {
	if path == formats.Stdin {
		return nil, nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close() // the mapping outlives the descriptor
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 4 || st.Size() >= 1<<40 {
		return nil, nil, false
	}
	if data, unmap, err = mmapfile.Map(f, int(st.Size()), true); err != nil {
		return nil, nil, false
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		unmap()
		return nil, nil, false
	}
	return data, unmap, true
}

// readAll reads r to its end into a buffer of hint+1 bytes to start with (grown if needed).
func readAll(r io.Reader, hint int) ([]byte, error) {
	b := huge.Make[byte](hint + 1)[:0]
	for {
		if len(b) == cap(b) {
			// Double: a compressed file's hint is its compressed size, and append's slower
			// growth for large slices would leave several copies behind while the loader holds
			// the collector off (watch).
			b = slices.Grow(b, max(len(b), 64<<10))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

type chunkRecords struct {
	vid, vlabel []uint32
	eu, ev      []uint32
	maxEnd      uint32 // the largest edge endpoint
	ok          bool
}

// fastLoadMapped is fastLoad on data mapped from the file at path: a fault reading data (the
// file shrank while it was read) is an error naming the file, on every goroutine that reads it.
func fastLoadMapped(path string, data []byte, withCopier bool) (g *dynamic.Graph, cp Copier, ok bool, err error) {
	in := mmapfile.SpanOf(data)
	var shrank atomic.Bool
	guard := func() {
		if r := recover(); r != nil {
			if !in.Faulted(r) {
				panic(r)
			}
			shrank.Store(true)
		}
	}
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer guard()
		g, cp, ok = fastLoad(data, withCopier, guard)
	}()
	if shrank.Load() {
		return nil, nil, false, &formats.InputError{Path: path, Msg: "the file shrank while it was read (truncated or rewritten meanwhile)"}
	}
	return g, cp, ok, nil
}

// fastLoad parses data on all cores into a graph and, withCopier, its Copier; ok false when
// the file needs the careful loader (ids above 2^32-1 included).
// Each parsing goroutine defers guard, when not nil, with panics on faults turned on (see
// fastLoadMapped); a chunk whose goroutine panicked reads as not ok.
func fastLoad(data []byte, withCopier bool, guard func()) (*dynamic.Graph, Copier, bool) {
	parts := runtime.GOMAXPROCS(0) * 4
	if len(data) < 1<<20 {
		parts = 1
	}
	cuts := make([]int, 0, parts+1)
	cuts = append(cuts, 0)
	for i := 1; i < parts; i++ {
		c := max(len(data)*i/parts, cuts[len(cuts)-1])
		if j := bytes.IndexByte(data[c:], '\n'); j >= 0 {
			c += j + 1
		} else {
			c = len(data)
		}
		cuts = append(cuts, c)
	}
	cuts = append(cuts, len(data))
	recs := make([]chunkRecords, len(cuts)-1)
	// The edge records of every chunk in one allocation: an edge line has 12 bytes or more
	// mostly (a chunk that has more edges grows its own).
	est := make([]int, len(recs)+1)
	for i := range recs {
		est[i+1] = est[i] + (cuts[i+1]-cuts[i])/12 + 16
	}
	total := est[len(recs)]
	both := huge.Make[uint32](2 * total)
	eu, ev := both[:total:total], both[total:]
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if guard != nil {
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
				defer guard()
			}
			recs[i] = parseChunk(data[cuts[i]:cuts[i+1]], eu[est[i]:est[i]:est[i+1]], ev[est[i]:est[i]:est[i+1]])
		}()
	}
	wg.Wait()
	nv, ne := 0, 0
	dense := true // the vertices are 0, 1, ... in order
	for i := range recs {
		if !recs[i].ok {
			return nil, nil, false
		}
		for j, id := range recs[i].vid {
			dense = dense && id == uint32(nv+j)
		}
		nv += len(recs[i].vid)
		ne += len(recs[i].eu)
	}
	for i := range recs {
		dense = dense && (len(recs[i].eu) == 0 || recs[i].maxEnd < uint32(nv))
	}
	if dense {
		// Dense ids are the original ids: the edge lists go to Build as they are.
		orig := make([]int64, nv)
		labels := make([]uint32, 0, nv)
		src := make([][]uint32, len(recs))
		dst := make([][]uint32, len(recs))
		for v := range orig {
			orig[v] = int64(v)
		}
		for i := range recs {
			labels = append(labels, recs[i].vlabel...)
			src[i], dst[i] = recs[i].eu, recs[i].ev
		}
		if !withCopier {
			// The edge arrays are read once: Build may write over them.
			g, err := dynamic.BuildPartsScratch(orig, labels, src, dst, both)
			return g, nil, err == nil
		}
		build := func(orig []int64, labels []uint32) (*dynamic.Graph, error) {
			return dynamic.BuildParts(orig, labels, src, dst)
		}
		cp := copier(withCopier, orig, labels, build)
		g, err := build(orig, labels)
		return g, cp, err == nil
	}
	// Dense ids: vertices in the order of their lines, then endpoints not declared.
	orig := make([]int64, 0, nv)
	labels := make([]uint32, 0, nv)
	var table []uint32 // original id -> dense+1, for ids below the limit
	ids := map[uint32]uint32{}
	limit := uint64(8*nv) + 1<<20
	lookup := func(id uint32) (uint32, bool) {
		if uint64(id) < limit {
			if int(id) < len(table) && table[id] != 0 {
				return table[id] - 1, true
			}
			return 0, false
		}
		v, ok := ids[id]
		return v, ok
	}
	add := func(id uint32, l uint32) uint32 {
		v := uint32(len(orig))
		orig = append(orig, int64(id))
		labels = append(labels, l)
		if uint64(id) < limit {
			if int(id) >= len(table) {
				table = append(table, make([]uint32, max(int(id)+1, 2*len(table))-len(table))...)
			}
			table[id] = v + 1
		} else {
			ids[id] = v
		}
		return v
	}
	for i := range recs {
		for j, id := range recs[i].vid {
			if _, dup := lookup(id); dup {
				return nil, nil, false
			}
			add(id, recs[i].vlabel[j])
		}
	}
	if len(orig) >= math.MaxUint32-2*ne {
		return nil, nil, false
	}
	src := make([]uint32, 0, ne)
	dst := make([]uint32, 0, ne)
	for i := range recs {
		for j, a := range recs[i].eu {
			b := recs[i].ev[j]
			if a == b {
				return nil, nil, false
			}
			u, ok := lookup(a)
			if !ok {
				u = add(a, 0)
			}
			v, ok := lookup(b)
			if !ok {
				v = add(b, 0)
			}
			src = append(src, u)
			dst = append(dst, v)
		}
		recs[i] = chunkRecords{}
	}
	if !withCopier {
		// The parsed edges were copied to src and dst: Build may write over them.
		g, err := dynamic.BuildPartsScratch(orig, labels, [][]uint32{src}, [][]uint32{dst}, both)
		return g, nil, err == nil
	}
	build := func(orig []int64, labels []uint32) (*dynamic.Graph, error) {
		return dynamic.Build(orig, labels, src, dst)
	}
	cp := copier(withCopier, orig, labels, build)
	g, err := build(orig, labels)
	return g, cp, err == nil
}

// parseChunk reads, appending the edges to eu and ev, `v id label` and `e u v [0]` lines (comments and blank lines skipped) byte by
// byte, without splitting lines into fields; ok is false at the first line of any other shape or
// an id above 2^32-1.
func parseChunk(b []byte, eu, ev []uint32) chunkRecords {
	r := chunkRecords{eu: eu, ev: ev}
	i := 0
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n':
			i++
		case '\r':
			if !crEnd(b, i) {
				return r
			}
			i++
		case '#':
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				i = len(b)
			} else {
				i += j + 1
			}
		case 'v':
			if id, l, k, ok := twoFields(b, i); ok && b[k] == '\n' { // the common "v ID L\n"
				r.vid = append(r.vid, id)
				r.vlabel = append(r.vlabel, l)
				i = k + 1
				continue
			}
			id, j, ok1 := field(b, i+1)
			l, j, ok2 := field(b, j)
			j, ok3 := lineEnd(b, j)
			if !ok1 || !ok2 || !ok3 || id > math.MaxUint32 || l > math.MaxUint32 {
				return r
			}
			r.vid = append(r.vid, uint32(id))
			r.vlabel = append(r.vlabel, uint32(l))
			i = j
		case 'e':
			if u, v, k, ok := twoFields(b, i); ok && b[k] == ' ' && b[k+1] == '0' && b[k+2] == '\n' { // the common "e U V 0\n"
				r.eu = append(r.eu, u)
				r.ev = append(r.ev, v)
				r.maxEnd = max(r.maxEnd, u, v)
				i = k + 3
				continue
			}
			u, j, ok1 := field(b, i+1)
			v, j, ok2 := field(b, j)
			if !ok1 || !ok2 || u > math.MaxUint32 || v > math.MaxUint32 {
				return r
			}
			end, ok := j+3, j+3 <= len(b) && b[j] == ' ' && b[j+1] == '0' && b[j+2] == '\n' // the common " 0\n"
			if !ok {
				end, ok = lineEnd(b, j)
			}
			if !ok { // a label, which must be 0
				l, k, ok3 := field(b, j)
				if end, ok = lineEnd(b, k); !ok3 || !ok || l != 0 {
					return r
				}
			}
			r.eu = append(r.eu, uint32(u))
			r.ev = append(r.ev, uint32(v))
			r.maxEnd = max(r.maxEnd, uint32(u), uint32(v))
			i = end
		default:
			return r
		}
	}
	r.ok = true
	return r
}

// field reads, from b[i:], blanks (at least one) and an unsigned decimal of at most 19 digits
// ended by a blank, a line end or the end of b; it returns the value and the index after it.
func field(b []byte, i int) (uint64, int, bool) {
	if i+9 <= len(b) && b[i] == ' ' {
		// One space and fewer than eight digits, read as one word: its first byte that is not
		// a digit, then the digits' value by three multiplications.
		x := binary.LittleEndian.Uint64(b[i+1:])
		if n := leadingDigits(x); n > 0 && n < 8 {
			if c := b[i+1+n]; c == ' ' || c == '\n' || c == '\t' {
				return digits8((x & 0x0F0F0F0F0F0F0F0F) << (64 - 8*n)), i + 1 + n, true
			}
		}
	}
	return fieldBytes(b, i)
}

// twoFields reads, after the line's kind letter at b[i], the common shape " X Y" (single spaces,
// one to seven digits each) from two words, and returns X, Y and the index after Y, from which
// at least three bytes remain; ok false for anything else (including the last 22 bytes of b),
// which the caller then reads field by field. One call a line instead of one a field.
func twoFields(b []byte, i int) (x, y uint32, k int, ok bool) {
	if i+22 > len(b) || b[i+1] != ' ' {
		return 0, 0, 0, false
	}
	w := binary.LittleEndian.Uint64(b[i+2:])
	n := leadingDigits(w)
	if n == 0 || n == 8 || b[i+2+n] != ' ' {
		return 0, 0, 0, false
	}
	j := i + 3 + n
	z := binary.LittleEndian.Uint64(b[j:])
	m := leadingDigits(z)
	if m == 0 || m == 8 {
		return 0, 0, 0, false
	}
	x = uint32(digits8((w & 0x0F0F0F0F0F0F0F0F) << (64 - 8*n)))
	y = uint32(digits8((z & 0x0F0F0F0F0F0F0F0F) << (64 - 8*m)))
	return x, y, j + m, true
}

// leadingDigits is the number of decimal digits that begin the word x (its bytes in memory
// order, the first in the lowest byte): 8 when all are.
func leadingDigits(x uint64) int {
	nd := (x | (x + 0x4646464646464646) | (x - 0x3030303030303030)) & 0x8080808080808080
	return bits.TrailingZeros64(nd) / 8
}

// fieldBytes is field reading byte by byte.
func fieldBytes(b []byte, i int) (uint64, int, bool) {
	j := i
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	if j == i {
		return 0, i, false
	}
	start := j
	var v uint64
	for j < len(b) && b[j]-'0' <= 9 {
		v = v*10 + uint64(b[j]-'0')
		j++
	}
	if j == start || j-start > 19 || (j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && !crEnd(b, j)) {
		return 0, i, false
	}
	return v, j, true
}

// digits8 is the value of the eight decimal digits x holds, one a byte (0 to 9), the first in its
// lowest byte.
func digits8(x uint64) uint64 {
	x = (x * 10) + (x >> 8)
	x = ((x&0x000000FF000000FF)*(100+1000000<<32) + ((x>>16)&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return uint64(uint32(x))
}

// crEnd reports whether b[i:] starts with carriage returns up to a newline or the end: line ends
// the careful loader strips (any other carriage return is a character of a field to it).
func crEnd(b []byte, i int) bool {
	for i < len(b) && b[i] == '\r' {
		i++
	}
	return i == len(b) || b[i] == '\n'
}

// lineEnd skips blanks and a line end from b[i:]; false (i unchanged) when something else
// follows on the line.
func lineEnd(b []byte, i int) (int, bool) {
	j := i
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	if j < len(b) && b[j] == '\r' && crEnd(b, j) {
		for b[j] == '\r' {
			j++
			if j == len(b) {
				return j, true
			}
		}
	}
	if j == len(b) {
		return j, true
	}
	if b[j] == '\n' {
		return j + 1, true
	}
	return i, false
}
