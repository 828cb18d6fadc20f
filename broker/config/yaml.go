package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseYAML parses YAML config text; name labels errors (a file name).
func ParseYAML(name string, data []byte) (*Broker, error) {
	entries, ferrs, err := flattenYAML(name, data)
	if err != nil {
		return nil, err
	}
	values := make(map[string]string, len(entries))
	origins := make(map[string]origin, len(entries))
	for k, e := range entries {
		values[k] = e.value
		origins[k] = origin{file: name, line: e.line}
	}
	return parseStatic(values, origins, ferrs, nil)
}

// entry is one flattened YAML key: its value as server.properties would
// spell it, and the line it was written on.
type entry struct {
	value string
	line  int
}

// flattenYAML turns a YAML document into dotted keys. Nested mappings join
// their keys with dots; sequences become comma lists; scalars keep their
// source text, so 1_000 or yes mean what they would mean to Kafka (nothing).
// A null value leaves the key unset. A key given twice, in any spelling,
// is refused with both lines. Entry errors are returned apart from err (a
// document that cannot be read at all) so they can be reported together
// with the value errors found later.
func flattenYAML(name string, data []byte) (map[string]entry, []*Error, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]entry{}, nil, nil // empty file: all defaults
		}
		return nil, nil, fmt.Errorf("config: %s: %w", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("config: %s: only one YAML document is allowed", name)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return map[string]entry{}, nil, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return map[string]entry{}, nil, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("config: %s:%d: the top level must be a mapping of config keys", name, root.Line)
	}
	f := &flattener{file: name, out: map[string]entry{}, seen: map[string]int{}, budget: maxNodes}
	f.mapping("", root, 0)
	if f.budget < 0 {
		return nil, nil, fmt.Errorf("config: %s: document too large: more than %d entries once aliases are expanded", name, maxNodes)
	}
	return f.out, f.errs, nil
}

type flattener struct {
	file string
	out  map[string]entry
	seen map[string]int // key → line first given, nulls included
	errs []*Error
	// nodes left to visit: aliases can make a small document expand
	// exponentially ("billion laughs"), so the walk has a fixed budget.
	budget int
}

// maxNodes is far more than any real config has (Kafka has a few hundred
// keys) and small enough to walk in well under a millisecond.
const maxNodes = 10000

func (f *flattener) fail(key, value string, line int, err error) {
	e := keyError(key, value, err)
	e.File, e.Line = f.file, line
	f.errs = append(f.errs, e)
}

// maxDepth bounds nesting, so hostile input cannot recurse without end
// through aliases.
const maxDepth = 32

func (f *flattener) mapping(prefix string, n *yaml.Node, depth int) {
	if depth > maxDepth {
		f.fail(strings.TrimSuffix(prefix, "."), "", n.Line, fmt.Errorf("%w: nested too deeply", ErrInvalidValue))
		return
	}
	local := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if f.budget--; f.budget < 0 {
			return // flattenYAML reports it
		}
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" || k.Value == "<<" {
			f.fail(prefix+k.Value, "", k.Line, fmt.Errorf("%w: keys must be plain names (merge keys are not supported)", ErrInvalidValue))
			continue
		}
		key := prefix + k.Value
		// YAML forbids a key twice in one mapping, even when the two
		// nested mappings would not collide once flattened.
		if first, dup := local[k.Value]; dup {
			text := ""
			if v != nil {
				text = nodeText(v)
			}
			f.fail(key, text, k.Line, fmt.Errorf("%w: already given on line %d", ErrDuplicateKey, first))
			continue
		}
		local[k.Value] = k.Line
		if v == nil {
			f.fail(key, "", k.Line, fmt.Errorf("%w: bad alias", ErrInvalidValue))
			continue
		}
		if v.Kind == yaml.MappingNode && !f.isKV(key) {
			f.mapping(key+".", v, depth+1)
			continue
		}
		if first, dup := f.seen[key]; dup {
			f.fail(key, nodeText(v), k.Line, fmt.Errorf("%w: already given on line %d", ErrDuplicateKey, first))
			continue
		}
		f.seen[key] = k.Line
		val, ok := f.value(key, v)
		if ok {
			f.out[key] = entry{value: val, line: k.Line}
		}
	}
}

// isKV reports keys whose value may be written as a YAML mapping
// (listener.security.protocol.map: {PLAINTEXT: PLAINTEXT}).
func (f *flattener) isKV(key string) bool {
	d, ok := lookupDef(key)
	return ok && d.kv
}

// value renders a leaf node as its server.properties string; ok is false
// for null (key left unset) or a refused shape.
func (f *flattener) value(key string, v *yaml.Node) (string, bool) {
	d, _ := lookupDef(key) // nil for unknown keys: Parse names them later
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return "", false
		}
		return v.Value, true
	case yaml.SequenceNode:
		if d != nil && !d.csv {
			f.fail(key, nodeText(v), v.Line, fmt.Errorf("%w: a %s key takes one value, not a list", ErrInvalidValue, d.Type))
			return "", false
		}
		items := make([]string, 0, len(v.Content))
		for _, it := range v.Content {
			it = resolveAlias(it)
			if it == nil || it.Kind != yaml.ScalarNode {
				f.fail(key, nodeText(v), v.Line, fmt.Errorf("%w: list items must be plain values", ErrInvalidValue))
				return "", false
			}
			items = append(items, it.Value)
		}
		return strings.Join(items, ","), true
	case yaml.MappingNode: // only for kv keys
		pairs := make([]string, 0, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], resolveAlias(v.Content[i+1])
			if k.Kind != yaml.ScalarNode || val == nil || val.Kind != yaml.ScalarNode {
				f.fail(key, nodeText(v), v.Line, fmt.Errorf("%w: entries must be plain name: value pairs", ErrInvalidValue))
				return "", false
			}
			pairs = append(pairs, k.Value+":"+val.Value)
		}
		return strings.Join(pairs, ","), true
	}
	f.fail(key, nodeText(v), v.Line, fmt.Errorf("%w: unsupported YAML value", ErrInvalidValue))
	return "", false
}

// resolveAlias follows *alias references to their anchored node.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxDepth; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// nodeText renders a node compactly for error messages.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			parts = append(parts, nodeText(c))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		return "{...}"
	}
	return ""
}
