package dumplog

import (
	"strings"

	"github.com/spf13/cobra"
)

// NewCommand returns the `dump-log-segments` command. It only maps flags to
// Options and calls Run; a *Error it returns carries the exit status.
func NewCommand() *cobra.Command {
	o := DefaultOptions()
	var files string
	cmd := &cobra.Command{
		Use:   "dump-log-segments",
		Short: "Print the contents of log segment, index and snapshot files (kafka-dump-log)",
		Long: `Print the batches and records of .log segments, the entries of .index and
.timeindex files, producer .snapshot files and .txnindex files, offline and
read-only, with the flags and output of Kafka's kafka-dump-log.sh.

--print-data-log (implied by --offsets-decoder, --transaction-log-decoder
and the decoder options)
prints keys and payloads and implies --deep-iteration, which prints every
record. --index-sanity-check runs the check the broker runs on startup;
--verify-index-only compares an index with its .log without printing it.

A corrupt file is dumped as far as it can be read; where and why the dump
stopped goes to stderr. Exit status: 0 clean, 2 corrupt data or an index
that disagrees with its log, 1 a file that could not be read.

Examples:
  kafgo dump-log-segments --files /var/kafgo/orders-0/00000000000000000000.log
  kafgo dump-log-segments --print-data-log --files 00000000000000000000.log
  kafgo dump-log-segments --verify-index-only --files 00000000000000000000.index,00000000000000000000.timeindex
  kafgo dump-log-segments --offsets-decoder --files __consumer_offsets-7/00000000000000000000.log
  kafgo dump-log-segments --transaction-log-decoder --files __transaction_state-3/00000000000000000000.log`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if files != "" {
				o.Files = strings.Split(files, ",")
			}
			fl := cmd.Flags()
			if !fl.Changed("key-decoder-class") {
				o.KeyDecoderClass = ""
			}
			if !fl.Changed("value-decoder-class") {
				o.ValueDecoderClass = ""
			}
			return Run(o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&files, "files", "", "REQUIRED: The comma separated list of data and index log files to be dumped.")
	f.BoolVar(&o.PrintDataLog, "print-data-log", false, "If set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified.")
	f.BoolVar(&o.DeepIteration, "deep-iteration", false, "If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.")
	f.BoolVar(&o.VerifyIndexOnly, "verify-index-only", false, "If set, just verify the index log without printing its content.")
	f.BoolVar(&o.IndexSanityCheck, "index-sanity-check", false, "If set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not.")
	f.IntVar(&o.MaxMessageSize, "max-message-size", DefaultMaxMessageSize, "Size of largest message.")
	f.IntVar(&o.MaxBytes, "max-bytes", DefaultMaxBytes, "Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).")
	f.BoolVar(&o.OffsetsDecoder, "offsets-decoder", false, "If set, log data will be parsed as offset data from the __consumer_offsets topic.")
	f.BoolVar(&o.TxnLogDecoder, "transaction-log-decoder", false, "If set, log data will be parsed as transaction metadata from the __transaction_state topic.")
	f.BoolVar(&o.SkipRecordMetadata, "skip-record-metadata", false, "Whether to skip printing metadata for each record.")
	// Kafka's decoder options take an optional class name; only the
	// default StringDecoder is available here.
	f.StringVar(&o.KeyDecoderClass, "key-decoder-class", StringDecoder, "If set, used to deserialize the keys. Only "+StringDecoder+" is supported.")
	f.StringVar(&o.ValueDecoderClass, "value-decoder-class", StringDecoder, "If set, used to deserialize the messages. Only "+StringDecoder+" is supported.")
	f.Lookup("key-decoder-class").NoOptDefVal = StringDecoder
	f.Lookup("value-decoder-class").NoOptDefVal = StringDecoder
	return cmd
}
