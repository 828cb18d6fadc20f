package offsetsrec

import (
	"bytes"
	"fmt"
	"math"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// ErrMalformed reports bytes that are not a record of the schema they claim.
var ErrMalformed = kafkaerr.Sentinel(kerr.UnknownServerError, "offsetsrec: malformed record")

// ErrUnknownVersion reports a schema version this package does not know.
var ErrUnknownVersion = kafkaerr.Sentinel(kerr.UnknownServerError, "offsetsrec: unknown schema version")

// kmsgRecord is a kmsg type of an internal record (OffsetCommitKey,
// GroupMetadataValue, ...): generated from Kafka's JSON schemas.
type kmsgRecord interface {
	ReadFrom([]byte) error
	AppendTo([]byte) []byte
}

// decodeExact decodes b into m with kmsg and then holds it to what kmsg
// writes back: kmsg reads leniently (a null where the schema has none
// becomes empty, trailing bytes are ignored), while a record this package
// accepts must be exactly the encoding of what it decodes to, so nothing
// in the log is silently dropped or changed on a rewrite.
func decodeExact(what string, b []byte, m kmsgRecord) error {
	if err := m.ReadFrom(b); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, what, err)
	}
	if back := m.AppendTo(nil); !bytes.Equal(back, b) {
		at := 0
		for at < len(back) && at < len(b) && back[at] == b[at] {
			at++
		}
		return fmt.Errorf("%w: %s: from byte %d on, not the encoding of what precedes it (%d bytes read, %d written back): trailing bytes, or a null where the schema has none", ErrMalformed, what, at, len(b), len(back))
	}
	return nil
}

// stringsFit checks that each string fits its int16 length prefix; kmsg
// would write a wrapped length.
func stringsFit(fields ...struct {
	name string
	s    *string
}) error {
	for _, f := range fields {
		if f.s != nil && len(*f.s) > math.MaxInt16 {
			return fmt.Errorf("offsetsrec: %s of %d bytes exceeds the int16 length limit", f.name, len(*f.s))
		}
	}
	return nil
}

// field names a string for stringsFit.
func field(name string, s *string) struct {
	name string
	s    *string
} {
	return struct {
		name string
		s    *string
	}{name, s}
}

// bytesFit checks that a BYTES field fits its int32 length prefix.
func bytesFit(name string, b []byte) error {
	if int64(len(b)) > math.MaxInt32 {
		return fmt.Errorf("offsetsrec: %s of %d bytes exceeds the int32 length limit", name, len(b))
	}
	return nil
}

// version reads the int16 schema version every key and value starts with.
func version(what string, b []byte) (int16, error) {
	if len(b) < 2 {
		return 0, fmt.Errorf("%w: %s: version: needs 2 bytes, %d remain", ErrMalformed, what, len(b))
	}
	return int16(b[0])<<8 | int16(b[1]), nil
}
