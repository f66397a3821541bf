package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMotifsCiteseer(t *testing.T) {
	dir := needData(t, "citeseer-graphminer")
	code, out, errOut := runCmd(t, "motifs", dir, "-k", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := map[string][2]uint64{"4-clique": {255, 255}, "diamond": {3730, 2200}, "4-cycle": {6059, 3094},
		"tailed triangle": {34760, 22900}, "3-star": {250950, 222630}, "4-path": {185589, 111153}}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), out)
	}
	for _, line := range lines {
		var r motifRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		w := want[r.Name]
		if r.NonInduced != w[0] || r.Induced != w[1] || r.NonInducedEmbeddings != w[0]*r.Automorphisms {
			t.Errorf("%s: %+v, want %v", r.Name, r, w)
		}
	}
}

func TestMotifsTable(t *testing.T) {
	g := writeFile(t, "g.txt", "0 1\n1 2\n2 0\n2 3\n")
	code, out, errOut := runCmd(t, "motifs", g, "-k", "3", "--induced")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Wedges: 2 induced (0-2-3, 1-2-3); one triangle.
	for _, want := range []string{"3-path", "triangle", "(a)-(b), (a)-(c)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "non-induced") {
		t.Errorf("--induced printed non-induced counts:\n%s", out)
	}
	rows := tsvFields(out)
	if rows["3-path"][3] != "2" || rows["triangle"][3] != "1" {
		t.Errorf("induced counts wrong:\n%s", out)
	}
}

// tsvFields splits a space-aligned table into fields keyed by the first column.
func tsvFields(out string) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "  ")
		var keep []string
		for _, x := range f {
			if x = strings.TrimSpace(x); x != "" {
				keep = append(keep, x)
			}
		}
		if len(keep) > 0 {
			m[keep[0]] = keep
		}
	}
	return m
}

func TestMotifsUsage(t *testing.T) {
	g := writeFile(t, "g.txt", "0 1\n")
	for _, args := range [][]string{{"motifs", g}, {"motifs", g, "-k", "7"}, {"motifs", "-k", "3"}, {"motifs", g, "-k", "3", "--induced", "--non-induced"},
		{"motifs", g, "-k", "3", "--gpu-memory", "lots"}, {"motifs", g, "-k", "3", "--memory", "0"}, {"motifs", g, "-k", "3", "--device", "tpu"}} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCmd(t, "motifs", "/nonexistent", "-k", "3"); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

func TestMotifsPerVertex(t *testing.T) {
	g := writeFile(t, "g.txt", "10 20\n20 30\n30 10\n30 40\n")
	code, out, errOut := runCmd(t, "motifs", g, "-k", "4", "--per-vertex")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// A triangle 10-20-30 with a tail 30-40: vertex 30 has degree 3, is the middle of two induced
	// 3-paths, in one triangle and the degree-3 vertex of one tailed triangle (orbit 11).
	want := "30\t3\t0\t2\t1\t0\t0\t0\t0\t0\t0\t0\t1\t0\t0\t0"
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "vertex\torbit0:edge/1") || lines[1][:2] != "10" || lines[3] != want {
		t.Errorf("per-vertex output:\n%s\nwant line %q", out, want)
	}
	// bounded scratch and the device flags: the same counts (auto runs on the CPU without a GPU)
	for _, extra := range [][]string{{"--memory", "1KiB", "-t", "2"}, {"--device", "auto", "--gpu-memory", "1MiB"}} {
		code, out2, errOut := runCmd(t, append([]string{"motifs", g, "-k", "4", "--per-vertex"}, extra...)...)
		if code != 0 || out2 != out {
			t.Errorf("%v: exit %d (%s), output differs: %v", extra, code, errOut, out2 != out)
		}
	}
	if code, _, _ := runCmd(t, "motifs", g, "-k", "6", "--per-vertex"); code != 2 {
		t.Errorf("-k 6 --per-vertex: exit %d, want 2", code)
	}
	// A bull: triangle 10-20-30 with tails 30-40 and 20-50. Vertex 30 is its degree-3 vertex
	// (ORCA's orbit 26) once, induced.
	g = writeFile(t, "bull.txt", "10 20\n20 30\n30 10\n30 40\n20 50\n")
	code, out, errOut = runCmd(t, "motifs", g, "-k", "5", "--per-vertex")
	if code != 0 {
		t.Fatalf("-k 5: exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	head := strings.Split(lines[0], "\t")
	if len(lines) != 6 || len(head) != 74 || head[27] != "orbit26:bull/3" {
		t.Fatalf("-k 5 per-vertex output:\n%s", out)
	}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if f[0] == "30" {
			var fives []string
			for i, x := range f[16:] {
				if x != "0" {
					fives = append(fives, head[16+i]+"="+x)
				}
			}
			if strings.Join(fives, " ") != "orbit26:bull/3=1" {
				t.Errorf("vertex 30's 5-vertex orbits: %v, want orbit26:bull/3=1 alone", fives)
			}
		}
	}
}

func TestMotifsLabelled(t *testing.T) {
	g := writeFile(t, "g.txt", "t 4 4\nv 0 1 2\nv 1 1 2\nv 2 2 3\nv 3 1 1\ne 0 1\ne 1 2\ne 2 0\ne 2 3\n")
	code, out, errOut := runCmd(t, "motifs", g, "-k", "3", "--labelled", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Induced: 3-paths 0-2-3 and 1-2-3 (centre label 2, leaves 1 and 1), one triangle (1, 1, 2).
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 { // 3-paths centred on label 1 (non-induced only), on label 2, the triangle
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var induced uint64
	for _, line := range lines {
		var r struct {
			Name    string
			Labels  []uint32
			Induced uint64 `json:"induced_unique"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		induced += r.Induced
		if r.Name == "triangle" && r.Induced != 1 {
			t.Errorf("triangle: %s", line)
		}
	}
	if induced != 3 {
		t.Errorf("induced total %d, want 3:\n%s", induced, out)
	}
	// --device auto: the same table (on the CPU without a GPU, on it with one)
	if code, auto, errOut := runCmd(t, "motifs", g, "-k", "3", "--labelled", "--json", "--device", "auto"); code != 0 || auto != out {
		t.Errorf("--device auto: exit %d (%s):\n%s\nwant\n%s", code, errOut, auto, out)
	}
	if code, _, _ := runCmd(t, "motifs", g, "-k", "6", "--labelled"); code != 2 {
		t.Errorf("-k 6 --labelled: exit %d, want 2", code)
	}
}
