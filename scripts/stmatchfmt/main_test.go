package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/submatch/submatch/graph"
)

// glibc 2.36's rand() after srand(0) (that is srand(1)), and rand() % 10 for the first 20 draws.
func TestGlibc(t *testing.T) {
	g := NewGlibc(0)
	want := []int32{1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386, 1649760492}
	for i, w := range want {
		if v := g.Rand(); v != w {
			t.Fatalf("rand() #%d = %d, want %d", i, v, w)
		}
	}
	var b strings.Builder
	for _, l := range GlibcLabels(20, 10, 0) {
		b.WriteByte(byte('0' + l))
	}
	if b.String() != "36753562912709360626" {
		t.Fatalf("labels %s", b.String())
	}
	if v := NewGlibc(42).Rand(); v != 71876166 {
		t.Fatalf("srand(42): rand() = %d", v)
	}
}

// The files are by original vertex id, whatever order the graph keeps its vertices in (a
// labelled graph groups them by label; ids may arrive in any order).
func TestWrite(t *testing.T) {
	for variant := 0; variant < 4; variant++ {
		labelled, sparse := variant&1 != 0, variant&2 != 0
		id := func(v int64) int64 { return v } // STMatch's vertex v is the v-th smallest id
		if sparse {
			id = func(v int64) int64 { return 10*v + 5 }
		}
		b := graph.NewBuilder(graph.BuilderOptions{})
		for _, e := range [][2]int64{{3, 2}, {1, 2}, {2, 0}, {0, 1}} {
			if err := b.AddEdge(id(e[0]), id(e[1]), 0); err != nil {
				t.Fatal(err)
			}
		}
		if labelled {
			for v, l := range []uint32{9, 4, 4, 0} {
				if err := b.SetVertexLabel(id(int64(v)), l); err != nil {
					t.Fatal(err)
				}
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		txt := "0 5\n1 6\n2 7\n3 8\n"
		if sparse {
			txt = "5 5\n15 6\n25 7\n35 8\n"
		}
		checkWrite(t, g, txt)
	}
}

func checkWrite(t *testing.T, g *graph.Graph, labelsTxt string) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "g")
	if err := Write(prefix, g, []uint32{5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	meta, _ := os.ReadFile(prefix + ".meta.txt")
	if string(meta) != "4\n8\n4\n3\n" {
		t.Fatalf("meta %q", meta)
	}
	rows := ints(t, prefix+".vertex.bin", 8)
	if want := []int64{0, 2, 4, 7, 8}; !equal(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	cols := ints(t, prefix+".edge.bin", 4)
	if want := []int64{1, 2, 0, 2, 0, 1, 3, 2}; !equal(cols, want) {
		t.Fatalf("cols %v, want %v", cols, want)
	}
	if lab := ints(t, prefix+".label.bin", 4); !equal(lab, []int64{5, 6, 7, 8}) {
		t.Fatalf("labels %v", lab)
	}
	txt, _ := os.ReadFile(prefix + ".labels.txt")
	if string(txt) != labelsTxt {
		t.Fatalf("labels.txt %q", txt)
	}
}

func ints(t *testing.T, path string, size int) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v []int64
	for i := 0; i+size <= len(b); i += size {
		if size == 8 {
			v = append(v, int64(binary.LittleEndian.Uint64(b[i:])))
		} else {
			v = append(v, int64(int32(binary.LittleEndian.Uint32(b[i:]))))
		}
	}
	return v
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
