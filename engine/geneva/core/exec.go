package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Table is a backend's buffer of partial embeddings: up to Cap rows of Width uint32 columns.
type Table interface {
	Cap() uint64
	Width() int
}

// Backend runs steps: the GPU kernels, or the host reference implementation that tests check
// the executor with.
type Backend interface {
	// Alloc returns an empty table for rows rows of width columns, or an error wrapping
	// ErrBudget when the memory budget does not hold it.
	Alloc(rows uint64, width int) (Table, error)
	Free(t Table)
	// Available is the memory budget left, in bytes.
	Available() uint64
	// Run executes step s over rows [lo, hi) of in (in nil: a single row of width 0), trying,
	// for each row, the combinations of its new vertices' candidates whose index (odometer order,
	// last new vertex fastest) lies in win. With out nil it counts the rows the step produces;
	// else it writes them to out, as many as fit. It returns how many rows the chunk produces
	// (out holds them all only if that is <= out.Cap()) and the largest number of combinations
	// of one row. A count that does not fit a uint64 fails with ErrOverflow. A Counting step
	// (always with out nil) returns the sum over the rows of each row's count.
	Run(ctx context.Context, s *Step, in Table, lo, hi uint64, win Window, out Table) (produced, combinations uint64, err error)
	// Read copies the first rows rows of t to dst (rows*t.Width() words).
	Read(t Table, rows uint64, dst []uint32) error
}

// Window bounds the combinations of new-vertex candidates a Run tries per row: From <= index <
// To. Each combination yields at most one row, so a window no larger than a table always fits.
type Window struct{ From, To uint64 }

// DefaultFirstTableRows is the size a table starts at (Executor.FirstTableRows): large enough
// that most counts never grow one, small enough that allocating it costs little.
const DefaultFirstTableRows = 1 << 20

// AllCombinations is the window of every combination.
var AllCombinations = Window{0, math.MaxUint64}

var (
	// ErrBudget is what Backend.Alloc wraps when the memory budget is exhausted.
	ErrBudget = errors.New("memory budget exhausted")
	// ErrOverflow is returned when a count does not fit a uint64.
	ErrOverflow = errors.New("count overflows uint64")
)

// RowBound returns an upper bound on the rows step s produces from one input row, given the
// longest row of each partition and the length of each initial vertex's candidate list
// (saturating at MaxUint64).
func (s *Step) RowBound(maxLen func(nv NewVertex) uint64) uint64 {
	if s.Kind != Extension {
		return 1 // a Counting step writes no rows
	}
	b := uint64(1)
	for _, nv := range s.New {
		hi, lo := bits.Mul64(b, maxLen(nv))
		if hi != 0 {
			return math.MaxUint64
		}
		b = lo
	}
	return b
}

// Executor runs a Program depth-first over chunks (Section 7's answer to intermediate results
// larger than memory): a step's output table is filled from as many input rows as it holds, the
// rest of the program runs on it, then the next input rows follow. Each depth keeps one table,
// at most an equal share of the budget then left among it and the deeper tables still to come;
// it starts at FirstTableRows (or the step's row bound, when smaller) and grows, up to that
// share, when a chunk's output does not fit. A chunk whose output exceeds the share is rerun on
// fewer rows; a single row whose output does not fit is run in windows of its combinations,
// each the size of the table. So any program runs in any budget that holds one row per depth.
type Executor struct {
	Backend Backend
	// MaxLen bounds the candidates of one new vertex from one row (see Step.RowBound).
	MaxLen func(nv NewVertex) uint64
	// MaxTableRows caps every table (0: no cap beyond the budget); listing uses it to keep the
	// batches it hands the host small, tests to force chunking.
	MaxTableRows uint64
	// FirstTableRows caps a table when first allocated (0: one row); a table that turns out too
	// small grows within its share of the budget before the executor falls back to smaller
	// chunks, so a count takes the memory it needs rather than all it may. NewExecutor sets it
	// to DefaultFirstTableRows.
	FirstTableRows uint64
	// Progress, when set, is called after every chunk with the fraction of the run done (each
	// chunk's share split evenly among its rows, depth by depth).
	Progress func(done float64)

	Chunks  uint64 // chunks run, all depths
	Retries uint64 // chunks rerun on fewer rows
	Windows uint64 // windows run for rows whose output alone exceeds a table

	tables []Table
}

