package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/topicname"
)

// ConsumerOptions configure what and how the console consumer reads.
type ConsumerOptions struct {
	Topic   string
	Include string // Java regex over whole topic names (--include)

	Partition    int32
	PartitionSet bool
	// Offset is --offset: "earliest", "latest" or a non-negative offset;
	// only with a partition.
	Offset        string
	FromBeginning bool
	// FromTimestamp, when FromTimestampSet, starts each partition at the
	// first record stamped at or after it (kafgo extension).
	FromTimestamp    int64
	FromTimestampSet bool

	MaxMessages int           // 0: no limit
	Timeout     time.Duration // 0: wait forever for the next record

	Formatter FormatterConfig
}

// Validate applies ConsoleConsumer's argument checks.
func (o *ConsumerOptions) Validate() error {
	if (o.Topic == "") == (o.Include == "") {
		return errors.New("Exactly one of include/topic is required.")
	}
	if o.PartitionSet && o.Topic == "" {
		return errors.New("The topic is required when partition is specified.")
	}
	if o.Offset != "" && !o.PartitionSet {
		return errors.New("The partition is required when offset is specified.")
	}
	if o.FromBeginning && o.Offset != "" {
		return errors.New("Options from-beginning and offset cannot be specified together.")
	}
	if o.FromTimestampSet && (o.FromBeginning || o.Offset != "") {
		return errors.New("Option from-timestamp cannot be used with from-beginning or offset.")
	}
	if o.Offset != "" {
		if _, err := partitionOffset(o.Offset); err != nil {
			return err
		}
	}
	if o.MaxMessages < 0 {
		return errors.New("max-messages must not be negative")
	}
	return nil
}

func partitionOffset(s string) (kgo.Offset, error) {
	switch strings.ToLower(s) {
	case "earliest":
		return kgo.NewOffset().AtStart(), nil
	case "latest":
		return kgo.NewOffset().AtEnd(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return kgo.Offset{}, errors.New("The provided offset value is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.")
	}
	return kgo.NewOffset().At(n), nil
}

// internalTopics are skipped by --include, as exclude.internal.topics=true
// makes the Java consumer do.
var internalTopics = topicname.Internal

// NewConsumerClient builds the consumer client: the Java consumer config c
// (group.id, auto.offset.reset, ...) plus what o selects. --group must
// already be merged into c as group.id. The start position follows Kafka:
// --from-beginning means auto.offset.reset=earliest, otherwise the
// configured reset policy (default latest) applies; a partition starts at
// --offset (default latest, or earliest with --from-beginning).
func NewConsumerClient(c *cliutil.Config, o ConsumerOptions) (*kgo.Client, cliutil.ConsumerSettings, error) {
	if err := o.Validate(); err != nil {
		return nil, cliutil.ConsumerSettings{}, err
	}
	if o.FromBeginning {
		if v, ok := c.Peek("auto.offset.reset"); ok && !strings.EqualFold(v, "earliest") {
			return nil, cliutil.ConsumerSettings{}, fmt.Errorf("Can't simultaneously specify --from-beginning and 'auto.offset.reset=%s', to make it work, please remove 'auto.offset.reset' or set it to 'earliest'.", v)
		}
		c.Set("auto.offset.reset", "earliest")
	}
	opts, set, err := cliutil.ConsumerOpts(c)
	if err != nil {
		return nil, set, err
	}
	if o.PartitionSet && set.Group != "" {
		return nil, set, errors.New("Options group and partition cannot be specified together.")
	}
	switch {
	case o.PartitionSet:
		start := kgo.NewOffset().AtEnd()
		switch {
		case o.FromBeginning:
			start = kgo.NewOffset().AtStart()
		case o.FromTimestampSet:
			start = kgo.NewOffset().AfterMilli(o.FromTimestamp)
		case o.Offset != "":
			start, _ = partitionOffset(o.Offset)
		}
		opts = append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{o.Topic: {o.Partition: start}}))
	case o.Include != "":
		opts = append(opts, kgo.ConsumeRegex(), kgo.ConsumeTopics("^(?:"+o.Include+")$"),
			kgo.ConsumeExcludeTopics(internalTopics...))
	default:
		opts = append(opts, kgo.ConsumeTopics(o.Topic))
	}
	if o.FromTimestampSet && !o.PartitionSet {
		// Only partitions without a committed offset start here.
		opts = append(opts, kgo.ConsumeStartOffset(kgo.NewOffset().AfterMilli(o.FromTimestamp)))
	}
	if set.Group != "" && set.AutoCommit {
		// Commit only what was printed: a poll can return more records
		// than --max-messages lets through. Transaction markers come
		// through too (Consume does not print them), so that the commit
		// moves past them as the Java consumer's position does.
		opts = append(opts, kgo.AutoCommitMarks(), kgo.KeepControlRecords())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, set, fmt.Errorf("console: creating consumer: %w", err)
	}
	return cl, set, nil
}

