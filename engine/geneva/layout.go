package geneva

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/geneva/core"
	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/internal/bytesize"
)

// layoutStats compares the storage layouts of the GENEVA paper's Table 2 (`submatch stats
// --formats`); the byte model is core.Sizes'.
type layoutStats struct {
	core.Sizes
	// Reduction is the share of hash-PCSR's bytes interval-PCSR saves (Table 2's last column).
	Reduction float64 `json:"reduction_over_hash_pcsr"`
	ELPs      int     `json:"elps"`
	// Intervals is the size of all interval indexes under GENMAP, IdentityIntervals what it would
	// be without renaming; LargestELPIntervals is the interval count of the ELP with most vertices.
	Intervals           int     `json:"intervals"`
	IdentityIntervals   int     `json:"identity_intervals"`
	LargestELPIntervals int     `json:"largest_elp_intervals"`
	BuildMS             float64 `json:"build_ms"`
}

// LayoutReport implements engine.LayoutReporter: it builds g's interval-PCSR and measures it
// against plain CSR and GSI's hash-PCSR.
func (Engine) LayoutReport(ctx context.Context, g *graph.Graph) (engine.Layout, error) {
	start := time.Now()
	pc, err := core.Build(g)
	if err != nil {
		return engine.Layout{}, err
	}
	f := &layoutStats{Sizes: core.ComputeSizes(g, pc), BuildMS: float64(time.Since(start).Microseconds()) / 1000, ELPs: pc.NumELPs()}
	if f.HashPCSR > 0 {
		f.Reduction = 1 - float64(f.IntervalPCSR)/float64(f.HashPCSR)
	}
	p := core.NewPartitions(g)
	for e := 0; e < p.Len(); e++ {
		if err := ctx.Err(); err != nil {
			return engine.Layout{}, err
		}
		f.Intervals += pc.NumIntervals(e)
		f.IdentityIntervals += p.CountIntervals(e, nil)
	}
	if big := p.Largest(); big >= 0 {
		f.LargestELPIntervals = pc.NumIntervals(big)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	ib := bytesize.IEC
	fmt.Fprint(tw, "layout\tbytes\tlargest ELP\t\n")
	fmt.Fprintf(tw, "CSR\t%s\t-\t\n", ib(f.CSR))
	fmt.Fprintf(tw, "interval-PCSR\t%s\t%s\t\n", ib(f.IntervalPCSR), ib(f.IntervalPCSRMax))
	fmt.Fprintf(tw, "hash-PCSR (GSI)\t%s\t%s\t\n", ib(f.HashPCSR), ib(f.HashPCSRMax))
	tw.Flush()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	lines = append(lines,
		fmt.Sprintf("reduction over hash-PCSR  %.1f%%", 100*f.Reduction),
		fmt.Sprintf("edge-label partitions     %d", f.ELPs),
		fmt.Sprintf("intervals (GENMAP)        %d (identity order: %d; largest ELP: %d)", f.Intervals, f.IdentityIntervals, f.LargestELPIntervals),
		fmt.Sprintf("build time                %.3f ms", f.BuildMS))
	return engine.Layout{Title: "storage layouts (GENEVA Table 2; ids and labels 4 B, row offsets 8 B)", Lines: lines, Data: f}, nil
}
