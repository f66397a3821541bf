package csm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"
)

// windowTrace applies stream update by update under a window of span (skipping invalid
// updates), calling Expire before every update, or with runs only before the first update of
// each run (Window.Run, after that Expire), and returns every expiry (its pairs), with the stream
// position before which it came, and the number of runs.
func windowTrace(t *testing.T, stream []updates.Update, span int64, runs bool) ([]string, int) {
	t.Helper()
	p, _ := pattern.Parse("(a)-(b)")
	m, err := Open(dynamic.New(), []*pattern.Pattern{p}, Options{SkipInvalid: true, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWindow(span)
	var out []string
	var res Result
	end, n := 0, 0
	for i := range stream {
		if !runs || i == end {
			if exp := w.Expire(stream[i].Time, m.Graph(), nil); len(exp) > 0 {
				pairs := make([][2]int64, len(exp))
				for k, u := range exp {
					pairs[k] = [2]int64{u.U, u.V}
				}
				out = append(out, fmt.Sprint(i, pairs))
				if err := m.Apply(context.Background(), exp, nil, &res); err != nil {
					t.Fatal(err)
				}
			}
			end, n = i+w.Run(stream[i:]), n+1
		}
		if err := m.Apply(context.Background(), stream[i:i+1], nil, &res); err != nil {
			t.Fatal(err)
		}
		w.Observe(stream[i:i+1], &res)
	}
	return out, n
}

// TestWindowRun: Expire only at the start of each run (Window.Run) finds the expiries of Expire
// before every update, at the same places, on random streams of edge insertions (many invalid)
// and deletions whose times now and then go back; and it ends runs.
func TestWindowRun(t *testing.T) {
	var cuts, expiries int
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		var stream []updates.Update
		now := int64(0)
		for i := range 200 {
			now += int64(r.IntN(3)) - int64(r.IntN(10)/9)
			kind := updates.InsertEdge
			if r.IntN(3) == 0 {
				kind = updates.DeleteEdge
			}
			stream = append(stream, updates.Update{Kind: kind, U: int64(r.IntN(8)), V: int64(8 + r.IntN(8)), Time: now, HasTime: true, Line: i + 1})
		}
		span := int64(1 + r.IntN(20))
		want, _ := windowTrace(t, stream, span, false)
		got, n := windowTrace(t, stream, span, true)
		cuts += n
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d, span %d: expiries at the runs' starts\n%v\nbefore every update\n%v", seed, span, got, want)
		}
		expiries += len(want)
	}
	t.Logf("%d runs, %d expiries", cuts, expiries)
	if cuts > 200*150 || expiries < 2000 {
		t.Fatalf("%d runs, %d expiries over 200 streams of 200 updates", cuts, expiries)
	}
}

// TestWindowExpireOracle: Expire before every update deletes exactly the edges a brute force
// finds due (present, inserted last at or before the update's time minus the span), on random
// streams whose times now and then go back: an edge inserted at 5 after one at 10 expires at 5 +
// span, not behind the other (the window was a queue in stream order).
func TestWindowExpireOracle(t *testing.T) {
	p, _ := pattern.Parse("(a)-(b)")
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 9))
		m, err := Open(dynamic.New(), []*pattern.Pattern{p}, Options{SkipInvalid: true, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		span := int64(1 + r.IntN(15))
		w := NewWindow(span)
		inserted := map[[2]int64]int64{} // oracle: the edges present and their last insertion time
		now := int64(100)
		var res Result
		for i := range 150 {
			now += int64(r.IntN(4)) - int64(r.IntN(6)/5)*int64(r.IntN(12))
			var due []string
			for e, at := range inserted {
				if at <= now-span {
					due = append(due, fmt.Sprint(e[0], "-", e[1]))
					delete(inserted, e)
				}
			}
			var got []string
			for _, u := range w.Expire(now, m.Graph(), nil) {
				got = append(got, fmt.Sprint(u.U, "-", u.V))
			}
			slices.Sort(due)
			slices.Sort(got)
			if !slices.Equal(got, due) {
				t.Fatalf("seed %d, update %d at %d (span %d): expired %v, want %v", seed, i, now, span, got, due)
			}
			exp := make([]updates.Update, len(got))
			for j, s := range got {
				var a, b int64
				fmt.Sscanf(s, "%d-%d", &a, &b)
				exp[j] = updates.Update{Kind: updates.DeleteEdge, U: a, V: b}
			}
			if err := m.Apply(context.Background(), exp, nil, &res); err != nil {
				t.Fatal(err)
			}
			u := updates.Update{Kind: updates.InsertEdge, U: int64(r.IntN(6)), V: int64(6 + r.IntN(6)), Time: now, HasTime: true, Line: i + 1}
			if r.IntN(3) == 0 {
				u.Kind = updates.DeleteEdge
			}
			batch := []updates.Update{u}
			if err := m.Apply(context.Background(), batch, nil, &res); err != nil {
				t.Fatal(err)
			}
			w.Observe(batch, &res)
			if len(res.Invalid) == 0 {
				if u.Kind == updates.InsertEdge {
					inserted[[2]int64{u.U, u.V}] = now
				} else {
					delete(inserted, [2]int64{u.U, u.V})
				}
			}
		}
	}
}

// TestWindowExtremeTimes: a window's expiries do not depend on where the stream's times lie: the
// random streams of TestWindowRun moved to the lowest timestamps of int64 (where now - span
// passes below math.MinInt64), or under a span of math.MaxInt64 at times around 0, expire the
// same edges at the same places as the stream moved to where no difference overflows, before
// every update and at the runs' starts.
func TestWindowExtremeTimes(t *testing.T) {
	expiries := 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 5))
		var stream []updates.Update
		now := int64(0)
		for i := range 120 {
			now += int64(r.IntN(3))
			kind := updates.InsertEdge
			if r.IntN(3) == 0 {
				kind = updates.DeleteEdge
			}
			stream = append(stream, updates.Update{Kind: kind, U: int64(r.IntN(6)), V: int64(6 + r.IntN(6)), Time: now, HasTime: true, Line: i + 1})
		}
		moved := func(base int64) []updates.Update {
			out := slices.Clone(stream)
			for i := range out {
				out[i].Time += base
			}
			return out
		}
		for _, c := range []struct {
			span      int64
			low, safe int64 // the stream's first time
		}{
			{int64(1 + r.IntN(20)), math.MinInt64, 0},
			{math.MaxInt64, -int64(len(stream)), math.MaxInt64 - 3*int64(len(stream))},
		} {
			for _, runs := range []bool{false, true} {
				want, _ := windowTrace(t, moved(c.safe), c.span, runs)
				got, _ := windowTrace(t, moved(c.low), c.span, runs)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d, span %d, runs %t: expiries with the stream from %d\n%v\nfrom %d\n%v", seed, c.span, runs, c.low, got, c.safe, want)
				}
				expiries += len(want)
			}
		}
	}
	if expiries < 500 {
		t.Fatalf("only %d expiries", expiries)
	}
}
