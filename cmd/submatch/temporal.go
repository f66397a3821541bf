package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/submatch/submatch/formats"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/temporal"
)

func init() {
	registerCommand(command{name: "temporal", summary: "count or list temporal patterns, or the 36 three-edge temporal motifs, in a timestamped edge list", run: runTemporal})
}

const temporalHelp = "Subcommands:\n" +
	"  count DATA PATTERN --delta D   count the matches of a temporal pattern\n" +
	"  list DATA PATTERN --delta D    list them, one line per match: its events as SRC->DST@TIME in order\n" +
	"  motifs DATA --delta D          the 36 two- and three-node, three-edge motifs (Paranjape, Benson and\n" +
	"                                 Leskovec, WSDM 2017) in SNAP temporalmotifs' 6x6 layout\n\n" +
	"DATA holds one event 'SRC DST TIME' per line (whitespace or commas; # comments; a header line is\n" +
	"skipped); parallel events are kept, self-loops dropped. PATTERN is a sequence of directed edges in\n" +
	"the order they must happen, e.g. 'a->b, b->c, c->a'. A match maps pattern vertices to distinct data\n" +
	"vertices and each pattern edge to an event between their images, the events in time order and the\n" +
	"last at most D after the first (non-induced; each distinct sequence of events once). Events with\n" +
	"equal timestamps follow each other in input order; --strict-time requires increasing timestamps."

func runTemporal(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "count" && args[0] != "list" && args[0] != "motifs") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, "Usage: submatch temporal count|list|motifs [flags] DATA [PATTERN] --delta D\n\n"+temporalHelp+
				"\n\nRun 'submatch temporal count -h' (or list -h, motifs -h) for their flags.")
			return exitOK
		}
		return exitCode(stderr, usagef("temporal needs a subcommand: count, list or motifs (run 'submatch temporal -h')"))
	}
	sub := args[0]
	syntax := "DATA PATTERN --delta D"
	if sub == "motifs" {
		syntax = "DATA --delta D"
	}
	fls := newFlagSet("temporal "+sub, syntax, temporalHelp)
	var (
		common  commonFlags
		delta   string
		strict  bool
		threads int
		jsonOut bool
		limit   int
		device  string
		gpuMem  string
	)
	common.register(fls)
	fls.StringVar(&delta, "delta", "", "time window `D`: an integer in the timestamps' unit, or a duration such as 1h or 90s for Unix-second timestamps (required)")
	fls.BoolVar(&strict, "strict-time", false, "require strictly increasing timestamps along a match (default: equal timestamps in input order)")
	registerThreads(fls, &threads, "worker threads `N` (0: all cores)")
	fls.BoolVar(&jsonOut, "json", false, "print JSON")
	fls.StringVar(&device, "device", "cpu", "run on `WHERE`: cpu, gpu, or auto (the GPU when one is usable and the work fits in its memory, else the CPU; same results)")
	fls.StringVar(&gpuMem, "gpu-memory", "", "bound the GPU memory taken (the graph's arrays included) to `SIZE`, e.g. 512MiB (default: free memory minus a margin); a listing works in slices within it")
	if sub == "list" {
		fls.IntVar(&limit, "limit", 0, "stop after `N` matches (0: all)")
	}
	pos, err := parseArgs(fls, args[1:], stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	want := 2
	if sub == "motifs" {
		want = 1
	}
	if len(pos) != want {
		return exitCode(stderr, usagef("temporal %s needs %s (run 'submatch temporal -h')", sub, syntax))
	}
	dev, err := temporal.ParseDevice(device)
	if err != nil {
		return exitCode(stderr, usagef("--device: %v", err))
	}
	d, err := parseDelta(delta)
	if err != nil {
		return exitCode(stderr, err)
	}
	gpuLimit, err := parseSize("--gpu-memory", gpuMem)
	if err != nil {
		return exitCode(stderr, err)
	}
	if limit < 0 {
		return exitCode(stderr, usagef("--limit must be >= 0"))
	}
	if err := common.check(); err != nil {
		return exitCode(stderr, err)
	}
	var p *temporal.Pattern
	if sub != "motifs" {
		if p, err = temporal.Parse(pos[1]); err != nil {
			return exitCode(stderr, &inputError{err: err})
		}
	}
	log := newLogger(stderr, common.verbose)
	ctx, cancel := common.context(ctx) // --timeout covers loading too
	defer cancel()
	start := time.Now()
	g, err := loadTemporal(ctx, pos[0])
	if err != nil && ctx.Err() != nil {
		return exitCode(stderr, loadStopped(ctx, pos[0]))
	}
	if err != nil {
		var ie *temporal.InputError
		var pe *fs.PathError
		if errors.As(err, &ie) || errors.As(err, &pe) {
			return exitCode(stderr, &inputError{err: err})
		}
		return exitCode(stderr, err)
	}
	log.Debug("loaded temporal graph", "path", pos[0], "vertices", g.NumVertices(), "events", len(g.Events), "self_loops_dropped", g.SelfLoops, "elapsed", time.Since(start).Round(time.Microsecond))
	o := temporal.Options{Delta: d, Strict: strict, Threads: threads, Device: dev, GPUMemory: gpuLimit}
	runStart := time.Now()
	switch sub {
	case "count":
		n, err := temporal.Count(ctx, g, p, o)
		partial := err != nil && isCancel(err)
		if err != nil && !partial {
			return exitCode(stderr, err)
		}
		if jsonOut {
			jsonEncoder(stdout).Encode(map[string]any{"pattern": p.String(), "delta": d, "strict_time": strict, "count": n, "partial": partial, "ms": ms(time.Since(runStart))})
		} else {
			fmt.Fprintf(stdout, "%s\t%d\n", p.String(), n)
		}
		if partial {
			fmt.Fprintf(stderr, "submatch: temporal count: %s; the count %d is partial (a lower bound)\n", stopReason(ctx, common.timeout), n)
			return exitPartial
		}
	case "list":
		w := bufio.NewWriter(stdout)
		defer w.Flush()
		n := 0
		for sel, err := range temporal.Matches(ctx, g, p, o) {
			if err != nil {
				w.Flush()
				if isCancel(err) {
					fmt.Fprintf(stderr, "submatch: temporal list: %s after %d matches\n", stopReason(ctx, common.timeout), n)
					return exitPartial
				}
				return exitCode(stderr, err)
			}
			writeTemporalMatch(w, g, p, sel, jsonOut)
			n++
			if limit > 0 && n >= limit {
				break
			}
		}
	case "motifs":
		grid, err := temporal.Grid(ctx, g, o)
		if err != nil {
			if isCancel(err) {
				fmt.Fprintf(stderr, "submatch: temporal motifs: %s; no counts printed\n", stopReason(ctx, common.timeout))
				return exitPartial
			}
			return exitCode(stderr, err)
		}
		var total uint64
		for _, row := range grid {
			for _, x := range row {
				total += x
			}
		}
		if jsonOut {
			type cell struct {
				Row     int    `json:"row"`
				Col     int    `json:"col"`
				Pattern string `json:"pattern"`
				Count   uint64 `json:"count"`
			}
			var cells []cell
			for i := range 6 {
				for j := range 6 {
					cells = append(cells, cell{i + 1, j + 1, temporal.GridMotifs[i][j], grid[i][j]})
				}
			}
			jsonEncoder(stdout).Encode(map[string]any{"delta": d, "strict_time": strict, "grid": grid, "motifs": cells, "total": total, "ms": ms(time.Since(runStart))})
			return exitOK
		}
		for _, row := range grid {
			parts := make([]string, 6)
			for j, x := range row {
				parts[j] = strconv.FormatUint(x, 10)
			}
			fmt.Fprintln(stdout, strings.Join(parts, " "))
		}
		fmt.Fprintf(stderr, "temporal motifs: delta %d, %d events, total %d, %.1f ms\n", d, len(g.Events), total, ms(time.Since(runStart)))
	}
	return exitOK
}

