package temporal

import (
	"context"
	"testing"
)

// BenchmarkGridCollegeMsg counts the 36 motifs of CollegeMsg at delta = 1 h on one thread.
func BenchmarkGridCollegeMsg(b *testing.B) {
	g := loadCollegeMsg(b)
	for b.Loop() {
		if _, err := Grid(context.Background(), g, Options{Delta: 3600, Threads: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
