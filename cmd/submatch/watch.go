package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

func init() {
	registerCommand(command{name: "watch", summary: "apply an update stream to a graph and report the matches each batch creates and destroys", run: runWatch})
}

type watchFlags struct {
	commonFlags
	loadFlags
	updatesPath     string
	batch           int
	interval        time.Duration
	initial         bool
	emit            string
	onInvalid       string
	json            bool
	induced, unique bool
	threads         int
	queryFormat     string
	engine          string
	timestamps      bool
	timeUnit        time.Duration
	window          time.Duration
	checkpoint      string
	checkpointEvery int
	resume          string
	gpuMemory       string
	gcsmMode        string
	rate            float64
	rateSeed        uint64
}

func (f *watchFlags) register(fs *flag.FlagSet) {
	f.commonFlags.register(fs)
	f.loadFlags.register(fs)
	fs.StringVar(&f.updatesPath, "updates", "", "read the update stream from `FILE` (- for stdin): `e u v [label]`, `-e u v [label]`, `v id label`, `-v id`, # comments, or JSON lines")
	fs.IntVar(&f.batch, "batch", 1, "apply `N` updates at a time and report each batch's net change (1: every update)")
	fs.DurationVar(&f.interval, "batch-interval", 0, "on a timestamped stream, one batch per time interval `DURATION` instead of --batch")
	fs.BoolVar(&f.initial, "initial", false, "count every pattern on the data graph first (the static CPU engine); the totals are then absolute")
	fs.StringVar(&f.emit, "emit", "counts", "`WHAT` to print: counts (per batch and pattern) or matches (also every created (+) and destroyed (-) match, original ids)")
	fs.StringVar(&f.onInvalid, "on-invalid", "error", "`POLICY` for an invalid update (edge already present, missing edge or vertex, second label, self-loop): error (exit 2 naming the line) or skip (counted in the summary)")
	fs.BoolVar(&f.json, "json", false, "print JSON, one object per line")
	fs.BoolVar(&f.induced, "induced", false, "vertex-induced matches: inserting an edge destroys the matches where its endpoints were non-adjacent")
	fs.BoolVar(&f.unique, "unique", false, "count each distinct subgraph once")
	registerThreads(fs, &f.threads, "worker threads `N` (0: all cores): within a batch, or, from two up on a counting run over a stream file of 256 batches or more, a second goroutine that searches while the first keeps the graph (patterns of exact labels) or takes the end of the stream (docs/csm.md)")
	fs.StringVar(&f.queryFormat, "query-format", "", "input format `NAME` of pattern files (default: detected)")
	fs.StringVar(&f.engine, "engine", "auto", "continuous-matching engine `NAME`: cpu, gcsm (GPU, batches), dcsm (GPU, per update) or auto (a GPU engine for a data graph file of 64 MiB or more when a GPU is usable and takes the patterns, else cpu)")
	fs.BoolVar(&f.timestamps, "timestamps", false, "every text line of the stream ends with an integer timestamp (implied by --window and --batch-interval)")
	fs.DurationVar(&f.timeUnit, "time-unit", time.Second, "the `DURATION` of one timestamp unit")
	fs.DurationVar(&f.window, "window", 0, "sliding window: an edge inserted at time t is deleted when the stream reaches t + `DURATION` (the matches it destroys are reported as a batch 'expire')")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "write the graph and the stream position to `FILE` (and the graph to FILE.SEQ.smg, which FILE names) every --checkpoint-every updates, at the end and on SIGINT/SIGTERM")
	fs.IntVar(&f.checkpointEvery, "checkpoint-every", 100000, "updates between two checkpoints `N`")
	fs.StringVar(&f.gpuMemory, "gpu-memory", "", "bound a GPU engine's device memory to `SIZE` (gcsm: its buffers and the cache of hot adjacency lists; default: free memory minus a margin)")
	fs.StringVar(&f.gcsmMode, "gcsm-mode", "", "`MODE` of --engine gcsm, for measurement: cache (default: the lists a random-walk estimate reads most in GPU memory, the rest zero-copy), cache-bytes (uniform walks, ranked by estimated bytes read through the mapping), cache-density (by estimated bytes read per byte cached), cache-sampled (cache-bytes with each walk step checking a sample of its candidates), zerocopy, degree (the highest-degree lists cached), device (every list in GPU memory) or unified (the host graph in CUDA managed memory, no cache)")
	fs.Float64Var(&f.rate, "rate", 0, "replay the stream as if its updates arrived at `R` a second (exponential gaps, the same on every run), waiting for each batch's last arrival, and report the response time of the updates (arrival to result) and the throughput in the summary (0: as fast as possible)")
	fs.Uint64Var(&f.rateSeed, "rate-seed", 1, "the `SEED` of --rate's arrival times")
	fs.StringVar(&f.resume, "resume", "", "continue from the checkpoint `FILE` (same data, patterns and flags; the stream's lines up to the checkpoint are skipped)")
}

// watchCheckpoint is the JSON of a checkpoint file; the graph is in the .smg next to it.
type watchCheckpoint struct {
	Version   int              `json:"version"`
	Patterns  []string         `json:"patterns"`
	Semantics string           `json:"semantics"`
	Line      int              `json:"line"` // the last stream line consumed
	Seq       int              `json:"seq"`
	Updates   int              `json:"updates"`
	Batches   int              `json:"batches,omitempty"` // (absent in the checkpoints before it: 0)
	Skipped   int              `json:"skipped"`
	Initial   []uint64         `json:"initial,omitempty"`
	Created   []uint64         `json:"created"`
	Destroyed []uint64         `json:"destroyed"`
	Window    []csm.WindowEdge `json:"window,omitempty"`
	// Graph is the file name of the graph's snapshot, in the checkpoint's folder (FILE.SEQ.smg);
	// "" in the checkpoints before it: FILE.smg.
	Graph string `json:"graph,omitempty"`
}

