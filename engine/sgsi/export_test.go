package sgsi

// WithTailReach returns o with every tail capped at reach-1 inner vertices, not weighed
// (Options.tailReach), for the external tests.
func WithTailReach(o Options, reach int) Options {
	o.tailReach = reach
	return o
}
