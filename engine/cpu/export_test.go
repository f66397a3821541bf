package cpu

import "time"

// EveryVertexAHub gives every vertex of degree one or more a hub row when on (for the external
// tests: their graphs are far below the default degree); the returned func restores the default.
// The rows are used at once (hubDelay 0), unless SetHubDelay sets another delay after it.
func EveryVertexAHub(on bool) func() {
	saved, savedDelay := hubMinDegree, hubDelay
	if on {
		hubMinDegree, hubDelay = 1, 0
	}
	return func() { hubMinDegree, hubDelay = saved, savedDelay }
}

// SetHubDelay sets how long a count runs before it uses its hub rows; the returned func restores
// the delay before.
func SetHubDelay(d time.Duration) func() {
	saved := hubDelay
	hubDelay = d
	return func() { hubDelay = saved }
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
