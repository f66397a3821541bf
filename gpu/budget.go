package gpu

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Margin kept free by DefaultLimit: the larger of MarginFraction of the device's total memory and
// MinMargin bytes (room for the context, modules, NVRTC and other processes).
const (
	MarginFraction = 0.05
	MinMargin      = 512 << 20
)

// DefaultLimit is the default budget of a device with the given free and total memory: free memory
// minus max(5% of total, 512 MiB), or 0 when that is negative.
func DefaultLimit(free, total uint64) uint64 {
	m := uint64(float64(total) * MarginFraction)
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

// ParseBytes parses a memory size: a plain number of bytes, or a number (decimals allowed) with a
// unit: B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (case-insensitive; all units are powers of 1024).
// It is meant for flags such as --gpu-memory.
func ParseBytes(s string) (uint64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, fmt.Errorf("memory size %q: expected a number with an optional unit (B, KiB, MiB, GiB, TiB)", s)
	}
	var mult float64
	switch unit {
	case "", "b":
		mult = 1
	case "k", "kb", "kib":
		mult = 1 << 10
	case "m", "mb", "mib":
		mult = 1 << 20
	case "g", "gb", "gib":
		mult = 1 << 30
	case "t", "tb", "tib":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("memory size %q: unknown unit %q (want B, KiB, MiB, GiB or TiB)", s, unit)
	}
	if unit == "" || unit == "b" {
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("memory size %q: %v", s, err)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("memory size %q: %v", s, err)
	}
	v := f * mult
	if v >= 1<<64 {
		return 0, fmt.Errorf("memory size %q: too large", s)
	}
	return uint64(v), nil
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