// loadCheckpointFile reads the checkpoint at path; ok is false when its JSON does not decode.
func loadCheckpointFile(path string) (cp watchCheckpoint, ok bool, err error) {
	// A checkpoint is a regular file this command wrote: a FIFO (or a device) is refused, never
	// waited on (a read of a FIFO with no writer blocks in open, beyond the reach of Ctrl-C).
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return cp, false, fmt.Errorf("%s: is not a regular file (a folder, a device or a pipe)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cp, false, err
	}
	ok = json.Unmarshal(data, &cp) == nil
	return cp, ok, nil
}

// checkpointGraph returns the path of the graph of the checkpoint path (FILE.smg when its JSON
// cannot be read: the resume then says why).
func checkpointGraph(path string) string {
	cp, _, _ := loadCheckpointFile(path)
	return cp.graphPath(path)
}

// replacedGraph returns the graph file of the checkpoint at path, "" when there is none or it
// is not one this command names (FILE.SEQ.smg beside FILE): a run that replaces the checkpoint
// of another removes its graph with it.
func replacedGraph(path string) string {
	cp, ok, err := loadCheckpointFile(path)
	if err != nil || !ok {
		return ""
	}
	g := cp.Graph
	if g != filepath.Base(g) || !strings.HasPrefix(g, filepath.Base(path)+".") || !strings.HasSuffix(g, ".smg") {
		return ""
	}
	return cp.graphPath(path)
}

// graphPath returns the path of the snapshot of the checkpoint path.
func (cp *watchCheckpoint) graphPath(path string) string {
	if cp.Graph == "" {
		return path + ".smg"
	}
	return filepath.Join(filepath.Dir(path), cp.Graph)
}

// watchMode is how the last watch ran its stream: serial, pipeline or cut (tests).
var watchMode string

// watchMinCores is the least number of cores the load must have had on average (loadCores) for
// the stream to be pipelined or cut in two (a variable for the tests).
var watchMinCores = 1.3

// watchKillAfter, when positive, makes watch stop dead after that many batches of this run,
// without a checkpoint or a summary: the tests' stand-in for a kill -9.
var watchKillAfter int

// watchCrashInCheckpoint, when positive, makes that checkpoint (counted from 1) stop dead after
// writing the graph and before committing the JSON: the tests' stand-in for a kill -9 in the
// middle of a checkpoint.
var watchCrashInCheckpoint int