// writeTemporalMatch prints one match: per pattern edge, the event as "src->dst@time".
func writeTemporalMatch(w io.Writer, g *temporal.Graph, p *temporal.Pattern, sel []uint32, jsonOut bool) {
	if jsonOut {
		type ev struct {
			Src  int64 `json:"src"`
			Dst  int64 `json:"dst"`
			Time int64 `json:"time"`
		}
		evs := make([]ev, len(sel))
		for i, x := range sel {
			e := g.Events[x]
			evs[i] = ev{g.OriginalID(e.Src), g.OriginalID(e.Dst), e.Time}
		}
		b, _ := json.Marshal(evs)
		w.Write(append(b, '\n'))
		return
	}
	for i, x := range sel {
		e := g.Events[x]
		if i > 0 {
			io.WriteString(w, "\t")
		}
		fmt.Fprintf(w, "%d->%d@%d", g.OriginalID(e.Src), g.OriginalID(e.Dst), e.Time)
	}
	io.WriteString(w, "\n")
}

// parseDelta reads --delta: an integer, or a Go duration taken in seconds.
func parseDelta(s string) (int64, error) {
	if s == "" {
		return 0, usagef("--delta is required: the time window, e.g. --delta 3600")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 && d%time.Second == 0 {
		return int64(d / time.Second), nil
	}
	return 0, usagef("--delta %q: expected a non-negative integer or a whole number of seconds such as 1h", s)
}

// jsonEncoder writes JSON without escaping '>' (patterns read "a->b").
func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// loadTemporal reads a temporal graph as every command reads its inputs (formats.Open: "-" is
// standard input, gzip and zstd are decompressed, a FIFO or a device is refused).
func loadTemporal(ctx context.Context, path string) (*temporal.Graph, error) {
	r, name, err := formats.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return temporal.Read(r, name)
}
