package updates

import "testing"

func TestKindOfAllocatesNothing(t *testing.T) {
	b := []byte("-e")
	if a := testing.AllocsPerRun(100, func() { kindOf(b) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}