type watchState struct {
	f         *watchFlags
	names     []string
	pats      []*pattern.Pattern
	out       *bufio.Writer
	flushEach bool
	initial   []uint64
	created   []uint64
	destroyed []uint64
	seq       int
	line      int
	updates   int
	skipped   int
	batches   int    // since the stream's start, across resumes
	resumedAt int    // batches when this run resumed (0 when it did not)
	cps       int    // checkpoints begun
	cpGraph   string // the graph file the checkpoint committed at --checkpoint names (this run's or the one it replaces)
	win       *csm.Window
	expired   []updates.Update // a per-update engine's expiry (expireStream)
	expiry    csm.Result       // its summed deltas
	replay    *replay          // --rate
	m         csm.Matcher
	log       *slog.Logger
	buf       []byte // a line of --emit matches
	prefix    []byte // its start, for prefixOf
	prefixOf  matchKey
	gc        *gcHold
	werr      error // a write error of --emit matches
}

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("watch", "DATA PATTERN... --updates FILE|-",
		"Applies the update stream to the data graph DATA and reports, per batch and pattern, the matches the batch\n"+
			"created and destroyed (its net change: each match counted once) and the running total: TSV lines\n"+
			"SEQ, LINES (the stream lines of the batch), PATTERN, +CREATED, -DESTROYED, TOTAL (absolute with --initial,\n"+
			"else the net change since the start); a final summary as '#' lines. Invalid updates are an error naming\n"+
			"the line (exit 2) unless --on-invalid skip. A PATTERN is a graph file or an inline pattern.")
	var f watchFlags
	f.register(fs)
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if err := f.check(pos); err != nil {
		return exitCode(stderr, err)
	}
	if f.interval > 0 && flagGiven(fs, "batch") { // two ways to cut batches: --batch was ignored
		return exitCode(stderr, usagef("--batch and --batch-interval both cut the stream into batches (by count, by time); give one"))
	}
	log := newLogger(stderr, f.verbose)
	ctx, cancel := f.context(ctx)
	defer cancel()
	if f.engine == "auto" && f.gcsmMode != "" {
		return exitCode(stderr, usagef("--gcsm-mode needs --engine gcsm"))
	}
	if f.engine != "auto" {
		if _, err := csm.Lookup(f.engine); err != nil {
			return exitCode(stderr, usagef("--engine: %v", err))
		}
	}
	if f.checkpoint != "" { // neither an input (the stream!) nor a folder, in a folder that exists
		if err := checkFileOutput("--checkpoint", f.checkpoint, "name a regular file", append([]string{f.updatesPath}, pos...)...); err != nil {
			return exitCode(stderr, err)
		}
	}
	if f.updatesPath != formats.Stdin { // before the graph loads: a typo costs no load
		r, _, err := formats.Open(ctx, f.updatesPath)
		if err != nil {
			return exitCode(stderr, err)
		}
		r.Close()
	}
	st := &watchState{f: &f, names: pos[1:], flushEach: f.updatesPath == "-", log: log}
	qopts := formats.Options{Format: f.queryFormat, DropSelfLoops: f.dropSelfLoops, Warn: func(msg string) { log.Warn(msg) }}
	for _, q := range pos[1:] {
		p, err := loadQuery(ctx, q, qopts)
		if err != nil {
			return exitCode(stderr, err)
		}
		st.pats = append(st.pats, p)
	}
	auto := f.engine == "auto"
	if auto {
		f.engine = f.chooseEngine(ctx, pos[0], st.pats, log)
	}
	eng, err := csm.Lookup(f.engine)
	if err != nil {
		return exitCode(stderr, usagef("--engine: %v", err))
	}
	if l, ok := eng.(csm.Lister); ok && !l.Lists() && f.emit == "matches" {
		return exitCode(stderr, usagef("--emit matches: the %s engine counts only (use --engine cpu to list)", f.engine))
	}
	if f.gcsmMode != "" { // only an engine with modes takes the flag, and it says which are valid
		mc, ok := eng.(interface{ CheckMode(string) error })
		if !ok {
			return exitCode(stderr, usagef("--gcsm-mode needs --engine gcsm"))
		}
		if err := mc.CheckMode(f.gcsmMode); err != nil {
			return exitCode(stderr, usagef("--gcsm-mode: %v", err))
		}
	}
	if s, ok := eng.(interface{ Streams() bool }); ok && s.Streams() {
		if err := f.checkStream(); err != nil {
			return exitCode(stderr, err)
		}
	}
	hold := holdGC()
	defer hold.release()
	var pre *preread // the stream, read while the graph loads, to cut it in two
	if f.splitEligible(pos[0]) {
		pre = startPreread(f.updatesPath, updates.Options{Timestamps: f.timestamps})
	}
	var cp *watchCheckpoint
	var g *dynamic.Graph
	var copier updates.Copier // another copy of the graph as loaded
	loadStart, loadCPU := time.Now(), processCPU()
	if f.resume != "" {
		if cp, g, err = st.readCheckpoint(ctx, f.resume, log); err != nil {
			return exitCode(stderr, err)
		}
	} else if g, copier, err = loadDynamic(ctx, pos[0], &f, log, pre != nil && !pipelines(eng, st.pats, &f)); err != nil {
		return exitCode(stderr, err)
	}
	loadTime := time.Since(loadStart)
	cores := -1.0 // (unknown: a load on one core says nothing about the others)
	if pre != nil && f.csmData(pos[0]) {
		cores = loadCores(loadTime, loadCPU)
	}
	log.Debug("load", "elapsed", loadTime.Round(time.Microsecond), "cores", cores)
	sem := engine.Semantics{Induced: f.induced, Unique: f.unique}
	opts := csm.Options{Semantics: sem, Threads: f.threads, SkipInvalid: f.onInvalid == "skip", Mode: f.gcsmMode}
	opts.GPUMemory, _ = parseSize("--gpu-memory", f.gpuMemory)
	var all []updates.Update // the whole stream, when it is pipelined or cut in two
	threads := opts.Threads
	// On a machine whose other cores are busy (the load had fewer than watchMinCores), a second
	// goroutine only takes time from the first: the stream read is applied in order, each batch
	// still shared among the threads.
	busy := cores >= 0 && cores < watchMinCores
	if pre != nil {
		if all = pre.wait(); all != nil && (len(all)+f.batch-1)/f.batch >= splitMinBatches {
			if !busy {
				opts.Threads = 1 // the first goroutine's matcher (and each half's)
			}
		} else {
			all = nil
		}
	}
	if st.m, err = eng.Open(g, st.pats, opts); err != nil && auto && f.engine != csm.DefaultEngine {
		// A GPU engine auto chose did not open (no NVRTC, the graph beyond the device's
		// memory...): it only read g, and the CPU engine takes it.
		log.Warn("watch: --engine auto: the GPU engine did not open; the CPU engine runs", "engine", f.engine, "err", err)
		f.engine = csm.DefaultEngine
		if eng, err = csm.Lookup(f.engine); err == nil {
			st.m, err = eng.Open(g, st.pats, opts)
		}
	}
	if err != nil {
		return exitCode(stderr, err)
	}
	st.created = make([]uint64, len(st.pats))
	st.destroyed = make([]uint64, len(st.pats))
	if f.window > 0 {
		st.win = csm.NewWindow(int64(f.window / f.timeUnit))
	}
	st.out = bufio.NewWriterSize(stdout, 1<<16)
	defer st.out.Flush()
	if cp != nil {
		// The summary's updates and batches both count from the stream's start, across resumes.
		st.line, st.seq, st.updates, st.batches, st.skipped, st.initial = cp.Line, cp.Seq, cp.Updates, cp.Batches, cp.Skipped, cp.Initial
		st.resumedAt = cp.Batches
		copy(st.created, cp.Created)
		copy(st.destroyed, cp.Destroyed)
		if st.win != nil {
			st.win.Restore(cp.Window)
		}
	} else if f.initial {
		static, err := engine.Lookup("cpu")
		if err != nil {
			return exitCode(stderr, err)
		}
		if st.initial, err = csm.Initial(ctx, st.m, static, sem, f.threads); err != nil {
			return exitCode(stderr, err)
		}
		if err := st.printInitial(); err != nil {
			return exitCode(stderr, err)
		}
	}
	if f.emit == "counts" && !f.initial && f.checkpoint == "" {
		hold.arm()
		st.gc = hold
	} else {
		hold.release() // listing, counting the graph again or writing it allocate much more
	}
	start := time.Now()
	var code int
	var s csm.ChangeApplier // the pipeline's searches
	var relevant func(l0, l1 uint32) bool
	if ca, ok := st.m.(csm.ChangeApplier); ok && all != nil && !busy {
		if relevant, ok = ca.Relevant(); ok {
			sopts := opts
			// M keeps a core busy: the searches take the others (on two cores, one thread's
			// searches beat two threads' on 4 of 5 light streams measured, 2026-12-02).
			sopts.Threads = max(1, searchThreads(threads)-1)
			m, err := eng.Open(g.Filtered(relevant), st.pats, sopts)
			if err != nil {
				return exitCode(stderr, err)
			}
			s, _ = m.(csm.ChangeApplier)
		}
	}
	watchMode = "serial"
	if s != nil {
		watchMode = "pipeline"
		code = st.pipeLoop(ctx, stderr, all, s, relevant)
	} else if all != nil && copier != nil && !busy {
		watchMode = "cut"
		code = st.splitLoop(ctx, stderr, all, func() (csm.Matcher, error) {
			g2, err := copier()
			if err != nil {
				return nil, err
			}
			return eng.Open(g2, st.pats, opts)
		}, 8*loadTime)
	} else if all != nil {
		code = st.splitLoop(ctx, stderr, all, nil, 0) // never cut
	} else {
		code = st.loop(ctx, stderr)
	}
	if code == -1 { // killed (tests)
		return exitPartial
	}
	// The last checkpoint is written when the graph holds exactly the updates reported: at the
	// end of the stream, or when an interrupt or --timeout stopped it between batches. After an
	// error an engine may have applied updates it did not report (a per-update engine's waves in
	// flight, a batch whose lines could not be written): the checkpoint before it stands.
	if f.checkpoint != "" {
		if code == exitOK || code == exitPartial && ctx.Err() != nil {
			if err := st.writeCheckpoint(f.checkpoint); err != nil {
				return exitCode(stderr, fmt.Errorf("--checkpoint: %w", err))
			}
		} else {
			fmt.Fprintf(stderr, "submatch: watch: no checkpoint written after the error; %s, if there, is the last one from before it\n", f.checkpoint)
		}
	}
	if err := st.printSummary(time.Since(start)); err != nil {
		return exitCode(stderr, err)
	}
	if code == exitPartial && ctx.Err() != nil {
		fmt.Fprintf(stderr, "submatch: watch %s after stream line %d; the totals cover the batches reported\n", stopReason(ctx, f.timeout), st.line)
	}
	return code
}

