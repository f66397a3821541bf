// Package seqs turns producers that push items into a callback into sequences (iter.Seq2).
package seqs

import "iter"

// Emitted returns the sequence of the items run passes to emit, which returns false once the
// consumer stops (run must then stop emitting). An error run returns ends the sequence, as a
// last pair with T's zero value, unless the consumer had stopped it: the error of a run cut
// short by its consumer is not reported to that consumer.
func Emitted[T any](run func(emit func(T) bool) error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		stopped := false
		err := run(func(x T) bool {
			if !yield(x, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			var zero T
			yield(zero, err)
		}
	}
}
