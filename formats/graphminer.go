package formats

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/submatch/submatch/graph"
)

// GraphMiner's binary CSR folder. The path is the folder or its graph.meta.txt. The folder holds:
//
//	graph.meta.txt    nv, nnz, sizeof(vid)=4, sizeof(eid)=8, sizeof(vlabel), sizeof(elabel),
//	                  max_degree, feat_len, #vertex classes, #edge classes (whitespace separated)
//	graph.vertex.bin  nv+1 little-endian int64 row pointers
//	graph.edge.bin    nnz little-endian int32 column ids: symmetric, rows sorted, no self-loops
//	graph.vlabel.bin  optional: nv labels of sizeof(vlabel) bytes each
//	graph.elabel.bin  optional: nnz labels of sizeof(elabel) bytes each, parallel to edge.bin
//
// Everything is validated: file sizes against the meta counts (before anything is allocated),
// monotone row pointers, column range, sorted rows, symmetry (with equal labels). An elabel file
// whose size is not nnz*sizeof(elabel) is not a per-edge array: it is ignored with a warning
// rather than guessed at. (citeseer's is such an array: 9072 uint16 values, symmetric.)

func init() { Register(graphMinerLoader{}) }

type graphMinerLoader struct{}

func (graphMinerLoader) Name() string { return "graphminer" }

func (graphMinerLoader) ReadsDirectory() {}

const gmMeta = "graph.meta.txt"

// graphMinerDir returns the folder for a path that is the folder or its meta file.
func graphMinerDir(path string) (string, bool) {
	if filepath.Base(path) == gmMeta {
		return filepath.Dir(path), true
	}
	if st, err := os.Stat(filepath.Join(path, gmMeta)); err == nil && !st.IsDir() {
		return path, true
	}
	return "", false
}

func (graphMinerLoader) scoresMagic() {}

func (graphMinerLoader) Detect(path string, head []byte) int {
	if _, ok := graphMinerDir(path); ok {
		return MagicBytes
	}
	return NoMatch
}

