package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gpu"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/bytesize"
	"github.com/submatch/submatch/pattern"
)

// commonFlags are the flags of every command that does work: -v and --timeout.
type commonFlags struct {
	verbose bool
	timeout time.Duration
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.verbose, "v", false, "log debug records (load and run times) on stderr")
	fs.DurationVar(&c.timeout, "timeout", 0, "stop after `DURATION` (e.g. 30s, 5m) and print the partial result; 0: no limit")
}

// check refuses a negative --timeout (0 is no limit).
func (c *commonFlags) check() error {
	if c.timeout < 0 {
		return usagef("--timeout %v: expected a positive duration such as 30s, or 0 for no limit", c.timeout)
	}
	return nil
}

// context wraps ctx with the --timeout, if any.
func (c *commonFlags) context(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout > 0 {
		return context.WithTimeout(ctx, c.timeout)
	}
	return context.WithCancel(ctx)
}

// loadFlags say how to read the data graph.
type loadFlags struct {
	format        string
	vertexLabels  string
	dropSelfLoops bool
}

func (l *loadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.format, "format", "", "input format `NAME` of the data graph (default: detected from the content; one of "+strings.Join(formats.Names(), ", ")+")")
	fs.StringVar(&l.vertexLabels, "vertex-labels", "", "read vertex labels from `FILE` (lines: vertex-id label)")
	fs.BoolVar(&l.dropSelfLoops, "drop-self-loops", false, "drop self-loops u-u (with a warning) instead of refusing the input")
}

// checkFormat refuses an unknown format name as a usage error.
func checkFormat(flagName, name string) error {
	if name == "" || name == "auto" || slices.Contains(formats.Names(), name) {
		return nil
	}
	return usagef("%s: unknown format %q (known formats: auto, %s)", flagName, name, strings.Join(formats.Names(), ", "))
}

func (l *loadFlags) check() error { return checkFormat("--format", l.format) }

func (l *loadFlags) options(log *slog.Logger) formats.Options {
	return formats.Options{
		Format:           l.format,
		VertexLabelsFile: l.vertexLabels,
		DropSelfLoops:    l.dropSelfLoops,
		Warn:             func(msg string) { log.Warn(msg) },
	}
}

// matchFlags are the flags shared by count and list.
type matchFlags struct {
	commonFlags
	loadFlags
	engine      string
	threads     int
	induced     bool
	unique      bool
	json        bool
	queryFormat string
	memory      string
	gpuMemory   string
	gpus        string
	// The engines' own flags (engine.Configurable): per engine, the function that builds the
	// engine they configure, and the names of its flags (nil until parseArgs registers them);
	// fs is the command's flag set.
	configure   map[string]func() (engine.Engine, error)
	engineFlags map[string][]string
	fs          *flag.FlagSet
}

func (m *matchFlags) register(fs *flag.FlagSet) {
	m.commonFlags.register(fs)
	m.loadFlags.register(fs)
	fs.StringVar(&m.engine, "engine", "auto", "matching engine `NAME`: auto or one of "+strings.Join(concreteEngines(), ", ")+
		". auto picks per query: the CPU engine, unless a GPU is present and a GPU engine is predicted, from an estimate of the search, to finish sooner (listing stays on the CPU unless a GPU engine supports it); --explain says what it chose and why")
	registerThreads(fs, &m.threads, "worker threads `N` (0: all cores)")
	fs.BoolVar(&m.induced, "induced", false, "vertex-induced matches: non-adjacent pattern vertices must map to non-adjacent data vertices")
	fs.BoolVar(&m.unique, "unique", false, "each distinct subgraph once: count embeddings / |Aut(pattern)|, list one match per subgraph")
	fs.BoolVar(&m.json, "json", false, "print JSON, one object per line")
	fs.StringVar(&m.queryFormat, "query-format", "", "input format `NAME` of query files (default: detected from the content)")
	fs.StringVar(&m.memory, "memory", "", "bound the engine's own memory (beyond the data graph) to `SIZE`, e.g. 512MiB or 4GiB; MB and GB are powers of 1000 (default: no bound, but sgsi: 3/4 of the memory available when the count starts)")
	fs.StringVar(&m.gpuMemory, "gpu-memory", "", "bound each GPU's memory to `SIZE` (default: free memory minus a margin); GPU engines work in chunks within it")
	fs.StringVar(&m.gpus, "gpus", "all", "GPUs a GPU engine may use: all, a count `N` (the first N), or a list of device numbers such as 0,2 (stmatch spreads a count over them, pbe's GPU backend deals its parts to them, sgsi a count's first-column candidates; geneva uses the first)")
	m.fs = fs
}

