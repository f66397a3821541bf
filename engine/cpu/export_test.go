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

// HoldHubRows, when on, makes every other hub row look claimed by a worker that never fills it
// (as when another worker is filling it): the search must then merge with those hubs' lists
// wherever it would have read their rows. The returned func restores the default.
func HoldHubRows(on bool) func() {
	saved := hubRowHeld
	if on {
		hubRowHeld = func(r int) bool { return r%2 == 0 }
	}
	return func() { hubRowHeld = saved }
}
