package gpu

import (
	"fmt"
	"sync"
)

// Margin kept free by DefaultLimit for CUDA's own allocations in this process (the context, the
// modules, the kernels' local memory) and for other processes: MarginFraction of the device's
// total memory, but at most a quarter of the memory free now, and at least MinMargin bytes. The
// quarter matters on a GPU that other processes already fill: 5% of an H200 is 7 GiB, which
// would leave no budget at all (and make --gpu-memory useless) when only a few GiB are free.
const (
	MarginFraction = 0.05
	MinMargin      = 512 << 20
)

// DefaultLimit is the default budget of a device with the given free and total memory: free memory
// minus max(min(5% of total, free/4), 512 MiB), or 0 when that is negative.
func DefaultLimit(free, total uint64) uint64 {
	m := min(uint64(float64(total)*MarginFraction), free/4)
	if m < MinMargin {
		m = MinMargin
	}
	if free <= m {
		return 0
	}
	return free - m
}

// Budget accounts for device memory. Reserve refuses (with a *BudgetError, errors.Is ErrBudget)
// whatever would exceed the limit, so over-budget allocations never reach CUDA. It is safe for
// concurrent use.
type Budget struct {
	mu     sync.Mutex
	device int
	limit  uint64
	used   uint64
	peak   uint64
}

// NewBudget returns a budget of limit bytes not attached to a device.
func NewBudget(limit uint64) *Budget { return &Budget{device: -1, limit: limit} }

// Reserve takes n bytes from the budget.
func (b *Budget) Reserve(n uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	avail := b.availableLocked()
	if n > avail {
		return &BudgetError{Device: b.device, Requested: n, Available: avail, Limit: b.limit}
	}
	b.used += n
	if b.used > b.peak {
		b.peak = b.used
	}
	return nil
}

// Release gives n bytes back (n must have been reserved).
func (b *Budget) Release(n uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.used {
		n = b.used
	}
	b.used -= n
}

func (b *Budget) availableLocked() uint64 {
	if b.used >= b.limit {
		return 0
	}
	return b.limit - b.used
}

// Limit returns the budget's limit in bytes.
func (b *Budget) Limit() uint64 { b.mu.Lock(); defer b.mu.Unlock(); return b.limit }

// Used returns the bytes reserved now.
func (b *Budget) Used() uint64 { b.mu.Lock(); defer b.mu.Unlock(); return b.used }

// Peak returns the most bytes reserved at once so far.
func (b *Budget) Peak() uint64 { b.mu.Lock(); defer b.mu.Unlock(); return b.peak }

// Available returns the bytes that can still be reserved.
func (b *Budget) Available() uint64 { b.mu.Lock(); defer b.mu.Unlock(); return b.availableLocked() }

// Lower sets the limit to min(limit, current limit) and returns the new limit. A budget is only
// ever lowered: the default already is all the device can give. Reservations already made stay;
// Available is 0 until enough is released.
func (b *Budget) Lower(limit uint64) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if limit < b.limit {
		b.limit = limit
	}
	return b.limit
}

func (b *Budget) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return fmt.Sprintf("%s used of %s (peak %s)", FormatBytes(b.used), FormatBytes(b.limit), FormatBytes(b.peak))
}

// FormatBytes writes n in binary units ("1.5 GiB"; exact bytes below 1 KiB).
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f := float64(n) / unit
	i := 0
	for f >= unit && i < len(units)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
