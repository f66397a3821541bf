package formats

import (
	"path/filepath"
	"testing"

	"submatch/graph"
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
