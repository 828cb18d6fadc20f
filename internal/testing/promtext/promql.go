package promtext

import (
	"sort"
	"strings"
)

// promqlWords are PromQL keywords and aggregation modifiers: identifiers
// that are never metric names.
var promqlWords = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"offset": true, "bool": true, "and": true, "or": true, "unless": true, "atan2": true, "inf": true, "nan": true,
}

// MetricNames returns the metric names an expression selects, sorted and
// without duplicates: identifiers that are not functions (followed by a
// parenthesis), keywords, label names (inside braces or a by/without/on/
// ignoring list), durations in brackets, strings or Grafana variables
// ($name, ${name}, [[name]]).
func MetricNames(expr string) []string {
	seen := map[string]bool{}
	labelList := false // inside by (...), without (...), on (...), ignoring (...), group_x (...)
	for i := 0; i < len(expr); {
		ch := expr[i]
		switch {
		case ch == '"' || ch == '\'' || ch == '`':
			i = skipString(expr, i)
		case ch == '{':
			i = skipTo(expr, i, '}')
		case ch == '[':
			i = skipTo(expr, i, ']')
		case ch == '$':
			i++
			if i < len(expr) && expr[i] == '{' {
				i = skipTo(expr, i, '}')
				continue
			}
			for i < len(expr) && isIdent(expr[i]) {
				i++
			}
		case ch == ')':
			labelList = false
			i++
		case isIdentStart(ch):
			j := i
			for j < len(expr) && (isIdent(expr[j]) || expr[j] == ':') {
				j++
			}
			word := expr[i:j]
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			next := byte(0)
			if k < len(expr) {
				next = expr[k]
			}
			lower := strings.ToLower(word)
			switch {
			case labelList:
			case lower == "by" || lower == "without" || lower == "on" || lower == "ignoring" || lower == "group_left" || lower == "group_right":
				if next == '(' {
					labelList = true
					k++
				}
			case promqlWords[lower]:
			case next == '(' || aggregationModifier(expr[k:]):
				// a function, or an aggregation (sum by (x) (...))
			default:
				seen[word] = true
			}
			i = j
			if labelList {
				i = k
			}
		case ch >= '0' && ch <= '9' || ch == '.':
			for i < len(expr) && (isIdent(expr[i]) || expr[i] == '.') {
				i++ // numbers and durations (5m, 1e3)
			}
		default:
			i++
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// aggregationModifier reports whether s starts with by or without and a
// parenthesis: what follows an aggregation operator's name.
func aggregationModifier(s string) bool {
	for _, w := range []string{"by", "without"} {
		if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) && !isIdent(s[len(w)]) {
			return strings.HasPrefix(strings.TrimLeft(s[len(w):], " "), "(")
		}
	}
	return false
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }

func skipString(s string, i int) int {
	q := s[i]
	for i++; i < len(s); i++ {
		if s[i] == '\\' && q != '`' {
			i++
			continue
		}
		if s[i] == q {
			return i + 1
		}
	}
	return i
}

// skipTo returns the index after the close byte matching the one at i,
// skipping strings inside.
func skipTo(s string, i int, close byte) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '`':
			i = skipString(s, i) - 1
		case close:
			return i + 1
		}
	}
	return i
}
