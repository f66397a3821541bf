package sgsi

// WithTailReach returns o with every tail capped at reach-1 inner vertices, not weighed
// (Options.tailReach), for the external tests.
func WithTailReach(o Options, reach int) Options {
	o.tailReach = reach
	return o
}

// SetLateMinRows sets the estimated work from which a count weighs orders with late vertices
// (chooseLate; 0: every count with a leaf step) and returns what restores it, for the
// external tests.
func SetLateMinRows(rows float64) (restore func()) {
	old := lateMinRows
	lateMinRows = rows
	return func() { lateMinRows = old }
}
