// Package kafkaerr is how the broker's errors carry Kafka error codes. It is
// a leaf: it imports nothing of kafgo, so every package can declare its
// sentinel errors with the code Kafka gives the same failure, where the
// sentinel is declared, and no package imports another just to map its
// errors.
//
// Three kinds of error carry a code:
//   - a sentinel from Sentinel: a package's own failure with a fixed code
//     (storage.ErrOffsetOutOfRange is OFFSET_OUT_OF_RANGE);
//   - an *Error from New: a code with the message Kafka would send beside
//     it, so a handler fills error_code and error_message from one value;
//   - any error type with a KafkaCode() int16 method (Coder), for types
//     whose code depends on their fields (record.Error by its Kind).
//
// Code maps any error onto Kafka's table; it is the one mapping every
// handler uses.
package kafkaerr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Coder is an error that knows the Kafka error code it stands for. Code
// finds it with errors.As, so wrapping keeps the code.
type Coder interface {
	error
	KafkaCode() int16
}

// sentinel is a package's sentinel error with its Kafka code. It has no
// Unwrap: errors.Is(err, kerr.X) stays true only for errors that are the
// code itself, as before sentinels carried codes.
type sentinel struct {
	msg  string
	code int16
}

func (e *sentinel) Error() string    { return e.msg }
func (e *sentinel) KafkaCode() int16 { return e.code }

// Sentinel declares a sentinel error: msg is its text, code the Kafka code a
// client gets for it (wrapped or not). Compare it with errors.Is as any
// sentinel.
func Sentinel(code *kerr.Error, msg string) error {
	return &sentinel{msg: msg, code: code.Code}
}

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

// Code maps any error the broker's parts return onto Kafka's error table.
// nil stays nil. An error that is or wraps a Kafka code (a *kerr.Error, an
// *Error from New) keeps it; else the first Coder in the chain gives it
// (a sentinel wrapping another error is found before what it wraps). A
// request that ran out of time or was abandoned is REQUEST_TIMED_OUT, which
// a client may retry. Network errors are NETWORK_EXCEPTION; file-system and
// device errors, and only those, are KAFKA_STORAGE_ERROR. Anything else is
// UNKNOWN_SERVER_ERROR, which clients do not retry blindly.
func Code(err error) *kerr.Error {
	if err == nil {
		return nil
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke
	}
	var c Coder
	if errors.As(err, &c) {
		return ForCode(c.KafkaCode())
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return kerr.RequestTimedOut
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		return kerr.NetworkException
	}
	if isStorageIO(err) {
		return kerr.KafkaStorageError
	}
	return kerr.UnknownServerError
}

// ForCode is kerr's entry for a code; a code kerr does not know is
// UNKNOWN_SERVER_ERROR, and 0 is nil.
func ForCode(code int16) *kerr.Error {
	if code == 0 {
		return nil
	}
	if ke, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return ke
	}
	return kerr.UnknownServerError
}

// isStorageIO reports whether err is a file-system or device failure
// (after network errors have been ruled out): a failed open, read, write,
// sync, rename or mmap.
func isStorageIO(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) || errors.As(err, &errno)
}