// parseArgs is parseArgs for a command with these flags. The engines' own flags join the set
// only when they may matter: the command line asks for help, names a flag of an engine
// (--ENGINE-...), does not parse without them (so that the error, and the flag it suggests, are
// those of the whole set), or chooses a configurable engine (whose configure then builds it,
// from the flags' defaults). Registering them runs each such engine's code for the first time
// in the process, about 0.06 ms of a small count's start on the 2-core VM; a count with the CPU
// engine or auto and no engine flags parses exactly as before, without them.
func (m *matchFlags) parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	if mayUseEngineFlags(args) {
		m.registerEngineFlags()
	}
	pos, err := parseArgs(fs, args, stdout)
	if err != nil && m.configure == nil && !errors.Is(err, flag.ErrHelp) {
		// Parsing again sets the same values: every flag here is a plain value.
		m.registerEngineFlags()
		pos, err = parseArgs(fs, args, stdout)
	}
	if err == nil && m.configure == nil {
		if e, lerr := engine.Lookup(m.engine); lerr == nil {
			if _, ok := e.(engine.Configurable); ok {
				m.registerEngineFlags()
			}
		}
	}
	return pos, err
}

// mayUseEngineFlags reports whether a command line (before "--") asks for help (-h, -help,
// --help) or names a flag that starts with an engine's name and a dash, as engines' flags do.
func mayUseEngineFlags(args []string) bool {
	names := engine.Names()
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, ok := strings.CutPrefix(a, "-")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
		if name == "h" || name == "help" {
			return true
		}
		for _, n := range names {
			if strings.HasPrefix(name, n+"-") {
				return true
			}
		}
	}
	return false
}

// registerEngineFlags adds to m.fs the flags of every engine that has some
// (engine.Configurable), once. Each flag must be named after its engine ("--geneva-order" for
// geneva), so that engines cannot collide and a user sees which engine a flag belongs to.
func (m *matchFlags) registerEngineFlags() {
	if m.configure != nil {
		return
	}
	fs := m.fs
	m.configure, m.engineFlags = map[string]func() (engine.Engine, error){}, map[string][]string{}
	for _, e := range engine.Engines() {
		c, ok := e.(engine.Configurable)
		if !ok {
			continue
		}
		// The engine registers its flags in a set of their own, then they move to fs: listing
		// fs before and after (VisitAll sorts every flag) took most of a count's flag parsing.
		own := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
		m.configure[e.Name()] = c.RegisterFlags(own)
		own.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Name, e.Name()+"-") {
				panic(fmt.Sprintf("submatch: engine %s registers flag --%s, not named --%s-...", e.Name(), f.Name, e.Name()))
			}
			fs.Var(f.Value, f.Name, f.Usage)
			m.engineFlags[e.Name()] = append(m.engineFlags[e.Name()], f.Name)
		})
	}
}

