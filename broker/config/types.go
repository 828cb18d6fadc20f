package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a config value type. The numeric values are DescribeConfigs'
// config_type codes (KIP-569), so a handler can put them on the wire as is.
type Type int8

// Config types, numbered as DescribeConfigs numbers them.
const (
	TypeUnknown  Type = 0
	TypeBoolean  Type = 1
	TypeString   Type = 2
	TypeInt      Type = 3
	TypeShort    Type = 4
	TypeLong     Type = 5
	TypeDouble   Type = 6
	TypeList     Type = 7
	TypeClass    Type = 8
	TypePassword Type = 9
)

// String returns the type name as Kafka's config documentation prints it.
func (t Type) String() string {
	switch t {
	case TypeBoolean:
		return "boolean"
	case TypeString:
		return "string"
	case TypeInt:
		return "int"
	case TypeShort:
		return "short"
	case TypeLong:
		return "long"
	case TypeDouble:
		return "double"
	case TypeList:
		return "list"
	case TypeClass:
		return "class"
	case TypePassword:
		return "password"
	}
	return "unknown"
}

// Source says where a config value came from. The numeric values are
// DescribeConfigs' config_source codes (kmsg.ConfigSource uses the same).
type Source int8

// Config sources, numbered as DescribeConfigs numbers them.
const (
	SourceUnknown              Source = 0
	DynamicTopicConfig         Source = 1
	DynamicBrokerConfig        Source = 2
	DynamicDefaultBrokerConfig Source = 3
	StaticBrokerConfig         Source = 4
	DefaultConfig              Source = 5
)

// String returns Kafka's name for the source.
func (s Source) String() string {
	switch s {
	case DynamicTopicConfig:
		return "DYNAMIC_TOPIC_CONFIG"
	case DynamicBrokerConfig:
		return "DYNAMIC_BROKER_CONFIG"
	case DynamicDefaultBrokerConfig:
		return "DYNAMIC_DEFAULT_BROKER_CONFIG"
	case StaticBrokerConfig:
		return "STATIC_BROKER_CONFIG"
	case DefaultConfig:
		return "DEFAULT_CONFIG"
	}
	return "UNKNOWN"
}

// Value is one described config entry, shaped like a DescribeConfigs
// resource config.
type Value struct {
	Name  string
	Value string
	// Null is true when the wire value must be null: the key has no value
	// (a nullable key left unset) or the key is sensitive.
	Null      bool
	Source    Source
	Sensitive bool
	ReadOnly  bool
	// Synonyms lists every place the value could come from, highest
	// precedence first, as DescribeConfigs does with include_synonyms.
	// Values of sensitive synonyms are blank.
	Synonyms []Synonym
	// Type is the type name ("int", "list", ...); ConfigType is its wire code.
	Type       string
	ConfigType Type
	Doc        string
}

// Synonym is one candidate source of a described value.
type Synonym struct {
	Name   string
	Value  string
	Source Source
}

// Long.MAX_VALUE and Integer.MAX_VALUE as Kafka's defaults print them.
const (
	longMax = "9223372036854775807"
	intMax  = "2147483647"
)

// parseInt parses a Kafka int, short or long: decimal, surrounding blanks
// ignored (Kafka trims), range checked against the type's width.
func parseInt(raw string, bits int) (int64, error) {
	s := strings.TrimSpace(raw)
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		var kind string
		switch bits {
		case 16:
			kind = "a short (16-bit integer)"
		case 32:
			kind = "an int (32-bit integer)"
		default:
			kind = "a long (64-bit integer)"
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%w: out of range for %s", ErrInvalidValue, kind)
		}
		return 0, fmt.Errorf("%w: not %s", ErrInvalidValue, kind)
	}
	return n, nil
}

// parseBool accepts only true/false in any case, as Kafka does; YAML's
// yes/no/on/off are refused so a file means the same here and in Kafka.
func parseBool(raw string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%w: expected true or false", ErrInvalidValue)
}

