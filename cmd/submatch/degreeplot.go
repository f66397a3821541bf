package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The degree plot of `stats --degree-plot FILE.png`: one bar per power-of-two degree bucket, the
// number of vertices on a logarithmic axis, drawn with the standard library's image packages and
// a fixed bitmap font (no plotting library, which would double the binary).
const (
	plotWidth, plotHeight = 720, 420
	plotLeft, plotRight   = 70, 20
	plotTop, plotBottom   = 40, 60
)

var (
	plotBackground = color.RGBA{255, 255, 255, 255}
	plotAxis       = color.RGBA{60, 60, 60, 255}
	plotBar        = color.RGBA{70, 110, 180, 255}
	plotGrid       = color.RGBA{225, 225, 225, 255}
)

// writeDegreePlot draws the histogram of buckets (vertices by degree range) as a PNG.
func writeDegreePlot(w io.Writer, title string, buckets []degreeBucket) error {
	img := image.NewRGBA(image.Rect(0, 0, plotWidth, plotHeight))
	draw.Draw(img, img.Bounds(), &image.Uniform{plotBackground}, image.Point{}, draw.Src)
	x0, x1 := plotLeft, plotWidth-plotRight
	y0, y1 := plotHeight-plotBottom, plotTop // y grows downwards: y0 is the axis
	var maxCount uint64
	for _, b := range buckets {
		maxCount = max(maxCount, b.Count)
	}
	decades := max(1, int(math.Ceil(math.Log10(float64(max(maxCount, 1))+1))))
	height := func(c uint64) int { // log scale: 0 at the axis, decades at the top
		if c == 0 {
			return 0
		}
		return int(math.Log10(float64(c)+1) / float64(decades) * float64(y0-y1))
	}
	for d := 0; d <= decades; d++ {
		y := y0 - d*(y0-y1)/decades
		fillRect(img, x0, y, x1, y+1, plotGrid)
		label(img, x0-8-7*len(pow10(d)), y+4, pow10(d))
	}
	if n := len(buckets); n > 0 {
		slot := (x1 - x0) / n
		for i, b := range buckets {
			left := x0 + i*slot + slot/8
			fillRect(img, left, y0-height(b.Count), left+slot*3/4, y0, plotBar)
			if i%max(1, n/12) == 0 {
				label(img, left, y0+16, strconv.FormatUint(b.Min, 10))
			}
		}
	}
	fillRect(img, x0, y0, x1, y0+1, plotAxis)
	fillRect(img, x0, y1, x0+1, y0, plotAxis)
	label(img, x0, 24, title)
	label(img, x0+(x1-x0)/2-60, plotHeight-18, "degree (bucket start)")
	label(img, 8, y1-12, "vertices")
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("writing the degree plot: %w", err)
	}
	return nil
}

func pow10(d int) string {
	if d == 0 {
		return "1"
	}
	return "1e" + strconv.Itoa(d)
}

func fillRect(img *image.RGBA, xa, ya, xb, yb int, c color.Color) {
	draw.Draw(img, image.Rect(xa, ya, xb, yb), &image.Uniform{c}, image.Point{}, draw.Src)
}

func label(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{plotAxis}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
