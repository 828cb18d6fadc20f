package cliutil

import (
	"fmt"
	"io"
	"os"
	"strings"

	"kafgo/internal/javaprops"
)

// ReadPropertiesFile loads a Java .properties file.
func ReadPropertiesFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cliutil: %w", err)
	}
	defer f.Close()
	m, err := ParseProperties(f)
	if err != nil {
		return nil, fmt.Errorf("cliutil: %s: %w", path, err)
	}
	return m, nil
}

// ParseProperties reads the java.util.Properties text format.
func ParseProperties(r io.Reader) (map[string]string, error) { return javaprops.Parse(r) }

// ParseKeyValues parses repeatable name=value flag values. The value may
// itself contain '='; only the first one separates.
func ParseKeyValues(pairs []string) (map[string]string, error) {
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid property %q: expected the form key=value", p)
		}
		out[k] = v
	}
	return out, nil
}
