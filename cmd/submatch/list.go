package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/auto"
	"github.com/submatch/submatch/formats"
)

func init() {
	registerCommand(command{name: "list", summary: "stream the matches of a pattern, one per line", run: runList})
}

type listFlags struct {
	matchFlags
	limit    int64
	output   string
	header   bool
	csv      bool
	subgraph string
	explain  bool
}

func (l *listFlags) register(fs *flag.FlagSet) {
	l.matchFlags.register(fs)
	fs.Int64Var(&l.limit, "limit", 0, "stop after `N` matches (0: all)")
	fs.StringVar(&l.output, "o", "", "write the matches to `FILE` instead of stdout (not one of the input files; a regular file is replaced when the listing ends)")
	fs.BoolVar(&l.header, "header", false, "start the TSV output with a line '# NAME...' naming the pattern vertices (CSV: a line 'NAME,...')")
	fs.StringVar(&l.subgraph, "subgraph", "", "also write the data subgraph the matches cover (their vertices and the edges the pattern maps onto) to `FILE`, in the format its extension names (.graphml, .csv, .txt edge list, .graph, .smg)")
	fs.BoolVar(&l.csv, "csv", false, "comma-separated rows instead of tab-separated (the default when -o names a .csv file)")
	fs.BoolVar(&l.explain, "explain", false, "print the matching plan and the engine chosen for it, with why, on stderr")
}