// parseDouble parses a Kafka double. NaN is refused: no setting means
// anything with it and every comparison against it is false.
func parseDouble(raw string) (float64, error) {
	s := strings.TrimSpace(raw)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("%w: not a double", ErrInvalidValue)
	}
	return f, nil
}

// splitList splits a Kafka list value: comma separated, blanks around
// items ignored; an all-blank value is the empty list.
func splitList(raw string) []string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return []string{}
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// canonical parses raw as type t and returns the normalised string that
// is stored and described: trimmed, integers in plain decimal, booleans in
// lower case, lists joined with bare commas.
func canonical(t Type, raw string) (string, error) {
	switch t {
	case TypeInt:
		n, err := parseInt(raw, 32)
		return strconv.FormatInt(n, 10), err
	case TypeShort:
		n, err := parseInt(raw, 16)
		return strconv.FormatInt(n, 10), err
	case TypeLong:
		n, err := parseInt(raw, 64)
		return strconv.FormatInt(n, 10), err
	case TypeBoolean:
		b, err := parseBool(raw)
		return strconv.FormatBool(b), err
	case TypeDouble:
		// Keep the operator's spelling (Kafka prints 1.7976931348623157E308,
		// Go would print 1.7976931348623157e+308).
		_, err := parseDouble(raw)
		return strings.TrimSpace(raw), err
	case TypeList:
		items := splitList(raw)
		for _, it := range items {
			if it == "" {
				return "", fmt.Errorf("%w: empty list element", ErrInvalidValue)
			}
		}
		return strings.Join(items, ","), nil
	}
	return strings.TrimSpace(raw), nil
}

// check validates a canonical value of an already type-checked key.
type check func(v string) error

func atLeast(min int64) check {
	return func(v string) error {
		n, err := parseInt(v, 64)
		if err != nil {
			return err
		}
		if n < min {
			return fmt.Errorf("%w: must be at least %d", ErrInvalidValue, min)
		}
		return nil
	}
}

func between(min, max int64) check {
	return func(v string) error {
		n, err := parseInt(v, 64)
		if err != nil {
			return err
		}
		if n < min || n > max {
			return fmt.Errorf("%w: must be between %d and %d", ErrInvalidValue, min, max)
		}
		return nil
	}
}

// notZero refuses 0 for socket buffer sizes, where -1 means "OS default"
// and 0 is an error when the socket option is applied.
func notZero(v string) error {
	if v == "0" {
		return fmt.Errorf("%w: must be -1 (OS default) or a positive size", ErrInvalidValue)
	}
	return nil
}

func ratioBetween(min, max float64) check {
	return func(v string) error {
		f, err := parseDouble(v)
		if err != nil {
			return err
		}
		if f < min || f > max {
			return fmt.Errorf("%w: must be between %g and %g", ErrInvalidValue, min, max)
		}
		return nil
	}
}

func positiveDouble(v string) error {
	f, err := parseDouble(v)
	if err != nil {
		return err
	}
	if f <= 0 {
		return fmt.Errorf("%w: must be greater than 0", ErrInvalidValue)
	}
	return nil
}

// oneOf accepts exactly one of the given strings (case sensitive, as
// Kafka's ValidString is).
func oneOf(allowed ...string) check {
	return func(v string) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("%w: must be one of %s", ErrInvalidValue, strings.Join(allowed, ", "))
	}
}

// listOf accepts a list whose items are all among allowed, none repeated;
// nonEmpty also refuses the empty list.
func listOf(nonEmpty bool, allowed ...string) check {
	one := oneOf(allowed...)
	return func(v string) error {
		items := splitList(v)
		if nonEmpty && len(items) == 0 {
			return fmt.Errorf("%w: must name at least one of %s", ErrInvalidValue, strings.Join(allowed, ", "))
		}
		seen := map[string]bool{}
		for _, it := range items {
			if err := one(it); err != nil {
				return fmt.Errorf("%w: item %q: must be one of %s", ErrInvalidValue, it, strings.Join(allowed, ", "))
			}
			if seen[it] {
				return fmt.Errorf("%w: item %q repeated", ErrInvalidValue, it)
			}
			seen[it] = true
		}
		return nil
	}
}