// searchThreads is the number of threads a --threads value stands for (0: every core).
func searchThreads(threads int) int {
	if threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return threads
}

// loadCores is the number of cores the load had on average, its CPU time (since cpu0, the
// process's at its start) over its wall time: the parser runs on every core and the stream is
// read beside it, so that on an idle machine of two cores it has well over one. -1 when unknown.
func loadCores(wall, cpu0 time.Duration) float64 {
	cpu := processCPU()
	if cpu0 < 0 || cpu < 0 || wall <= 0 {
		return -1
	}
	return float64(cpu-cpu0) / float64(wall)
}

// pipelines reports whether a stream over the patterns would be pipelined rather than cut in
// two (the engine's matcher, opened on an empty graph, filters the graph by labels): the load then
// keeps no copier.
func pipelines(eng csm.Engine, pats []*pattern.Pattern, f *watchFlags) bool {
	m, err := eng.Open(dynamic.New(), pats, csm.Options{Semantics: engine.Semantics{Induced: f.induced, Unique: f.unique}, Threads: 1})
	if err != nil {
		return false
	}
	ca, ok := m.(csm.ChangeApplier)
	if !ok {
		return false
	}
	_, ok = ca.Relevant()
	return ok
}

// csmData reports whether the data graph at path is read as a file in the CSM study's format
// (parsed on all cores), not through another format's loader.
func (f *watchFlags) csmData(path string) bool {
	if f.vertexLabels != "" || (f.format != "" && f.format != "auto" && f.format != "csm") {
		return false
	}
	name, err := formats.Detect(path)
	return err == nil && name == "csm"
}

// loadDynamic reads the data graph: a file in the CSM study's format straight into the dynamic
// graph (parsed on all cores), any other format through its loader; the copier (withCopier;
// else nil) builds another copy of the graph as loaded.
func loadDynamic(ctx context.Context, path string, f *watchFlags, log *slog.Logger, withCopier bool) (*dynamic.Graph, updates.Copier, error) {
	if f.csmData(path) {
		start := time.Now()
		var g *dynamic.Graph
		var cp updates.Copier
		var err error
		if withCopier {
			g, cp, err = updates.LoadDynamicCopier(path, f.options(log))
		} else {
			g, err = updates.LoadDynamic(path, f.options(log))
		}
		if err != nil {
			return nil, nil, loadError(path, err)
		}
		log.Debug("loaded data graph", "path", path, "vertices", g.NumVertices(), "edges", g.NumEdges(), "elapsed", time.Since(start).Round(time.Microsecond))
		return g, cp, nil
	}
	sg, err := loadData(ctx, path, f.options(log), log)
	if err != nil {
		return nil, nil, err
	}
	var cp updates.Copier
	if withCopier {
		cp = func() (*dynamic.Graph, error) { return dynamic.FromGraph(sg), nil }
	}
	return dynamic.FromGraph(sg), cp, nil
}

func (f *watchFlags) check(pos []string) error {
	if err := f.loadFlags.check(); err != nil {
		return err
	}
	if err := f.commonFlags.check(); err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("watch needs a data graph and at least one pattern (run 'submatch help watch')")
	}
	if f.updatesPath == "" {
		return usagef("watch needs --updates FILE (or - for stdin)")
	}
	if f.batch < 1 {
		return usagef("--batch must be >= 1")
	}
	if f.interval < 0 || f.window < 0 || f.timeUnit <= 0 {
		return usagef("--batch-interval, --window and --time-unit must be positive durations")
	}
	if f.window > 0 && f.window < f.timeUnit || f.interval > 0 && f.interval < f.timeUnit {
		return usagef("--window and --batch-interval must be at least one --time-unit (%v)", f.timeUnit)
	}
	if _, err := parseSize("--gpu-memory", f.gpuMemory); err != nil {
		return err
	}
	if f.emit != "counts" && f.emit != "matches" {
		return usagef("--emit must be counts or matches, not %q", f.emit)
	}
	if f.onInvalid != "error" && f.onInvalid != "skip" {
		return usagef("--on-invalid must be error or skip, not %q", f.onInvalid)
	}
	if f.rate < 0 || f.rate != f.rate || f.rate > 0 && f.rate < minRate {
		return usagef("--rate must be a positive number of updates a second, at least %g (a gap of days overflows the replay's clock)", minRate)
	}
	if f.rate > 0 && (f.interval > 0 || f.window > 0) {
		return usagef("--rate paces the stream itself: it does not go with --batch-interval or --window, which follow the stream's timestamps")
	}
	if f.checkpointEvery < 1 {
		return usagef("--checkpoint-every must be >= 1")
	}
	return checkFormat("--query-format", f.queryFormat)
}

