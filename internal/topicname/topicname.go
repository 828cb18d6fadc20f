// Package topicname validates topic names with Kafka's rules, shared by the
// broker (CreateTopics, auto-creation) and the tools.
package topicname

import (
	"errors"
	"fmt"
)

// MaxLength is Kafka's limit: the partition directory name "<topic>-<p>"
// must fit in 255 bytes.
const MaxLength = 249

// Kafka's internal topics, which clients may read but not produce to,
// create, grow or delete.
const (
	ConsumerOffsets  = "__consumer_offsets"  // the group coordinator's log
	TransactionState = "__transaction_state" // the transaction coordinator's log
)

// Internal lists Kafka's internal topics.
var Internal = []string{ConsumerOffsets, TransactionState}

// IsInternal reports whether name is one of Kafka's internal topics.
func IsInternal(name string) bool { return name == ConsumerOffsets || name == TransactionState }

// Validate returns why name is not a legal topic name, or nil.
func Validate(name string) error {
	switch {
	case name == "":
		return errors.New("topic name is illegal, it can't be empty")
	case name == "." || name == "..":
		return errors.New("topic name cannot be \".\" or \"..\"")
	case len(name) > MaxLength:
		return fmt.Errorf("topic name is illegal, it can't be longer than %d characters, topic name: %s", MaxLength, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("topic name %s is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// HasCollisionChars reports whether name has '.' or '_', which Kafka's
// metric names treat alike, so two topics could collide.
func HasCollisionChars(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' || name[i] == '_' {
			return true
		}
	}
	return false
}
