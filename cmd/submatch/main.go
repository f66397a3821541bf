// Command submatch finds, counts and lists the occurrences of a pattern graph in a data graph.
//
// Run "submatch help" for the list of commands. Exit statuses: 0 success, 1 a run that was
// cancelled or timed out (its partial result is printed and flagged) or failed at run time, 2 bad
// usage or bad input, 3 an internal error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/gpu"
)

// Exit statuses.
const (
	exitOK       = 0
	exitPartial  = 1 // cancelled, timed out, or failed at run time
	exitUsage    = 2 // bad usage or bad input
	exitInternal = 3 // a bug: a recovered panic
)

// command is one subcommand. Files of this package add theirs with registerCommand from init.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// registerCommand makes a subcommand available; it panics on a duplicate name.
func registerCommand(c command) {
	if _, dup := commands[c.name]; dup {
		panic("submatch: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func init() {
	registerCommand(command{name: "help", summary: "show the commands, or the flags of one command", run: runHelp})
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c := make(chan os.Signal, 2)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		cancelOnSignal(c, cancel, dieBySignal)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// cancelOnSignal cancels the run at the first signal on c (SIGINT or SIGTERM: it winds down and
// prints its partial result). At a second one the user will not wait: the temporary files of
// writes in progress are removed (formats.RemoveTemporaries; a graph being written can be tens
// of GB) and die ends the process at once. main enables the signals' delivery beside the
// command rather than before it: that waits for the runtime's signal thread to start (0.15-0.3
// ms, several on a busy machine), which every small count waited for. A signal in that window,
// the process's first fraction of a millisecond, before anything is counted, ends the process
// by its default action, as one during the runtime's start does.
func cancelOnSignal(c <-chan os.Signal, cancel context.CancelFunc, die func(os.Signal)) {
	<-c
	cancel()
	sig := <-c
	formats.RemoveTemporaries()
	die(sig)
}

// dieBySignal ends the process as sig's default action would (its parent sees it killed by
// sig), or with status 130 where a process cannot signal itself (Windows).
func dieBySignal(sig os.Signal) {
	signal.Reset(sig)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
		time.Sleep(time.Second) // the signal is on its way
	}
	os.Exit(130)
}

// run executes one command line (without the program name) and returns the exit status. It never
// panics: a panic in the command is reported as an internal error (status 3).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "submatch: internal error: %v\n", r)
			if os.Getenv("SUBMATCH_TRACEBACK") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitInternal
		}
	}()
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		out := &checkedWriter{w: stdout}
		usage(out)
		return out.exit(exitOK, stderr)
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "submatch: unknown command %q%s (run 'submatch help')\n", name, suggestCommand(name))
		return exitUsage
	}
	out := &checkedWriter{w: stdout}
	code = c.run(ctx, args[1:], out, stderr)
	return out.exit(code, stderr)
}

// checkedWriter remembers the first write error on a command's standard output, so that a
// command whose output could not be written (a full disk, /dev/full) does not exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// exit returns the status of a command that returned code: exitPartial instead of exitOK when
// its output failed (saying so on stderr).
func (c *checkedWriter) exit(code int, stderr io.Writer) int {
	if c.err != nil && code == exitOK {
		fmt.Fprintf(stderr, "submatch: writing the output: %v\n", c.err)
		return exitPartial
	}
	return code
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "submatch finds, counts and lists every occurrence of a pattern graph in a data graph.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: submatch COMMAND [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, commands[n].summary)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'submatch help COMMAND' (or 'submatch COMMAND -h') for the flags of a command.")
	fmt.Fprintln(w, "Exit status: 0 ok, 1 cancelled/timed out (partial result) or run-time failure, 2 bad usage or input, 3 internal error.")
}

func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelpFlag(args[0]) {
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "submatch: unknown command %q (run 'submatch help')\n", args[0])
		return exitUsage
	}
	if c.name == "help" {
		usage(stdout)
		return exitOK
	}
	if len(args) > 2 || len(args) == 2 && !hasSubcommands[c.name] {
		fmt.Fprintln(stderr, "submatch: help takes a command name (and for gen and temporal, a subcommand: help gen rmat)")
		return exitUsage
	}
	// help gen rmat is gen rmat -h.
	return c.run(ctx, append(args[1:], "-h"), stdout, stderr)
}