// Count runs the program and returns the number of rows its last step produces; on
// cancellation it returns the rows counted so far and the context's error.
func (x *Executor) Count(ctx context.Context, prog *Program) (uint64, error) {
	var total uint64
	err := x.run(ctx, prog.Steps, nil, func(n uint64, _ Table) error {
		var carry uint64
		total, carry = bits.Add64(total, n, 0)
		if carry != 0 {
			return ErrOverflow
		}
		return nil
	}, false)
	return total, err
}

// List runs the program and hands each batch of final rows (rows x len(prog.Columns) words,
// reused between calls) to emit; emit returning false stops the run without error.
func (x *Executor) List(ctx context.Context, prog *Program, emit func(rows []uint32) bool) error {
	if n := len(prog.Steps); n > 0 && prog.Steps[n-1].Kind == Counting {
		return errors.New("geneva: a program with a counting step cannot list")
	}
	var buf []uint32
	stop := errors.New("stop")
	err := x.run(ctx, prog.Steps, nil, func(n uint64, t Table) error {
		if n == 0 {
			return nil
		}
		w := uint64(t.Width())
		if uint64(cap(buf)) < n*w {
			buf = make([]uint32, n*w)
		}
		buf = buf[:n*w]
		if err := x.Backend.Read(t, n, buf); err != nil {
			return err
		}
		if !emit(buf) {
			return stop
		}
		return nil
	}, true)
	if errors.Is(err, stop) {
		return nil
	}
	return err
}

// Close frees the executor's tables.
func (x *Executor) Close() {
	for _, t := range x.tables {
		if t != nil {
			x.Backend.Free(t)
		}
	}
	x.tables = nil
}

// run executes steps on rows [0, rows(in)) of in and hands the last step's results to done:
// (count, nil) when counting, (rows, table) when materialising.
func (x *Executor) run(ctx context.Context, steps []Step, in Table, done func(uint64, Table) error, materialise bool) error {
	return x.runRows(ctx, steps, 0, in, 0, 1, span{0, 1}, done, materialise)
}

// span is the share of the whole run that a call of runRows stands for: progress goes from
// base to base+size as its rows are done.
type span struct{ base, size float64 }

func (x *Executor) runRows(ctx context.Context, steps []Step, depth int, in Table, lo, hi uint64, sp span, done func(uint64, Table) error, materialise bool) error {
	s := &steps[0]
	last := len(steps) == 1
	if last && !materialise {
		if err := ctx.Err(); err != nil {
			return err
		}
		x.Chunks++
		n, _, err := x.Backend.Run(ctx, s, in, lo, hi, AllCombinations, nil)
		if err != nil {
			return err
		}
		return done(n, nil)
	}
	total := hi - lo
	chunk := total
	start := lo
	for lo < hi {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(chunk, hi-lo)
		out, err := x.table(depth, s, n, len(steps)-1)
		if err != nil {
			return err
		}
		x.Chunks++
		produced, combos, err := x.Backend.Run(ctx, s, in, lo, lo+n, AllCombinations, out)
		if err != nil {
			return err
		}
		if produced > out.Cap() {
			grown, err := x.grow(depth, s, produced, len(steps)-1)
			if err != nil {
				return err
			}
			if grown {
				x.Retries++
				continue
			}
		}
		if produced > out.Cap() && n > 1 {
			// Rerun on as many rows as should fit, assuming even spread.
			x.Retries++
			chunk = max(1, uint64(float64(n)*float64(out.Cap())/float64(produced)*0.9))
			continue
		}
		sub := span{sp.base + sp.size*float64(lo-start)/float64(total), sp.size * float64(n) / float64(total)}
		if produced > out.Cap() {
			// One row's output exceeds the table: run its combinations in table-sized windows.
			for from := uint64(0); from < combos; from += out.Cap() {
				x.Windows++
				win := Window{from, from + min(out.Cap(), combos-from)}
				got, _, err := x.Backend.Run(ctx, s, in, lo, lo+1, win, out)
				if err == nil {
					err = x.next(ctx, steps, depth, out, got, sub, done, materialise)
				}
				if err != nil {
					return err
				}
			}
		} else if err := x.next(ctx, steps, depth, out, produced, sub, done, materialise); err != nil {
			return err
		}
		lo += n
		if x.Progress != nil {
			x.Progress(sub.base + sub.size)
		}
	}
	return nil
}

