package mining

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/pattern"
)

// The census as an engine (--engine census, and --engine auto's shortcut for induced counts):
// a connected pattern of 3 to 5 vertices whose vertex and edge labels are all wildcards is
// counted from the census of its size, in any convention, without a search.

// censusMaxK is the largest pattern the engine takes: the 5-vertex census is closed formulas
// over local counts (1.7 s for all 21 shapes on wiki-Vote, one thread), while the 6-vertex one
// counts 13 shapes by search anyway (an hour on two cores for wiki-Vote).
const censusMaxK = 5

// ErrNotCensus is returned (wrapped) by the census engine for a pattern it does not take; it is
// engine.ErrUnsupported.
var ErrNotCensus = engine.Unsupported("census: the pattern is not a connected 3- to 5-vertex pattern with wildcard labels")

type censusEngine struct{}

func init() { engine.Register(censusEngine{}) }

func (censusEngine) Name() string { return "census" }

func (censusEngine) Capabilities() engine.Capabilities {
	return engine.Capabilities{Device: engine.Host, Lists: false,
		Summary: "counts a connected 3- to 5-vertex pattern of wildcard labels from the motif census (closed formulas; no listing)"}
}

// censusShape is p's shape when the engine takes p.
func censusShape(p *pattern.Pattern) (Shape, error) {
	k := p.NumVertices()
	if k < 3 || k > censusMaxK {
		return Shape{}, fmt.Errorf("%w (it has %d vertices)", ErrNotCensus, k)
	}
	for v := range k {
		if !p.VertexLabel(v).Any {
			return Shape{}, fmt.Errorf("%w (vertex %s has a label)", ErrNotCensus, p.Name(v))
		}
	}
	for _, e := range p.Edges() {
		if !e.Label.Any {
			return Shape{}, fmt.Errorf("%w (edge %s-%s has a label)", ErrNotCensus, p.Name(e.U), p.Name(e.V))
		}
	}
	s, err := ShapeFromPattern(p)
	if err != nil {
		return Shape{}, err
	}
	if !s.Connected() {
		return Shape{}, fmt.Errorf("%w (it is disconnected)", ErrNotCensus)
	}
	return s, nil
}

// CheckPattern (engine.PatternChecker) refuses, as Count would, the patterns the census does not
// count.
func (censusEngine) CheckPattern(p *pattern.Pattern) error {
	_, err := censusShape(p)
	return err
}

// Takes (engine.Shortcut): induced counts of the patterns the census takes. Non-induced ones are
// left to the search, which counts a single pattern's leaves without the census's other shapes.
func (censusEngine) Takes(p *engine.Problem, listing bool) (bool, string) {
	if listing || !p.Semantics.Induced {
		return false, ""
	}
	if _, err := censusShape(p.Pattern); err != nil {
		return false, ""
	}
	return true, fmt.Sprintf("an induced count of a %d-vertex pattern of wildcard labels: the motif census's closed forms", p.Pattern.NumVertices())
}

// Count counts p from the census of its size: unique counts as the census gives them,
// embeddings times the pattern's automorphisms (overflow is engine.ErrOverflow).
func (censusEngine) Count(ctx context.Context, p *engine.Problem) (engine.Result, error) {
	s, err := censusShape(p.Pattern)
	if err != nil {
		return engine.Result{}, err
	}
	c, err := Count(ctx, p.Data, Options{K: s.K, Threads: p.Threads, Log: p.Logger(), Memory: p.MemoryLimit})
	if err != nil {
		if ctx.Err() != nil {
			return engine.Result{Partial: true}, ctx.Err()
		}
		return engine.Result{}, err
	}
	m, ok := c.Find(s)
	if !ok {
		return engine.Result{}, fmt.Errorf("census: internal error: no %d-vertex shape %s in the census", s.K, p.Pattern)
	}
	count := m.NonInduced
	if p.Semantics.Induced {
		count = m.Induced
	}
	if !p.Semantics.Unique {
		var over bool
		if count, over = mul(count, m.Automorphisms); over {
			return engine.Result{}, fmt.Errorf("census: embeddings of %s: %w", p.Pattern, engine.ErrOverflow)
		}
	}
	return engine.Result{Count: count}, nil
}

// Matches refuses: the census counts without finding the matches.
func (censusEngine) Matches(context.Context, *engine.Problem) iter.Seq2[[]uint32, error] {
	return func(yield func([]uint32, error) bool) {
		yield(nil, errors.New("census: the census engine counts only (use --engine cpu to list)"))
	}
}