// hasSubcommands names the commands whose first argument is a subcommand with flags of its own.
var hasSubcommands = map[string]bool{"gen": true, "temporal": true}

// isHelpFlag reports whether arg asks for help as a flag: -h, -help, --help.
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// inputError marks bad input that is not already a *formats.InputError, such as an inline pattern
// that does not parse or a file that cannot be opened (exit status 2).
type inputError struct {
	msg string // replaces err's message when set
	err error
}

func (e *inputError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.err.Error()
}
func (e *inputError) Unwrap() error { return e.err }

// newFlagSet returns a flag set for a subcommand that reports errors instead of exiting and prints
// its usage on stderr (or stdout for -h).
func newFlagSet(name, argsSyntax, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", strings.TrimSpace("submatch "+name+" [flags] "+argsSyntax), summary)
		fs.VisitAll(func(f *flag.Flag) {
			typ, help := flag.UnquoteUsage(f)
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			line := "  " + dash + f.Name
			if typ != "" {
				line += " " + typ
			}
			fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(help, "\n", "\n    \t"))
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
				if fmt.Sprintf("%T", f.Value) == "*flag.stringValue" {
					fmt.Fprintf(w, " (default %q)", f.DefValue)
				} else {
					fmt.Fprintf(w, " (default %s)", f.DefValue)
				}
			}
			fmt.Fprintln(w)
		})
	}
	return fs
}

// registerThreads registers --threads N and its short form -t N, the same on every command that
// takes a thread count.
func registerThreads(fs *flag.FlagSet, p *int, usage string) {
	fs.Var((*threadsValue)(p), "threads", usage)
	fs.Var((*threadsValue)(p), "t", "short for --threads `N`")
}

// maxThreads bounds --threads: each worker holds buffers of its own (candidate sets, a search
// stack, per-vertex scratch), so that a mistyped count of millions would have the OS kill the
// process for its memory, and no machine runs this many workers at once.
const maxThreads = 1 << 12

// errParse is the error of the flag package's own values for a malformed value.
var errParse = errors.New("parse error")

// threadsValue is the value of --threads: a count in 0..maxThreads, refused as it is parsed.
type threadsValue int

func (v *threadsValue) String() string { return strconv.Itoa(int(*v)) }

func (v *threadsValue) Get() any { return int(*v) }

func (v *threadsValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errParse // flagErrorMessage: "expected a whole number", as for other integer flags
	}
	if n < 0 || n > maxThreads {
		return fmt.Errorf("expected a thread count in 0..%d (0: all cores)", maxThreads)
	}
	*v = threadsValue(n)
	return nil
}

