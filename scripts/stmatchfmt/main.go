// Command stmatchfmt writes a data graph in the binary CSR files that STMatch's test driver reads
// (issue 17: STMatch itself run beside submatch, scripts/stmatch-peer.sh), optionally with random
// vertex labels that it also writes as an `id label` file for submatch's --vertex-labels.
//
//	go run ./scripts/stmatchfmt [-labels N] [-seed S] IN PREFIX
//
// IN is any graph submatch loads without vertex names; STMatch's vertex i is IN's vertex with the
// i-th smallest id (SNAP's ids are sparse). It writes
//
//	PREFIX.meta.txt    n, nnz (2|E|), 4 (bytes of a vertex id), the largest degree: one a line
//	PREFIX.vertex.bin  n+1 little-endian int64 row offsets
//	PREFIX.edge.bin    nnz little-endian int32 neighbours, each row sorted, both directions
//
// and with -labels N > 0
//
//	PREFIX.label.bin   n little-endian int32 labels in 0..N-1
//	PREFIX.labels.txt  the same labels as `id label` lines, by IN's vertex ids
//
// The labels are rand() % N after srand(S) with glibc's generator, vertex 0 first: the scheme of
// STMatch's graph converter (srand(0), rand() % 10) over that numbering (STMatch's converter numbers
// the vertices of a SNAP file by first appearance instead, so its own assignment differs).
package main

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/graph"
)

func main() {
	labels := flag.Int("labels", 0, "random vertex labels 0..`N`-1 (0: none written)")
	seed := flag.Uint("seed", 0, "glibc srand `SEED` for the labels")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: stmatchfmt [-labels N] [-seed S] IN PREFIX")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || *labels < 0 {
		flag.Usage()
		os.Exit(2)
	}
	g, err := formats.Load(flag.Arg(0), formats.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "stmatchfmt:", err)
		os.Exit(1)
	}
	var lab []uint32
	if *labels > 0 {
		lab = GlibcLabels(g.NumVertices(), *labels, uint32(*seed))
	}
	if err := Write(flag.Arg(1), g, lab); err != nil {
		fmt.Fprintln(os.Stderr, "stmatchfmt:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d vertices, %d edges, largest degree %d", flag.Arg(1), g.NumVertices(), g.NumEdges(), g.MaxDegree())
	if lab != nil {
		fmt.Printf(", labels 0..%d (glibc srand(%d), rand() %% %d)", *labels-1, *seed, *labels)
	}
	fmt.Println()
}

// Glibc is glibc's rand() (the default TYPE_3 additive feedback generator of random()).
type Glibc struct {
	r [34]int32
	i int
}

// NewGlibc returns the generator after srand(seed); glibc takes seed 0 as 1.
func NewGlibc(seed uint32) *Glibc {
	if seed == 0 {
		seed = 1
	}
	var r [344]int32
	r[0] = int32(seed)
	for i := 1; i < 31; i++ {
		// 16807 * r[i-1] % (2^31 - 1) by Schrage's method, as glibc computes it.
		hi, lo := int64(r[i-1])/127773, int64(r[i-1])%127773
		w := 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		r[i] = int32(w)
	}
	for i := 31; i < 34; i++ {
		r[i] = r[i-31]
	}
	for i := 34; i < 344; i++ { // glibc discards the first 310 values

		r[i] = int32(uint32(r[i-31]) + uint32(r[i-3]))
	}
	g := &Glibc{}
	copy(g.r[:], r[344-34:]) // the last 34 values, the oldest first
	return g
}

// Rand returns the next rand() value, 0..2^31-1.
func (g *Glibc) Rand() int32 {
	// r[k] = r[k-31] + r[k-3]; the ring holds the last 34 values, g.i the oldest.
	n := len(g.r)
	v := int32(uint32(g.r[(g.i+n-31)%n]) + uint32(g.r[(g.i+n-3)%n]))
	g.r[g.i] = v
	g.i = (g.i + 1) % n
	return int32(uint32(v) >> 1)
}

// GlibcLabels returns n labels rand() % k after srand(seed).
func GlibcLabels(n, k int, seed uint32) []uint32 {
	g := NewGlibc(seed)
	lab := make([]uint32, n)
	for i := range lab {
		lab[i] = uint32(int(g.Rand()) % k)
	}
	return lab
}

// Write writes g (and lab, when not nil: lab[i] is the label of STMatch's vertex i) under prefix.
// STMatch numbers the vertices 0..n-1: its vertex i is g's vertex with the i-th smallest original
// id, whatever order g keeps its vertices in. PREFIX.labels.txt gives the labels by original id.
func Write(prefix string, g *graph.Graph, lab []uint32) error {
	if g.HasVertexNames() {
		return fmt.Errorf("the input names its vertices: STMatch needs ids 0..n-1")
	}
	if g.HasEdgeLabels() {
		return fmt.Errorf("the input has edge labels, which STMatch's files cannot hold")
	}
	n := g.NumVertices()
	if lab != nil && len(lab) != n {
		return fmt.Errorf("%d labels for %d vertices", len(lab), n)
	}
	// STMatch's vertex i is the input's i-th smallest vertex id (ids may be sparse, as SNAP's are).
	inner := make([]uint32, n) // STMatch's id -> internal id
	for v := range inner {
		inner[v] = uint32(v)
	}
	slices.SortFunc(inner, func(a, b uint32) int { return cmp.Compare(g.OriginalID(a), g.OriginalID(b)) })
	dense := make([]uint32, n) // internal id -> STMatch's id
	for i, v := range inner {
		dense[v] = uint32(i)
	}
	meta := fmt.Sprintf("%d\n%d\n4\n%d\n", n, 2*g.NumEdges(), g.MaxDegree())
	if err := os.WriteFile(prefix+".meta.txt", []byte(meta), 0o644); err != nil {
		return err
	}
	err := writeBin(prefix+".vertex.bin", func(w *bufio.Writer) {
		var off uint64
		for o := 0; o <= n; o++ {
			binary.Write(w, binary.LittleEndian, off)
			if o < n {
				off += uint64(g.Degree(inner[o]))
			}
		}
	})
	if err != nil {
		return err
	}
	err = writeBin(prefix+".edge.bin", func(w *bufio.Writer) {
		var row []uint32
		for o := 0; o < n; o++ {
			row = row[:0]
			for _, u := range g.Neighbors(inner[o]) {
				row = append(row, dense[u])
			}
			slices.Sort(row) // STMatch binary-searches rows by id
			binary.Write(w, binary.LittleEndian, row)
		}
	})
	if err != nil || lab == nil {
		return err
	}
	err = writeBin(prefix+".label.bin", func(w *bufio.Writer) {
		binary.Write(w, binary.LittleEndian, lab)
	})
	if err != nil {
		return err
	}
	return writeBin(prefix+".labels.txt", func(w *bufio.Writer) {
		for o, l := range lab {
			fmt.Fprintf(w, "%d %d\n", g.OriginalID(inner[o]), l)
		}
	})
}

func writeBin(path string, fill func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