func runList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", "DATA QUERY",
		"Streams the matches of QUERY in the data graph DATA, one per line: the original data vertex ids of the\n"+
			"pattern vertices (their names, for CSV input with string names), in pattern vertex order, separated\n"+
			"by tabs (--csv: commas; --json: {\"match\":[ids...]}). Matches are not sorted, but come in the same\n"+
			"order on every run with the same input and flags. DATA or QUERY may be - for standard input.\n"+
			"QUERY is a graph file in any format or an inline pattern such as '(a)-(b)-(c)-(a)'.")
	var f listFlags
	f.register(fs)
	pos, err := f.parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 2 {
		return exitCode(stderr, usagef("list needs a data graph and exactly one query (run 'submatch help list')"))
	}
	if err := f.check(); err != nil {
		return exitCode(stderr, err)
	}
	if f.limit < 0 {
		return exitCode(stderr, usagef("list: --limit must be >= 0"))
	}
	if f.output != "" && f.output != "-" {
		if err := checkOutput("-o", f.output, pos...); err != nil {
			return exitCode(stderr, err)
		}
	}
	if err := oneStdin(pos...); err != nil {
		return exitCode(stderr, err)
	}
	if f.subgraph != "" {
		if _, ok := formats.FormatForPath(f.subgraph); !ok {
			return exitCode(stderr, usagef("--subgraph %s: cannot tell the format from the name (use .graphml, .csv, .txt, .graph or .smg)", f.subgraph))
		}
		if err := checkFileOutput("--subgraph", f.subgraph, "name a regular file", pos...); err != nil {
			return exitCode(stderr, err)
		}
	}
	if f.header && f.json {
		return exitCode(stderr, usagef("list: --header names the columns of the TSV or CSV output; --json has no header"))
	}
	if f.csv && f.json {
		return exitCode(stderr, usagef("list: --csv and --json are two output formats; choose one"))
	}
	sep := byte('\t')
	if f.csv || !f.json && strings.EqualFold(filepath.Ext(f.output), ".csv") {
		sep = ','
	}
	log := newLogger(stderr, f.verbose)
	ctx, cancel := f.context(ctx)
	defer cancel()

	eng, err := f.resolveEngine()
	if err != nil {
		return exitCode(stderr, err)
	}
	if !engine.Describe(eng).Lists {
		return exitCode(stderr, usagef("--engine %s counts only (use --engine cpu to list)", eng.Name()))
	}
	p, err := loadQuery(ctx, pos[1], f.queryOptions(log))
	if err != nil {
		return exitCode(stderr, err)
	}
	g, err := loadData(ctx, pos[0], f.options(log), log)
	if err != nil {
		return exitCode(stderr, err)
	}

	out := stdout
	var file *os.File
	var atomic *formats.AtomicFile
	if f.output != "" && f.output != "-" {
		if atomic, err = formats.CreateAtomic(f.output, false); err == nil {
			// A regular file is replaced when the listing ends (stopped early too: the matches
			// listed are kept), never rewritten in place under a reader.
			file = atomic.File
		} else if errors.Is(err, formats.ErrNotRegular) {
			// /dev/stdout, /dev/null, a pipe: written as they are (truncated, as os.Create
			// would, when the descriptor's file is a regular one).
			file, err = openWaiting(ctx, f.output)
		}
		if err != nil && ctx.Err() != nil { // a FIFO nobody read: Ctrl-C or --timeout in the wait
			return exitCode(stderr, &stoppedError{msg: fmt.Sprintf("-o %s: %s while waiting for a reader; no matches listed", f.output, stopReason(ctx, f.timeout)), err: err})
		}
		if err != nil {
			return exitCode(stderr, &inputError{err: fmt.Errorf("-o: %w", err)})
		}
		out = file
	}
	w := bufio.NewWriterSize(out, 1<<16)
	if f.header && !f.json {
		if sep == '\t' {
			w.WriteString("# ")
		}
		for u := 0; u < p.NumVertices(); u++ {
			if u > 0 {
				w.WriteByte(sep)
			}
			w.WriteString(p.Name(u))
		}
		w.WriteByte('\n')
	}

	prog := newProgress(stderr, pos[1])
	prob := f.problem(g, p, prog.callback(), log)
	start := time.Now()
	var (
		n       int64
		runErr  error
		buf     []byte
		writeEr error
	)
	matches := eng.Matches(ctx, prob)
	engineName := eng.Name()
	if a, ok := eng.(auto.Engine); ok {
		d, err := a.Decide(ctx, prob, true)
		if err != nil {
			matches = func(yield func([]uint32, error) bool) { yield(nil, err) }
		} else {
			matches = a.MatchesWith(ctx, prob, &d)
		}
		engineName = d.Engine
		if f.explain && err == nil {
			printExplain(ctx, stderr, pos[1], prob, d.Plan(), true, false, "engine: "+d.String())
		}
	} else if f.explain {
		printExplain(ctx, stderr, pos[1], prob, nil, true, false, "engine: "+engineName+" (chosen with --engine)")
	}
	names := g.HasVertexNames() // CSV input with string names: print them
	var sub *matchedSubgraph
	if f.subgraph != "" {
		sub = newMatchedSubgraph(g, p)
	}
	for m, err := range matches {
		if err != nil {
			runErr = err
			break
		}
		if sub != nil {
			if err := sub.add(m); err != nil {
				runErr = err
				break
			}
		}
		buf = buf[:0]
		if f.json {
			buf = append(buf, `{"match":[`...)
		}
		for i, v := range m {
			if i > 0 {
				if f.json {
					buf = append(buf, ',')
				} else {
					buf = append(buf, sep)
				}
			}
			switch {
			case names && f.json:
				buf = strconv.AppendQuote(buf, g.VertexName(v))
			case names:
				buf = append(buf, g.VertexName(v)...)
			default:
				buf = strconv.AppendInt(buf, g.OriginalID(v), 10)
			}
		}
		if f.json {
			buf = append(buf, "]}"...)
		}
		buf = append(buf, '\n')
		if _, writeEr = w.Write(buf); writeEr != nil {
			break
		}
		n++
		if f.limit > 0 && n >= f.limit {
			break
		}
	}
	prog.finish()
	if err := w.Flush(); err != nil && writeEr == nil {
		writeEr = err
	}
	switch {
	case atomic != nil && writeEr == nil:
		writeEr = atomic.Commit()
	case atomic != nil:
		atomic.Abort()
	case file != nil:
		if err := file.Close(); err != nil && writeEr == nil {
			writeEr = err
		}
	}
	elapsed := time.Since(start)
	log.Debug("listed", "query", pos[1], "pattern", p.String(), "matches", n, "semantics", prob.Semantics.String(),
		"engine", engineName, "elapsed", elapsed)
	if writeEr != nil {
		return exitCode(stderr, fmt.Errorf("writing the matches: %w", writeEr))
	}
	if sub != nil && (runErr == nil || isCancel(runErr)) {
		if err := sub.write(f.subgraph); err != nil {
			return exitCode(stderr, fmt.Errorf("--subgraph: %w", err))
		}
	}
	if runErr != nil && !isCancel(runErr) {
		return exitCode(stderr, fmt.Errorf("%s: %w", pos[1], runErr))
	}
	limitReached := f.limit > 0 && n >= f.limit
	if runErr != nil || (ctx.Err() != nil && !limitReached) {
		fmt.Fprintf(stderr, "submatch: %s: %s; the %d matches listed are partial\n", pos[1], stopReason(ctx, f.timeout)+stopDetail(runErr), n)
		return exitPartial
	}
	return exitOK
}
