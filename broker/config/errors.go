package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Sentinel causes; every *Error wraps exactly one of them, so a request
// handler can pick the Kafka error code with errors.Is (INVALID_CONFIG for
// ErrUnknownKey/ErrInvalidValue/ErrUnsupported, INVALID_REQUEST for
// ErrReadOnly, as Kafka answers).
var (
	ErrUnknownKey   = kafkaerr.Sentinel(kerr.InvalidConfig, "unknown config key")
	ErrInvalidValue = kafkaerr.Sentinel(kerr.InvalidConfig, "invalid value")
	ErrReadOnly     = kafkaerr.Sentinel(kerr.InvalidConfig, "read-only: cannot be updated dynamically")
	ErrDuplicateKey = kafkaerr.Sentinel(kerr.InvalidRequest, "key given more than once")
	ErrUnsupported  = kafkaerr.Sentinel(kerr.InvalidConfig, "not supported by kafgo")
)

// hidden replaces sensitive values in messages, as Kafka's Password does.
const hidden = "[hidden]"

// Error is a refused config entry. It always names the key and the value
// (hidden for sensitive keys) and, when known, where the entry came from.
type Error struct {
	Key   string
	Value string
	// File and Line locate a YAML entry; Origin names a non-file source
	// such as "--override" or "--num.partitions".
	File   string
	Line   int
	Origin string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Origin != "":
		fmt.Fprintf(&b, "%s: ", e.Origin)
	}
	fmt.Fprintf(&b, "%s=%q: %v", e.Key, e.Value, e.Err)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// origin is where a raw entry came from, copied into errors about it.
type origin struct {
	file   string
	line   int
	source string
}

// String names the origin for the start-up report: file:line, or the
// source (an environment variable, a flag).
func (o origin) String() string {
	switch {
	case o.file != "" && o.line > 0:
		return fmt.Sprintf("%s:%d", o.file, o.line)
	case o.file != "":
		return o.file
	}
	return o.source
}

func (o origin) apply(e *Error) *Error {
	e.File, e.Line, e.Origin = o.file, o.line, o.source
	return e
}

// keyError builds an *Error for key=value, hiding the value of sensitive
// keys so a password never reaches a log line.
func keyError(key, value string, err error) *Error {
	if d, ok := lookupDef(key); ok && d.Sensitive {
		value = hidden
	}
	return &Error{Key: key, Value: value, Err: err}
}

// joinErrors sorts per-key errors by file position then key, so an operator
// reads them in file order, and joins them into one error.
func joinErrors(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Key < errs[j].Key
	})
	if len(errs) == 1 {
		return errs[0]
	}
	// An operator fixes a handful at a time; a generated file gone wrong
	// should not produce megabytes of output.
	const maxShown = 50
	shown := errs
	if len(shown) > maxShown {
		shown = shown[:maxShown]
	}
	list := make([]error, 0, len(shown)+1)
	for _, e := range shown {
		list = append(list, e)
	}
	if more := len(errs) - len(shown); more > 0 {
		list = append(list, fmt.Errorf("config: %d more errors not shown", more))
	}
	return errors.Join(list...)
}

// removedKeys maps keys Kafka used to accept, or that belong to a mode
// kafgo does not run, to advice for the operator.
var removedKeys = map[string]string{
	"host.name":                   "removed in Kafka 3.0; use listeners",
	"port":                        "removed in Kafka 3.0; use listeners",
	"advertised.host.name":        "removed in Kafka 3.0; use advertised.listeners",
	"advertised.port":             "removed in Kafka 3.0; use advertised.listeners",
	"process.roles":               "KRaft mode is not supported; kafgo runs on ZooKeeper or, without zookeeper.connect, on its embedded metadata store",
	"node.id":                     "KRaft mode is not supported; use broker.id",
	"controller.quorum.voters":    "KRaft mode is not supported; use zookeeper.connect",
	"controller.listener.names":   "KRaft mode is not supported",
	"control.plane.listener.name": "a separate controller listener is not supported; controller requests use inter.broker.listener.name",
}

// unknownKeyError explains an unknown broker key, suggesting the nearest
// known key for a likely typo.
func unknownKeyError(key, value string, known map[string]*Def) *Error {
	if hint, ok := removedKeys[key]; ok {
		return &Error{Key: key, Value: value, Err: fmt.Errorf("%w: %s", ErrUnknownKey, hint)}
	}
	if strings.HasPrefix(key, listenerPrefix) {
		return &Error{Key: key, Value: value, Err: fmt.Errorf("%w: a listener override is listener.name.<listener in lower case>.<key>, for the ssl.*, sasl.enabled.mechanisms, sasl.server.max.receive.size and connections.max.reauth.ms keys, or listener.name.<listener>.<mechanism in lower case>.sasl.jaas.config", ErrUnknownKey)}
	}
	if s := suggest(key, known); s != "" {
		return &Error{Key: key, Value: value, Err: fmt.Errorf("%w (did you mean %s?)", ErrUnknownKey, s)}
	}
	return &Error{Key: key, Value: value, Err: ErrUnknownKey}
}

// suggest returns the known key closest to key when it is close enough to
// be a typo (edit distance at most 2, or 3 for long keys), else "".
func suggest[T any](key string, known map[string]T) string {
	limit := 2
	if len(key) > 20 {
		limit = 3
	}
	best, bestDist := "", limit+1
	for name := range known {
		if diff := len(key) - len(name); diff > limit || -diff > limit {
			continue // cannot be within the limit; skip the quadratic work
		}
		d := editDistance(key, name)
		if d < bestDist || (d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
