// Package javaerr words Kafka protocol errors the way Kafka's Java tools
// print them: as the Java exception the admin client raises for the error
// code, "org.apache.kafka.common.errors.UnknownTopicOrPartitionException:
// <message>" (Throwable.toString), with the broker's error message when it
// sent one and the error's default message otherwise (Errors.exception).
// Tools that copy Kafka's output (leader-election, delete-records,
// get-offsets, verifiable-producer) need the exact class names and texts,
// which franz-go's kerr descriptions do not carry.
package javaerr

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
)

type entry struct {
	name    string // Errors constant, e.g. UNKNOWN_TOPIC_OR_PARTITION
	class   string // exception class, relative to errorsPackage
	message string // default message
}

// errorsPackage is where Kafka's client exceptions live.
const errorsPackage = "org.apache.kafka.common.errors."

// Known reports whether code is in Kafka's error table.
func Known(code int16) bool {
	_, ok := table[code]
	return ok
}

// Name is the error's constant name (UNKNOWN_TOPIC_OR_PARTITION), or
// UNKNOWN_SERVER_ERROR for a code the table lacks, as Errors.forCode does.
func Name(code int16) string { return lookup(code).name }

// Class is the fully qualified exception class for code.
func Class(code int16) string { return errorsPackage + lookup(code).class }

// Message is the exception's message: msg when the broker sent one (even
// empty), else the error's default message.
func Message(code int16, msg *string) string {
	if msg != nil {
		return *msg
	}
	return lookup(code).message
}

// String is Throwable.toString of the exception for code: its class, then
// ": " and the message.
func String(code int16, msg *string) string {
	return Class(code) + ": " + Message(code, msg)
}

// FromError is String for an error that carries a Kafka error code (a
// *kerr.Error anywhere in its chain); other errors are their own text.
func FromError(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return String(ke.Code, nil)
	}
	return err.Error()
}

// lookup is Errors.forCode: an unknown code is UNKNOWN_SERVER_ERROR.
func lookup(code int16) entry {
	if e, ok := table[code]; ok {
		return e
	}
	return table[-1]
}
