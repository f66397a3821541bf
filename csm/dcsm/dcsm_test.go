package dcsm

import (
	"testing"

	"github.com/submatch/submatch/internal/testenv"
)

// TestEmuRandom: the host emulation of the kernels gives the CPU engine's per-update deltas
// (batches of one) on random streams, in every convention and at several wave sizes.
func TestEmuRandom(t *testing.T) {
	seeds := 120
	if testenv.Long() {
		seeds = 1000
	}
	sweep(t, seeds, openEmu)
}
