package sgsi

import "fmt"

// Overlap says which of the direct count's blocks run through the overlapped pipeline
// (pipe.go, Options.Overlap).
//
// Measured on an H200 (docs/benchmarks.md, 2026-12-03 14:29-14:45 UTC): overlapped, triangles
// (rows generated from edges, streamed in pieces) counted 1.07x faster at R-MAT 24 within
// 1 GiB and 1.17x at R-MAT 20 within 64 MiB; 4-cliques (blocks of table rows) 13% slower,
// since two slots halve a block and the table's rows read 1.24x the bytes. So the default
// overlaps the pieces only.
type Overlap int

const (
	// OverlapPieces (the default) overlaps the pieces of generated rows; blocks of table rows
	// run serially.
	OverlapPieces Overlap = iota
	// OverlapOff runs every block serially, on the default stream.
	OverlapOff
	// OverlapAll overlaps blocks of table rows too.
	OverlapAll
)

var overlapNames = [...]string{OverlapPieces: "pieces", OverlapOff: "off", OverlapAll: "all"}

// String returns the mode's name as --sgsi-overlap takes it.
func (o Overlap) String() string {
	if o < 0 || int(o) >= len(overlapNames) {
		return fmt.Sprintf("Overlap(%d)", int(o))
	}
	return overlapNames[o]
}

// MarshalText implements encoding.TextMarshaler.
func (o Overlap) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: pieces, off or all.
func (o *Overlap) UnmarshalText(b []byte) error {
	for i, n := range overlapNames {
		if string(b) == n {
			*o = Overlap(i)
			return nil
		}
	}
	return fmt.Errorf("sgsi: overlap %q: want pieces, off or all", b)
}

// overlaps reports whether the direct count's blocks of this kind run through the pipeline:
// generated rows (gen) or table rows.
func (o Overlap) overlaps(gen bool) bool {
	switch o {
	case OverlapAll:
		return true
	case OverlapPieces:
		return gen
	}
	return false
}