// loop reads the stream batch by batch; it returns the exit status (-1: killed by the test hook).
func (st *watchState) loop(ctx context.Context, stderr io.Writer) int {
	f := st.f
	ropts := updates.Options{Timestamps: f.timestamps || f.window > 0 || f.interval > 0}
	rd, err := updates.OpenReaderContext(ctx, f.updatesPath, ropts) // Ctrl-C stops a read waiting on stdin
	if err != nil && ctx.Err() != nil {
		return exitPartial
	} else if err != nil {
		return exitCode(stderr, &inputError{err: err})
	}
	defer rd.Close()
	name := f.updatesPath
	if name == "-" {
		name = "stdin"
	}
	span := int64(f.interval / f.timeUnit)
	resumeLine := st.line
	var (
		batch, expired []updates.Update
		edges          []updates.Update // a vertex deletion's edges
		pending        updates.Update   // the update that begins the next interval (a value: the loop's u stays off the heap)
		hasPending     bool
		res            csm.Result
		sinceCP        int
		eof            bool
		readErr        error // the read's error at eof (readUpdate)
	)
	if f.rate > 0 {
		st.replay = newReplay(f.rate, f.rateSeed)
	}
	prog := newWatchProgress(stderr)
	defer prog.finish()
	apply := context.WithoutCancel(ctx) // a batch in progress finishes: the graph and totals stay exact
	if s, ok := st.m.(interface{ StopsMidBatch() bool }); ok && s.StopsMidBatch() && f.checkpoint == "" && f.emit == "counts" {
		// An engine that stops a batch within a second (gcsm: its kernels poll a stop flag) is
		// cancelled with the command; the batch cut short is not reported, so the totals are
		// still exactly those of the batches reported (no checkpoint is written, and no match
		// listed, that could disagree with them).
		apply = ctx
	}
	if sm, ok := st.m.(csm.Streamer); ok {
		return st.streamLoop(ctx, sm, rd, name, prog, stderr)
	}
	for !eof {
		if ctx.Err() != nil {
			return exitPartial
		}
		batch = batch[:0]
		if hasPending {
			batch = append(batch, pending)
			hasPending = false
		}
		for span > 0 || len(batch) < f.batch {
			u, ok, err := readUpdate(ctx, rd, resumeLine, f.window > 0 || span > 0, name)
			if errors.Is(err, errReadStopped) {
				return exitPartial
			}
			if !ok {
				eof, readErr = true, err
				break
			}
			if span > 0 && len(batch) > 0 && intervalEnded(batch[0].Time, u.Time, span) {
				pending, hasPending = u, true
				break
			}
			batch = append(batch, u)
		}
		if len(batch) == 0 {
			break
		}
		if st.replay != nil {
			if err := st.replay.arrive(ctx, len(batch)); err != nil {
				return exitPartial
			}
		}
		if st.win != nil {
			expired = st.win.Expire(batch[0].Time, st.m.Graph(), expired[:0])
			if len(expired) > 0 {
				if code := st.apply(apply, expired, &res, name, stderr, true); code != exitOK {
					return code
				}
			}
		}
		if code := st.applyBatch(apply, batch, &edges, &res, name, stderr); code != exitOK {
			return code
		}
		if st.win != nil {
			st.win.Observe(batch, &res)
		}
		if st.replay != nil {
			st.replay.done()
		}
		sinceCP += len(batch)
		if code := st.advance(batch, prog, stderr); code != exitOK {
			return code
		}
		if watchKillAfter > 0 && st.batches-st.resumedAt >= watchKillAfter {
			return -1
		}
		if f.checkpoint != "" && sinceCP >= f.checkpointEvery {
			if err := st.writeCheckpoint(f.checkpoint); err != nil {
				return exitCode(stderr, fmt.Errorf("--checkpoint: %w", err))
			}
			sinceCP = 0
		}
	}
	if readErr != nil { // the updates before the bad line are reported: now its error
		return readFailed(readErr, stderr)
	}
	return exitOK
}

// intervalEnded reports whether time t is past the interval of span that begins at t0 (t >=
// t0 + span), without the sum, which wraps past math.MaxInt64.
func intervalEnded(t0, t, span int64) bool {
	return t >= t0 && uint64(t-t0) >= uint64(span)
}

// errNoTime is the error of an update without a timestamp under --window or --batch-interval.
func errNoTime(name string, u updates.Update) error {
	return &inputError{msg: fmt.Sprintf("%s:%d: expected a timestamp (--window and --batch-interval need one on every update)", name, u.Line)}
}

// applyBatch applies a batch of the stream and prints its lines: per update, a vertex deletion
// reports its edges' deletions first, one line each (edges is their buffer).
func (st *watchState) applyBatch(ctx context.Context, batch []updates.Update, edges *[]updates.Update, res *csm.Result, name string, stderr io.Writer) int {
	if len(batch) == 1 && batch[0].Kind == updates.DeleteVertex {
		*edges = csm.IncidentDeletions(st.m.Graph(), batch[0], (*edges)[:0])
		for i := range *edges {
			if code := st.apply(ctx, (*edges)[i:i+1], res, name, stderr, false); code != exitOK {
				return code
			}
		}
	}
	return st.apply(ctx, batch, res, name, stderr, false)
}

// advance records that the stream's batch was applied: position, progress, flush, collector.
func (st *watchState) advance(batch []updates.Update, prog *watchProgress, stderr io.Writer) int {
	st.line = batch[len(batch)-1].Line
	st.updates += len(batch)
	prog.update(st.updates)
	if st.flushEach {
		if err := st.out.Flush(); err != nil {
			return exitCode(stderr, fmt.Errorf("writing the result: %w", err))
		}
	}
	if st.gc != nil && (st.flushEach || st.batches%64 == 0) { // stdin: updates may come slowly
		st.gc.check()
	}
	return exitOK
}

// apply applies one batch and prints its lines.
func (st *watchState) apply(ctx context.Context, batch []updates.Update, res *csm.Result, name string, stderr io.Writer, expiry bool) int {
	var emit csm.Emit
	st.werr = nil
	if st.f.emit == "matches" {
		emit = st.emitMatch
	}
	st.seq++
	err := st.m.Apply(ctx, batch, emit, res)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return exitPartial // cut short by --timeout or an interrupt (StopsMidBatch): not reported
	}
	if l, ok := st.m.(interface{ LogBatch(*slog.Logger) }); ok && err == nil && st.f.verbose {
		l.LogBatch(st.log) // an engine's own figures (gcsm: cache hits, times)
	}
	return st.finish(batch, res, err, name, stderr, expiry)
}

