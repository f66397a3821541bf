package cpu

import (
	"bufio"
	"context"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/submatch/submatch/engine"
	"github.com/submatch/submatch/formats"
	"github.com/submatch/submatch/pattern"
)

func med(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func TestLabProf(t *testing.T) {
	dir := os.Getenv("LABDIR")
	if dir == "" {
		t.Skip()
	}
	var ld []time.Duration
	for range 9 {
		s := time.Now()
		_, err := formats.Load(dir+"/wv-l10.smg", formats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ld = append(ld, time.Since(s))
	}
	g, _ := formats.Load(dir+"/wv-l10.smg", formats.Options{})
	t.Logf("load %v", med(ld))
	f, _ := os.Open(dir + "/patterns.tsv")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		p, err := pattern.Parse(c[3])
		if err != nil {
			t.Fatal(err)
		}
		prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
		var tp, ti, th, ts, tw, tt []time.Duration
		var cnt uint64
		for range 9 {
			s0 := time.Now()
			pl, _ := buildPlan(context.Background(), prob, false)
			s1 := time.Now()
			idx := candidateIndexes(g, pl, denseIndexLimit)
			s2 := time.Now()
			hubs := hubRowsFor(prob, pl)
			s3 := time.Now()
			var stop atomic.Bool
			w := newWorker(g, pl, &stop)
			w.candIndex = idx
			w.setHubs(hubs)
			s4 := time.Now()
			for _, r := range pl.Candidates[pl.Levels[0].Vertex] {
				w.runRoot(r)
			}
			s5 := time.Now()
			cnt = w.count * pl.Multiplier
			tp = append(tp, s1.Sub(s0))
			ti = append(ti, s2.Sub(s1))
			th = append(th, s3.Sub(s2))
			tw = append(tw, s4.Sub(s3))
			ts = append(ts, s5.Sub(s4))
			s6 := time.Now()
			Engine{}.Count(context.Background(), prob)
			tt = append(tt, time.Since(s6))
		}
		t.Logf("%s plan %v idx %v hubs %v worker %v search %v | Count %v  cnt %d want %s", c[0], med(tp), med(ti), med(th), med(tw), med(ts), med(tt), cnt, c[5])
	}
}

func TestLabLoop(t *testing.T) {
	dir := os.Getenv("LABDIR")
	if dir == "" {
		t.Skip()
	}
	g, _ := formats.Load(dir+"/wv-l10.smg", formats.Options{})
	f, _ := os.Open(dir + "/patterns.tsv")
	sc := bufio.NewScanner(f)
	var ps []*pattern.Pattern
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		p, _ := pattern.Parse(c[3])
		ps = append(ps, p)
	}
	for range 20 {
		for _, p := range ps {
			Engine{}.Count(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: 1})
		}
	}
}

func TestLabPlanLoop(t *testing.T) {
	dir := os.Getenv("LABDIR")
	if dir == "" {
		t.Skip()
	}
	g, _ := formats.Load(dir+"/wv-l10.smg", formats.Options{})
	f, _ := os.Open(dir + "/patterns.tsv")
	sc := bufio.NewScanner(f)
	var ps []*pattern.Pattern
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		p, _ := pattern.Parse(c[3])
		ps = append(ps, p)
	}
	for range 40 {
		for _, p := range ps {
			buildPlan(context.Background(), &engine.Problem{Data: g, Pattern: p, Threads: 1}, false)
		}
	}
}

func BenchmarkLabHubs(b *testing.B) {
	g, _ := formats.Load("/work/main/.dev-stlab/wv-l10.smg", formats.Options{})
	for b.Loop() {
		buildHubRows(g, hubMaxBytes)
	}
}

func TestLabTri(t *testing.T) {
	if os.Getenv("LABDIR") == "" {
		t.Skip()
	}
	g, _ := formats.Load("/work/main/.dev-stlab/wv-l10.smg", formats.Options{})
	p, _ := pattern.Parse(os.Getenv("LABPAT"))
	prob := &engine.Problem{Data: g, Pattern: p, Threads: 1}
	pl, _ := buildPlan(context.Background(), prob, false)
	t.Logf("levels %d groups %d", len(pl.Levels), len(pl.Groups))
	idx := candidateIndexes(g, pl, denseIndexLimit)
	hubs := hubRowsFor(prob, pl)
	s := time.Now()
	for range 2000 {
		var stop atomic.Bool
		w := newWorker(g, pl, &stop)
		w.candIndex = idx
		w.setHubs(hubs)
		for _, r := range pl.Candidates[pl.Levels[0].Vertex] {
			w.runRoot(r)
		}
	}
	t.Logf("per search %v", time.Since(s)/2000)
}