func (graphMinerLoader) Load(_ io.Reader, path string, opts Options) (*graph.Graph, error) {
	dir, ok := graphMinerDir(path)
	if !ok {
		return nil, inputErrorf(path, "expected a GraphMiner folder holding %s", gmMeta)
	}
	ctx := opts.Context()
	metaPath := filepath.Join(dir, gmMeta)
	if _, err := statRegular(metaPath); err != nil {
		return nil, err
	}
	f, err := os.Open(metaPath)
	if err != nil {
		return nil, openError(metaPath, err)
	}
	defer f.Close()
	lr := newLineReader(io.LimitReader(f, 1<<20), metaPath)
	var meta [10]int64
	k := 0
	for k < len(meta) {
		line, err := lr.nextData("#")
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		t := tokens{s: line}
		for fld, more := t.next(); more; fld, more = t.next() {
			v, ok := parseInt(fld)
			if !ok || v < 0 || k == len(meta) {
				return nil, lr.errorf("expected non-negative integers (nv, nnz, sizes of vid, eid, vlabel, elabel, ...), got %s", quoteLine(line))
			}
			meta[k] = v
			k++
		}
	}
	if k < 6 {
		return nil, inputErrorf(metaPath, "expected at least 6 numbers (nv, nnz, sizes of vid, eid, vlabel, elabel), found %d", k)
	}
	nv, nnz, vidSize, eidSize, vlSize, elSize := meta[0], meta[1], meta[2], meta[3], meta[4], meta[5]
	if vidSize != 4 || eidSize != 8 {
		return nil, inputErrorf(metaPath, "sizeof(vid)=%d and sizeof(eid)=%d; only 4-byte vertex ids and 8-byte row offsets are supported", vidSize, eidSize)
	}
	if nv > graph.MaxVertices || nv > 1<<40 || nnz > 1<<50 {
		return nil, inputErrorf(metaPath, "%d vertices and %d edges are beyond the supported range", nv, nnz)
	}
	// The first and last row pointers are checked before the (maybe large) files are read.
	rowBytes, err := readExact(ctx, filepath.Join(dir, "graph.vertex.bin"), (nv+1)*8, "nv+1 int64 row pointers",
		func(f *os.File, path string) error {
			var first, last [8]byte
			if _, err := f.ReadAt(first[:], 0); err != nil {
				return readError(path, 0, err)
			}
			if _, err := f.ReadAt(last[:], nv*8); err != nil {
				return readError(path, 0, err)
			}
			lo, hi := int64(binary.LittleEndian.Uint64(first[:])), int64(binary.LittleEndian.Uint64(last[:]))
			if lo != 0 || hi != nnz {
				return inputErrorf(path, "row pointers run from %d to %d, expected 0 to nnz=%d", lo, hi, nnz)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	colBytes, err := readExact(ctx, filepath.Join(dir, "graph.edge.bin"), nnz*4, "nnz int32 column ids",
		func(f *os.File, path string) error {
			if nnz == 0 {
				return nil
			}
			var first [4]byte
			if _, err := f.ReadAt(first[:], 0); err != nil {
				return readError(path, 0, err)
			}
			if w := int32(binary.LittleEndian.Uint32(first[:])); w < 0 || int64(w) >= nv {
				return inputErrorf(path, "first neighbour %d is outside 0..%d", w, nv-1)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	rows := make([]int64, nv+1)
	for i := range rows {
		rows[i] = int64(binary.LittleEndian.Uint64(rowBytes[8*i:]))
	}
	cols := make([]int32, nnz)
	for i := range cols {
		cols[i] = int32(binary.LittleEndian.Uint32(colBytes[4*i:]))
	}
	rowBytes, colBytes = nil, nil

	edgePath := filepath.Join(dir, "graph.edge.bin")
	rowPath := filepath.Join(dir, "graph.vertex.bin")
	if rows[0] != 0 || rows[nv] != nnz {
		return nil, inputErrorf(rowPath, "row pointers run from %d to %d, expected 0 to nnz=%d", rows[0], rows[nv], nnz)
	}
	for v := int64(0); v < nv; v++ {
		if rows[v] > rows[v+1] {
			return nil, inputErrorf(rowPath, "row pointers decrease at vertex %d (%d > %d)", v, rows[v], rows[v+1])
		}
	}
	for v := int64(0); v < nv; v++ {
		if v&0xffff == 0 && ctx.Err() != nil {
			return nil, readError(path, 0, ctx.Err())
		}
		row := cols[rows[v]:rows[v+1]]
		for i, w := range row {
			if w < 0 || int64(w) >= nv {
				return nil, inputErrorf(edgePath, "vertex %d has neighbour %d outside 0..%d", v, w, nv-1)
			}
			if i > 0 && row[i-1] >= w {
				return nil, inputErrorf(edgePath, "neighbours of vertex %d are not sorted and distinct (%d then %d)", v, row[i-1], w)
			}
		}
	}

	if err := ctx.Err(); err != nil {
		return nil, readError(path, 0, err)
	}
	vlabels, err := readLabels(filepath.Join(dir, "graph.vlabel.bin"), nv, vlSize, opts, true)
	if err != nil {
		return nil, err
	}
	elabels, err := readLabels(filepath.Join(dir, "graph.elabel.bin"), nnz, elSize, opts, false)
	if err != nil {
		return nil, err
	}

	if err := ctx.Err(); err != nil {
		return nil, readError(path, 0, err)
	}
	b := graph.NewBuilder(graph.BuilderOptions{DropSelfLoops: opts.DropSelfLoops})
	for v := int64(0); v < nv; v++ {
		if _, err := b.Vertex(v); err != nil {
			return nil, inputErrorf(path, "%v", err)
		}
		if vlabels != nil {
			if err := b.SetVertexLabel(v, vlabels[v]); err != nil {
				return nil, inputErrorf(path, "%v", err)
			}
		}
	}
	for v := int64(0); v < nv; v++ {
		if v&0xffff == 0 && ctx.Err() != nil {
			return nil, readError(path, 0, ctx.Err())
		}
		for i := rows[v]; i < rows[v+1]; i++ {
			w := int64(cols[i])
			var el uint32
			if elabels != nil {
				el = elabels[i]
			}
			// The reverse entry must exist with the same label.
			row := cols[rows[w]:rows[w+1]]
			j, found := slices.BinarySearch(row, int32(v))
			if !found {
				return nil, inputErrorf(edgePath, "edge %d-%d is listed only from vertex %d (the CSR must be symmetric)", v, w, v)
			}
			if elabels != nil && elabels[rows[w]+int64(j)] != el {
				return nil, inputErrorf(filepath.Join(dir, "graph.elabel.bin"), "edge %d-%d has label %d one way and %d the other", v, w, el, elabels[rows[w]+int64(j)])
			}
			if w == v && !opts.DropSelfLoops {
				e := inputErrorf(edgePath, "self-loop on vertex %d (Options.DropSelfLoops drops it)", v)
				e.Err = graph.ErrSelfLoop
				return nil, e
			}
			if w < v {
				continue
			}
			if err := b.AddEdge(v, w, el); err != nil {
				return nil, inputErrorf(path, "%v", err)
			}
		}
	}
	return build(b, path, opts)
}

// readExact reads a regular file that must be exactly size bytes, checking the size before
// reading, then check (if not nil) on the open file, then its content in chunks, stopping when
// ctx is cancelled.
func readExact(ctx context.Context, path string, size int64, what string, check func(f *os.File, path string) error) ([]byte, error) {
	st, err := statRegular(path)
	if err != nil {
		return nil, err
	}
	if st.Size() != size {
		return nil, inputErrorf(path, "has %d bytes, expected %d (%s)", st.Size(), size, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	if check != nil {
		if err := check(f, path); err != nil {
			return nil, err
		}
	}
	data := make([]byte, size)
	const chunk = 16 << 20
	for off := int64(0); off < size; off += chunk {
		if err := ctx.Err(); err != nil {
			return nil, readError(path, 0, err)
		}
		n, err := f.ReadAt(data[off:min(off+chunk, size)], off)
		if err != nil && !(err == io.EOF && off+int64(n) == size) {
			if err == io.EOF {
				return nil, inputErrorf(path, "has %d bytes, expected %d (%s)", off+int64(n), size, what)
			}
			return nil, readError(path, 0, err)
		}
	}
	return data, nil
}

// readLabels reads an optional array of count little-endian labels of size bytes each. A missing
// file gives nil. A file of the wrong size is an error for vertex labels (strict) and is ignored
// with a warning for edge labels, whose file is not always a per-edge array.
func readLabels(path string, count, size int64, opts Options, strict bool) ([]uint32, error) {
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, openError(path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st)
	}
	if size != 1 && size != 2 && size != 4 {
		if strict {
			return nil, inputErrorf(path, "label size %d in the meta file is not 1, 2 or 4", size)
		}
		opts.warnf("%s: ignored: label size %d in the meta file is not 1, 2 or 4", path, size)
		return nil, nil
	}
	if st.Size() != count*size {
		if strict {
			return nil, inputErrorf(path, "has %d bytes, expected %d (%d labels of %d bytes)", st.Size(), count*size, count, size)
		}
		opts.warnf("%s: ignored: %d bytes is not %d labels of %d bytes, so it is not a per-edge array", path, st.Size(), count, size)
		return nil, nil
	}
	data, err := readExact(opts.Context(), path, count*size, "labels", nil)
	if err != nil {
		return nil, err
	}
	labels := make([]uint32, count)
	for i := range labels {
		switch size {
		case 1:
			labels[i] = uint32(data[i])
		case 2:
			labels[i] = uint32(binary.LittleEndian.Uint16(data[2*i:]))
		case 4:
			labels[i] = binary.LittleEndian.Uint32(data[4*i:])
		}
	}
	return labels, nil
}
