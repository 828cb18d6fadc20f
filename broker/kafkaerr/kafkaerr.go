// Package kafkaerr is the broker's one Kafka error table. Code maps any
// error the broker's parts return (their sentinel errors, context, network
// and file-system errors) onto the code Kafka gives the same failure, and New
// pairs a code (franz-go's kerr table) with the message Kafka would send
// beside it, so a handler fills both error_code and error_message from one
// error value.
package kafkaerr

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Error is a Kafka error code with a specific message.
type Error struct {
	Code    *kerr.Error
	Message string
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is / errors.As find the kerr code.
func (e *Error) Unwrap() error { return e.Code }

// New returns an error with code and a formatted message.
func New(code *kerr.Error, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Message is the text for an error_message field: the specific message
// when there is one, else the code's description.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Description
	}
	return err.Error()
}
