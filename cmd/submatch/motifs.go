package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/mining"
)

func init() {
	registerCommand(command{name: "motifs", summary: "count every connected K-vertex pattern at once (motif census), non-induced and induced", run: runMotifs})
}

// motifRecord is one line of motifs --json.
type motifRecord struct {
	K                    int    `json:"k"`
	Name                 string `json:"name,omitempty"`
	Pattern              string `json:"pattern"`
	Edges                int    `json:"edges"`
	Automorphisms        uint64 `json:"automorphisms"`
	NonInduced           uint64 `json:"non_induced_unique"`
	NonInducedEmbeddings uint64 `json:"non_induced_embeddings"`
	Induced              uint64 `json:"induced_unique"`
	InducedEmbeddings    uint64 `json:"induced_embeddings"`
	Method               string `json:"method"`
}

func runMotifs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("motifs", "DATA -k K",
		"Counts every connected K-vertex pattern (K = 3..6: 2, 6, 21, 112 patterns) of the data graph at once,\n"+
			"ignoring labels unless --labelled: non-induced (copies of the pattern's edges) and vertex-induced (vertex sets inducing\n"+
			"exactly the pattern), each as distinct subgraphs (unique) and as embeddings (unique x |Aut|).\n"+
			"Each pattern is printed in the inline syntax, with its usual name for 3 to 5 vertices. 3- to\n"+
			"5-vertex non-induced counts come from closed formulas over degrees, triangles, 4-cycles and cliques\n"+
			"(method formula); 6-vertex ones by decomposition at small vertex cuts and cores (method\n"+
			"decomposition) where the rules apply, the rest one by one by the CPU engine (method engine);\n"+
			"induced counts follow from the non-induced ones through the pattern containment matrix.")
	var (
		common     commonFlags
		load       loadFlags
		k          int
		threads    int
		jsonOut    bool
		onlyInd    bool
		onlyNonInd bool
		perVertex  bool
		labelled   bool
		device     string
		gpuMem     string
		memory     string
	)
	common.register(fs)
	load.register(fs)
	fs.IntVar(&k, "k", 0, "pattern size `K` (3..6)")
	registerThreads(fs, &threads, "worker threads `N` (0: all cores)")
	fs.BoolVar(&jsonOut, "json", false, "print JSON, one object per pattern and line")
	fs.BoolVar(&onlyInd, "induced", false, "print only the induced counts")
	fs.BoolVar(&onlyNonInd, "non-induced", false, "print only the non-induced counts")
	fs.BoolVar(&perVertex, "per-vertex", false, "print per-vertex orbit counts instead (K = 3, 4 or 5: ORCA's orbits 0-3, 0-14 or 0-72, the graphlet degree\n"+
		"vectors), one line per vertex with its original id: induced (ORCA's convention) unless --non-induced; --json gives both")
	fs.BoolVar(&labelled, "labelled", false, "one count per pattern and assignment of vertex labels (K = 3..5; edge labels ignored): enumerates every\n"+
		"connected induced K-vertex subgraph, so meant for small and medium graphs")
	fs.StringVar(&device, "device", "cpu", "`WHERE` the heavy local counts (triangles, 4-cycles, cliques) run: cpu, gpu, or auto (the GPU when\n"+
		"one is usable, else the CPU, and a part that does not fit in the GPU's memory on the CPU; same counts); also for --per-vertex\n"+
		"and --labelled (the subgraph enumeration, tallied on the GPU per label combination, or in a hash table with many labels)")
	fs.StringVar(&gpuMem, "gpu-memory", "", "bound the GPU memory the census takes to `SIZE`, e.g. 512MiB (default: free memory minus a margin)")
	fs.StringVar(&memory, "memory", "", "bound the CPU workers' dense per-vertex scratch (5-vertex orbits, 6-vertex decomposition) to `SIZE`:\n"+
		"fewer workers run where threads x vertices would pass it (default: 4GiB; one worker always runs)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 1 {
		return exitCode(stderr, usagef("motifs needs exactly one data graph (run 'submatch help motifs')"))
	}
	if k == 0 {
		return exitCode(stderr, usagef("motifs needs -k K, the pattern size (3..%d)", mining.MaxK))
	}
	if k < 3 || k > mining.MaxK {
		return exitCode(stderr, usagef("motifs: -k %d: expected a pattern size in 3..%d", k, mining.MaxK))
	}
	dev, err := mining.ParseDevice(device)
	if err != nil {
		return exitCode(stderr, usagef("--device: %v", err))
	}
	gpuLimit, err := parseSize("--gpu-memory", gpuMem)
	if err != nil {
		return exitCode(stderr, err)
	}
	memLimit, err := parseSize("--memory", memory)
	if err != nil {
		return exitCode(stderr, err)
	}
	opts := mining.Options{K: k, Threads: threads, Log: newLogger(stderr, common.verbose), Device: dev, GPUMemory: gpuLimit, Memory: memLimit}
	if onlyInd && onlyNonInd {
		return exitCode(stderr, usagef("--induced and --non-induced exclude each other (give neither for both)"))
	}
	if err := common.check(); err != nil {
		return exitCode(stderr, err)
	}
	ctx, cancel := common.context(ctx)
	g, err := load.checkAndLoad(ctx, pos[0], common.verbose, stderr)
	if err != nil {
		cancel()
		return exitCode(stderr, err)
	}
	defer cancel()
	if labelled {
		if perVertex || k > 5 {
			return exitCode(stderr, usagef("motifs --labelled: K = 3..5, without --per-vertex"))
		}
		return printLabelled(ctx, g, opts, jsonOut, onlyInd, onlyNonInd, common, stdout, stderr)
	}
	if perVertex {
		return printPerVertex(ctx, g, opts, jsonOut, onlyInd, onlyNonInd, common, stdout, stderr)
	}
	start := time.Now()
	c, err := mining.Count(ctx, g, opts)
	if err != nil {
		if isCancel(err) {
			fmt.Fprintf(stderr, "submatch: motifs: %s; no census printed\n", stopReason(ctx, common.timeout))
			return exitPartial
		}
		return exitCode(stderr, err)
	}
	elapsed := time.Since(start)
	recs := make([]motifRecord, len(c.Motifs))
	for i, m := range c.Motifs {
		e, ei, err := m.Embeddings()
		if err != nil {
			return exitCode(stderr, err)
		}
		recs[i] = motifRecord{K: k, Name: m.Name, Pattern: m.Pattern, Edges: m.Edges, Automorphisms: m.Automorphisms,
			NonInduced: m.NonInduced, NonInducedEmbeddings: e, Induced: m.Induced, InducedEmbeddings: ei, Method: m.Method}
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		for _, r := range recs {
			if onlyInd {
				r.NonInduced, r.NonInducedEmbeddings = 0, 0
			}
			if onlyNonInd {
				r.Induced, r.InducedEmbeddings = 0, 0
			}
			if err := enc.Encode(r); err != nil {
				return exitCode(stderr, err)
			}
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	header := "name\tedges\taut"
	if !onlyInd {
		header += "\tnon-induced\tnon-induced-embeddings"
	}
	if !onlyNonInd {
		header += "\tinduced\tinduced-embeddings"
	}
	fmt.Fprintln(tw, header+"\tmethod\tpattern")
	for _, r := range recs {
		name := r.Name
		if name == "" {
			name = "-"
		}
		line := name + "\t" + strconv.Itoa(r.Edges) + "\t" + strconv.FormatUint(r.Automorphisms, 10)
		if !onlyInd {
			line += fmt.Sprintf("\t%d\t%d", r.NonInduced, r.NonInducedEmbeddings)
		}
		if !onlyNonInd {
			line += fmt.Sprintf("\t%d\t%d", r.Induced, r.InducedEmbeddings)
		}
		fmt.Fprintln(tw, line+"\t"+r.Method+"\t"+r.Pattern)
	}
	tw.Flush()
	fmt.Fprintf(stderr, "motifs: k=%d, %d patterns, %d vertices, %d edges, %.1f ms\n", k, len(recs), c.Vertices, c.Edges, ms(elapsed))
	return exitOK
}

// printPerVertex runs and prints motifs --per-vertex.
func printPerVertex(ctx context.Context, g *graph.Graph, opts mining.Options, jsonOut, onlyInd, onlyNonInd bool, common commonFlags, stdout, stderr io.Writer) int {
	k := opts.K
	if k > 5 {
		return exitCode(stderr, usagef("motifs --per-vertex: -k %d: per-vertex orbit counts are computed for K = 3, 4 or 5", k))
	}
	start := time.Now()
	vc, err := mining.CountPerVertex(ctx, g, opts)
	if err != nil {
		if isCancel(err) {
			fmt.Fprintf(stderr, "submatch: motifs: %s; no counts printed\n", stopReason(ctx, common.timeout))
			return exitPartial
		}
		return exitCode(stderr, err)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	order := make([]uint32, g.NumVertices()) // vertices by original id
	for v := range order {
		order[v] = uint32(v)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(g.OriginalID(a), g.OriginalID(b)) })
	if jsonOut {
		enc := json.NewEncoder(w)
		for _, v := range order {
			rec := map[string]any{"vertex": g.OriginalID(v)}
			if !onlyNonInd {
				rec["induced"] = vc.Induced[v]
			}
			if !onlyInd {
				rec["non_induced"] = vc.NonInduced[v]
			}
			if err := enc.Encode(rec); err != nil {
				return exitCode(stderr, err)
			}
		}
	} else {
		w.WriteString("vertex")
		for _, o := range vc.Orbits {
			fmt.Fprintf(w, "\torbit%d:%s/%d", o.ORCA, strings.ReplaceAll(o.Name, " ", "-"), o.Degree)
		}
		w.WriteString("\n")
		counts := vc.Induced
		if onlyNonInd {
			counts = vc.NonInduced
		}
		for _, v := range order {
			w.WriteString(strconv.FormatInt(g.OriginalID(v), 10))
			for _, x := range counts[v] {
				w.WriteString("\t")
				w.WriteString(strconv.FormatUint(x, 10))
			}
			w.WriteString("\n")
		}
	}
	fmt.Fprintf(stderr, "motifs --per-vertex: k=%d, %d orbits, %d vertices, %.1f ms\n", k, len(vc.Orbits), g.NumVertices(), ms(time.Since(start)))
	return exitOK
}

// printLabelled runs and prints motifs --labelled.
func printLabelled(ctx context.Context, g *graph.Graph, opts mining.Options, jsonOut, onlyInd, onlyNonInd bool, common commonFlags, stdout, stderr io.Writer) int {
	start := time.Now()
	k := opts.K
	lm, err := mining.CountLabelled(ctx, g, opts)
	if err != nil {
		if isCancel(err) {
			fmt.Fprintf(stderr, "submatch: motifs: %s; no census printed\n", stopReason(ctx, common.timeout))
			return exitPartial
		}
		return exitCode(stderr, err)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	if !jsonOut {
		header := "name\tlabels\taut"
		if !onlyInd {
			header += "\tnon-induced\tnon-induced-embeddings"
		}
		if !onlyNonInd {
			header += "\tinduced\tinduced-embeddings"
		}
		fmt.Fprintln(tw, header+"\tpattern")
	}
	enc := json.NewEncoder(w)
	for _, m := range lm {
		nonIndEmb, indEmb, err := m.Embeddings()
		if err != nil {
			return exitCode(stderr, err)
		}
		nonInd, ind := m.NonInduced, m.Induced
		if onlyInd {
			nonInd, nonIndEmb = 0, 0
		}
		if onlyNonInd {
			ind, indEmb = 0, 0
		}
		if jsonOut {
			rec := map[string]any{"k": k, "name": m.Name, "labels": m.Labels, "pattern": m.Pattern, "automorphisms": m.Automorphisms}
			if !onlyInd {
				rec["non_induced_unique"], rec["non_induced_embeddings"] = nonInd, nonIndEmb
			}
			if !onlyNonInd {
				rec["induced_unique"], rec["induced_embeddings"] = ind, indEmb
			}
			if err := enc.Encode(rec); err != nil {
				return exitCode(stderr, err)
			}
			continue
		}
		labels := make([]string, len(m.Labels))
		for i, l := range m.Labels {
			labels[i] = strconv.FormatUint(uint64(l), 10)
		}
		line := m.Name + "\t" + strings.Join(labels, ",") + "\t" + strconv.FormatUint(m.Automorphisms, 10)
		if !onlyInd {
			line += fmt.Sprintf("\t%d\t%d", nonInd, nonIndEmb)
		}
		if !onlyNonInd {
			line += fmt.Sprintf("\t%d\t%d", ind, indEmb)
		}
		fmt.Fprintln(tw, line+"\t"+m.Pattern)
	}
	tw.Flush()
	fmt.Fprintf(stderr, "motifs --labelled: k=%d, %d labelled patterns, %.1f ms\n", k, len(lm), ms(time.Since(start)))
	return exitOK
}
