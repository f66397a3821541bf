package core

import (
	"context"
	"fmt"
	"math/bits"
)

// HostBackend runs steps on the CPU, one row at a time, exactly as the kernels do: it is the
// reference the GPU backend is checked against and what CI tests the executor with. Its budget
// counts table bytes only.
type HostBackend struct {
	In     *Inputs
	Budget uint64 // bytes for tables
	used   uint64
	// Peak is the most table bytes held at once.
	Peak uint64
}

type hostTable struct {
	rows  []uint32
	cap   uint64
	width int
}

func (t *hostTable) Cap() uint64 { return t.cap }
func (t *hostTable) Width() int  { return t.width }

// Alloc implements Backend.
func (h *HostBackend) Alloc(rows uint64, width int) (Table, error) {
	bytes := rows * uint64(width) * 4
	if h.used+bytes > h.Budget {
		return nil, fmt.Errorf("%d bytes wanted, %d of %d left: %w", bytes, h.Budget-h.used, h.Budget, ErrBudget)
	}
	h.used += bytes
	h.Peak = max(h.Peak, h.used)
	return &hostTable{rows: make([]uint32, rows*uint64(width)), cap: rows, width: width}, nil
}

// Free implements Backend.
func (h *HostBackend) Free(t Table) { h.used -= t.Cap() * uint64(t.Width()) * 4 }

// Available implements Backend.
func (h *HostBackend) Available() uint64 { return h.Budget - h.used }

// Read implements Backend.
func (h *HostBackend) Read(t Table, rows uint64, dst []uint32) error {
	copy(dst, t.(*hostTable).rows[:rows*uint64(t.Width())])
	return nil
}

// Run implements Backend.
func (h *HostBackend) Run(ctx context.Context, s *Step, in Table, lo, hi uint64, win Window, out Table) (uint64, uint64, error) {
	var src []uint32
	if in != nil {
		src = in.(*hostTable).rows
	}
	var dst *hostTable
	if out != nil {
		dst = out.(*hostTable)
	}
	row := make([]uint32, s.OutWidth())
	var produced, combos uint64
	emit := func() error {
		if dst != nil && produced < dst.cap {
			copy(dst.rows[produced*uint64(dst.width):], row)
		}
		var carry uint64
		produced, carry = bits.Add64(produced, 1, 0)
		if carry != 0 {
			return ErrOverflow
		}
		return nil
	}
	if s.Kind == Counting {
		if dst != nil {
			return 0, 0, fmt.Errorf("geneva: a counting step writes no rows")
		}
		var sc countScratch
		for r := lo; r < hi; r++ {
			if (r-lo)%4096 == 0 && ctx.Err() != nil {
				return produced, 1, ctx.Err()
			}
			n, ok := h.In.countRow(s, src[r*uint64(s.Width):(r+1)*uint64(s.Width)], &sc)
			var carry uint64
			produced, carry = bits.Add64(produced, n, 0)
			if !ok || carry != 0 {
				return 0, 0, ErrOverflow
			}
		}
		return produced, 1, nil
	}
	lists := make([][]uint32, len(s.New))
	for r := lo; r < hi; r++ {
		if (r-lo)%4096 == 0 && ctx.Err() != nil {
			return produced, combos, ctx.Err()
		}
		copy(row, src[r*uint64(s.Width):(r+1)*uint64(s.Width)])
		if s.Kind == Elimination {
			combos = 1
			if h.In.edgesPresent(s, row) {
				if err := emit(); err != nil {
					return 0, 0, err
				}
			}
			continue
		}
		total := uint64(1)
		for j, nv := range s.New {
			lists[j] = h.In.candidates(nv, row)
			hi, lo := bits.Mul64(total, uint64(len(lists[j])))
			if hi != 0 {
				return 0, 0, ErrOverflow
			}
			total = lo
		}
		combos = max(combos, total)
		// Combination idx: the odometer digits of idx, last new vertex fastest.
		for idx := win.From; idx < min(win.To, total); idx++ {
			k := idx
			for j := len(lists) - 1; j >= 0; j-- {
				n := uint64(len(lists[j]))
				row[s.Width+j] = lists[j][k%n]
				k /= n
			}
			if h.In.admissible(s, row) {
				if err := emit(); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	return produced, combos, nil
}