// finish reports a batch that was applied (err: its error): the totals and its lines.
func (st *watchState) finish(batch []updates.Update, res *csm.Result, err error, name string, stderr io.Writer, expiry bool) int {
	if st.werr != nil {
		return exitCode(stderr, fmt.Errorf("writing the result: %w", st.werr))
	}
	if err != nil {
		return st.applyError(err, name, stderr)
	}
	return st.record(batch, res, expiry, stderr)
}

// applyError is the exit status of an engine's error, naming an invalid update's line.
func (st *watchState) applyError(err error, name string, stderr io.Writer) int {
	var ie *csm.InvalidError
	if errors.As(err, &ie) {
		return exitCode(stderr, &inputError{msg: fmt.Sprintf("%s:%d: invalid update `%s`: %v (--on-invalid skip skips such updates)", name, ie.Update.Line, ie.Update, ie.Err)})
	}
	return exitCode(stderr, err)
}

// record adds a batch's deltas to the totals and prints its lines.
func (st *watchState) record(batch []updates.Update, res *csm.Result, expiry bool, stderr io.Writer) int {
	st.batches++
	st.skipped += res.Skipped
	for _, inv := range res.Invalid {
		if !st.log.Enabled(context.Background(), slog.LevelDebug) {
			break // not formatted for nothing
		}
		st.log.Debug("skipped an invalid update", "line", inv.Update.Line, "update", inv.Update.String(), "reason", inv.Err)
	}
	for i, d := range res.Deltas { // all or nothing: an overflow leaves the totals exact
		_, ok1 := addChecked(st.created[i], d.Created)
		_, ok2 := addChecked(st.destroyed[i], d.Destroyed)
		if !ok1 || !ok2 {
			return exitCode(stderr, engine.ErrOverflow)
		}
	}
	for i, d := range res.Deltas {
		st.created[i] += d.Created
		st.destroyed[i] += d.Destroyed
	}
	if err := st.printBatch(batch, res, expiry); err != nil {
		return exitCode(stderr, fmt.Errorf("writing the result: %w", err))
	}
	return exitOK
}

func addChecked(a, b uint64) (uint64, bool) {
	s := a + b
	return s, s >= a
}

// total is the running total of pattern i as text: absolute with --initial, else signed.
func (st *watchState) total(i int) string { return string(st.appendTotal(nil, i)) }

// appendTotal appends total(i) to b.
func (st *watchState) appendTotal(b []byte, i int) []byte {
	if st.initial != nil {
		// initial + created in 65 bits (carry:base), less destroyed
		base, carry := bits.Add64(st.initial[i], st.created[i], 0)
		d := st.destroyed[i]
		switch {
		case carry == 0 && base < d:
			return strconv.AppendUint(append(b, '-'), d-base, 10) // an engine bug; shown, not hidden
		case carry == 0 || base < d: // the total fits in 64 bits
			return strconv.AppendUint(b, base-d, 10)
		default: // 2^64 + base - d
			var x big.Int
			x.SetUint64(base - d)
			return x.SetBit(&x, 64, 1).Append(b, 10)
		}
	}
	if st.created[i] >= st.destroyed[i] {
		return strconv.AppendUint(append(b, '+'), st.created[i]-st.destroyed[i], 10)
	}
	return strconv.AppendUint(append(b, '-'), st.destroyed[i]-st.created[i], 10)
}

func linesOf(batch []updates.Update, expiry bool) string {
	return string(appendLines(nil, batch, expiry))
}

// appendLines appends linesOf(batch, expiry) to b.
func appendLines(b []byte, batch []updates.Update, expiry bool) []byte {
	if expiry {
		return append(b, "expire"...)
	}
	a, z := batch[0].Line, batch[len(batch)-1].Line
	b = strconv.AppendInt(b, int64(a), 10)
	if a == z {
		return b
	}
	return strconv.AppendInt(append(b, '-'), int64(z), 10)
}

type watchPatternRecord struct {
	Pattern   string `json:"pattern"`
	Created   uint64 `json:"created"`
	Destroyed uint64 `json:"destroyed"`
	Total     string `json:"total"`
}

type watchBatchRecord struct {
	Seq      int                  `json:"seq"`
	Lines    string               `json:"lines"`
	Update   string               `json:"update,omitempty"` // a batch of one update
	Updates  int                  `json:"updates"`
	Skipped  int                  `json:"skipped,omitempty"`
	Expired  bool                 `json:"expired,omitempty"`
	Patterns []watchPatternRecord `json:"patterns"`
}

func (st *watchState) printBatch(batch []updates.Update, res *csm.Result, expiry bool) error {
	if st.f.json {
		lines := linesOf(batch, expiry)
		rec := watchBatchRecord{Seq: st.seq, Lines: lines, Updates: len(batch), Skipped: res.Skipped, Expired: expiry}
		if len(batch) == 1 {
			rec.Update = batch[0].String()
		}
		for i, d := range res.Deltas {
			rec.Patterns = append(rec.Patterns, watchPatternRecord{Pattern: st.names[i], Created: d.Created, Destroyed: d.Destroyed, Total: st.total(i)})
		}
		return json.NewEncoder(st.out).Encode(rec)
	}
	b := st.buf[:0]
	for i, d := range res.Deltas {
		b = strconv.AppendInt(b, int64(st.seq), 10)
		b = append(b, '\t')
		b = appendLines(b, batch, expiry)
		b = append(b, '\t')
		b = append(b, st.names[i]...)
		b = append(b, "\t+"...)
		b = strconv.AppendUint(b, d.Created, 10)
		b = append(b, "\t-"...)
		b = strconv.AppendUint(b, d.Destroyed, 10)
		b = append(b, '\t')
		b = st.appendTotal(b, i)
		b = append(b, '\n')
	}
	st.buf = b
	_, err := st.out.Write(b)
	return err
}

// emitMatch prints a signed match (the Emit of --emit matches); a write error stops the batch
// and is kept in st.werr.
func (st *watchState) emitMatch(sm csm.SignedMatch) bool {
	st.werr = st.printMatch(sm)
	return st.werr == nil
}