// next hands the rows a step produced in out to the rest of the program (or to done after the
// last step).
func (x *Executor) next(ctx context.Context, steps []Step, depth int, out Table, produced uint64, sp span, done func(uint64, Table) error, materialise bool) error {
	if len(steps) == 1 {
		return done(produced, out)
	}
	if produced == 0 {
		return nil
	}
	return x.runRows(ctx, steps[1:], depth+1, out, 0, produced, sp, done, materialise)
}

// table returns the table of depth for step s's output from n input rows, with later tables
// still to come: the depth's table, reallocated when its width differs or a larger one is wanted
// and affordable; a new table is sized as the Executor comment says.
func (x *Executor) table(depth int, s *Step, n uint64, later int) (Table, error) {
	for len(x.tables) <= depth {
		x.tables = append(x.tables, nil)
	}
	w := s.OutWidth()
	rowBytes := uint64(w) * 4
	old := x.tables[depth]
	avail := x.Backend.Available()
	if old != nil {
		avail += old.Cap() * uint64(old.Width()) * 4
	}
	rows := x.shareRows(avail, rowBytes, later)
	if hi, lo := bits.Mul64(n, s.RowBound(x.MaxLen)); hi == 0 {
		rows = min(rows, lo)
	}
	rows = min(rows, max(x.FirstTableRows, 1))
	if old != nil && old.Width() == w && old.Cap() >= rows {
		return old, nil
	}
	return x.replace(depth, rows, w)
}

// shareRows is the most rows of rowBytes a table may have when avail bytes are left for it and
// later deeper tables: an equal share, capped by MaxTableRows, at least 1.
func (x *Executor) shareRows(avail, rowBytes uint64, later int) uint64 {
	rows := avail / uint64(later+1) / rowBytes
	if x.MaxTableRows > 0 {
		rows = min(rows, x.MaxTableRows)
	}
	return max(rows, 1)
}

// grow enlarges depth's table so that it holds produced rows (with a quarter to spare for the
// chunks that follow), as far as its share of the budget allows; it reports whether the table
// grew.
func (x *Executor) grow(depth int, s *Step, produced uint64, later int) (bool, error) {
	old := x.tables[depth]
	rowBytes := uint64(old.Width()) * 4
	share := x.shareRows(x.Backend.Available()+old.Cap()*rowBytes, rowBytes, later)
	if share <= old.Cap() {
		return false, nil
	}
	want := produced + produced/4
	if want < produced { // wrapped
		want = math.MaxUint64
	}
	rows := min(share, want)
	if _, err := x.replace(depth, rows, s.OutWidth()); err != nil {
		return false, err
	}
	return true, nil
}

// replace frees depth's table and allocates one of rows x width.
func (x *Executor) replace(depth int, rows uint64, width int) (Table, error) {
	if old := x.tables[depth]; old != nil {
		x.Backend.Free(old)
		x.tables[depth] = nil
	}
	t, err := x.Backend.Alloc(rows, width)
	if err != nil {
		return nil, fmt.Errorf("geneva: table of %d rows x %d columns at depth %d: %w", rows, width, depth, err)
	}
	x.tables[depth] = t
	return t, nil
}
