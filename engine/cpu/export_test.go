package cpu

// EveryVertexAHub gives every vertex of degree one or more a hub row when on (for the external
// tests: their graphs are far below the default degree); the returned func restores the default.
func EveryVertexAHub(on bool) func() {
	saved := hubMinDegree
	if on {
		hubMinDegree = 1
	}
	return func() { hubMinDegree = saved }
}

// LastSum turns the last-level sum (lastsum.go) on or off; the returned func restores it.
func LastSum(on bool) func() {
	saved := lastSumEnabled
	lastSumEnabled = on
	return func() { lastSumEnabled = saved }
}