func (m *matchFlags) check() error {
	if err := m.loadFlags.check(); err != nil {
		return err
	}
	if err := m.commonFlags.check(); err != nil {
		return err
	}
	if _, err := parseSize("--memory", m.memory); err != nil {
		return err
	}
	if _, err := parseSize("--gpu-memory", m.gpuMemory); err != nil {
		return err
	}
	if _, err := parseGPUs(m.gpus); err != nil {
		return err
	}
	// An engine's flag set on the command line needs that engine; its values must be valid.
	set := map[string]bool{}
	if m.fs != nil {
		m.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	for name, flags := range m.engineFlags {
		for _, f := range flags {
			if set[f] && m.engine != name {
				return usagef("--%s needs --engine %s", f, name)
			}
		}
		if _, err := m.configure[name](); err != nil {
			return usagef("%v", err)
		}
	}
	return checkFormat("--query-format", m.queryFormat)
}

// parseGPUs parses --gpus: "all" (or "") is nil, "N" the first N devices, "a,b,..." those devices.
func parseGPUs(value string) ([]int, error) {
	value = strings.TrimSpace(value)
	if value == "" || value == "all" {
		return nil, nil
	}
	bad := usagef("--gpus %q: expected all, a count such as 2, or device numbers such as 0,2", value)
	if !strings.Contains(value, ",") {
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 1024 {
			return nil, bad
		}
		out := make([]int, n)
		for k := range out {
			out[k] = k
		}
		return out, nil
	}
	var out []int
	for _, f := range strings.Split(value, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 0 || k > 1023 || slices.Contains(out, k) {
			return nil, bad
		}
		out = append(out, k)
	}
	return out, nil
}

// parseSize parses a size flag (0 when unset).
func parseSize(flagName, value string) (uint64, error) {
	if value == "" {
		return 0, nil
	}
	n, err := bytesize.Parse(value)
	if err != nil || n == 0 {
		return 0, usagef("%s %s: expected a size such as 512MiB or 4GiB (MB, GB: powers of 1000; MiB, GiB: of 1024)", flagName, value)
	}
	return n, nil
}

// problem is the engine.Problem the flags describe for matching p in g (flags validated by check).
func (m *matchFlags) problem(g *graph.Graph, p *pattern.Pattern, progress func(float64), log *slog.Logger) *engine.Problem {
	prob := &engine.Problem{Data: g, Pattern: p, Semantics: m.semantics(), Threads: m.threads, Progress: progress, Log: log}
	prob.MemoryLimit, _ = parseSize("--memory", m.memory)
	prob.GPUMemoryLimit, _ = parseSize("--gpu-memory", m.gpuMemory)
	prob.GPUs, _ = parseGPUs(m.gpus)
	return prob
}

func (m *matchFlags) semantics() engine.Semantics {
	return engine.Semantics{Induced: m.induced, Unique: m.unique}
}

// queryOptions are the load options for query files.
func (m *matchFlags) queryOptions(log *slog.Logger) formats.Options {
	return formats.Options{
		Format:        m.queryFormat,
		DropSelfLoops: m.dropSelfLoops,
		Warn:          func(msg string) { log.Warn(msg) },
	}
}

// concreteEngines lists the registered engines other than auto.
func concreteEngines() []string {
	return slices.DeleteFunc(engine.Names(), func(n string) bool { return n == "auto" })
}

// resolveEngine maps an --engine name to a registered engine. "auto" (or "") is the auto engine
// (package engine/auto), which chooses an engine per problem.
func resolveEngine(name string) (engine.Engine, error) {
	if name == "" {
		name = "auto"
	}
	e, err := engine.Lookup(name)
	if err != nil {
		return nil, &usageError{fmt.Sprintf("--engine: %v", err)}
	}
	return e, nil
}

// resolveEngine is resolveEngine(--engine) with the engine's variant flags applied. For a GPU
// engine it starts opening the GPU in the background, so that CUDA's start-up (a few hundred
// milliseconds) overlaps loading the data graph.
func (m *matchFlags) resolveEngine() (engine.Engine, error) {
	var e engine.Engine
	var err error
	if configure, ok := m.configure[m.engine]; ok {
		if e, err = configure(); err != nil {
			return nil, usagef("%v", err)
		}
	} else if e, err = resolveEngine(m.engine); err != nil {
		return nil, err
	}
	if engine.Describe(e).Device == engine.GPU {
		go gpu.Open(context.Background()) // the engine opens it again (once) and reports errors
	}
	return e, nil
}

// checkAndLoad is the common tail of commands that take one graph file: it checks the load
// flags and loads the graph at path ("-": standard input), logging to stderr (debug records with
// verbose). Cancelling ctx stops the load.
func (l *loadFlags) checkAndLoad(ctx context.Context, path string, verbose bool, stderr io.Writer) (*graph.Graph, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	log := newLogger(stderr, verbose)
	g, err := loadData(ctx, path, l.options(log), log)
	if err == nil && dataLoaded != nil {
		dataLoaded()
	}
	return g, err
}

// dataLoaded, when set (by tests), is called once checkAndLoad has loaded a graph.
var dataLoaded func()

// loadData reads a data graph in any format ("-": standard input) until ctx is cancelled.
func loadData(ctx context.Context, path string, opts formats.Options, log *slog.Logger) (*graph.Graph, error) {
	g, checked, err := loadDataChecking(ctx, path, opts, log)
	if err != nil {
		return nil, err
	}
	if err := checked(); err != nil {
		return nil, err
	}
	return g, nil
}

// loadDataChecking is loadData returning before a snapshot's checks end (formats.LoadChecking):
// nothing computed from the graph is a result until checked returns nil; its error is the one
// loadData would have returned.
func loadDataChecking(ctx context.Context, path string, opts formats.Options, log *slog.Logger) (g *graph.Graph, checked func() error, err error) {
	start := time.Now()
	g, pending, err := formats.LoadChecking(ctx, path, opts)
	if err != nil && ctx.Err() != nil {
		return nil, nil, loadStopped(ctx, path)
	}
	if err != nil {
		return nil, nil, loadError(path, err)
	}
	log.Debug("loaded data graph", "path", path, "vertices", g.NumVertices(), "edges", g.NumEdges(),
		"remapped_ids", g.HasOriginalIDs(), "elapsed", time.Since(start).Round(time.Microsecond))
	checked = sync.OnceValue(func() error {
		t := time.Now()
		if err := pending(); err != nil {
			return loadError(path, err)
		}
		log.Debug("checked data graph", "path", path, "waited", time.Since(t).Round(time.Microsecond),
			"elapsed", time.Since(start).Round(time.Microsecond))
		return nil
	})
	return g, checked, nil
}

// stoppedError is a run cut short (by --timeout or a signal) before it produced anything: its
// message says so in words, and it wraps the context's error (exit status 1).
type stoppedError struct {
	msg string
	err error
}

func (e *stoppedError) Error() string { return e.msg }
func (e *stoppedError) Unwrap() error { return e.err }

// loadStopped is the error of a load cut short by --timeout or a signal: it says which, in words
// (exit status 1).
func loadStopped(ctx context.Context, path string) error {
	return &stoppedError{msg: path + ": loading stopped: " + stopReason(ctx, 0) + " (nothing was counted)", err: ctx.Err()}
}

// loadQuery reads a query: a file in any format ("-": standard input) or, when arg is not an
// existing file and starts with "(", an inline pattern.
func loadQuery(ctx context.Context, arg string, opts formats.Options) (*pattern.Pattern, error) {
	if _, statErr := os.Stat(arg); statErr != nil && arg != formats.Stdin && strings.HasPrefix(strings.TrimSpace(arg), "(") {
		p, err := pattern.Parse(arg)
		if err != nil {
			// Parse errors read "pattern:LINE:COLUMN: ..."; name the pattern as given instead.
			msg := strings.TrimPrefix(err.Error(), "pattern:")
			return nil, &inputError{msg: fmt.Sprintf("inline pattern %q:%s", arg, msg), err: err}
		}
		return p, nil
	}
	p, err := formats.LoadPatternContext(ctx, arg, opts)
	if err != nil && ctx.Err() != nil {
		return nil, loadStopped(ctx, arg)
	}
	if errors.Is(err, fs.ErrNotExist) && strings.ContainsAny(arg, "-,") && !strings.ContainsAny(arg, "./") { // "a-b-c", not a file name
		return nil, &inputError{msg: arg + ": no such file (an inline pattern is written (a)-(b)-(c), each vertex in parentheses)", err: err}
	}
	if err != nil {
		return nil, loadError(arg, err)
	}
	return p, nil
}

// oneStdin refuses command lines that name standard input ("-") more than once.
func oneStdin(args ...string) error {
	if n := len(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a != formats.Stdin })); n > 1 {
		return usagef("standard input (-) can be read only once; %d arguments name it", n)
	}
	return nil
}

