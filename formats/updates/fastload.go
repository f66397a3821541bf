package updates

import (
	"bytes"
	"context"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph/dynamic"
)

// LoadDynamic reads a graph file in the CSM study's format (`v id label`, `e u v [label]`)
// straight into a dynamic graph, parsing on all cores. Files it does not take on this fast path
// (an edge label other than 0, a self-loop, a vertex given twice, any other line) are read by the
// line-by-line loader instead, whose errors name the line.
func LoadDynamic(path string, opts formats.Options) (*dynamic.Graph, error) {
	r, _, err := formats.Open(context.Background(), path) // gzip and zstd; no FIFOs
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	if g, ok := fastLoad(data); ok {
		return g, nil
	}
	opts.Format = "csm"
	sg, err := formats.Load(path, opts)
	if err != nil {
		return nil, err
	}
	return dynamic.FromGraph(sg), nil
}

type chunkRecords struct {
	vid    []int64
	vlabel []uint32
	eu, ev []int64
	ok     bool
}

// fastLoad parses data on all cores; ok false when the file needs the careful loader.
func fastLoad(data []byte) (*dynamic.Graph, bool) {
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
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i] = parseChunk(data[cuts[i]:cuts[i+1]])
		}()
	}
	wg.Wait()
	nv, ne := 0, 0
	for i := range recs {
		if !recs[i].ok {
			return nil, false
		}
		nv += len(recs[i].vid)
		ne += len(recs[i].eu)
	}
	// Dense ids: vertices in the order of their lines, then endpoints not declared.
	orig := make([]int64, 0, nv)
	labels := make([]uint32, 0, nv)
	var table []uint32 // original id -> dense+1, for ids below the limit
	ids := map[int64]uint32{}
	limit := int64(8*nv) + 1<<20
	lookup := func(id int64) (uint32, bool) {
		if id >= 0 && id < limit {
			if id < int64(len(table)) && table[id] != 0 {
				return table[id] - 1, true
			}
			return 0, false
		}
		v, ok := ids[id]
		return v, ok
	}
	add := func(id int64, l uint32) uint32 {
		v := uint32(len(orig))
		orig = append(orig, id)
		labels = append(labels, l)
		if id >= 0 && id < limit {
			if id >= int64(len(table)) {
				table = append(table, make([]uint32, max(id+1, 2*int64(len(table)))-int64(len(table)))...)
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
				return nil, false
			}
			add(id, recs[i].vlabel[j])
		}
	}
	if len(orig) >= math.MaxUint32-2*ne {
		return nil, false
	}
	src := make([]uint32, 0, ne)
	dst := make([]uint32, 0, ne)
	for i := range recs {
		for j, a := range recs[i].eu {
			b := recs[i].ev[j]
			if a == b {
				return nil, false
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
	g, err := dynamic.Build(orig, labels, src, dst)
	if err != nil {
		return nil, false
	}
	return g, true
}

// parseChunk reads `v id label` and `e u v [0]` lines (comments and blank lines skipped).
func parseChunk(b []byte) chunkRecords {
	var r chunkRecords
	var f [5][]byte
	for len(b) > 0 {
		line := b
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			line, b = b[:j], b[j+1:]
		} else {
			b = nil
		}
		nf := 0
		for i := 0; i < len(line); {
			for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
				i++
			}
			if i == len(line) {
				break
			}
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
				j++
			}
			if nf == len(f) {
				return r
			}
			f[nf] = line[i:j]
			nf++
			i = j
		}
		if nf == 0 || f[0][0] == '#' {
			continue
		}
		switch {
		case nf == 3 && len(f[0]) == 1 && f[0][0] == 'v':
			id, ok1 := parseDigits(f[1])
			l, ok2 := parseDigits(f[2])
			if !ok1 || !ok2 || id > math.MaxInt64 || l > math.MaxUint32 {
				return r
			}
			r.vid = append(r.vid, int64(id))
			r.vlabel = append(r.vlabel, uint32(l))
		case (nf == 3 || nf == 4) && len(f[0]) == 1 && f[0][0] == 'e':
			u, ok1 := parseDigits(f[1])
			v, ok2 := parseDigits(f[2])
			if !ok1 || !ok2 || u > math.MaxInt64 || v > math.MaxInt64 {
				return r
			}
			if nf == 4 {
				if l, ok := parseDigits(f[3]); !ok || l != 0 {
					return r
				}
			}
			r.eu = append(r.eu, int64(u))
			r.ev = append(r.ev, int64(v))
		default:
			return r
		}
	}
	r.ok = true
	return r
}
