package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ngkit/ngkit/filters/stats"
)

// Chart geometry, in SVG user units; the SVGs scale to the page width.
const (
	chartW     = 720
	hbarRowH   = 22
	hbarLabelW = 170
	hbarValueW = 170 // room for "9,223,372,036,854,775,807 · 100.00%"
	histW      = 480 // narrower than chartW: two histograms side by side
	histH      = 190
	histLeft   = 52
	histBottom = 46
	histTop    = 12
	histRight  = 12
	paletteLen = 10 // classes c0..c9 in the CSS
)

// px is an SVG coordinate, printed with one decimal at most.
type px float64

func (p px) String() string {
	return strconv.FormatFloat(math.Round(float64(p)*10)/10, 'f', -1, 64)
}

type hbarChart struct {
	Label        string // accessible name
	W, H         int
	LabelX, BarX px
	Rows         []hbarRow
}

type hbarRow struct {
	Y, TextY, W, ValueX px
	Label, Value, Title string
}

type barItem struct {
	label string
	value int64
	note  string // shown after the value, e.g. a rate
}

// newHBar draws one horizontal bar per item, largest first; nil when there
// is nothing to draw.
func newHBar(aria string, items []barItem) *hbarChart {
	if len(items) == 0 {
		return nil
	}
	items = slices.Clone(items)
	slices.SortStableFunc(items, func(a, b barItem) int { return cmp.Compare(b.value, a.value) })
	maxV := max(items[0].value, 1)
	aria = fmt.Sprintf("%s: bar chart of %d bars, largest %s (%s)", aria, len(items), orNone(items[0].label), num(items[0].value))
	c := &hbarChart{Label: aria, W: chartW, H: len(items)*hbarRowH + 4, LabelX: hbarLabelW - 8, BarX: hbarLabelW}
	barMax := float64(chartW - hbarLabelW - hbarValueW)
	for i, it := range items {
		w := float64(it.value) / float64(maxV) * barMax
		if it.value > 0 {
			w = max(w, 1) // a tiny count still shows
		}
		value := num(it.value)
		if it.note != "" {
			value += " · " + it.note
		}
		y := float64(i*hbarRowH + 2)
		c.Rows = append(c.Rows, hbarRow{
			Y: px(y + 3), TextY: px(y + 15), W: px(w), ValueX: px(hbarLabelW + w + 6),
			Label: clip(orNone(it.label), 24), Value: value,
			Title: orNone(it.label) + ": " + value,
		})
	}
	return c
}

type histChart struct {
	Name, Label                      string
	W, H                             int
	X0, X1, Y0, Y1                   px // plot area
	XTitleX, XTitleY, YTitleX, YMidY px
	YMax                             string
	Bars                             []histBar
	Ticks                            []histTick
	XTitle, YTitle                   string
}

type histBar struct {
	X, Y, W, H px
	Title      string
}

type histTick struct {
	X    px
	Text string
}

// newHist draws a histogram of bins, x = value, y = count; nil when there is
// nothing to draw.
func newHist(aria, xTitle, yTitle string, bins []stats.Bin) *histChart {
	var maxC int64
	peak := 0
	for i, b := range bins {
		if b.Count > maxC {
			maxC, peak = b.Count, i
		}
	}
	if maxC == 0 {
		return nil
	}
	x0, x1 := float64(histLeft), float64(histW-histRight)
	y0, y1 := float64(histTop), float64(histH-histBottom)
	// Every histogram's bars have one width, that of the most bins a
	// summary has: a chart of two bins is not two slabs beside another
	// of thirty slivers. The x axis ends with the last bin.
	bw := (x1 - x0) / float64(max(len(bins), stats.MaxBins))
	x1 = x0 + bw*float64(len(bins))
	c := &histChart{
		Name: aria,
		Label: fmt.Sprintf("%s: histogram of %d bins, %s to %s; most %s at %s (%s)",
			aria, len(bins), num(bins[0].Lo), num(bins[len(bins)-1].Hi), yTitle, binRange(bins[peak]), num(maxC)),
		W: histW, H: histH, X0: px(x0), X1: px(x1), Y0: px(y0), Y1: px(y1),
		XTitleX: px((x0 + x1) / 2), XTitleY: px(histH - 6), YTitleX: 14, YMidY: px((y0 + y1) / 2),
		YMax: short(maxC), XTitle: xTitle, YTitle: yTitle,
	}
	step := (len(bins) + 3) / 4 // at most 4 tick labels, never overlapping
	for i, b := range bins {
		h := float64(b.Count) / float64(maxC) * (y1 - y0)
		if b.Count > 0 {
			h = max(h, 1)
		}
		c.Bars = append(c.Bars, histBar{
			X: px(x0 + float64(i)*bw + 1), Y: px(y1 - h), W: px(max(bw-2, 1)), H: px(h),
			Title: fmt.Sprintf("%s %s: %s %s", binRange(b), xTitle, num(b.Count), yTitle),
		})
		if i%step == 0 {
			c.Ticks = append(c.Ticks, histTick{X: px(x0 + (float64(i)+0.5)*bw), Text: shortRange(b)})
		}
	}
	return c
}

func binRange(b stats.Bin) string {
	if b.Lo == b.Hi {
		return num(b.Lo)
	}
	return num(b.Lo) + "–" + num(b.Hi)
}

func shortRange(b stats.Bin) string {
	if b.Lo == b.Hi {
		return short(b.Lo)
	}
	return short(b.Lo) + "–" + short(b.Hi)
}

// short writes large numbers with an SI suffix (12.3k, 4.56G) for axis
// labels, where space is short; tooltips and tables have the exact value.
func short(n int64) string {
	if n > -10000 && n < 10000 {
		return num(n)
	}
	f := float64(n)
	i := 0
	for math.Abs(f) >= 999.5 && i < 6 {
		f /= 1000
		i++
	}
	return strconv.FormatFloat(f, 'g', 3, 64) + string("kMGTPE"[i-1])
}

type stackChart struct {
	Label        string
	W, H         int
	LabelX, BarX px
	Rows         []stackRow
}

type stackRow struct {
	Y, TextY, ValueX    px
	Label, Value, Title string
	Segs                []stackSeg
}

type stackSeg struct {
	X, W  px
	Class string
	Title string
}

// newStack draws one 100% stacked bar per row; counts[i][j] is row i's count
// of label j, and label j has colour class j.
func newStack(aria string, rowLabels, labels []string, counts [][]int64) *stackChart {
	if len(rowLabels) == 0 {
		return nil
	}
	c := &stackChart{Label: aria, W: chartW, H: len(rowLabels)*hbarRowH + 4, LabelX: hbarLabelW - 8, BarX: hbarLabelW}
	barMax := float64(chartW - hbarLabelW - hbarValueW)
	for i, rl := range rowLabels {
		var total int64
		for _, n := range counts[i] {
			total += n
		}
		y := float64(i*hbarRowH + 2)
		row := stackRow{Y: px(y + 3), TextY: px(y + 15), ValueX: px(hbarLabelW + barMax + 6),
			Label: clip(rl, 24), Value: num(total), Title: rl + ": " + num(total)}
		x := float64(hbarLabelW)
		for j, n := range counts[i] {
			if n == 0 {
				continue
			}
			share := float64(n) / float64(total)
			row.Segs = append(row.Segs, stackSeg{X: px(x), W: px(share * barMax), Class: colorClass(j),
				Title: fmt.Sprintf("%s, %s: %s (%s)", rl, labels[j], num(n), pct(share))})
			x += share * barMax
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

func colorClass(i int) string { return "c" + strconv.Itoa(i%paletteLen) }