// parseArgs parses flags that may come before, between or after the positional arguments (the
// flag package alone stops at the first positional argument). Everything after "--" is positional.
// It returns the positional arguments. For -h it prints the usage on stdout and returns flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fs.Usage()
				fs.SetOutput(io.Discard)
				return nil, flag.ErrHelp
			}
			return nil, &usageError{fmt.Sprintf("%s: %s (run 'submatch help %s')", fs.Name(), flagErrorMessage(fs, err), fs.Name())}
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return checkPositional(fs, append(positional, rest...))
		}
		if len(rest) == 0 {
			return checkPositional(fs, positional)
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// checkPositional refuses an empty positional argument (an unset shell variable), which would
// otherwise be reported as the file ": no such file".
func checkPositional(fs *flag.FlagSet, positional []string) ([]string, error) {
	for i, a := range positional {
		if strings.TrimSpace(a) == "" {
			return nil, usagef("%s: argument %d is empty (run 'submatch help %s')", fs.Name(), i+1, strings.Fields(fs.Name())[0])
		}
	}
	return positional, nil
}

// flagErrorMessage rewrites the flag package's parse errors: flags are named with two dashes
// (one for single letters), an unknown flag gets the nearest known one suggested, and a
// duration without a unit is told to add one.
func flagErrorMessage(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		out := "unknown flag " + dashed(name)
		if near := nearestFlag(fs, name); near != "" {
			out += " (did you mean " + dashed(near) + "?)"
		}
		return out
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return dashed(strings.TrimLeft(name, "-")) + " needs a value"
	}
	// invalid value "5" for flag -timeout: parse error
	// invalid boolean value "x" for -json: parse error
	for _, prefix := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, prefix)
		if !ok {
			continue
		}
		value, after, ok := strings.Cut(rest, " for ")
		if !ok {
			break
		}
		after = strings.TrimPrefix(after, "flag ")
		name, cause, _ := strings.Cut(after, ": ")
		name = strings.TrimLeft(name, "-")
		f := fs.Lookup(name)
		switch {
		case f != nil && isDuration(f):
			if _, err := strconv.ParseFloat(strings.Trim(value, `"`), 64); err == nil {
				return fmt.Sprintf("%s %s: add a unit, e.g. %ss or %sm", dashed(name), strings.Trim(value, `"`), strings.Trim(value, `"`), strings.Trim(value, `"`))
			}
			return fmt.Sprintf("%s %s: expected a duration such as 30s, 5m or 1h30m", dashed(name), value)
		case prefix == "invalid boolean value ":
			return fmt.Sprintf("%s %s: expected true or false", dashed(name), value)
		case f != nil && cause == "parse error":
			switch f.Value.(flag.Getter).Get().(type) {
			case int, int64, uint, uint64:
				return fmt.Sprintf("%s %s: expected a whole number", dashed(name), value)
			case float64:
				return fmt.Sprintf("%s %s: expected a number", dashed(name), value)
			}
		}
		return fmt.Sprintf("%s %s: %s", dashed(name), value, cause)
	}
	return msg
}

// suggestCommand returns " (did you mean NAME?)" for the command nearest name, or "".
func suggestCommand(name string) string {
	best, bestDist := "", max(1, len(name)/3)+1
	for n := range commands {
		if d := editDistance(strings.ToLower(name), n); d < bestDist || d == bestDist && n < best {
			best, bestDist = n, d
		}
	}
	if best == "" || len(name) < 3 {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// dashed writes a flag name as typed: --name, or -x for a one-letter flag.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func isDuration(f *flag.Flag) bool {
	_, ok := f.Value.(flag.Getter).Get().(time.Duration)
	return ok
}

// nearestFlag returns the defined flag closest to name (edit distance at most a third of its
// length, at least 1; or name is a prefix of it), or "" when none is close or name is shorter
// than 3 letters.
func nearestFlag(fs *flag.FlagSet, name string) string {
	if len(name) < 3 {
		return ""
	}
	best, bestDist := "", max(1, len(name)/3)+1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(strings.ToLower(name), f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the optimal string alignment distance between a and b (bytes): insertions,
// deletions, substitutions and transpositions of neighbours ("cuont" is 1 from "count").
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	prev2, prev, cur := rows[0], rows[1], rows[2]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// exitCode prints err as one line on stderr and returns the exit status it deserves.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	msg := oneLine(err.Error())
	switch {
	case errors.Is(err, gpu.ErrNoGPU):
		msg += " (the CPU gives the same results: leave --engine or --device at its default; 'submatch gpu-info' lists what was looked for)"
	case errors.Is(err, engine.ErrMemory):
		msg += " (raise --memory for the CPU engines, --gpu-memory for the GPU ones, or leave them at their defaults)"
	}
	fmt.Fprintf(stderr, "submatch: %s\n", msg)
	if isBadInput(err) {
		return exitUsage
	}
	return exitPartial
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.ReplaceAll(s, "\n", "; ")
}

// newLogger returns the logger of a command: text records on stderr, debug records with -v.
func newLogger(stderr io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if !verbose { // warnings only: keep them short
		opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
	}
	return slog.New(slog.NewTextHandler(stderr, opts))
}
