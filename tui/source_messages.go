package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Record is one record as the message browser holds it. Key and Value
// are cut to maxRecordBytes, so a page of huge records costs little;
// KeySize and ValueSize are the full sizes, -1 for null.
type Record struct {
	Offset             int64
	Timestamp          time.Time
	Key, Value         []byte
	KeySize, ValueSize int
	Headers            []RecordHeader
}

// RecordHeader is one record header.
type RecordHeader struct {
	Key   string
	Value []byte
}

// readIdle is how long a read waits for more records before it takes
// the page as complete.
const readIdle = time.Second

// maxRecordBytes bounds the part of a key or a value the browser keeps.
const maxRecordBytes = 16 << 10

// Fetch bounds of the browser's consumers: a page never asks for more,
// whatever the records' size (Kafka still returns one whole batch when
// the first is larger).
const (
	browseFetchMaxBytes     = 4 << 20
	browsePartitionMaxBytes = 1 << 20
)

// PositionKind says how a Position picks the first offset.
type PositionKind int

// The ways to pick where reading starts.
const (
	AtOffset   PositionKind = iota // Offset
	AtTime                         // the first record at or after Millis
	AtLatest                       // N records before the high watermark
	AtEarliest                     // the log start
)

// Position is where a read starts.
type Position struct {
	Kind   PositionKind
	Offset int64
	Millis int64
	N      int
}

// ReadRequest asks for up to Max records of a partition from Position,
// stopping before Until (when not negative) and at the high watermark.
type ReadRequest struct {
	Topic     string
	Partition int32
	Position  Position
	Max       int
	Until     int64
}

// Page is what a read found: the records and the partition's bounds then.
type Page struct {
	Records []Record
	// Start and End are the log start offset and the high watermark.
	Start, End int64
	// From is the offset the position resolved to.
	From int64
}

// Tail follows a partition (tail -f).
type Tail interface {
	// Poll waits for records until some come or ctx ends (which is no
	// error: the caller polls again).
	Poll(ctx context.Context) ([]Record, error)
	Close()
}

// MessageSource reads records for the message browser, with a consumer of
// one partition (no group, nothing committed).
type MessageSource interface {
	Read(ctx context.Context, r ReadRequest) (Page, error)
	Follow(ctx context.Context, topic string, partition int32, from int64) (Tail, error)
}

// bounds lists a partition's log start, high watermark and, for AtTime,
// the offset of the first record at or after the time.
func (l *Live) bounds(ctx context.Context, topic string, partition int32, pos Position) (start, end, at int64, err error) {
	lookup := func(lo kadm.ListedOffsets, what string) (int64, error) {
		o, ok := lo.Lookup(topic, partition)
		if !ok {
			return 0, fmt.Errorf("tui: no %s offset for %s-%d", what, topic, partition)
		}
		if o.Err != nil {
			return 0, fmt.Errorf("tui: %s offset of %s-%d: %w", what, topic, partition, o.Err)
		}
		return o.Offset, nil
	}
	starts, err := l.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("tui: list start offsets: %w", err)
	}
	if start, err = lookup(starts, "start"); err != nil {
		return 0, 0, 0, err
	}
	ends, err := l.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("tui: list end offsets: %w", err)
	}
	if end, err = lookup(ends, "end"); err != nil {
		return 0, 0, 0, err
	}
	at = -1
	if pos.Kind == AtTime {
		byTime, err := l.adm.ListOffsetsAfterMilli(ctx, pos.Millis, topic)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("tui: list offsets by time: %w", err)
		}
		if at, err = lookup(byTime, "time"); err != nil {
			return 0, 0, 0, err
		}
		if at < 0 {
			at = end // no record at or after the time: the end, as Kafka's tools do
		}
	}
	return start, end, at, nil
}

// resolve turns a position into an offset within [start, end].
func resolve(pos Position, start, end, at int64) int64 {
	var off int64
	switch pos.Kind {
	case AtOffset:
		off = pos.Offset
	case AtTime:
		off = at
	case AtLatest:
		off = end - int64(pos.N)
	case AtEarliest:
		off = start
	}
	return min(max(off, start), end)
}

