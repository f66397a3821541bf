package stmatch

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/submatch/submatch/gen"
	"github.com/submatch/submatch/internal/cudacheck"
	"github.com/submatch/submatch/pattern"
)

// specCases are plans of every kind the per-query kernel meets: cliques (reused sets, symmetry
// windows), sparse and labelled random patterns under the four semantics (induced non-adjacency,
// candidate-list checks), with and without postponed leaf groups, listing's stored last level,
// and buffers bounded so that sets come in pieces (reused ones with a fallback).
func specCases(t *testing.T) []*flatPlan {
	t.Helper()
	g := gen.RandomGraph(7, 60, 0.3, 2, 2)
	dense := gen.RandomGraph(7, 60, 0.7, 2, 2)
	var pats []*pattern.Pattern
	for _, q := range []string{"(a)-(b)-(c)-(a)", "(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)", "(a)-(b)-(c)-(d)", "(a)-(b), (a)-(c), (a)-(d), (b)-(c)"} {
		p, err := pattern.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, p)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		pats = append(pats, gen.RandomPattern(seed*13, 3+int(seed%6), gen.PatternOptions{EdgeProb: 0.5, VertexLabels: int(seed % 3), EdgeLabels: 1 + int(seed%2)}))
	}
	var fps []*flatPlan
	for _, p := range pats {
		for _, sem := range semantics {
			for _, o := range []Options{{}, {NoLeaves: true}, {NoReuse: true}, {NoSpace: true}} {
				pl := testPlan(g, p, sem, o)
				if pl.Empty {
					continue
				}
				fp, err := flattenOn(g, pl, flatOptions{reuse: !o.NoReuse, storeLast: o.NoLeaves})
				if err != nil {
					t.Fatal(err)
				}
				fps = append(fps, fp)
				if pl = testPlan(dense, p, sem, o); pl.Empty {
					continue
				}
				if fp, err = flattenOn(dense, pl, flatOptions{reuse: !o.NoReuse, storeLast: o.NoLeaves, pieceCap: minPieceCap}); err == nil {
					fps = append(fps, fp)
				}
			}
		}
	}
	return fps
}

