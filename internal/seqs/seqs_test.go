package seqs

import (
	"errors"
	"slices"
	"testing"
)

// TestEmitted: every item in order, then run's error as a last pair; a consumer that stops
// early gets no more items and no error; the emit run sees returns false from then on.
func TestEmitted(t *testing.T) {
	boom := errors.New("boom")
	for _, fail := range []bool{false, true} {
		for stopAt := range 5 { // 4: the consumer never stops
			var afterStop bool
			seq := Emitted(func(emit func(int) bool) error {
				for i := range 4 {
					if !emit(i) {
						afterStop = true
						break
					}
				}
				if fail {
					return boom
				}
				return nil
			})
			var got []int
			var gotErr error
			for x, err := range seq {
				if err != nil {
					gotErr = err
					continue
				}
				if x == stopAt {
					break
				}
				got = append(got, x)
			}
			want := []int{0, 1, 2, 3}[:stopAt]
			stopped := stopAt < 4
			if !slices.Equal(got, want) || afterStop != stopped {
				t.Errorf("fail %v, stop at %d: got %v (run saw the stop: %v), want %v", fail, stopAt, got, afterStop, want)
			}
			if wantErr := fail && !stopped; (gotErr != nil) != wantErr || (wantErr && gotErr != boom) {
				t.Errorf("fail %v, stop at %d: error %v", fail, stopAt, gotErr)
			}
		}
	}
}
