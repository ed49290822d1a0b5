package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strings"

	"github.com/nvbridge/nvbridge/bench/side"
)

// A 3x5 pixel font (rows top to bottom, 3 bits each, left bit first),
// drawn at scale: the chart needs labels and image/png has no text.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7}, '4': {5, 5, 7, 1, 1},
	'5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1}, '8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7},
	'a': {2, 5, 7, 5, 5}, 'b': {6, 5, 6, 5, 6}, 'c': {3, 4, 4, 4, 3}, 'd': {6, 5, 5, 5, 6}, 'e': {7, 4, 6, 4, 7},
	'f': {7, 4, 6, 4, 4}, 'g': {3, 4, 5, 5, 3}, 'h': {5, 5, 7, 5, 5}, 'i': {7, 2, 2, 2, 7}, 'j': {1, 1, 1, 5, 2},
	'k': {5, 5, 6, 5, 5}, 'l': {4, 4, 4, 4, 7}, 'm': {5, 7, 7, 5, 5}, 'n': {6, 5, 5, 5, 5}, 'o': {2, 5, 5, 5, 2},
	'p': {6, 5, 6, 4, 4}, 'q': {2, 5, 5, 6, 3}, 'r': {6, 5, 6, 5, 5}, 's': {3, 4, 2, 1, 6}, 't': {7, 2, 2, 2, 2},
	'u': {5, 5, 5, 5, 7}, 'v': {5, 5, 5, 5, 2}, 'w': {5, 5, 7, 7, 5}, 'x': {5, 5, 2, 5, 5}, 'y': {5, 5, 2, 2, 2},
	'z': {7, 1, 2, 4, 7}, '_': {0, 0, 0, 0, 7}, '.': {0, 0, 0, 0, 2}, '/': {1, 1, 2, 4, 4}, '-': {0, 0, 7, 0, 0},
	':': {0, 2, 0, 2, 0}, '%': {5, 1, 2, 4, 5}, '(': {2, 4, 4, 4, 2}, ')': {2, 1, 1, 1, 2}, '=': {0, 7, 0, 7, 0},
	'<': {1, 2, 4, 2, 1}, '>': {4, 2, 1, 2, 4}, ',': {0, 0, 0, 2, 4}, '+': {0, 2, 7, 2, 0},
}

const scale = 2

func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	for _, r := range strings.ToLower(s) {
		g, ok := glyphs[r]
		if ok {
			for row := 0; row < 5; row++ {
				for col := 0; col < 3; col++ {
					if g[row]&(4>>col) != 0 {
						fill(img, x+col*scale, y+row*scale, scale, scale, c)
					}
				}
			}
		}
		x += 4 * scale
	}
}

func fill(img *image.RGBA, x, y, w, h int, c color.Color) {
	for i := x; i < x+w; i++ {
		for j := y; j < y+h; j++ {
			img.Set(i, j, c)
		}
	}
}

var palette = []color.RGBA{{0x4c, 0x72, 0xb0, 255}, {0xdd, 0x84, 0x52, 255}, {0x55, 0xa8, 0x68, 255}, {0xc4, 0x4e, 0x52, 255}}

// writeChart draws, per op, one bar per module: nvbridge p50 / gopls
// straight p50, on a log scale from x0.5 to x16, with lines at x1, x1.5
// and x2.
func writeChart(path string, rep side.Report) error {
	var ops []string
	seen := map[string]bool{}
	for _, m := range rep.Modules {
		for _, s := range m.Ops {
			if s.Ratio > 0 && !seen[s.Op] {
				seen[s.Op] = true
				ops = append(ops, s.Op)
			}
		}
	}
	const left, right, top, barH, gap = 250, 60, 70, 13, 12
	width := 1000
	height := top + len(ops)*(len(rep.Modules)*barH+gap) + 40
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fill(img, 0, 0, width, height, color.White)
	black := color.RGBA{0x20, 0x20, 0x20, 255}
	grey := color.RGBA{0xb0, 0xb0, 0xb0, 255}
	drawText(img, 10, 10, "nvbridge p50 / gopls straight p50 (log scale), per tool and module", black)
	for i, m := range rep.Modules {
		fill(img, 10+i*180, 35, 14, 10, palette[i%len(palette)])
		drawText(img, 30+i*180, 35, m.Module, black)
	}
	lo, hi := math.Log(0.5), math.Log(16)
	xOf := func(r float64) int {
		v := math.Log(math.Max(0.5, math.Min(16, r)))
		return left + int(float64(width-left-right)*(v-lo)/(hi-lo))
	}
	for _, mark := range []float64{1, 1.5, 2, 4, 8, 16} {
		x := xOf(mark)
		fill(img, x, top-8, 1, height-top-30, grey)
		drawText(img, x-8, height-25, fmt.Sprintf("x%g", mark), black)
	}
	y := top
	for _, op := range ops {
		drawText(img, 10, y+2, op, black)
		for i, m := range rep.Modules {
			for _, s := range m.Ops {
				if s.Op == op && s.Ratio > 0 {
					x0, x1 := xOf(0.5), xOf(s.Ratio)
					fill(img, x0, y, x1-x0, barH-2, palette[i%len(palette)])
					drawText(img, x1+4, y-1, fmt.Sprintf("x%.2f", s.Ratio), black)
				}
			}
			y += barH
		}
		y += gap
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}
