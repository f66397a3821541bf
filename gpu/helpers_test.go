package gpu

import (
	"bufio"
	"fmt"
	"github.com/submatch/submatch/internal/testenv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EnvTestdata names the folder holding the shared test data (../shared/testdata of the repo).
const EnvTestdata = "SUBMATCH_TESTDATA"

// EnvResults names a file to which the GPU tests append one tab-separated line per comparison
// (name, vertices, edges, cpu count, gpu count, cpu ms, gpu kernel ms, gpu call ms, verdict), for
// scripts/gpu-check.sh's table.
const EnvResults = "SUBMATCH_RESULTS"

func testdataDir() string { return testenv.Dir() }

// loadWikiVote reads wikivote-graphpi/wiki-vote_input: a header "n m", then "u v" per line,
// ids not contiguous. It skips the test when the file is absent.
func loadWikiVote(t testing.TB) (offsets []uint64, nbrs []uint32) {
	t.Helper()
	path := filepath.Join(testdataDir(), "wikivote-graphpi", "wiki-vote_input")
	f, err := os.Open(path)
	if err != nil {
		testenv.Missing(t, "wiki-Vote", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var edges [][2]uint32
	maxID := uint32(0)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 2 {
			t.Fatalf("%s:%d: want two fields, got %q", path, line, sc.Text())
		}
		a, err1 := strconv.ParseUint(fs[0], 10, 32)
		b, err2 := strconv.ParseUint(fs[1], 10, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad ids %q", path, line, sc.Text())
		}
		if line == 1 {
			continue // header: vertex and edge counts
		}
		edges = append(edges, [2]uint32{uint32(a), uint32(b)})
		maxID = max(maxID, uint32(a), uint32(b))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	offsets, nbrs, err = BuildCSR(int(maxID)+1, edges)
	if err != nil {
		t.Fatal(err)
	}
	return offsets, nbrs
}

// randomGraph returns a G(n, m)-like graph (m edge draws, duplicates dropped).
func randomGraph(seed uint64, n, m int) ([]uint64, []uint32) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	edges := make([][2]uint32, m)
	for i := range edges {
		edges[i] = [2]uint32{uint32(r.IntN(n)), uint32(r.IntN(n))}
	}
	o, nb, err := BuildCSR(n, edges)
	if err != nil {
		panic(err)
	}
	return o, nb
}

// skewedGraph returns an R-MAT-like graph with 2^scale vertices: heavy hubs, many triangles.
func skewedGraph(seed uint64, scale, m int) ([]uint64, []uint32) {
	r := rand.New(rand.NewPCG(seed, 7))
	edges := make([][2]uint32, m)
	for i := range edges {
		var u, v uint32
		for b := 0; b < scale; b++ {
			p := r.Float64()
			switch {
			case p < 0.57:
			case p < 0.76:
				v |= 1 << b
			case p < 0.95:
				u |= 1 << b
			default:
				u |= 1 << b
				v |= 1 << b
			}
		}
		edges[i] = [2]uint32{u, v}
	}
	o, nb, err := BuildCSR(1<<scale, edges)
	if err != nil {
		panic(err)
	}
	return o, nb
}

func bruteTriangles(offsets []uint64, nbrs []uint32) uint64 {
	n := len(offsets) - 1
	adj := make([]map[uint32]bool, n)
	for u := 0; u < n; u++ {
		adj[u] = map[uint32]bool{}
		for _, v := range nbrs[offsets[u]:offsets[u+1]] {
			adj[u][v] = true
		}
	}
	var c uint64
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if !adj[u][uint32(v)] {
				continue
			}
			for w := v + 1; w < n; w++ {
				if adj[u][uint32(w)] && adj[v][uint32(w)] {
					c++
				}
			}
		}
	}
	return c
}

func record(t testing.TB, name string, offsets []uint64, nbrs []uint32, cpu, gpu uint64, cpuT, kernelT, callT time.Duration) {
	verdict := "ok"
	if cpu != gpu {
		verdict = "MISMATCH"
	}
	line := fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%.2f\t%.3f\t%.2f\t%s\n", name, len(offsets)-1, len(nbrs)/2, cpu, gpu,
		ms(cpuT), ms(kernelT), ms(callT), verdict)
	t.Logf("RESULT %s", strings.TrimSpace(line))
	if p := os.Getenv(EnvResults); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
