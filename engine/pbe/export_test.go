package pbe

// SeededSearch returns e with the host inter stage's shape counts off (intershape.go), so that
// the external tests can hold the GPU inter stage's seeds and nodes against the host's seeded
// search on the same pattern.
func SeededSearch(e *Engine) *Engine {
	e.noShapes = true
	return e
}

// WholeGraph returns e with the reduction off (reduce.go): the stages run on the data graph.
func WholeGraph(e *Engine) *Engine {
	e.wholeGraph = true
	return e
}
