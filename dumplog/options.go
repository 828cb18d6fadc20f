package dumplog

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Kafka's defaults for the size flags.
const (
	// DefaultMaxMessageSize is --max-message-size: how far past an index
	// entry's position the batch it names may end.
	DefaultMaxMessageSize = 5 * 1024 * 1024
	// DefaultMaxBytes is --max-bytes: Java's Integer.MAX_VALUE, no limit.
	DefaultMaxBytes = math.MaxInt32
	// DefaultMaxDecompressed bounds one batch's decompressed records, so a
	// small crafted file cannot make the tool allocate without bound.
	DefaultMaxDecompressed = 256 << 20
)

// StringDecoder is the decoder class Kafka uses by default; it is the only
// one supported (records print as UTF-8 text).
const StringDecoder = "kafka.serializer.StringDecoder"

// stringDecoders are the names Kafka versions give the default decoder.
var stringDecoders = []string{StringDecoder, "org.apache.kafka.tools.api.StringDecoder"}

// Options are the tool's flags.
type Options struct {
	Files              []string // --files, split at commas
	PrintDataLog       bool     // --print-data-log
	DeepIteration      bool     // --deep-iteration
	IndexSanityCheck   bool     // --index-sanity-check
	VerifyIndexOnly    bool     // --verify-index-only
	OffsetsDecoder     bool     // --offsets-decoder
	TxnLogDecoder      bool     // --transaction-log-decoder
	SkipRecordMetadata bool     // --skip-record-metadata
	MaxMessageSize     int      // --max-message-size
	MaxBytes           int      // --max-bytes
	// KeyDecoderClass and ValueDecoderClass are "" when the flag was not
	// given; giving either implies --print-data-log, as in Kafka.
	KeyDecoderClass   string
	ValueDecoderClass string
	// MaxDecompressed bounds one batch's decompressed size; 0 means
	// DefaultMaxDecompressed. Not a Kafka flag.
	MaxDecompressed int
}

// DefaultOptions returns the options with Kafka's defaults and no files.
func DefaultOptions() Options {
	return Options{MaxMessageSize: DefaultMaxMessageSize, MaxBytes: DefaultMaxBytes}
}

// errNoFiles is Kafka's message for a missing --files.
var errNoFiles = errors.New(`Missing required argument "[files]"`)

// Validate checks the options the way Kafka's option parser and
// CommandLineUtils do, plus the decoder classes this tool can honour.
func (o *Options) Validate() error {
	if len(o.Files) == 0 {
		return errNoFiles
	}
	if o.MaxMessageSize <= 0 {
		return fmt.Errorf("dumplog: --max-message-size %d must be positive", o.MaxMessageSize)
	}
	if o.MaxBytes < 0 {
		return fmt.Errorf("dumplog: --max-bytes %d must not be negative", o.MaxBytes)
	}
	if o.MaxDecompressed < 0 {
		return fmt.Errorf("dumplog: max decompressed size %d must not be negative", o.MaxDecompressed)
	}
	for _, c := range []struct{ flag, class string }{
		{"--key-decoder-class", o.KeyDecoderClass},
		{"--value-decoder-class", o.ValueDecoderClass},
	} {
		if c.class != "" && !slices.Contains(stringDecoders, c.class) {
			return fmt.Errorf("dumplog: %s %s: only %s is supported", c.flag, c.class, StringDecoder)
		}
	}
	return nil
}

// printData is Kafka's shouldPrintDataLog: --print-data-log or any decoder
// option.
func (o *Options) printData() bool {
	return o.PrintDataLog || o.OffsetsDecoder || o.TxnLogDecoder || o.KeyDecoderClass != "" || o.ValueDecoderClass != ""
}

// deep is Kafka's isDeepIteration.
func (o *Options) deep() bool { return o.DeepIteration || o.printData() }

func (o *Options) maxDecompressed() int {
	if o.MaxDecompressed == 0 {
		return DefaultMaxDecompressed
	}
	return o.MaxDecompressed
}
