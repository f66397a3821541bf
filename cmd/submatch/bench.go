package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/submatch/submatch/bench"
)

func init() {
	registerCommand(command{name: "bench", summary: "run the benchmark suite and write a CSV and tables (go run ./cmd/submatch-chart DIR draws the chart)", run: runBench})
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", "",
		"Runs a fixed benchmark suite: HPRD query_dense_16_* (quick: the first 20), github-gmatch Q_0..Q_10,\n"+
			"wiki-Vote triangles and 4- and 5-cliques (unique), and R-MAT graphs of scales 16..22 (quick: 16\n"+
			"and 18) with random-walk queries of 4 to 12 vertices. Each case is loaded once, then counted\n"+
			"--repeat times at every thread count (medians reported), each run under --timeout.\n"+
			"Writes results.csv and results.md into --out and prints the tables; go run ./cmd/submatch-chart\nDIR draws chart.png from the CSV.")
	var (
		suite    string
		threads  string
		out      string
		testdata string
		engName  string
		timeout  time.Duration
		repeat   int
	)
	fs.StringVar(&suite, "suite", bench.SuiteDefault, "`SUITE`: default or quick")
	fs.StringVar(&threads, "threads", "1,"+strconv.Itoa(runtime.GOMAXPROCS(0)), "comma-separated thread `COUNTS`; speedups are relative to the smallest")
	fs.StringVar(&out, "out", filepath.Join("results", time.Now().Format("2006-01-02")), "results `DIR`")
	fs.StringVar(&testdata, "testdata", filepath.Join("..", "shared", "testdata"), "folder of the shared test data `DIR`")
	fs.StringVar(&engName, "engine", "cpu", "matching engine `NAME`")
	fs.DurationVar(&timeout, "timeout", time.Minute, "limit of each run of a case (`DURATION`); a run cut short is reported as a timeout")
	fs.IntVar(&repeat, "repeat", 3, "timed runs per case and thread count (`K`); the median is reported")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return exitCode(stderr, err)
	}
	if len(pos) > 0 {
		return exitCode(stderr, usagef("bench takes no arguments (run 'submatch help bench')"))
	}
	threadList, err := parseIntList(threads, 1)
	if err != nil {
		return exitCode(stderr, usagef("--threads: %v", err))
	}
	if m := slices.Max(threadList); m > maxThreads {
		return exitCode(stderr, usagef("--threads: %d is more than %d", m, maxThreads))
	}
	if repeat < 1 || timeout <= 0 {
		return exitCode(stderr, usagef("--repeat must be at least 1 and --timeout positive"))
	}
	eng, err := resolveEngine(engName)
	if err != nil {
		return exitCode(stderr, err)
	}
	cases, missing, err := bench.Suite(suite, testdata)
	if err != nil {
		return exitCode(stderr, usagef("%v", err))
	}
	for _, m := range missing {
		fmt.Fprintf(stderr, "submatch: bench: %s not found, its cases are left out\n", m)
	}
	results, runErr := bench.Run(ctx, bench.Config{Cases: cases, Engine: eng, Threads: threadList,
		Repeats: repeat, Timeout: timeout, Log: stderr})
	if err := bench.WriteReports(out, results); err != nil {
		return exitCode(stderr, fmt.Errorf("writing the reports: %w", err))
	}
	if err := bench.WriteMarkdown(stdout, results); err != nil {
		return exitCode(stderr, err)
	}
	fmt.Fprintf(stdout, "\nResults: %s, %s (chart: go run ./cmd/submatch-chart %s)\n", filepath.Join(out, bench.CSVFile),
		filepath.Join(out, bench.MarkdownFile), out)
	if runErr != nil {
		return exitCode(stderr, fmt.Errorf("bench %s: the results above are partial", stopReason(ctx, 0)))
	}
	return exitOK
}