// consumer is a direct consumer of one partition from an offset, with the
// options the source's client was built with (addresses, TLS, SASL).
func (l *Live) consumer(topic string, partition int32, from int64) (*kgo.Client, error) {
	opts := append(append([]kgo.Opt(nil), l.cl.Opts()...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchMaxBytes(browseFetchMaxBytes), kgo.FetchMaxPartitionBytes(browsePartitionMaxBytes),
		kgo.FetchMaxWait(500*time.Millisecond))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("tui: consumer: %w", err)
	}
	return cl, nil
}

// Read reads one page.
func (l *Live) Read(ctx context.Context, r ReadRequest) (Page, error) {
	start, end, at, err := l.bounds(ctx, r.Topic, r.Partition, r.Position)
	if err != nil {
		return Page{}, err
	}
	pg := Page{Start: start, End: end, From: resolve(r.Position, start, end, at)}
	stop := end
	if r.Until >= 0 {
		stop = min(stop, r.Until)
	}
	if pg.From >= stop || r.Max <= 0 {
		return pg, nil
	}
	cl, err := l.consumer(r.Topic, r.Partition, pg.From)
	if err != nil {
		return pg, err
	}
	defer cl.Close()
	next := pg.From
	for len(pg.Records) < r.Max && next < stop {
		// A poll waits for records; a log whose remaining offsets hold
		// none (control batches, compacted away) gives none, so a quiet
		// poll ends the page.
		pctx, cancel := context.WithTimeout(ctx, readIdle)
		fs := cl.PollRecords(pctx, r.Max-len(pg.Records))
		cancel()
		if err := ctx.Err(); err != nil {
			return pg, fmt.Errorf("tui: reading %s-%d from %d: %w", r.Topic, r.Partition, next, err)
		}
		if err := fetchErr(fs); err != nil {
			return pg, fmt.Errorf("tui: reading %s-%d: %w", r.Topic, r.Partition, err)
		}
		got := 0
		fs.EachRecord(func(rec *kgo.Record) {
			got++
			if rec.Offset < stop && len(pg.Records) < r.Max {
				pg.Records = append(pg.Records, keepRecord(rec))
			}
			next = max(next, rec.Offset+1)
		})
		if got == 0 {
			break
		}
	}
	return pg, nil
}

// fetchErr is the first error of a poll that is not the poll's own end.
func fetchErr(fs kgo.Fetches) error {
	for _, e := range fs.Errors() {
		if errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
			continue
		}
		return e.Err
	}
	return nil
}

// keepRecord copies what the browser keeps of a record, so the fetch
// buffer it points into can be freed.
func keepRecord(r *kgo.Record) Record {
	out := Record{Offset: r.Offset, Timestamp: r.Timestamp, KeySize: -1, ValueSize: -1}
	if r.Key != nil {
		out.KeySize = len(r.Key)
		out.Key = append([]byte{}, r.Key[:min(len(r.Key), maxRecordBytes)]...)
	}
	if r.Value != nil {
		out.ValueSize = len(r.Value)
		out.Value = append([]byte{}, r.Value[:min(len(r.Value), maxRecordBytes)]...)
	}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, RecordHeader{Key: h.Key, Value: append([]byte{}, h.Value[:min(len(h.Value), maxRecordBytes)]...)})
	}
	return out
}

// liveTail is a Tail on a direct consumer.
type liveTail struct {
	cl   *kgo.Client
	once sync.Once
}

// Follow starts a tail at from.
func (l *Live) Follow(_ context.Context, topic string, partition int32, from int64) (Tail, error) {
	cl, err := l.consumer(topic, partition, from)
	if err != nil {
		return nil, err
	}
	return &liveTail{cl: cl}, nil
}

func (t *liveTail) Poll(ctx context.Context) ([]Record, error) {
	fs := t.cl.PollRecords(ctx, maxBrowserRecords)
	if fs.IsClientClosed() {
		return nil, nil
	}
	if err := fetchErr(fs); err != nil {
		return nil, err
	}
	var out []Record
	fs.EachRecord(func(r *kgo.Record) { out = append(out, keepRecord(r)) })
	return out, nil
}

func (t *liveTail) Close() { t.once.Do(t.cl.Close) }