// loadError classifies a loader error: a *formats.InputError already names the file and line and is
// returned as it is; a file that cannot be opened is bad input; anything else is wrapped.
func loadError(path string, err error) error {
	var ie *formats.InputError
	if errors.As(err, &ie) && errors.Is(err, graph.ErrSelfLoop) {
		// Name the flag rather than the library option.
		msg := strings.Replace(ie.Error(), "(Options.DropSelfLoops drops it)", "(--drop-self-loops loads it anyway, without the loop)", 1)
		return &inputError{msg: msg, err: err}
	}
	if errors.As(err, &ie) || isCancel(err) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &inputError{err: err}
	}
	return fmt.Errorf("loading %s: %w", path, err)
}

// isBadInput reports whether err is bad usage or bad input (exit status 2).
func isBadInput(err error) bool {
	var ue *usageError
	var ie *inputError
	var fe *formats.InputError
	// a problem the engine does not take (the census's patterns) is a bad engine for the query,
	// not a failure
	return errors.As(err, &ue) || errors.As(err, &ie) || errors.As(err, &fe) || errors.Is(err, engine.ErrUnsupported)
}

// isCancel reports whether err comes from a cancelled or timed-out context.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// stopReason says why ctx ended, for the "partial" messages.
func stopReason(ctx context.Context, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		if timeout > 0 {
			return "timed out after " + timeout.String()
		}
		return "timed out"
	}
	return "interrupted"
}

