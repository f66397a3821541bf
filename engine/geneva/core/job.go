package core

import (
	"context"

	"github.com/submatch/submatch/graph"
	"github.com/submatch/submatch/pattern"
	"github.com/submatch/submatch/plan"
)

// Job is one query prepared for GENEVA: its phases, the program they lower to and the inputs the
// kernels read.
type Job struct {
	Plan    *Plan
	Program *Program
	Inputs  *Inputs
	// Candidates counts each query vertex's candidates (the CPU plan's filters).
	Candidates []int
}

// Prepare filters candidates with the CPU planner's filters (label, degree, neighbour labels,
// refinement), plans q with GENMATCHORDER (with o.CountTail, on the query less the closing
// vertices a final step counts: PlanCounting) and lowers the plan for g laid out as pc. A query
// with a vertex that has no candidate, or an edge label the data lacks, gets an empty Program.
func Prepare(ctx context.Context, g *graph.Graph, pc *PCSR, q *pattern.Pattern, o CompileOptions) (*Job, error) {
	return PrepareFrom(ctx, g, pc, q, o, nil)
}

// PrepareFrom is Prepare taking the filtered candidates from base, a plan of g and q built
// elsewhere (any options; nil, or a plan of another pattern: filter here).
func PrepareFrom(ctx context.Context, g *graph.Graph, pc *PCSR, q *pattern.Pattern, o CompileOptions, base *plan.Plan) (*Job, error) {
	cpl, err := plan.BuildFrom(ctx, g, q, base, plan.Options{Induced: o.Induced, Unique: o.Unique, Enumerate: true, SpaceLimit: -1})
	if err != nil {
		return nil, err
	}
	var est *Estimates
	if !o.PaperOrder && !cpl.Empty {
		est = Estimate(g, q, cpl.Candidates, cpl.CandidateBits)
	}
	job := &Job{}
	if o.CountTail && !o.Induced {
		job.Plan = PlanCounting(q, est, o.Unique)
	} else {
		job.Plan = MatchOrderEstimated(q, est)
	}
	for _, c := range cpl.Candidates {
		job.Candidates = append(job.Candidates, len(c))
	}
	job.Program = Compile(q, job.Plan, pc.ELP, o)
	if cpl.Empty || job.Program.Empty {
		job.Program.Empty = true
		return job, nil
	}
	job.Inputs = NewInputs(g, pc, cpl.CandidateBits, job.Program)
	return job, nil
}

// Executor returns an executor for the job on b.
func (j *Job) Executor(b Backend) *Executor {
	return &Executor{Backend: b, MaxLen: j.Inputs.MaxLen, FirstTableRows: DefaultFirstTableRows}
}

// Match writes the match of one final row to dst in pattern vertex order, as the data graph's
// dense ids.
func (j *Job) Match(row, dst []uint32) {
	for c, u := range j.Program.Columns {
		dst[u] = j.Inputs.PCSR.NewToOld[row[c]]
	}
}
