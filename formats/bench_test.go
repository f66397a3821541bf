package formats

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/submatch/submatch/graph"
)

func benchGraphPath(b *testing.B) string {
	p := filepath.Join(testdata(b), "github-gmatch", "data.graph")
	return p
}

// BenchmarkLoadText parses github data.graph (37,700 vertices, 289,003 edges).
func BenchmarkLoadText(b *testing.B) {
	p := benchGraphPath(b)
	for b.Loop() {
		if _, err := Load(p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSnapshot loads the same graph from its .smg snapshot.
func BenchmarkLoadSnapshot(b *testing.B) {
	p := benchGraphPath(b)
	g, err := Load(p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	snap := filepath.Join(b.TempDir(), "data.smg")
	if err := WriteSnapshot(snap, g); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(snap, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromRawValidated is what a snapshot load would cost with full validation
// (graph.FromRaw) instead of the checksum plus graph.FromRawTrusted.
func BenchmarkFromRawValidated(b *testing.B) {
	g, err := Load(benchGraphPath(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := graph.FromRaw(g.Raw()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTextLarge parses a generated `t/v/e` file and edge list of 2^18 vertices and 2^22
// edge lines (about 60 MB each), where the blocks of lines are tokenised on all cores
// (-cpu 1,2,... shows the scaling).
func BenchmarkLoadTextLarge(b *testing.B) {
	const n, m = 1 << 18, 1 << 22
	dir := b.TempDir()
	var sm, el bytes.Buffer
	fmt.Fprintf(&sm, "t %d %d\n", n, m)
	for v := range n {
		fmt.Fprintf(&sm, "v %d %d\n", v, v%7)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range m {
		u, v := r.IntN(n), r.IntN(n-1)
		if v >= u {
			v++
		}
		fmt.Fprintf(&sm, "e %d %d\n", u, v)
		fmt.Fprintf(&el, "%d\t%d\n", u, v)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"sm", sm.Bytes()}, {"edgelist", el.Bytes()}} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := Load(p, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadWikiVote parses GraphPi's wiki-vote_input (an "n m" header, then 100,762 edge
// lines): the load that whole-process timings of small queries from text pay.
func BenchmarkLoadWikiVote(b *testing.B) {
	p := filepath.Join(testdata(b), "wikivote-graphpi", "wiki-vote_input")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadWikiVoteLabelled parses wiki-Vote as a `t/v/e` file with 10 random vertex labels
// (1.3 MB, like the labelled lab's wv-l10.graph: the data file of issue 17's labelled 24), mapped
// (map) and read into memory (read).
func BenchmarkLoadWikiVoteLabelled(b *testing.B) {
	g, err := Load(filepath.Join(testdata(b), "wikivote-graphpi", "wiki-vote_input"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(10, 17))
	lb := graph.NewBuilder(graph.BuilderOptions{})
	for v := range g.NumVertices() {
		if err := lb.SetVertexLabel(int64(v), uint32(r.IntN(10))); err != nil {
			b.Fatal(err)
		}
	}
	for v := range g.NumVertices() {
		for _, w := range g.Neighbors(uint32(v)) {
			if uint32(v) < w {
				if err := lb.AddEdge(int64(v), int64(w), 0); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	lg, err := lb.Build()
	if err != nil {
		b.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteSM(&text, lg); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "wv-l10.graph")
	if err := os.WriteFile(p, text.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, how := range []string{"map", "read"} {
		b.Run(how, func(b *testing.B) {
			defer func(saved bool) { noMap = saved }(noMap)
			noMap = how == "read"
			b.SetBytes(int64(text.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(p, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
