package dcsm

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/pattern"

	"github.com/submatch/submatch/internal/testenv"
)

// TestEmuRandom: the host emulation of the kernels gives the CPU engine's per-update deltas
// (batches of one) on random streams, in every convention and at several wave sizes.
func TestEmuRandom(t *testing.T) {
	seeds := testenv.Sweep(120, 1000)
	sweep(t, seeds, openEmu)
}

// TestErrors: an invalid update fails the stream after reporting the updates before it and
// leaves the matcher usable; an error from report stops it for good. Inline, and with the
// validation on its own goroutine (chunks of one and of two updates).
func TestErrors(t *testing.T) {
	for _, pipe := range []int{0, 1, 2} {
		testErrors(t, pipe)
	}
}

func testErrors(t *testing.T, pipe int) {
	ctx := context.Background()
	tri, _ := pattern.Parse("(a)-(b)-(c)-(a)")
	m, err := OpenEmulated(dynamic.New(), []*pattern.Pattern{tri}, csm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pipe > 0 {
		m.pipeMin, m.pipeLen, m.opts.Threads = 1, pipe, 2
	}
	e := func(kind updates.Kind, a, b int64, line int) updates.Update {
		return updates.Update{Kind: kind, U: a, V: b, Line: line}
	}
	var seen []int
	rec := func(u updates.Update, res *csm.Result) error {
		seen = append(seen, u.Line)
		return nil
	}
	err = m.ApplyEach(ctx, []updates.Update{e(updates.InsertEdge, 1, 2, 1), e(updates.InsertEdge, 2, 3, 2), e(updates.InsertEdge, 1, 2, 3), e(updates.InsertEdge, 1, 3, 4)}, rec)
	var ie *csm.InvalidError
	if !errors.As(err, &ie) || ie.Update.Line != 3 || !slices.Equal(seen, []int{1, 2}) {
		t.Fatalf("invalid update: %v, reported %v", err, seen)
	}
	var created uint64
	if err := m.ApplyEach(ctx, []updates.Update{e(updates.InsertEdge, 1, 3, 4)}, func(u updates.Update, res *csm.Result) error {
		created += res.Deltas[0].Created
		return nil
	}); err != nil || created != 6 {
		t.Fatalf("after an invalid update: %v, created %d, want 6", err, created)
	}
	stop := errors.New("stop")
	if err := m.ApplyEach(ctx, []updates.Update{e(updates.DeleteEdge, 1, 3, 5)}, func(updates.Update, *csm.Result) error { return stop }); err != stop {
		t.Fatalf("report's error: %v", err)
	}
	if err := m.ApplyEach(ctx, []updates.Update{e(updates.InsertEdge, 1, 3, 6)}, rec); err != stop {
		t.Fatalf("after report's error: %v, want it again", err)
	}
}

// TestHostAllocs: once warm, the host's part (validation, the host graph's update, the waves'
// planning, the searches, the reports) allocates nothing, per update or per wave, for updates a
// pattern uses and for those it does not (the label filter).
func TestHostAllocs(t *testing.T) {
	g := dynamic.New()
	for i := range 64 {
		g.AddVertex(int64(i), uint32(i%3))
	}
	var stream []updates.Update
	for i := range 64 {
		for _, d := range []int{1, 2, 5} {
			a, b := int64(i), int64((i+d)%64)
			stream = append(stream, updates.Update{Kind: updates.InsertEdge, U: a, V: b, Line: len(stream) + 1})
		}
	}
	// Then every edge deleted, in another order, and inserted again: a stream that repeats.
	n := len(stream)
	for i := range n {
		u := stream[(7*i)%n]
		u.Kind = updates.DeleteEdge
		stream = append(stream, u)
	}
	stream = append(stream, stream[:n]...)
	init, again := stream[:n], stream[n:]
	tri, _ := pattern.Parse("(a:0)-(b:1)-(c:1)-(a)")
	m, err := open(g, []*pattern.Pattern{tri}, csm.Options{}, func(*table) (backend, error) { return nullBackend{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	m.maxWave = 50
	ctx := context.Background()
	nop := func(updates.Update, *csm.Result) error { return nil }
	if err := m.ApplyEach(ctx, init, nop); err != nil {
		t.Fatal(err)
	}
	step := func() {
		if err := m.ApplyEach(ctx, again, nop); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		step()
	}
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Fatalf("%v allocations per run of %d updates, want 0", a, len(again))
	}
	// With the validation on its own goroutine: the goroutine and its channels, per call.
	m.pipeMin, m.pipeLen, m.opts.Threads = 1, 16, 2
	step()
	if a := testing.AllocsPerRun(20, step); a > 8 {
		t.Fatalf("%v allocations per run of %d updates validated on a goroutine, want at most 8", a, len(again))
	}
}

// TestWaveSize: waveSize bounds what packWave writes (the GPU backend packs a wave into a pinned
// stage of that size and refuses a wave that outgrows it), for sections of every length mod 8
// bytes, with and without listing's per-search counts; the sections start 8-aligned, in order.
func TestWaveSize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := func() int { return r.IntN(20) }
		w := &wave{vrec: make([]uint32, n()), ikey: make([]uint64, n()), iel: make([]uint32, n()), ic: make([]uint32, n()),
			dkey: make([]uint64, n()), dt: make([]uint32, n()), tasks: make([]uint32, n()), counts: make([]uint64, n()),
			tcount: make([]uint64, r.IntN(2)*n())}
		for i := range w.counts {
			w.counts[i] = 7
		}
		var b []byte
		at := packWave(&b, w, make([]uint32, 4))
		if len(b) > waveSize(w) {
			t.Fatalf("packed %d bytes, waveSize %d", len(b), waveSize(w))
		}
		for i := 1; i < len(at); i++ {
			if at[i]%8 != 0 || at[i] < at[i-1] && !(i == 9 && len(w.tcount) == 0) {
				t.Fatalf("sections at %v", at)
			}
		}
		for _, c := range b[at[7] : at[7]+8*uint64(len(w.counts))] {
			if c != 0 {
				t.Fatal("counters not zeroed in the upload")
			}
		}
	}
}

// fixedIdle is a backend whose started waves are finished or not as done says (only idle is
// called by Matcher.early).
type fixedIdle struct {
	backend
	done  bool
	calls int
}

func (b *fixedIdle) idle(*wave) bool { b.calls++; return b.done }

// TestEarly: Matcher.early launches a wave before it is full only from minWave updates on, at
// multiples of idleStep, without listing, and only when a wave of the same call was launched
// before it (busy) and has finished or had nothing to run: never a call's first wave.
func TestEarly(t *testing.T) {
	be := &fixedIdle{}
	m := &Matcher{minWave: 8, idleStep: 4, be: be}
	w := &wave{}
	prev := &wave{started: true}
	for _, c := range []struct {
		n           int
		busy        *wave
		done, emit  bool
		want        bool
		description string
	}{
		{8, nil, true, false, false, "a call's first wave"},
		{8, prev, true, false, true, "the wave before finished"},
		{12, prev, true, false, true, "the wave before finished, a later multiple"},
		{8, prev, false, false, false, "the wave before still running"},
		{8, &wave{}, false, false, true, "the wave before had nothing to run"},
		{7, prev, true, false, false, "under minWave"},
		{10, prev, true, false, false, "not a multiple of idleStep"},
		{4, prev, true, false, false, "a multiple of idleStep under minWave"},
		{8, prev, true, true, false, "listing"},
	} {
		w.ups = make([]waveUpdate, c.n)
		m.busy, be.done, m.emit = c.busy, c.done, nil
		if c.emit {
			m.emit = func(csm.SignedMatch) bool { return true }
		}
		if got := m.early(w); got != c.want {
			t.Errorf("%s (%d updates): early %v, want %v", c.description, c.n, got, c.want)
		}
	}
	if be.calls == 0 {
		t.Error("the backend was never asked whether the wave before had finished")
	}
}
