package sgsi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/engine/sgsi"
	"github.com/submatch/submatch/gen"
)

// TestDirect counts with the direct last step (rows from a table, and generated from edges for
// three-vertex patterns), serially and overlapped (Options.Overlap: the pipeline of pipe.go; by
// default the pieces of generated rows only, or every block),
// and with buffers (Options.Buffered), every convention, on an unlabelled and a labelled R-MAT
// graph in core (64 MiB) and at an eighth and a 32nd of GraphBytes, each equal to the cpu
// engine. It fails when no count ran in several blocks, none generated its rows, none streamed a
// block's second-column lists in several pieces, no count in core went the direct way (or one
// with Options.Buffered did), or no overlapped count ran several blocks or pieces through the
// pipeline (or a serial one ran any, or the default ran blocks of table rows through it).
func TestDirect(t *testing.T) { directCount(t, true) }

// directCount runs TestDirect's cases on the host emulation or the GPU.
func directCount(t *testing.T, host bool) {
	ctx := context.Background()
	pats := []string{
		"(a)-(b)-(c)-(a)", // rows generated from edges
		"(a)-(b)-(c)",     // generated; induced: a non-edge
		"(a)-(b)-(c)-(d)-(a), (a)-(c), (b)-(d)",
		"(a:0)-(b:1)-(c:1)-(a), (a)-(d:1)-(b)",
		"(a:0)-(b:1)-(c:0)-(a)",
	}
	var runs, several, generated, pieces, inCore int
	pipelined := map[sgsi.Overlap]int{}
	graphs := []gen.RMATOptions{{Scale: 9, EdgeFactor: 8, Seed: 11}, {Scale: 9, EdgeFactor: 8, VertexLabels: 2, Seed: 12}}
	againstCPUOnRMAT(t, graphs, pats, func(gc gen.RMATOptions, prob engine.Problem, want uint64) {
		p, sem := prob.Pattern, prob.Semantics
		for _, f := range []uint64{0, 8, 32} {
			prob.GPUMemoryLimit = 64 << 20
			if f > 0 {
				prob.GPUMemoryLimit = sgsi.GraphBytes(prob.Data) / f
			}
			var bytes [2]uint64
			for i, o := range []sgsi.Options{{Overlap: sgsi.OverlapOff}, {Buffered: true}, {}, {Overlap: sgsi.OverlapAll}} {
				buffered := o.Buffered
				o.Host = host
				res, st, err := sgsi.Engine{Options: o}.CountStats(ctx, &prob)
				if errors.Is(err, engine.ErrMemory) {
					continue
				}
				runs++
				if err != nil || res.Partial || res.Count != want {
					t.Errorf("R-MAT %+v, %s, %s, 1/%d, buffered %v, overlap %v, host %v: sgsi %d (%v), cpu %d", gc, p, sem, f, buffered, o.Overlap, host, res.Count, err, want)
				}
				switch {
				case o.Overlap == sgsi.OverlapOff && st.Pipelined > 0:
					t.Errorf("%s %s 1/%d: %d kernels through the pipeline with OverlapOff", p, sem, f, st.Pipelined)
				case o.Overlap == sgsi.OverlapPieces && st.Pieces == 0 && st.Pipelined > 0:
					t.Errorf("%s %s 1/%d: %d kernels of table rows through the pipeline with OverlapPieces", p, sem, f, st.Pipelined)
				}
				if i >= 2 {
					if st.Pipelined > 1 {
						pipelined[o.Overlap]++
					}
					continue // (the serial direct count's figures below)
				}
				if buffered && st.Blocks > 0 {
					t.Errorf("%s %s 1/%d: %d direct blocks with Options.Buffered", p, sem, f, st.Blocks)
				}
				if f == 0 && st.Steps > 0 && !st.InCore {
					t.Errorf("%s %s: not in core at 64 MiB", p, sem)
				}
				if f == 0 && !buffered && st.Blocks > 0 {
					inCore++
				}
				if st.Blocks > 1 {
					several++
					if p.NumVertices() == 3 {
						generated++
					}
				}
				if st.Pieces > st.Blocks {
					pieces++ // a block's second-column lists in several pieces
				}
				bytes[i] = st.BytesToGPU
			}
			t.Logf("R-MAT %+v, %s, %s, 1/%d: %d bytes to the GPU direct, %d buffered", gc, p, sem, f, bytes[0], bytes[1])
		}
	})
	t.Logf("%d runs, %d direct in several blocks, %d of them of rows generated from edges, %d with blocks in several pieces, %d direct in core, overlapped through the pipeline: %v", runs, several, generated, pieces, inCore, pipelined)
	if several == 0 || generated == 0 || pieces == 0 || inCore == 0 || pipelined[sgsi.OverlapPieces] == 0 || pipelined[sgsi.OverlapAll] <= pipelined[sgsi.OverlapPieces] {
		t.Errorf("%d direct counts in several blocks, %d of generated rows, %d in pieces, %d in core, overlapped %v (OverlapAll must overlap more than the default): the test checks nothing of the direct count", several, generated, pieces, inCore, pipelined)
	}
}
