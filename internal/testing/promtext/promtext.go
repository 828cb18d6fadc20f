// Package promtext reads what tests need of Prometheus text: samples of
// the exposition format (a broker's /metrics), parsed by Prometheus's own
// expfmt and flattened to the lines an operator reads, with lookups by
// name and labels; and the metric names a PromQL expression uses (a
// dashboard's queries). The PromQL part is hand code: Prometheus's PromQL
// parser lives in the prometheus/prometheus module, a dependency too large
// for a test helper; it is only tokenized, not type-checked.
package promtext

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one exposition line.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Parse reads the samples of a text exposition with the Prometheus text
// parser (expfmt), flattened to one Sample a line as the exposition shows
// them: a histogram's <name>_bucket{le=...}, _sum and _count, a summary's
// <name>{quantile=...}, _sum and _count. Samples come sorted by metric
// family, in the family's order.
func Parse(r io.Reader) ([]Sample, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("promtext: %w", err)
	}
	var out []Sample
	for _, name := range slices.Sorted(maps.Keys(fams)) {
		for _, m := range fams[name].GetMetric() {
			out = append(out, flatten(name, m)...)
		}
	}
	return out, nil
}

// flatten is one metric's exposition lines.
func flatten(name string, m *dto.Metric) []Sample {
	labels := func(extra ...string) map[string]string {
		l := map[string]string{}
		for _, p := range m.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	switch {
	case m.Counter != nil:
		return []Sample{{Name: name, Labels: labels(), Value: m.GetCounter().GetValue()}}
	case m.Gauge != nil:
		return []Sample{{Name: name, Labels: labels(), Value: m.GetGauge().GetValue()}}
	case m.Summary != nil:
		var out []Sample
		for _, q := range m.GetSummary().GetQuantile() {
			out = append(out, Sample{Name: name, Labels: labels("quantile", formatFloat(q.GetQuantile())), Value: q.GetValue()})
		}
		return append(out,
			Sample{Name: name + "_sum", Labels: labels(), Value: m.GetSummary().GetSampleSum()},
			Sample{Name: name + "_count", Labels: labels(), Value: float64(m.GetSummary().GetSampleCount())})
	case m.Histogram != nil:
		var out []Sample
		inf := false
		for _, b := range m.GetHistogram().GetBucket() {
			inf = inf || math.IsInf(b.GetUpperBound(), 1)
			out = append(out, Sample{Name: name + "_bucket", Labels: labels("le", formatFloat(b.GetUpperBound())), Value: float64(b.GetCumulativeCount())})
		}
		count := float64(m.GetHistogram().GetSampleCount())
		if !inf {
			out = append(out, Sample{Name: name + "_bucket", Labels: labels("le", "+Inf"), Value: count})
		}
		return append(out,
			Sample{Name: name + "_sum", Labels: labels(), Value: m.GetHistogram().GetSampleSum()},
			Sample{Name: name + "_count", Labels: labels(), Value: count})
	}
	return []Sample{{Name: name, Labels: labels(), Value: m.GetUntyped().GetValue()}}
}

// formatFloat writes a bound or quantile as the exposition does.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Find returns the samples named name whose labels include every pair of
// match.
func Find(samples []Sample, name string, match map[string]string) []Sample {
	var out []Sample
	for _, s := range samples {
		if s.Name != name {
			continue
		}
		ok := true
		for k, v := range match {
			if s.Labels[k] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// Value is the one sample named name with exactly the labels match (no
// others), and whether there is one.
func Value(samples []Sample, name string, match map[string]string) (float64, bool) {
	for _, s := range Find(samples, name, match) {
		if len(s.Labels) == len(match) {
			return s.Value, true
		}
	}
	return 0, false
}

// Sum adds the samples named name whose labels include match.
func Sum(samples []Sample, name string, match map[string]string) float64 {
	var t float64
	for _, s := range Find(samples, name, match) {
		t += s.Value
	}
	return t
}
