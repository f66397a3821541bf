package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/submatch/submatch/formats"
)

func init() {
	registerCommand(command{name: "convert", summary: "load a graph in any format and write it in another (.smg snapshot, t/v/e, edge list, CSV, GraphML)", run: runConvert})
}

func runConvert(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("convert", "IN OUT",
		"Loads the graph IN (any format; - for standard input) and writes it to OUT in the format its name\n"+
			"says, or --to: .smg (binary snapshot, which later commands load much faster), .graph/.sm (t/v/e\n"+
			"text), .txt/.el/.edges (edge list), .csv (Glasgow CSV), .graphml. OUT - writes standard output\n"+
			"(with --to). A file is written through a temporary file renamed into place, so OUT never holds\n"+
			"a partial graph; OUT must be a regular file (or not exist) and not the input. An edge list\n"+
			"cannot hold vertex labels or isolated vertices: such a graph is refused. Prints the sizes and\n"+
			"times (on stderr when OUT is -).")
	var (
		verbose bool
		load    loadFlags
		to      string
	)
	flags.BoolVar(&verbose, "v", false, "log debug records (load time) on stderr")
	flags.StringVar(&to, "to", "", "output format `NAME`, one of "+strings.Join(formats.WriteFormats(), ", ")+" (default: from OUT's extension)")
	load.register(flags)
	pos, err := parseArgs(flags, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 2 {
		return exitCode(stderr, usagef("convert needs an input graph and an output file (run 'submatch help convert')"))
	}
	in, out := pos[0], pos[1]
	format := to
	if format == "" {
		if out == "-" {
			return exitCode(stderr, usagef("convert: writing standard output needs --to (one of %s)", strings.Join(formats.WriteFormats(), ", ")))
		}
		var ok bool
		if format, ok = formats.FormatForPath(out); !ok {
			return exitCode(stderr, usagef("convert: cannot tell the output format from the name %s: use an extension (.smg, .graph, .txt, .csv, .graphml) or --to", out))
		}
	} else if !slices.Contains(formats.WriteFormats(), format) {
		return exitCode(stderr, usagef("--to %s: unknown output format (one of %s)", format, strings.Join(formats.WriteFormats(), ", ")))
	}
	if out != "-" {
		if err := checkFileOutput("convert: output", out, "use - and redirect standard output", in); err != nil {
			return exitCode(stderr, err)
		}
	}
	start := time.Now()
	g, err := load.checkAndLoad(ctx, in, verbose, stderr)
	if err != nil {
		return exitCode(stderr, err)
	}
	loadTime := time.Since(start)
	if lost := formats.Lossy(g, format); lost != nil {
		return exitCode(stderr, &inputError{msg: fmt.Sprintf("%s: an edge list cannot hold the graph's %s: choose another format (sm, csv, graphml, smg)", in, strings.Join(lost, " and "))})
	}
	start = time.Now()
	report := stdout
	var written countingWriter
	// Ctrl-C stops the write (the snapshot writer, which writes a file in parallel and quickly, is
	// checked after it): OUT is then not renamed into place.
	write := func(w io.Writer) error {
		if format != "smg" {
			w = formats.ContextWriter{Ctx: ctx, W: w}
		}
		if err := formats.WriteGraph(w, g, format); err != nil {
			return err
		}
		return ctx.Err()
	}
	if out == "-" {
		written.w = stdout
		err = write(&written)
		report = stderr
	} else {
		err = formats.WriteAtomic(out, write)
	}
	if err != nil && ctx.Err() != nil {
		what := out + " not written"
		if out == "-" {
			what = "the graph on standard output is incomplete"
		}
		return exitCode(stderr, &stoppedError{msg: "convert: " + stopReason(ctx, 0) + "; " + what, err: ctx.Err()})
	}
	if err != nil {
		if errors.Is(err, formats.ErrNotRegular) {
			return exitCode(stderr, &inputError{err: fmt.Errorf("writing %s: %w", out, err)})
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
			// The output cannot be created (no such folder, no permission): a usage problem.
			return exitCode(stderr, &inputError{err: fmt.Errorf("writing %s: %w", out, err)})
		}
		return exitCode(stderr, fmt.Errorf("writing %s: %w", out, err)) // a full disk, an I/O error: exit 1
	}
	writeTime := time.Since(start)
	var inSize, outSize int64
	if st, err := os.Stat(in); err == nil && in != "-" {
		inSize = st.Size()
		if st.IsDir() { // a folder format: add up its files
			inSize = 0
			entries, _ := os.ReadDir(in)
			for _, e := range entries {
				if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
					inSize += info.Size()
				}
			}
		}
	}
	inName, outName := in, out
	if in == "-" {
		inName = "standard input"
	}
	if out == "-" {
		outName, outSize = "standard output", written.n
	} else if st, err := os.Stat(out); err == nil {
		outSize = st.Size()
	}
	what := format + " file"
	if format == "smg" {
		what = "snapshot"
	}
	inDesc := byteSize(inSize) + ", "
	if in == "-" {
		inDesc = ""
	}
	_, err1 := fmt.Fprintf(report, "%s: %d vertices, %d edges, %sloaded in %s\n", inName, g.NumVertices(), g.NumEdges(), inDesc, fmtDuration(loadTime))
	_, err2 := fmt.Fprintf(report, "%s: %s %s written in %s\n", outName, byteSize(outSize), what, fmtDuration(writeTime))
	if err := errors.Join(err1, err2); err != nil {
		return exitCode(stderr, fmt.Errorf("writing the report: %w", err))
	}
	return exitOK
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// byteSize prints a size in bytes with a binary unit.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