func (st *watchState) printMatch(sm csm.SignedMatch) error {
	if st.f.json {
		sign := "+"
		if sm.Sign < 0 {
			sign = "-"
		}
		return json.NewEncoder(st.out).Encode(struct {
			Seq     int     `json:"seq"`
			Sign    string  `json:"sign"`
			Pattern string  `json:"pattern"`
			Match   []int64 `json:"match"`
		}{st.seq, sign, st.names[sm.Pattern], sm.Vertices})
	}
	if k := (matchKey{st.seq, sm.Pattern, sm.Sign}); k != st.prefixOf || st.prefix == nil {
		// "SIGN\tSEQ\tPATTERN", the same for all the matches of a batch, pattern and sign
		p := st.prefix[:0]
		if sm.Sign > 0 {
			p = append(p, '+')
		} else {
			p = append(p, '-')
		}
		p = append(p, '\t')
		p = strconv.AppendInt(p, int64(st.seq), 10)
		p = append(p, '\t')
		st.prefix, st.prefixOf = append(p, st.names[sm.Pattern]...), k
	}
	b := append(st.buf[:0], st.prefix...)
	for _, v := range sm.Vertices {
		b = appendDecimal(append(b, '\t'), v)
	}
	b = append(b, '\n')
	st.buf = b
	_, err := st.out.Write(b)
	return err
}

// matchKey is what the prefix of a listed match depends on.
type matchKey struct{ seq, pattern, sign int }

// appendDecimal appends v in decimal, digits written in place (strconv formats into a buffer of
// its own and copies: a third of a listing's time).
func appendDecimal(b []byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	u := uint64(v)
	n := 1
	for x := u; x >= 10; x /= 10 {
		n++
	}
	b = slices.Grow(b, n)
	l := len(b)
	b = b[:l+n]
	for i := l + n - 1; i > l; i-- {
		b[i] = byte('0' + u%10)
		u /= 10
	}
	b[l] = byte('0' + u)
	return b
}

