package tlsconf

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PrincipalMapper applies ssl.principal.mapping.rules (Kafka's
// SslPrincipalMapper) to a distinguished name:
//
//	DEFAULT                          the DN unchanged
//	RULE:<regex>/<replacement>/[L|U] when regex matches the whole DN, the DN
//	                                 with every match replaced ($1.. refer to
//	                                 groups), lower- or upper-cased
//
// Rules are separated by commas and tried in order; the first that applies
// wins, and a DN no rule applies to is refused. The regular expressions are
// Go's (RE2), which covers what such rules use; Java-only constructs
// (look-around, possessive quantifiers) are refused when the rules load.
type PrincipalMapper struct {
	rules []mappingRule
}

type mappingRule struct {
	isDefault   bool
	raw         string // as written, for messages
	pattern     string
	re          *regexp.Regexp
	full        *regexp.Regexp
	replacement string // in Go's Expand syntax
	rawRepl     string // as written
	lower       bool
	upper       bool
}

// ErrNoRule is wrapped when no mapping rule applies to a DN.
var ErrNoRule = errors.New("tlsconf: no principal mapping rule applies")

// rulePattern and ruleSplitter are Kafka's RULE_PATTERN and RULE_SPLITTER.
const rulePattern = `(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`

var (
	ruleSplitter = regexp.MustCompile(`\s*(` + rulePattern + `)\s*(,\s*|$)`)
	ruleParser   = regexp.MustCompile(`^(?:` + rulePattern + `)`)
)

// NewPrincipalMapper parses ssl.principal.mapping.rules ("" or DEFAULT is
// the default rule).
func NewPrincipalMapper(rules string) (*PrincipalMapper, error) {
	if strings.TrimSpace(rules) == "" {
		rules = "DEFAULT"
	}
	var raws []string
	for _, m := range ruleSplitter.FindAllStringSubmatch(strings.TrimSpace(rules), -1) {
		raws = append(raws, m[1])
	}
	pm := &PrincipalMapper{}
	for _, r := range raws {
		loc := ruleParser.FindStringSubmatchIndex(r)
		if loc == nil {
			return nil, fmt.Errorf("%w: invalid rule: %s", ErrConfig, r)
		}
		if loc[1] != len(r) {
			return nil, fmt.Errorf("%w: invalid rule: `%s`, unmatched substring: `%s`", ErrConfig, r, r[loc[1]:])
		}
		group := func(i int) (string, bool) {
			if loc[2*i] < 0 {
				return "", false
			}
			return r[loc[2*i]:loc[2*i+1]], true
		}
		if _, ok := group(1); ok {
			pm.rules = append(pm.rules, mappingRule{isDefault: true, raw: "DEFAULT"})
			continue
		}
		pat, ok := group(2)
		if !ok {
			continue // empty rules are ignored, as in Kafka
		}
		repl, _ := group(4)
		flag, _ := group(6)
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("%w: rule %s: %v", ErrConfig, r, err)
		}
		full, err := regexp.Compile(`^(?:` + pat + `)$`)
		if err != nil {
			return nil, fmt.Errorf("%w: rule %s: %v", ErrConfig, r, err)
		}
		pm.rules = append(pm.rules, mappingRule{
			raw: r, pattern: pat, re: re, full: full,
			replacement: javaReplacement(repl, re.NumSubexp()), rawRepl: repl,
			lower: flag == "L", upper: flag == "U",
		})
	}
	return pm, nil
}

// Name maps a DN to the principal name.
func (pm *PrincipalMapper) Name(dn string) (string, error) {
	for _, r := range pm.rules {
		if r.isDefault {
			return dn, nil
		}
		if !r.full.MatchString(dn) {
			continue
		}
		out := r.re.ReplaceAllString(dn, r.replacement)
		switch {
		case r.lower:
			out = strings.ToLower(out)
		case r.upper:
			out = strings.ToUpper(out)
		}
		return out, nil
	}
	return "", fmt.Errorf("%w: No rules apply to %s, rules %s", ErrNoRule, dn, pm)
}

// String lists the rules as Kafka prints them.
func (pm *PrincipalMapper) String() string {
	parts := make([]string, len(pm.rules))
	for i, r := range pm.rules {
		if r.isDefault {
			parts[i] = "DEFAULT"
			continue
		}
		s := "RULE:" + r.pattern + "/" + r.rawRepl
		if r.lower {
			s += "/L"
		} else if r.upper {
			s += "/U"
		}
		parts[i] = s
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// javaReplacement turns a java.util.regex replacement into Go's Expand
// syntax: $n refers to group n (Java reads as many digits as still name a
// group; Kafka makes a reference to a group that does not exist literal),
// \x is x literally, and a literal $ becomes $$.
func javaReplacement(repl string, groups int) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '\\' && i+1 < len(repl):
			i++
			if repl[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(repl[i])
			}
		case c == '$':
			j := i + 1
			for j < len(repl) && repl[j] >= '0' && repl[j] <= '9' {
				j++
			}
			digits := repl[i+1 : j]
			if digits == "" || groups == 0 {
				b.WriteString("$$")
				continue
			}
			// Longest prefix of the digits that names an existing group.
			n, k := -1, 0
			for l := len(digits); l >= 1; l-- {
				v, _ := strconv.Atoi(digits[:l])
				if v <= groups {
					n, k = v, l
					break
				}
			}
			if n < 0 {
				b.WriteString("$$")
				continue
			}
			fmt.Fprintf(&b, "${%d}", n)
			i += k
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