// stopDetail is what a stopped run's error adds to stopReason: " while NVRTC compiled stmatch.cu
// (...)" when the context ended during a kernel's first compile on this machine
// (gpu.CompileStopped), else "".
func stopDetail(err error) string {
	var cs *gpu.CompileStopped
	if !errors.As(err, &cs) {
		return ""
	}
	return fmt.Sprintf(" while NVRTC compiled %s (for %s: not cached on this machine yet; `submatch gpu-info --compile` compiles every kernel ahead)",
		cs.Name, fmtDuration(cs.Elapsed))
}

// isTerminal reports whether w is a terminal (not merely a character device such as /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine draws "label: 42.0% 3.1s, about 4.2s left" on a terminal, at most every 200 ms,
// and only once a run has lasted more than a second.
type progressLine struct {
	w      io.Writer
	label  string
	start  time.Time
	mu     sync.Mutex
	last   time.Time
	drawn  bool
	active bool
}

const (
	progressDelay    = time.Second
	progressInterval = 200 * time.Millisecond
)

// newProgress returns a progress line on stderr, inactive unless stderr is a terminal.
func newProgress(stderr io.Writer, label string) *progressLine {
	return &progressLine{w: stderr, label: label, start: time.Now(), active: isTerminal(stderr)}
}

// callback returns the function for engine.Problem.Progress (nil when inactive).
func (p *progressLine) callback() func(float64) {
	if !p.active {
		return nil
	}
	return p.update
}

func (p *progressLine) update(done float64) {
	now := time.Now()
	elapsed := now.Sub(p.start)
	if elapsed < progressDelay {
		return
	}
	if !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	if !p.active || now.Sub(p.last) < progressInterval {
		return
	}
	p.last = now
	p.drawn = true
	fmt.Fprint(p.w, "\r\033[K"+progressText(p.label, done, elapsed))
}

// progressText is one state of the progress line: the share of the work done, the time taken and,
// once 1% is done, the time left at the rate so far (a guess: the work is the root candidates,
// whose subtrees differ in size).
func progressText(label string, done float64, elapsed time.Duration) string {
	done = min(max(done, 0), 1)
	s := fmt.Sprintf("%s: %5.1f%% %s", label, 100*done, elapsed.Round(100*time.Millisecond))
	if done >= 0.01 && done < 1 {
		left := time.Duration(float64(elapsed) * (1 - done) / done)
		s += ", about " + left.Round(100*time.Millisecond).String() + " left"
	}
	return s
}

// finish erases the progress line, if one was drawn, and stops further updates.
func (p *progressLine) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.active = false
}

// fmtDuration prints a duration with about four significant digits.
func fmtDuration(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// ms converts a duration to fractional milliseconds for JSON.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// flagGiven reports whether the flag name was set on the command line (not left at its default).
func flagGiven(fs *flag.FlagSet, name string) (given bool) {
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
