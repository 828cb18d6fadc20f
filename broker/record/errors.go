package record

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Kind classifies a failure the way Kafka's produce path reports it, so the
// broker can map any error from this package to one response code.
type Kind uint8

const (
	// KindCorrupt means the bytes do not form a batch: a short or torn
	// buffer, a CRC mismatch, a field that cannot be decoded, or a
	// compressed section that does not decompress. Kafka: CORRUPT_MESSAGE (2).
	KindCorrupt Kind = 1 + iota
	// KindInvalid means the bytes decode but break a rule about their
	// content: record count versus records present, offset deltas, magic
	// other than 2 on the produce path. Kafka: INVALID_RECORD (87).
	KindInvalid
)

func (k Kind) String() string {
	switch k {
	case KindCorrupt:
		return "corrupt"
	case KindInvalid:
		return "invalid"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Sentinels for errors.Is. Every *Error matches exactly one of ErrCorrupt or
// ErrInvalid (by its Kind); ErrTruncated, ErrTooLarge and ErrOtherMagic are
// causes carried in Error.Err.
var (
	ErrCorrupt = kafkaerr.Sentinel(kerr.CorruptMessage, "record: corrupt")
	ErrInvalid = kafkaerr.Sentinel(kerr.InvalidRecord, "record: invalid")

	// ErrTruncated marks input that ends inside a batch, message or field:
	// the torn tail a crash leaves, as opposed to bytes that are wrong.
	ErrTruncated = kafkaerr.Sentinel(kerr.CorruptMessage, "record: truncated")
	// ErrTooLarge marks a compressed section that decompresses to more
	// than the caller's limit.
	ErrTooLarge = kafkaerr.Sentinel(kerr.CorruptMessage, "record: decompressed size over the limit")
	// ErrOtherMagic marks a batch of the other format: a legacy message
	// (magic 0 or 1) where a v2 batch was expected, or the reverse. A
	// reader of mixed files switches iterators at the error's position.
	ErrOtherMagic = kafkaerr.Sentinel(kerr.InvalidRecord, "record: other message format")
)

// Error is the error type of this package. Offset is the byte position of
// the offending field, counted from the start of the slice the failing
// function was given (the batch for ParseBatch and ValidateBatch, the whole
// buffer for the iterators). For records inside a compressed batch the
// position is in the decompressed records section, counted as if that
// section started at byte 61 of the batch, and Decompressed is set.
type Error struct {
	Kind         Kind
	Offset       int
	Decompressed bool
	Field        string
	Detail       string
	Err          error
}

// HeaderError is the historical name of Error, kept because storage code
// matches ParseBatchHeader failures with errors.As(err, &*HeaderError).
type HeaderError = Error

func (e *Error) Error() string {
	where := ""
	if e.Offset >= 0 {
		where = fmt.Sprintf(" at byte %d", e.Offset)
		if e.Decompressed {
			where += " (decompressed)"
		}
	}
	msg := "record: " + e.Field + where
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		// Causes from this package already carry the prefix.
		msg += ": " + strings.TrimPrefix(e.Err.Error(), "record: ")
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// KafkaCode is the code Kafka's produce path gives the failure: by Kind,
// else by the cause (see kafkaerr.Coder).
func (e *Error) KafkaCode() int16 {
	switch e.Kind {
	case KindCorrupt:
		return kerr.CorruptMessage.Code
	case KindInvalid:
		return kerr.InvalidRecord.Code
	}
	var c kafkaerr.Coder
	if errors.As(e.Err, &c) {
		return c.KafkaCode()
	}
	return kerr.UnknownServerError.Code
}

// Is makes errors.Is(err, ErrCorrupt) and errors.Is(err, ErrInvalid) follow
// the Kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrCorrupt:
		return e.Kind == KindCorrupt
	case ErrInvalid:
		return e.Kind == KindInvalid
	}
	return false
}

// KindOf returns the Kind of the first *Error in err's chain, or 0 when err
// did not come from this package.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func corruptf(off int, field, format string, args ...any) *Error {
	return &Error{Kind: KindCorrupt, Offset: off, Field: field, Detail: fmt.Sprintf(format, args...)}
}

func invalidf(off int, field, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Offset: off, Field: field, Detail: fmt.Sprintf(format, args...)}
}

func truncatedf(off int, field, format string, args ...any) *Error {
	return &Error{Kind: KindCorrupt, Offset: off, Field: field, Detail: fmt.Sprintf(format, args...), Err: ErrTruncated}
}

// shifted returns a copy of err with its offset moved by delta, for errors
// produced by a decoder that worked on a sub-slice.
func shifted(err error, delta int) error {
	var e *Error
	if delta == 0 || !errors.As(err, &e) {
		return err
	}
	c := *e
	if c.Offset >= 0 {
		c.Offset += delta
	}
	return &c
}

// withKind returns a copy of err re-classified, for the produce path where
// Kafka reports some framing problems (a wrong magic) as INVALID_RECORD.
func withKind(err error, k Kind) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Kind = k
	return &c
}