func (st *watchState) printInitial() error {
	for i, c := range st.initial {
		if st.f.json {
			if err := json.NewEncoder(st.out).Encode(struct {
				Seq     int    `json:"seq"`
				Initial bool   `json:"initial"`
				Pattern string `json:"pattern"`
				Count   uint64 `json:"count"`
			}{0, true, st.names[i], c}); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(st.out, "0\tinitial\t%s\t+0\t-0\t%d\n", st.names[i], c); err != nil {
			return err
		}
	}
	return nil
}

// gpuSummary is the GPU's utilisation over the stream, for an engine that measures it (dcsm:
// CUDA events around its waves' kernels); nil otherwise.
type gpuSummary struct {
	BusyMS   float64 `json:"busy_ms"`   // the device time of the kernels
	StreamMS float64 `json:"stream_ms"` // the time spent applying the stream
	Busy     float64 `json:"busy"`      // their ratio
}

func (st *watchState) gpuSummary() *gpuSummary {
	u, ok := st.m.(interface {
		Utilisation() (busy, wall time.Duration)
	})
	if !ok {
		return nil
	}
	busy, wall := u.Utilisation()
	if busy <= 0 || wall <= 0 {
		return nil
	}
	return &gpuSummary{BusyMS: ms(busy), StreamMS: ms(wall), Busy: float64(busy) / float64(wall)}
}

func (g *gpuSummary) String() string {
	return fmt.Sprintf("# gpu: kernels busy %.1f ms of the %.1f ms spent applying the stream (%.1f%%)", g.BusyMS, g.StreamMS, 100*g.Busy)
}

func (st *watchState) printSummary(elapsed time.Duration) error {
	g := st.m.Graph()
	if st.f.json {
		type pat struct {
			Pattern   string  `json:"pattern"`
			Initial   *uint64 `json:"initial,omitempty"`
			Created   uint64  `json:"created"`
			Destroyed uint64  `json:"destroyed"`
			Total     string  `json:"total"`
		}
		rec := struct {
			Summary   bool             `json:"summary"`
			Updates   int              `json:"updates"`
			Batches   int              `json:"batches"`
			Skipped   int              `json:"skipped"`
			Line      int              `json:"line"`
			Vertices  int              `json:"vertices"`
			Edges     uint64           `json:"edges"`
			ElapsedMS float64          `json:"elapsed_ms"`
			Patterns  []pat            `json:"patterns"`
			Response  *responseSummary `json:"response,omitempty"`
			GPU       *gpuSummary      `json:"gpu,omitempty"`
		}{true, st.updates, st.batches, st.skipped, st.line, g.NumVertices(), g.NumEdges(), ms(elapsed), nil, nil, st.gpuSummary()}
		if st.replay != nil {
			rs := st.replay.summary()
			rec.Response = &rs
		}
		for i := range st.pats {
			p := pat{Pattern: st.names[i], Created: st.created[i], Destroyed: st.destroyed[i], Total: st.total(i)}
			if st.initial != nil {
				p.Initial = &st.initial[i]
			}
			rec.Patterns = append(rec.Patterns, p)
		}
		return json.NewEncoder(st.out).Encode(rec)
	}
	fmt.Fprintf(st.out, "# %d updates in %d batches, %d skipped as invalid, up to line %d, %s; graph %d vertices, %d edges\n",
		st.updates, st.batches, st.skipped, st.line, fmtDuration(elapsed), g.NumVertices(), g.NumEdges())
	for i := range st.pats {
		init := ""
		if st.initial != nil {
			init = strconv.FormatUint(st.initial[i], 10) + " "
		}
		fmt.Fprintf(st.out, "# %s\t%s+%d\t-%d\t%s\n", st.names[i], init, st.created[i], st.destroyed[i], st.total(i))
	}
	if st.replay != nil {
		fmt.Fprintln(st.out, st.replay.summary())
	}
	if gs := st.gpuSummary(); gs != nil {
		fmt.Fprintln(st.out, gs)
	}
	return st.out.Flush()
}

// writeCheckpoint writes the graph to a file of its own (FILE.SEQ.smg), then commits the JSON
// that names it by renaming it over FILE, and only then removes the graph of the checkpoint
// before: a kill at any point leaves FILE and the graph it names of one and the same moment.
// (Until 2026-12-03 the graph went to FILE.smg, replaced before the JSON: a kill between the
// two resumed the new graph from the old position, applying updates twice.)
func (st *watchState) writeCheckpoint(path string) error {
	if st.cpGraph == "" { // the run's first: the checkpoint it replaces, if any, takes its graph along
		st.cpGraph = replacedGraph(path)
	}
	g, err := st.m.Graph().Snapshot()
	if err != nil {
		return err
	}
	cp := watchCheckpoint{Version: 1, Semantics: engine.Semantics{Induced: st.f.induced, Unique: st.f.unique}.String(),
		Line: st.line, Seq: st.seq, Updates: st.updates, Batches: st.batches, Skipped: st.skipped, Initial: st.initial,
		Created: st.created, Destroyed: st.destroyed, Graph: filepath.Base(path) + "." + strconv.Itoa(st.seq) + ".smg"}
	graphPath := cp.graphPath(path)
	if graphPath == st.cpGraph {
		// The committed checkpoint (this run's or another's, at the same seq) names this file: it
		// stays as it is until the JSON that replaces it is committed.
		cp.Graph = filepath.Base(path) + "." + strconv.Itoa(st.seq) + ".1.smg"
		graphPath = cp.graphPath(path)
	}
	if err := formats.WriteSnapshot(graphPath, g); err != nil {
		return err
	}
	if st.cps++; st.cps == watchCrashInCheckpoint {
		return errKilled
	}
	for _, p := range st.pats {
		cp.Patterns = append(cp.Patterns, p.String())
	}
	if st.win != nil {
		cp.Window = st.win.Edges()
	}
	data, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	// The commit: the JSON reaches the disk under a temporary name, then replaces FILE.
	if err := formats.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	if st.cpGraph != "" && st.cpGraph != graphPath {
		os.Remove(st.cpGraph) // (a leftover file, if this fails, is harmless)
	}
	st.cpGraph = graphPath
	return nil
}

func (st *watchState) readCheckpoint(ctx context.Context, path string, log *slog.Logger) (*watchCheckpoint, *dynamic.Graph, error) {
	cp, ok, err := loadCheckpointFile(path)
	if err != nil {
		return nil, nil, &inputError{err: fmt.Errorf("--resume: %w", err)}
	}
	if !ok || cp.Version != 1 {
		return nil, nil, &inputError{msg: fmt.Sprintf("--resume %s: not a watch checkpoint (version 1 JSON expected)", path)}
	}
	if len(cp.Patterns) != len(st.pats) || len(cp.Created) != len(st.pats) || len(cp.Destroyed) != len(st.pats) {
		return nil, nil, &inputError{msg: fmt.Sprintf("--resume %s: the checkpoint has %d patterns, the command line %d", path, len(cp.Patterns), len(st.pats))}
	}
	for i, p := range st.pats {
		if p.String() != cp.Patterns[i] {
			return nil, nil, &inputError{msg: fmt.Sprintf("--resume %s: pattern %d is %s in the checkpoint, %s on the command line", path, i+1, cp.Patterns[i], p)}
		}
	}
	if sem := (engine.Semantics{Induced: st.f.induced, Unique: st.f.unique}).String(); sem != cp.Semantics {
		return nil, nil, &inputError{msg: fmt.Sprintf("--resume %s: the checkpoint counts %s, the command line %s", path, cp.Semantics, sem)}
	}
	if st.f.initial != (cp.Initial != nil) {
		return nil, nil, &inputError{msg: fmt.Sprintf("--resume %s: --initial must be given as in the run that wrote it", path)}
	}
	g, err := loadData(ctx, cp.graphPath(path), formats.Options{Format: "smg"}, log)
	if err != nil {
		return nil, nil, err
	}
	if st.f.checkpoint == path {
		st.cpGraph = cp.graphPath(path) // replaced by the run's first checkpoint
	}
	return &cp, dynamic.FromGraph(g), nil
}

// watchProgress draws "watch: N updates, T" on a terminal, at most every 200 ms after a second.
type watchProgress struct {
	w      io.Writer
	start  time.Time
	last   time.Time
	drawn  bool
	active bool
}

func newWatchProgress(stderr io.Writer) *watchProgress {
	return &watchProgress{w: stderr, start: time.Now(), active: isTerminal(stderr)}
}

func (p *watchProgress) update(n int) {
	if !p.active {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.last) < progressInterval {
		return
	}
	p.last, p.drawn = now, true
	fmt.Fprintf(p.w, "\r\033[Kwatch: %d updates %s", n, now.Sub(p.start).Round(100*time.Millisecond))
}

func (p *watchProgress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// gcHold keeps the garbage collector off while watch loads the graph and, for a counting run,
// while the run is young. The load allocates the graph and its intermediate arrays, nearly all
// live until the graph is built, and the graph is rich in pointers (a slice per run): a
// collection during the load, or the first one after it, only marks it again (measured: 10-15%
// of a whole counting run on email10, a few percent on github). A short run then never
// collects; a longer one gets the collector back after holdFor, or once the stream has
// allocated as much again as the heap held after the load (checked every 64 batches; batches of
// a counting run allocate little; every batch on stdin, where they may come slowly).
type gcHold struct {
	percent int
	held    bool
	until   time.Time
	limit   uint64 // total bytes allocated at which to release
	sample  []metrics.Sample
}

const holdFor = time.Second

func holdGC() *gcHold {
	return &gcHold{percent: debug.SetGCPercent(-1), held: true,
		sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}}
}

// arm starts the run's allowance: holdFor, and as many bytes as the heap holds now.
func (h *gcHold) arm() {
	if !h.held {
		return
	}
	metrics.Read(h.sample)
	h.until = time.Now().Add(holdFor)
	h.limit = h.value(0) + max(h.value(1), 64<<20)
}

func (h *gcHold) value(i int) uint64 {
	if h.sample[i].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return h.sample[i].Value.Uint64()
}

// check releases the collector once the allowance is spent.
func (h *gcHold) check() {
	if !h.held {
		return
	}
	metrics.Read(h.sample[:1])
	if time.Now().After(h.until) || h.value(0) >= h.limit {
		h.release()
	}
}

func (h *gcHold) release() {
	if h.held {
		debug.SetGCPercent(h.percent)
		h.held = false
	}
}