// TestSpecialiseStructure reads the generated descriptors back and checks them against the plan's
// metadata: every level 1..L-1 is dispatched once, with the sources, window bounds and checks of
// its masks, and nothing else.
func TestSpecialiseStructure(t *testing.T) {
	stored := regexp.MustCompile(`add_stored\(meta, (\d+),`)
	list := regexp.MustCompile(`add_(?:list|adj)\(meta, lv, (\d+)`)
	above := regexp.MustCompile(`win_above\(m\[(\d+)\]`)
	below := regexp.MustCompile(`win_below\(m\[(\d+)\]`)
	differ := regexp.MustCompile(`&& m\[(\d+)\] != c`)
	nonadj := regexp.MustCompile(`adjacent\(goff, gadj, m\[(\d+)\], c\)`)
	mask := func(re *regexp.Regexp, s string) (m uint64) {
		for _, x := range re.FindAllStringSubmatch(s, -1) {
			var j int
			fmt.Sscan(x[1], &j)
			m |= 1 << j
		}
		return m
	}
	var pieced, fallback uint64
	for n, fp := range specCases(t) {
		src, err := specialise(kernelSource, fp)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < fp.L; i++ {
			pieced += boolMask(fp.Meta[i*metaStride+mFlags]&fPieces != 0)
			fallback += boolMask(fp.Meta[i*metaStride+mBackAll] != 0)
		}
		if strings.Contains(src, specMarker) {
			t.Fatalf("case %d: the marker is still there", n)
		}
		var want strings.Builder
		want.WriteString("#define STMATCH_LEVELS(X)")
		for i := 1; i < fp.L; i++ {
			fmt.Fprintf(&want, " X(%d)", i)
		}
		if !strings.Contains(src, want.String()+"\n") {
			t.Errorf("case %d (L=%d): no %q", n, fp.L, want.String())
		}
		for i := 1; i < fp.L; i++ {
			head := fmt.Sprintf("template <> struct Lvl<%d> {", i)
			if strings.Count(src, head) != 1 {
				t.Fatalf("case %d: %q appears %d times", n, head, strings.Count(src, head))
			}
			body := src[strings.Index(src, head):]
			body = body[:strings.Index(body, "\n};\n")]
			meta := fp.Meta[i*metaStride : (i+1)*metaStride]
			var reuse uint64
			if r := meta[mFlags] & fReuse; r != 0 {
				reuse = 1 << (r - 1)
			}
			var flags uint64
			fmt.Sscanf(body[strings.Index(body, "return 0x")+len("return 0x"):], "%x", &flags)
			for _, c := range []struct {
				what      string
				got, want uint64
			}{
				{"flags", flags, meta[mFlags] & 0xffffffff},
				{"reused set", mask(stored, body), reuse},
				{"lists", mask(list, body), meta[mBack] | meta[mBackAll]},
				{"fallback", boolMask(strings.Contains(body, "(pieced >> ")), boolMask(meta[mBackAll] != 0)},
				{"lower bounds", mask(above, body), meta[mLower]},
				{"upper bounds", mask(below, body), meta[mUpper]},
				{"injectivity", mask(differ, body), meta[mCollide]},
				{"non-adjacency", mask(nonadj, body), meta[mNonAdj]},
			} {
				if c.got != c.want {
					t.Errorf("case %d level %d: %s %#x in the generated code, %#x in the plan", n, i, c.what, c.got, c.want)
				}
			}
		}
	}
	t.Logf("%d levels in pieces, %d with a fallback for a reused set in pieces", pieced, fallback)
	if pieced == 0 || fallback == 0 {
		t.Error("no level in pieces, or no fallback")
	}
}

// boolMask is 1 for true, 0 for false.
func boolMask(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestSpecialisedKernelSyntax checks a sample of per-query kernels with clang's CUDA front end
// (template instantiation included): NVRTC compiles them for real on a GPU machine.
func TestSpecialisedKernelSyntax(t *testing.T) {
	if cudacheck.Clang() == "" {
		t.Skip("no clang")
	}
	seen := map[string]bool{}
	for n, fp := range specCases(t) {
		src, err := specialise(kernelSource, fp)
		if err != nil {
			t.Fatal(err)
		}
		if seen[src] {
			continue
		}
		seen[src] = true
		if len(seen)%5 == 1 || fp.L >= 7 { // a sample: every shape size, a fifth of the rest
			cudacheck.Syntax(t, fmt.Sprintf("stmatch_query_%d.cu", n), src)
		}
	}
	t.Logf("%d distinct per-query kernels", len(seen))
}

// TestSpecialiseNoMarker: a source without the marker is an error, not a generic kernel.
func TestSpecialiseNoMarker(t *testing.T) {
	if _, err := specialise("extern \"C\" __global__ void k() {}", &flatPlan{L: 2, Meta: make([]uint64, 2*metaStride)}); err == nil {
		t.Fatal("no error")
	}
}

// TestSourceID: the name Stats.QuerySource gives a per-query kernel's source is 16 hex digits,
// the same for the same source and different for different ones (the test's plans).
func TestSourceID(t *testing.T) {
	ids := map[string]string{} // id -> source
	for n, fp := range specCases(t) {
		src, err := specialise(kernelSource, fp)
		if err != nil {
			t.Fatal(err)
		}
		id := sourceID(src)
		if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" || id != sourceID(strings.Clone(src)) {
			t.Fatalf("case %d: id %q", n, id)
		}
		if other, ok := ids[id]; ok && other != src {
			t.Fatalf("case %d: id %s names two sources", n, id)
		}
		ids[id] = src
	}
	if len(ids) < 2 {
		t.Fatalf("%d distinct sources: the cases do not tell ids apart", len(ids))
	}
}
