package tui

import (
	"fmt"
	"math"
	"strings"
)

// sparkBlocks are the eight heights of a sparkline cell.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// window is the last width values and their largest known value (0 when
// none is known or all are below 0), which a drawing scales to.
func window(vals []float64, width int) ([]float64, float64) {
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	peak := 0.0
	for _, v := range vals {
		if !math.IsNaN(v) {
			peak = math.Max(peak, v)
		}
	}
	return vals, peak
}

// sparkline draws the last width values, scaled from 0 to their maximum,
// right-aligned so the newest is always in the last cell; an unknown
// value is a blank.
func sparkline(vals []float64, width int) string {
	if width <= 0 {
		return ""
	}
	vals, peak := window(vals, width)
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", width-len(vals)))
	for _, v := range vals {
		switch {
		case math.IsNaN(v):
			b.WriteByte(' ')
		case peak <= 0:
			b.WriteRune(sparkBlocks[0])
		default:
			i := int(math.Round(v / peak * float64(len(sparkBlocks)-1)))
			b.WriteRune(sparkBlocks[min(max(i, 0), len(sparkBlocks)-1)])
		}
	}
	return b.String()
}

// chart draws the last width values as bars height lines tall, scaled
// from 0 to their maximum (eight steps a line), right-aligned; the first
// line is the top.
func chart(vals []float64, width, height int) []string {
	if width <= 0 || height <= 0 {
		return nil
	}
	vals, peak := window(vals, width)
	steps := height * 8
	lines := make([]strings.Builder, height)
	for i := range lines {
		lines[i].WriteString(strings.Repeat(" ", width-len(vals)))
	}
	for _, v := range vals {
		n := 0 // eighths of a line filled
		switch {
		case math.IsNaN(v):
			n = -1
		case peak > 0:
			n = int(math.Round(v / peak * float64(steps)))
		}
		for row := range height {
			// row 0 is the top line: it holds eighths above (height-1)*8.
			base := (height - 1 - row) * 8
			switch {
			case n < 0:
				lines[row].WriteByte(' ')
			case n >= base+8:
				lines[row].WriteRune(sparkBlocks[7])
			case n > base:
				lines[row].WriteRune(sparkBlocks[n-base-1])
			case row == height-1:
				lines[row].WriteRune(sparkBlocks[0]) // a zero still shows a floor
			default:
				lines[row].WriteByte(' ')
			}
		}
	}
	out := make([]string, height)
	for i := range lines {
		out[i] = lines[i].String()
	}
	return out
}

// siCount renders a count or rate with k/M/G suffixes: 12, 1.2k, 35M.
func siCount(v float64) string {
	return scaled(v, 1000, []string{"", "k", "M", "G", "T"})
}

// siBytes renders bytes with binary prefixes: 512B, 1.2KiB, 35MiB.
func siBytes(v float64) string {
	return scaled(v, 1024, []string{"B", "KiB", "MiB", "GiB", "TiB"})
}

func scaled(v float64, base float64, units []string) string {
	if math.IsNaN(v) || v < 0 {
		return "-"
	}
	i := 0
	for v >= base && i < len(units)-1 {
		v /= base
		i++
	}
	switch {
	case i == 0 && v == math.Trunc(v):
		return fmt.Sprintf("%.0f%s", v, units[i])
	case v < 10:
		return fmt.Sprintf("%.1f%s", v, units[i])
	}
	return fmt.Sprintf("%.0f%s", v, units[i])
}

// rateCell is a per-second rate from a series, "-" when unknown.
func rateCell(s *series, format func(float64) string) cell {
	v, ok := s.last()
	if !ok {
		return txt("-")
	}
	return number(format(v), v)
}

// trendCell is a series' sparkline; it sorts by the latest value.
func trendCell(s *series, width int) cell {
	vals := s.values()
	known := false
	for _, v := range vals {
		known = known || !math.IsNaN(v)
	}
	if !known {
		return txt("")
	}
	c := txt(sparkline(vals, width))
	if v, ok := s.last(); ok {
		c.numeric, c.value = true, v
	}
	return c
}
