package planclock

import (
	"testing"
	"time"
)

func TestScale(t *testing.T) {
	a := Now()
	restore := Scale(1000)
	b := Now()
	time.Sleep(2 * time.Millisecond)
	if d := Now().Sub(b); d < time.Second {
		t.Errorf("scaled by 1000: %v passed in 2 ms", d)
	}
	restore()
	if d := Now().Sub(a); d > time.Second {
		t.Errorf("restored: %v since the start", d)
	}
}

func TestLoaded(t *testing.T) {
	var during time.Duration
	Loaded(1000, func() {
		b := Now()
		time.Sleep(2 * time.Millisecond)
		during = Now().Sub(b)
	})
	if during < time.Second {
		t.Errorf("loaded at 1000: %v passed in 2 ms", during)
	}
}
