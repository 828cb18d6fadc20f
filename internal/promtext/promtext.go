// Package promtext reads what tests need of Prometheus text: samples of
// the exposition format (a broker's /metrics) and the metric names a
// PromQL expression uses (a dashboard's queries). It is test support, not
// a full parser: no exemplars, no native histograms, and PromQL is only
// tokenized, not type-checked.
package promtext

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Sample is one exposition line.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Parse reads the samples of a text exposition, skipping comments.
func Parse(r io.Reader) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("promtext: line %d %q: %w", n, line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseLine(line string) (Sample, error) {
	s := Sample{Labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("no value")
	}
	s.Name = line[:i]
	rest := line[i:]
	if rest[0] == '{' {
		end, err := parseLabels(rest, s.Labels)
		if err != nil {
			return s, err
		}
		rest = rest[end:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return s, fmt.Errorf("no value")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, err
	}
	s.Value = v
	return s, nil
}

// parseLabels reads {a="x",b="y"} at the start of s into into and returns
// the index after the closing brace.
func parseLabels(s string, into map[string]string) (int, error) {
	i := 1
	for {
		for i < len(s) && (s[i] == ',' || s[i] == ' ') {
			i++
		}
		if i < len(s) && s[i] == '}' {
			return i + 1, nil
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 || i+eq+1 >= len(s) || s[i+eq+1] != '"' {
			return 0, fmt.Errorf("bad label at %d", i)
		}
		name := s[i : i+eq]
		i += eq + 2
		var val strings.Builder
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(s[i])
				}
				continue
			}
			val.WriteByte(s[i])
		}
		if i >= len(s) {
			return 0, fmt.Errorf("unterminated label value")
		}
		into[name] = val.String()
		i++
	}
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
