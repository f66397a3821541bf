package dcsm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// Sliding windows (watch --window) with the per-update engine: before each update of the stream,
// the edges whose time is up are deleted as one batch 'expire' (csm.Window). The engine takes the
// stream in runs in which nothing can expire (csm.Window.Run), the expiries between them, and
// reports an expiry as the sum of its deletions' deltas: the batch's net change when deletions
// only destroy matches (not under --induced, which watch refuses with the engine).

// windowed is one reported batch: a stream update, or an expiry (its deletions).
type windowed struct {
	expiry bool
	ups    []updates.Update
	deltas []csm.Delta
}

func (b windowed) String() string {
	if b.expiry {
		return fmt.Sprintf("expire %v: %v", b.ups, b.deltas)
	}
	return fmt.Sprintf("`%s`: %v", b.ups[0], b.deltas)
}

// timed gives the stream's updates times: mostly growing by 0 to 2 units, now and then back one.
func timed(r *rand.Rand, stream []updates.Update) []updates.Update {
	out := slices.Clone(stream)
	now := int64(50)
	for i := range out {
		if r.IntN(10) == 0 {
			now--
		} else {
			now += int64(r.IntN(3))
		}
		out[i].Time, out[i].HasTime = now, true
	}
	return out
}

// windowReference applies the stream with the CPU engine as watch --batch 1 --window does: the
// expiries due at each update's time as one batch, then the update (a vertex deletion after its
// edges').
func windowReference(ctx context.Context, c randomCase, span int64, opts csm.Options) ([]windowed, error) {
	ref, err := csm.Open(c.g(), c.pats, opts)
	if err != nil {
		return nil, err
	}
	w := csm.NewWindow(span)
	var out []windowed
	var res csm.Result
	apply := func(batch []updates.Update, expiry bool) error {
		if err := ref.Apply(ctx, batch, nil, &res); err != nil {
			return err
		}
		out = append(out, windowed{expiry, slices.Clone(batch), slices.Clone(res.Deltas)})
		return nil
	}
	for _, u := range c.stream {
		if exp := w.Expire(u.Time, ref.Graph(), nil); len(exp) > 0 {
			if err := apply(exp, true); err != nil {
				return nil, err
			}
		}
		if err := perUpdate(ref, []updates.Update{u}, func(e updates.Update) error { return apply([]updates.Update{e}, false) }); err != nil {
			return nil, err
		}
		w.Observe([]updates.Update{u}, &res)
	}
	return out, nil
}

