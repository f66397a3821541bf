package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/submatch/submatch/formats"
)

func init() {
	registerCommand(command{name: "convert", summary: "load a graph in any format and write it as an .smg snapshot", run: runConvert})
}

func runConvert(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("convert", "IN OUT.smg",
		"Loads the graph IN (any format) and writes it to OUT as a binary .smg snapshot, which later\n"+
			"commands load much faster. Prints the sizes and times.")
	var (
		verbose bool
		load    loadFlags
	)
	flags.BoolVar(&verbose, "v", false, "log debug records (load time) on stderr")
	load.register(flags)
	pos, err := parseArgs(flags, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) != 2 {
		return exitCode(stderr, usagef("convert needs an input graph and an output file (run 'submatch help convert')"))
	}
	start := time.Now()
	g, err := load.checkAndLoad(ctx, pos[0], verbose, stderr)
	if err != nil {
		return exitCode(stderr, err)
	}
	loadTime := time.Since(start)
	start = time.Now()
	if err := formats.WriteSnapshot(pos[1], g); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // cannot create the output: a usage problem
			return exitCode(stderr, &inputError{err: fmt.Errorf("writing %s: %w", pos[1], err)})
		}
		return exitCode(stderr, fmt.Errorf("writing %s: %w", pos[1], err))
	}
	writeTime := time.Since(start)
	var inSize, outSize int64
	if st, err := os.Stat(pos[0]); err == nil {
		inSize = st.Size()
		if st.IsDir() { // a folder format: add up its files
			inSize = 0
			entries, _ := os.ReadDir(pos[0])
			for _, e := range entries {
				if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
					inSize += info.Size()
				}
			}
		}
	}
	if st, err := os.Stat(pos[1]); err == nil {
		outSize = st.Size()
	}
	fmt.Fprintf(stdout, "%s: %d vertices, %d edges, %s, loaded in %s\n", pos[0], g.NumVertices(), g.NumEdges(), byteSize(inSize), fmtDuration(loadTime))
	fmt.Fprintf(stdout, "%s: %s snapshot written in %s\n", pos[1], byteSize(outSize), fmtDuration(writeTime))
	return exitOK
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
