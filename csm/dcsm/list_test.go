package dcsm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/submatch/submatch/csm"
	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats/updates"
	"github.com/submatch/submatch/graph/dynamic"
	"github.com/submatch/submatch/internal/testenv"
	"github.com/submatch/submatch/pattern"
)

// matchLine is a signed match as text: "SIGN PATTERN v1 v2 ...".
func matchLine(sm csm.SignedMatch) string {
	var b strings.Builder
	if sm.Sign > 0 {
		b.WriteByte('+')
	} else {
		b.WriteByte('-')
	}
	fmt.Fprintf(&b, "%d", sm.Pattern)
	for _, v := range sm.Vertices {
		fmt.Fprintf(&b, " %d", v)
	}
	return b.String()
}

// referenceMatches applies the stream with the CPU engine one update at a time (as reference)
// and returns every update's signed matches, sorted.
func referenceMatches(ctx context.Context, c randomCase, opts csm.Options) ([]updates.Update, [][]string, error) {
	ref, err := csm.Open(c.g(), c.pats, opts)
	if err != nil {
		return nil, nil, err
	}
	var us []updates.Update
	var ms [][]string
	var res csm.Result
	one := func(u updates.Update) error {
		var got []string
		if err := ref.Apply(ctx, []updates.Update{u}, func(sm csm.SignedMatch) bool {
			got = append(got, matchLine(sm))
			return true
		}, &res); err != nil {
			return err
		}
		slices.Sort(got)
		us, ms = append(us, u), append(ms, got)
		return nil
	}
	if err := perUpdate(ref, c.stream, one); err != nil {
		return nil, nil, err
	}
	return us, ms, nil
}

// compareMatches runs the case with the CPU engine and with open, listing, with a listing
// buffer of listCap matches, and reports the first update whose signed matches differ (sorted),
// or whose delta is not its matches'. It returns the matches listed.
func compareMatches(ctx context.Context, c randomCase, sem engine.Semantics, open opener, listCap uint64) (int, Stats, error) {
	opts := csm.Options{Semantics: sem, SkipInvalid: true, Threads: 1}
	us, want, err := referenceMatches(ctx, c, opts)
	if err != nil {
		return 0, Stats{}, fmt.Errorf("cpu: %w", err)
	}
	m, err := open(c.g(), c.pats, opts)
	if err != nil {
		return 0, Stats{}, err
	}
	defer m.Close()
	m.maxWave = c.wave
	if c.bytes > 0 {
		m.waveBytes = c.bytes
	}
	m.listCap = listCap
	var got []string
	total, k := 0, 0
	err = m.ApplyEachMatches(ctx, c.stream, func(sm csm.SignedMatch) bool {
		got = append(got, matchLine(sm))
		return true
	}, func(u updates.Update, res *csm.Result) error {
		if k >= len(us) {
			return fmt.Errorf("update %d (%s) reported beyond the reference's %d", k, u, len(us))
		}
		slices.Sort(got)
		if u != us[k] || !slices.Equal(got, want[k]) {
			return fmt.Errorf("update %d, line %d: cpu `%s` %q, dcsm `%s` %q", k, u.Line, us[k], want[k], u, got)
		}
		var n uint64
		for _, d := range res.Deltas {
			n += d.Created + d.Destroyed
		}
		if n != uint64(len(got)) {
			return fmt.Errorf("update %d, line %d: deltas %v, %d matches listed", k, u.Line, res.Deltas, len(got))
		}
		total += len(got)
		got = got[:0]
		k++
		return nil
	})
	if err != nil {
		return 0, Stats{}, err
	}
	if k != len(us) {
		return 0, Stats{}, fmt.Errorf("%d updates reported, the reference %d", k, len(us))
	}
	return total, m.Stats(), nil
}

// TestEmuListRandom: the emulation's signed matches per update (listed through buffers of 1 to
// 64 matches, so that searches are listed in groups and in windows) are the CPU engine's with
// batches of one, in every convention.
func TestEmuListRandom(t *testing.T) {
	seeds := testenv.Sweep(60, 400)
	listSweep(t, seeds, openEmu, []uint64{1, 2, 3, 7, 64, DefaultListCap})
}

// listSweep compares the signed matches of random cases in every convention, with listing
// buffers of caps matches (by seed, in turn).
func listSweep(t *testing.T, seeds int, open opener, caps []uint64) {
	ctx := context.Background()
	defer func(c uint32) { splitChunk = c }(splitChunk)
	var nonzero, runs, groups, wins int
	for seed := range uint64(seeds) {
		c := newRandomCase(seed)
		splitChunk = []uint32{64, 1, 2, 3}[seed%4]
		listCap := caps[seed%uint64(len(caps))]
		if c.pats = usable(c.pats); len(c.pats) == 0 {
			continue
		}
		for _, sem := range conventions {
			n, st, err := compareMatches(ctx, c, sem, open, listCap)
			groups, wins = groups+st.ListGroups, wins+st.ListWins
			if err != nil {
				t.Fatalf("seed %d, %v, wave %d (%d bytes), split %d, list buffer %d, patterns %v: %v", seed, sem, c.wave, c.bytes, splitChunk, listCap, c.pats, err)
			}
			runs++
			if n > 0 {
				nonzero++
			}
		}
	}
	t.Logf("%d runs, %d listed a match; %d group launches, %d window launches", runs, nonzero, groups, wins)
	if groups == 0 || wins == 0 {
		t.Errorf("%d group and %d window launches: the sweep does not list both ways", groups, wins)
	}
	if nonzero < runs/2 {
		t.Errorf("only %d of %d runs listed a match: the sweep checks too little", nonzero, runs)
	}
}

// TestListStop: emit returning false stops the stream with csm.ErrStopped.
func TestListStop(t *testing.T) {
	c := newRandomCase(3)
	if c.pats = usable(c.pats); len(c.pats) == 0 {
		t.Skip("no usable pattern")
	}
	m, err := openEmu(c.g(), c.pats, csm.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = m.ApplyEachMatches(context.Background(), c.stream, func(csm.SignedMatch) bool { n++; return false },
		func(updates.Update, *csm.Result) error { return nil })
	if !errors.Is(err, csm.ErrStopped) || n != 1 {
		t.Fatalf("got %v after %d matches, want csm.ErrStopped after 1", err, n)
	}
}

// shortLister is the emulation with a listing launch that loses a search's last match.
type shortLister struct{ *emu }

func (s shortLister) listMatches(ctx context.Context, w *wave, lo, hi int, skip, limit uint64, buf []uint32) error {
	err := s.emu.listMatches(ctx, w, lo, hi, skip, limit, buf)
	if w.listed[0] > 0 {
		w.listed[0]--
	}
	return err
}

// TestCheckListed: a listing launch that lists other than the counted matches fails the
// stream (checkListed), in groups and in windows.
func TestCheckListed(t *testing.T) {
	for _, listCap := range []uint64{1, DefaultListCap} {
		var err error
		for seed := uint64(0); seed < 20; seed++ {
			c := newRandomCase(seed)
			if c.pats = usable(c.pats); len(c.pats) == 0 {
				continue
			}
			_, _, err = compareMatches(context.Background(), c, engine.Semantics{}, func(g *dynamic.Graph, pats []*pattern.Pattern, opts csm.Options) (*Matcher, error) {
				return open(g, pats, opts, func(t *table) (backend, error) { return shortLister{newEmu(t)}, nil })
			}, listCap)
			if err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "listed") {
			t.Errorf("buffer %d: %v, want a listed/counted mismatch", listCap, err)
		}
	}
}