// applyWindowed applies the stream to m under a window of span: in runs (csm.Window.Run), each
// after the expiries due at its first update's time, whose deltas are summed.
func applyWindowed(ctx context.Context, m *Matcher, stream []updates.Update, span int64) ([]windowed, error) {
	w := csm.NewWindow(span)
	var out []windowed
	one := make([]updates.Update, 1)
	for s := 0; s < len(stream); {
		if exp := w.Expire(stream[s].Time, m.Graph(), nil); len(exp) > 0 {
			sum := make([]csm.Delta, len(m.pats))
			err := m.ApplyEach(ctx, exp, func(_ updates.Update, res *csm.Result) error {
				for i, d := range res.Deltas {
					sum[i].Created += d.Created
					sum[i].Destroyed += d.Destroyed
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			out = append(out, windowed{true, exp, sum})
		}
		e := s + w.Run(stream[s:])
		err := m.ApplyEach(ctx, stream[s:e], func(u updates.Update, res *csm.Result) error {
			one[0] = u
			w.Observe(one, res)
			out = append(out, windowed{false, slices.Clone(one), slices.Clone(res.Deltas)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		s = e
	}
	return out, nil
}

// compareWindowed runs the case under a window of span on the CPU engine and with open, and
// reports the first difference; it returns the number of expiries and of those that destroyed
// matches.
func compareWindowed(ctx context.Context, c randomCase, span int64, sem engine.Semantics, open opener) (expiries, destroying int, err error) {
	opts := csm.Options{Semantics: sem, SkipInvalid: true, Threads: 1}
	want, err := windowReference(ctx, c, span, opts)
	if err != nil {
		return 0, 0, fmt.Errorf("cpu: %w", err)
	}
	m, err := open(c.g(), c.pats, opts)
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	c.shape(m)
	got, err := applyWindowed(ctx, m, c.stream, span)
	if err != nil {
		return 0, 0, err
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.expiry != w.expiry || !slices.Equal(g.ups, w.ups) || !slices.Equal(g.deltas, w.deltas) {
			return 0, 0, fmt.Errorf("batch %d: cpu %v, dcsm %v", i, w, g)
		}
		if w.expiry {
			expiries++
			if slices.ContainsFunc(w.deltas, func(d csm.Delta) bool { return d.Destroyed > 0 }) {
				destroying++
			}
		}
	}
	if len(got) != len(want) {
		return 0, 0, fmt.Errorf("%d batches, the reference %d", len(got), len(want))
	}
	return expiries, destroying, nil
}

// windowSweep compares random timestamped cases under windows of 1 to 40 units, embeddings and
// unique.
func windowSweep(t *testing.T, seeds int, open opener) {
	ctx := context.Background()
	var expiries, destroying int
	for seed := range uint64(seeds) {
		c := newRandomCase(seed)
		if c.pats = usable(c.pats); len(c.pats) == 0 {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 7))
		c.stream = timed(r, c.stream)
		span := []int64{1, 3, 10, 40}[r.IntN(4)]
		for _, sem := range []engine.Semantics{{}, {Unique: true}} {
			e, d, err := compareWindowed(ctx, c, span, sem, open)
			if err != nil {
				t.Fatalf("seed %d, %v, window %d, wave %d (%d bytes), pipe %d, patterns %v: %v", seed, sem, span, c.wave, c.bytes, c.pipe, c.pats, err)
			}
			expiries += e
			destroying += d
		}
	}
	t.Logf("%d expiries, %d of them destroying matches", expiries, destroying)
	if destroying < seeds {
		t.Errorf("only %d of %d expiries destroyed matches: the sweep checks too little", destroying, expiries)
	}
}

// TestEmuWindow (CI): the emulation under sliding windows gives the CPU engine's per-update and
// per-expiry deltas on random timestamped streams.
func TestEmuWindow(t *testing.T) {
	seeds := testenv.Sweep(120, 600)
	windowSweep(t, seeds, openEmu)
}

// TestGPUWindow: the same with the kernels.
func TestGPUWindow(t *testing.T) {
	needGPU(t)
	windowSweep(t, 150, openGPU)
}

// TestWindowInducedSum: under --induced an expiry's summed deltas are not its net change, which
// is why watch refuses --window --induced with the engine: on a triangle whose edges 1-3 and 1-2
// expire together, the first deletion creates the induced path 1-2-3 and the second destroys it
// (summed: +2 -2 embeddings), while the batch changes no induced path (net: +0 -0).
func TestWindowInducedSum(t *testing.T) {
	ctx := context.Background()
	p, err := pattern.Parse("(a)-(b)-(c)")
	if err != nil {
		t.Fatal(err)
	}
	pats := []*pattern.Pattern{p}
	opts := csm.Options{Semantics: engine.Semantics{Induced: true}}
	tri := []updates.Update{{Kind: updates.InsertEdge, U: 1, V: 2}, {Kind: updates.InsertEdge, U: 2, V: 3}, {Kind: updates.InsertEdge, U: 1, V: 3}}
	exp := []updates.Update{{Kind: updates.DeleteEdge, U: 1, V: 3}, {Kind: updates.DeleteEdge, U: 1, V: 2}}
	ref, err := csm.Open(dynamic.New(), pats, opts)
	if err != nil {
		t.Fatal(err)
	}
	var res csm.Result
	if err := ref.Apply(ctx, tri, nil, &res); err != nil {
		t.Fatal(err)
	}
	if err := ref.Apply(ctx, exp, nil, &res); err != nil {
		t.Fatal(err)
	}
	m, err := OpenEmulated(dynamic.New(), pats, opts)
	if err != nil {
		t.Fatal(err)
	}
	var sum csm.Delta
	err = m.ApplyEach(ctx, append(tri, exp...), func(u updates.Update, r *csm.Result) error {
		if u.Kind == updates.DeleteEdge {
			sum.Created += r.Deltas[0].Created
			sum.Destroyed += r.Deltas[0].Destroyed
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if net := res.Deltas[0]; net != (csm.Delta{}) || sum != (csm.Delta{Created: 2, Destroyed: 2}) {
		t.Fatalf("net %+v, summed %+v; want +0 -0 and +2 -2", net, sum)
	}
}
