package bench

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/submatch/submatch/formats"
)

// Files written by WriteReports into the results folder.
const (
	CSVFile      = "results.csv"
	ChartFile    = "chart.png"
	MarkdownFile = "results.md"
)

// WriteReports writes the CSV and the markdown tables into dir (created if needed). The chart
// is drawn from the CSV by the separate command cmd/submatch-chart (package bench/chart), so
// that the plotting library is not linked into submatch.
func WriteReports(dir string, rs []Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := formats.WriteAtomic(filepath.Join(dir, CSVFile), func(w io.Writer) error { return WriteCSV(w, rs) }); err != nil {
		return err
	}
	return formats.WriteAtomic(filepath.Join(dir, MarkdownFile), func(w io.Writer) error { return WriteMarkdown(w, rs) })
}

// csvHeader names the columns of WriteCSV. Times are in seconds, memory in bytes.
var csvHeader = []string{"case", "group", "data", "query", "semantics", "data_vertices", "data_edges",
	"threads", "status", "count", "expected", "runs", "load_s", "plan_s", "match_s", "match_min_s",
	"match_max_s", "matches_per_s", "peak_rss_bytes", "speedup", "error"}

// WriteCSV writes one row per result. count is a lower bound when status is timeout; expected
// and speedup are empty when unknown.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'g', 6, 64) }
	for _, r := range rs {
		expected, speedup := "", ""
		if r.HasExpected {
			expected = strconv.FormatUint(r.Expected, 10)
		}
		if r.Speedup > 0 {
			speedup = strconv.FormatFloat(r.Speedup, 'f', 3, 64)
		}
		row := []string{r.Case, r.Group, r.Data, r.Query, r.Semantics, strconv.Itoa(r.Vertices),
			strconv.FormatUint(r.Edges, 10), strconv.Itoa(r.Threads), string(r.Status),
			strconv.FormatUint(r.Count, 10), expected, strconv.Itoa(r.Runs), secs(r.Load), secs(r.Plan),
			secs(r.Match), secs(r.MatchMin), secs(r.MatchMax),
			strconv.FormatFloat(r.MatchesPerSecond(), 'g', 6, 64), strconv.FormatUint(r.PeakRSS, 10),
			speedup, r.Err}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// caseRow gathers the results of one case, one per thread count.
type caseRow struct {
	name, group string
	byThreads   map[int]Result
}

// threadCounts returns the distinct thread counts of rs, ascending.
func threadCounts(rs []Result) []int {
	var ts []int
	for _, r := range rs {
		ts = append(ts, r.Threads)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// byCase groups results by case and by group, in order of first appearance.
func byCase(rs []Result) (cases []*caseRow, groups []string) {
	index := map[string]*caseRow{}
	for _, r := range rs {
		c := index[r.Case]
		if c == nil {
			c = &caseRow{name: r.Case, group: r.Group, byThreads: map[int]Result{}}
			index[r.Case] = c
			cases = append(cases, c)
			if !slices.Contains(groups, r.Group) {
				groups = append(groups, r.Group)
			}
		}
		c.byThreads[r.Threads] = r
	}
	return cases, groups
}

// groupStats summarises one group at one thread count over its ok cases.
type groupStats struct {
	ok, timeouts, failed int
	geoMatch             time.Duration // geometric mean of the median match times
	geoSpeedup           float64
}

func summarise(cases []*caseRow, group string, threads int) groupStats {
	var s groupStats
	var logT, logS float64
	var nS int
	for _, c := range cases {
		r, ok := c.byThreads[threads]
		if c.group != group || !ok {
			continue
		}
		switch r.Status {
		case StatusOK:
			s.ok++
			logT += math.Log(max(r.Match.Seconds(), 1e-9))
			if r.Speedup > 0 {
				logS += math.Log(r.Speedup)
				nS++
			}
		case StatusTimeout:
			s.timeouts++
		default:
			s.failed++
		}
	}
	if s.ok > 0 {
		s.geoMatch = time.Duration(math.Exp(logT/float64(s.ok)) * float64(time.Second))
	}
	if nS > 0 {
		s.geoSpeedup = math.Exp(logS / float64(nS))
	}
	return s
}

// WriteMarkdown writes two tables: one line per group (geometric means over its cases that
// completed), and one line per case.
func WriteMarkdown(w io.Writer, rs []Result) error {
	cases, groups := byCase(rs)
	ts := threadCounts(rs)
	if len(ts) == 0 {
		_, err := fmt.Fprintln(w, "(no results)")
		return err
	}
	top := ts[len(ts)-1]
	var b strings.Builder
	b.WriteString("| group | cases | ok | timeouts | failed |")
	for _, t := range ts {
		fmt.Fprintf(&b, " match %s |", threadsLabel(t))
	}
	fmt.Fprintf(&b, " speedup %d→%d |\n|---|---:|---:|---:|---:|", ts[0], top)
	b.WriteString(strings.Repeat("---:|", len(ts)+1) + "\n")
	for _, g := range groups {
		var n int
		for _, c := range cases {
			if c.group == g {
				n++
			}
		}
		first := summarise(cases, g, ts[0])
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |", g, n, first.ok, first.timeouts, first.failed)
		var last groupStats
		for _, t := range ts {
			last = summarise(cases, g, t)
			fmt.Fprintf(&b, " %s |", fmtDuration(last.geoMatch))
		}
		fmt.Fprintf(&b, " %s |\n", fmtSpeedup(last.geoSpeedup))
	}
	b.WriteString("\nMatch times in the group table are geometric means over the cases that completed at that thread count.\n\n")

	b.WriteString("| case | count | load | plan |")
	for _, t := range ts {
		fmt.Fprintf(&b, " match %s |", threadsLabel(t))
	}
	fmt.Fprintf(&b, " matches/s %s | peak RSS | speedup %d→%d | status |\n|---|---:|---:|---:|", threadsLabel(top), ts[0], top)
	b.WriteString(strings.Repeat("---:|", len(ts)+3) + "---|\n")
	for _, c := range cases {
		shown := c.byThreads[ts[0]]
		for _, t := range ts {
			if r, ok := c.byThreads[t]; ok {
				shown = r
				break
			}
		}
		count := strconv.FormatUint(shown.Count, 10)
		if shown.Status == StatusTimeout {
			count = "≥ " + count
		} else if shown.Status == StatusError {
			count = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", c.name, count, fmtDuration(shown.Load), fmtDuration(shown.Plan))
		var statuses []string
		var peak uint64
		for _, t := range ts {
			r, ok := c.byThreads[t]
			switch {
			case !ok:
				b.WriteString(" |")
			case r.Status == StatusTimeout:
				fmt.Fprintf(&b, " > %s |", fmtDuration(r.Match))
			case r.Status == StatusError:
				b.WriteString(" – |")
			default:
				fmt.Fprintf(&b, " %s |", fmtDuration(r.Match))
			}
			if ok && r.Status != StatusOK {
				statuses = append(statuses, fmt.Sprintf("%s@%d: %s", r.Status, t, r.Err))
			}
			peak = max(peak, r.PeakRSS)
		}
		rt := c.byThreads[top]
		status := "ok"
		if len(statuses) > 0 {
			status = strings.ReplaceAll(strings.Join(statuses, "; "), "|", "/")
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s |\n", fmtRate(rt), fmtBytes(peak), fmtSpeedup(rt.Speedup), status)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func threadsLabel(t int) string {
	if t == 1 {
		return "1 thread"
	}
	return strconv.Itoa(t) + " threads"
}

// fmtDuration prints a duration with three significant digits in a unit that suits it.
func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g s", d.Seconds())
}

func fmtSpeedup(s float64) string {
	if s <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", s)
}

func fmtRate(r Result) string {
	if r.Status != StatusOK {
		return "–"
	}
	rate := r.MatchesPerSecond()
	for _, u := range []struct {
		unit  string
		scale float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if rate >= u.scale {
			return fmt.Sprintf("%.3g%s", rate/u.scale, u.unit)
		}
	}
	return fmt.Sprintf("%.3g", rate)
}

func fmtBytes(n uint64) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// GroupStats summarises one group of cases at one thread count, over its cases that ran.
type GroupStats struct {
	OK, Timeouts, Failed int
	// GeoMatch is the geometric mean of the median match times of the ok cases.
	GeoMatch time.Duration
	// GeoSpeedup is the geometric mean of their speedups over the smallest thread count (0: none).
	GeoSpeedup float64
}

// Summary returns the groups of rs (in order of first appearance), the thread counts
// (ascending), and the summary of a group at a thread count.
func Summary(rs []Result) (groups []string, threads []int, stats func(group string, threads int) GroupStats) {
	cases, groups := byCase(rs)
	return groups, threadCounts(rs), func(group string, t int) GroupStats {
		s := summarise(cases, group, t)
		return GroupStats{OK: s.ok, Timeouts: s.timeouts, Failed: s.failed, GeoMatch: s.geoMatch, GeoSpeedup: s.geoSpeedup}
	}
}

// ThreadsLabel is "1 thread" or "N threads".
func ThreadsLabel(t int) string { return threadsLabel(t) }

// ReadCSV reads what WriteCSV wrote (the columns found by their names in the header).
func ReadCSV(r io.Reader) ([]Result, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("bench: empty CSV")
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, name := range csvHeader {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("bench: CSV line 1: no column %q", name)
		}
	}
	var rs []Result
	for n, row := range rows[1:] {
		line := n + 2
		bad := func(name string, err error) error {
			return fmt.Errorf("bench: CSV line %d: column %s: %w", line, name, err)
		}
		get := func(name string) string { return row[col[name]] }
		num := func(name string) (uint64, error) {
			if get(name) == "" {
				return 0, nil
			}
			v, err := strconv.ParseUint(get(name), 10, 64)
			if err != nil {
				return 0, bad(name, err)
			}
			return v, nil
		}
		secs := func(name string) (time.Duration, error) {
			v, err := strconv.ParseFloat(get(name), 64)
			if err != nil {
				return 0, bad(name, err)
			}
			return time.Duration(v * float64(time.Second)), nil
		}
		r := Result{Case: get("case"), Group: get("group"), Data: get("data"), Query: get("query"),
			Semantics: get("semantics"), Status: Status(get("status")), Err: get("error"), HasExpected: get("expected") != ""}
		var errs [13]error
		var v, th, runs uint64
		v, errs[0] = num("data_vertices")
		r.Edges, errs[1] = num("data_edges")
		th, errs[2] = num("threads")
		r.Count, errs[3] = num("count")
		r.Expected, errs[4] = num("expected")
		runs, errs[5] = num("runs")
		r.PeakRSS, errs[6] = num("peak_rss_bytes")
		r.Load, errs[7] = secs("load_s")
		r.Plan, errs[8] = secs("plan_s")
		r.Match, errs[9] = secs("match_s")
		r.MatchMin, errs[10] = secs("match_min_s")
		r.MatchMax, errs[11] = secs("match_max_s")
		if sp := get("speedup"); sp != "" {
			r.Speedup, errs[12] = strconv.ParseFloat(sp, 64)
		}
		if err := errors.Join(errs[:]...); err != nil {
			return nil, err
		}
		r.Vertices, r.Threads, r.Runs = int(v), int(th), int(runs)
		rs = append(rs, r)
	}
	return rs, nil
}
