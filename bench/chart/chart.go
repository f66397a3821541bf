// Package chart draws the benchmark suite's chart (package bench's results) as a PNG. It is
// apart from package bench so that the plotting library is linked only into cmd/submatch-chart,
// not into submatch.
package chart

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/submatch/submatch/bench"
)

// Write draws a PNG with two panels: the geometric mean of the match time per group (log
// scale) and the geometric mean speedup per group, one line per thread count.
func Write(w io.Writer, rs []bench.Result) error {
	groups, ts, stats := bench.Summary(rs)
	times := plot.New()
	times.Title.Text = "match time (geometric mean per group)"
	times.Y.Label.Text = "seconds"
	times.Y.Scale = plot.LogScale{}
	times.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	speed := plot.New()
	speed.Title.Text = fmt.Sprintf("speedup over %s (geometric mean)", bench.ThreadsLabel(ts[0]))
	speed.Y.Label.Text = "speedup"
	speed.Y.Min = 0
	// Groups are categories: points, not lines, nudged sideways per thread count.
	for i, t := range ts {
		dx := 0.08 * (float64(i) - float64(len(ts)-1)/2)
		var pts, sps plotter.XYs
		for x, g := range groups {
			s := stats(g, t)
			if s.OK > 0 {
				pts = append(pts, plotter.XY{X: float64(x) + dx, Y: s.GeoMatch.Seconds()})
			}
			if s.GeoSpeedup > 0 {
				sps = append(sps, plotter.XY{X: float64(x) + dx, Y: s.GeoSpeedup})
			}
		}
		for _, panel := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{times, pts}, {speed, sps}} {
			if len(panel.xys) == 0 || (panel.p == speed && i == 0) {
				continue
			}
			points, err := plotter.NewScatter(panel.xys)
			if err != nil {
				return err
			}
			points.Color, points.Shape, points.Radius = plotutil.Color(i), plotutil.Shape(i), vg.Points(4)
			panel.p.Add(points)
			panel.p.Legend.Add(bench.ThreadsLabel(t), points)
		}
	}
	// Leave room around the extreme points (the legend sits at the top).
	if times.Y.Min <= times.Y.Max {
		times.Y.Min, times.Y.Max = times.Y.Min/2, times.Y.Max*4
	} else { // nothing completed: an empty panel on a valid log axis
		times.Y.Min, times.Y.Max = 1e-3, 1
	}
	speed.Y.Max = max(speed.Y.Max, 1) * 1.25
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	speed.Add(one)
	for _, p := range []*plot.Plot{times, speed} {
		p.NominalX(groups...)
		p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
	}
	img := vgimg.New(vg.Points(1000), vg.Points(420))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(20), PadTop: vg.Points(8), PadBottom: vg.Points(8), PadLeft: vg.Points(8), PadRight: vg.Points(8)}
	canvases := plot.Align([][]*plot.Plot{{times, speed}}, tiles, dc)
	times.Draw(canvases[0][0])
	speed.Draw(canvases[0][1])
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
