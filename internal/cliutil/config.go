package cliutil

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is a set of Java client properties that remembers which ones a
// builder read, so that tools can warn about the rest.
type Config struct {
	vals map[string]string
	used map[string]bool
}

// NewConfig returns an empty Config.
func NewConfig() *Config {
	return &Config{vals: make(map[string]string), used: make(map[string]bool)}
}

// Set stores one property, replacing any earlier value.
func (c *Config) Set(key, value string) { c.vals[key] = value }

// Merge stores every property of m, replacing earlier values.
func (c *Config) Merge(m map[string]string) {
	for k, v := range m {
		c.vals[k] = v
	}
}

// SetDefault stores a property only when it is not set yet; tools use it for
// their own defaults, which a file or --*-property flag may override.
func (c *Config) SetDefault(key, value string) {
	if _, ok := c.vals[key]; !ok {
		c.vals[key] = value
	}
}

// LoadFile merges a properties file; an empty path is a no-op.
func (c *Config) LoadFile(path string) error {
	if path == "" {
		return nil
	}
	m, err := ReadPropertiesFile(path)
	if err != nil {
		return err
	}
	c.Merge(m)
	return nil
}

// Has reports whether key is set, without marking it read.
func (c *Config) Has(key string) bool {
	_, ok := c.vals[key]
	return ok
}

// Peek returns a value without marking it read.
func (c *Config) Peek(key string) (string, bool) {
	v, ok := c.vals[key]
	return v, ok
}

// Get returns a value and marks it read.
func (c *Config) Get(key string) (string, bool) {
	v, ok := c.vals[key]
	if ok {
		c.used[key] = true
	}
	return v, ok
}

// Consume marks keys read without interpreting them: for properties that
// only make sense to the Java client (serializer classes and the like).
func (c *Config) Consume(keys ...string) {
	for _, k := range keys {
		if _, ok := c.vals[k]; ok {
			c.used[k] = true
		}
	}
}

// Unused lists, sorted, the properties no builder read.
func (c *Config) Unused() []string {
	var out []string
	for k := range c.vals {
		if !c.used[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// WarnUnused writes the Java client's warning for each unread property.
func (c *Config) WarnUnused(w io.Writer) {
	for _, k := range c.Unused() {
		fmt.Fprintf(w, "WARN The configuration '%s' was supplied but isn't a known config.\n", k)
	}
}

// Clone returns an independent copy, read marks included.
func (c *Config) Clone() *Config {
	return &Config{vals: maps.Clone(c.vals), used: maps.Clone(c.used)}
}

// Int reads an integer property; ok is false when it is not set.
func (c *Config) Int(key string) (n int64, ok bool, err error) {
	v, ok := c.Get(key)
	if !ok {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, true, invalidValue(key, v, "an integer")
	}
	return n, true, nil
}

// Bool reads a boolean property the way Java's ConfigDef does
// (case-insensitive true/false only).
func (c *Config) Bool(key string) (b bool, ok bool, err error) {
	v, ok := c.Get(key)
	if !ok {
		return false, false, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, true, invalidValue(key, v, "a boolean")
}

// Millis reads a property holding milliseconds.
func (c *Config) Millis(key string) (d time.Duration, ok bool, err error) {
	n, ok, err := c.Int(key)
	if err != nil || !ok {
		return 0, ok, err
	}
	if n < 0 {
		return 0, true, invalidValue(key, strconv.FormatInt(n, 10), "a non-negative number of milliseconds")
	}
	return time.Duration(n) * time.Millisecond, true, nil
}

// invalidValue words errors like Java's ConfigException, which operators
// search for.
func invalidValue(key, value, want string) error {
	return fmt.Errorf("Invalid value %s for configuration %s: expected %s", value, key, want)
}