// metadataCheckTimeout bounds the first look at the cluster, which warns
// about a missing topic and ends the tool on a fatal error (a failed login,
// missing TLS, a refused topic); an unreachable cluster is waited for.
const metadataCheckTimeout = 5 * time.Second

// Consume prints records from cl to out until ctx ends, MaxMessages have
// been printed, or no record arrives for Timeout. A --topic (or its
// --partition) that does not exist draws the Java consumer's
// UNKNOWN_TOPIC_OR_PARTITION warning on errOut first; the consumer still
// waits for it, as Kafka's does. A fatal client error (cliutil.IsFatal:
// authentication, TLS, authorization), at the start or later, ends it with
// that error. With a group and auto-commit it commits the
// printed records before returning. It returns how many records it printed;
// the caller reports the count.
func Consume(ctx context.Context, cl *kgo.Client, o ConsumerOptions, set cliutil.ConsumerSettings, out, errOut io.Writer) (int, error) {
	var (
		n    int
		buf  []byte
		ferr error
	)
	var topics []string // --include: the cluster only
	part := int32(-1)
	if o.Topic != "" {
		topics = []string{o.Topic}
		if o.PartitionSet {
			part = o.Partition
		}
	}
	cctx, cancel := context.WithTimeout(ctx, metadataCheckTimeout)
	err := cliutil.CheckTopics(cctx, cl, errOut, topics, part)
	cancel()
	if err != nil {
		return 0, fmt.Errorf("console: %w", err)
	}
	// kgo retries a failed login or a refused topic for ever where Java's
	// consumer throws; the watch ends the tool instead.
	wctx, stopWatch := cliutil.WatchFatal(ctx, cl)
	marks := set.Group != "" && set.AutoCommit
	maxPoll := set.MaxPollRecords
	if maxPoll <= 0 {
		maxPoll = 500
	}
loop:
	for o.MaxMessages == 0 || n < o.MaxMessages {
		pctx, cancel := wctx, context.CancelFunc(func() {})
		if o.Timeout > 0 {
			pctx, cancel = context.WithTimeout(wctx, o.Timeout)
		}
		fetches := cl.PollRecords(pctx, maxPoll)
		expired := o.Timeout > 0 && errors.Is(pctx.Err(), context.DeadlineExceeded)
		cancel()
		if wctx.Err() != nil || fetches.IsClientClosed() {
			break
		}
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			ferr = fmt.Errorf("console: %w", cliutil.FetchError(fe, set.Group))
			break loop
		}
		if fetches.NumRecords() == 0 {
			if expired {
				break // --timeout-ms passed without a record
			}
			continue
		}
		it := fetches.RecordIter()
		for !it.Done() {
			r := it.Next()
			if r.Attrs.IsControl() { // only with marks: a transaction marker
				cl.MarkCommitRecords(r)
				continue
			}
			var err error
			if buf, err = o.Formatter.writeRecord(out, buf, r); err != nil {
				ferr = err
				break loop
			}
			if marks {
				cl.MarkCommitRecords(r)
			}
			n++
			if o.MaxMessages > 0 && n >= o.MaxMessages {
				if marks {
					markTrailingControl(cl, it)
				}
				break loop
			}
		}
	}
	if werr := stopWatch(); werr != nil {
		return n, fmt.Errorf("console: %w", werr)
	}
	if marks {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := cl.CommitMarkedOffsets(cctx); err != nil && ferr == nil {
			ferr = fmt.Errorf("console: committing offsets: %w", err)
		}
	}
	return n, ferr
}

// markTrailingControl marks for commit the transaction markers that
// directly follow the last printed record of each partition, in the rest
// of the poll it and then in what the client has already fetched: the
// Java consumer's position is past them, so its commit is too. A marker
// behind a record that was not printed stays unmarked.
func markTrailingControl(cl *kgo.Client, it *kgo.FetchesRecordIter) {
	type tp struct {
		topic     string
		partition int32
	}
	blocked := map[tp]bool{} // a record was left unprinted
	look := func(r *kgo.Record) {
		k := tp{r.Topic, r.Partition}
		switch {
		case blocked[k]:
		case r.Attrs.IsControl():
			cl.MarkCommitRecords(r)
		default:
			blocked[k] = true
		}
	}
	for !it.Done() {
		look(it.Next())
	}
	// A nil context takes what is buffered without waiting.
	cl.PollRecords(nil, -1).EachRecord(look)
}
