package replicaverify

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/topicpart"
)

// debuggingConsumerID is FetchRequest.DEBUGGING_CONSUMER_ID.
const debuggingConsumerID = -2

// Options are the tool's flags.
type Options struct {
	FetchSize        int32
	MaxWait          time.Duration
	TopicsInclude    string
	InitialTime      int64 // -1 latest, -2 earliest, else a timestamp
	ReportInterval   time.Duration
	Now              func() time.Time // nil: time.Now
	DateLocation     *time.Location   // nil: time.Local
	MaxRounds        int              // tests: stop after this many rounds (0: never)
	OnRoundCompleted func()           // tests: called after each verification
}

// DefaultOptions are Kafka's defaults.
func DefaultOptions() Options {
	return Options{FetchSize: 1048576, MaxWait: time.Second, TopicsInclude: ".*", InitialTime: -1, ReportInterval: 30 * time.Second}
}

// fetched is one replica's answer for one partition in a round.
type fetched struct {
	hw      int64
	records []byte
}

// state is ReplicaBuffer: the verified offset of each partition, the
// replicas each expects, and this round's answers.
type state struct {
	expected   map[topicpart.TP]int
	offsets    map[topicpart.TP]int64
	round      map[topicpart.TP]map[int32]fetched
	mu         sync.Mutex
	lastReport time.Time
}

// Run verifies until ctx ends (nil error) or replicas diverge (an error,
// after the line saying so).
func Run(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	loc := o.DateLocation
	if loc == nil {
		loc = time.Local
	}
	stamp := func() string { return formatTime(now().In(loc)) }

	include, err := includePattern(o.TopicsInclude)
	if err != nil {
		return err
	}
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("replica-verification: metadata: %w", err)
	}
	byBroker := map[int32][]topicpart.TP{}
	ids := map[string][16]byte{}
	st := &state{expected: map[topicpart.TP]int{}, offsets: map[topicpart.TP]int64{}, round: map[topicpart.TP]map[int32]fetched{}}
	var parts []topicpart.TP
	for _, t := range meta.Topics {
		if t.Topic == nil || t.ErrorCode != 0 || !include.MatchString(*t.Topic) {
			continue
		}
		ids[*t.Topic] = t.TopicID
		for _, p := range t.Partitions {
			tp := topicpart.TP{Topic: *t.Topic, Partition: p.Partition}
			parts = append(parts, tp)
			st.expected[tp] = len(p.Replicas)
			st.round[tp] = map[int32]fetched{}
			for _, r := range p.Replicas {
				byBroker[r] = append(byBroker[r], tp)
			}
		}
	}
	if len(parts) == 0 {
		return fmt.Errorf("No topics found. %s if specified, is either filtering out all topics or there is no topic.", "--topics-include")
	}
	if st.offsets, err = initialOffsets(ctx, cl, parts, o.InitialTime); err != nil {
		return err
	}
	brokers := make([]int32, 0, len(byBroker))
	for id := range byBroker {
		brokers = append(brokers, id)
	}
	sort.Slice(brokers, func(i, j int) bool { return brokers[i] < brokers[j] })
	st.lastReport = now()
	fmt.Fprintf(out, "%s: verification process is started\n", stamp())

	for round := 0; o.MaxRounds == 0 || round < o.MaxRounds; round++ {
		var wg sync.WaitGroup
		for _, id := range brokers {
			wg.Add(1)
			go func(id int32) {
				defer wg.Done()
				st.fetch(ctx, cl, id, byBroker[id], ids, o)
			}(id)
		}
		wg.Wait()
		if ctx.Err() != nil {
			return nil
		}
		if err := st.verify(out, stamp, now, o.ReportInterval); err != nil {
			return err
		}
		if o.OnRoundCompleted != nil {
			o.OnRoundCompleted()
		}
	}
	return nil
}

func includePattern(raw string) (*regexp.Regexp, error) {
	s := strings.TrimSpace(raw)
	s = strings.ReplaceAll(s, ",", "|")
	s = strings.ReplaceAll(s, " ", "")
	s = strings.Trim(s, `"'`)
	re, err := regexp.Compile(`^(?:` + s + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%s is an invalid regex", raw)
	}
	return re, nil
}

// formatTime is SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS").
func formatTime(t time.Time) string { return t.Format("2006-01-02 15:04:05,000") }

// initialOffsets asks the leaders where each partition starts (the
// consumer's endOffsets, beginningOffsets or offsetsForTimes).
func initialOffsets(ctx context.Context, cl *kgo.Client, parts []topicpart.TP, ts int64) (map[topicpart.TP]int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	index := map[string]int{}
	for _, tp := range parts {
		i, ok := index[tp.Topic]
		if !ok {
			t := kmsg.NewListOffsetsRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			index[tp.Topic] = i
		}
		p := kmsg.NewListOffsetsRequestTopicPartition()
		p.Partition, p.Timestamp, p.CurrentLeaderEpoch = tp.Partition, ts, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	out := map[topicpart.TP]int64{}
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			return nil, fmt.Errorf("replica-verification: initial offsets: %w", shard.Err)
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("replica-verification: initial offset of %s-%d: %w", t.Topic, p.Partition, err)
				}
				off := p.Offset
				if off < 0 { // no record at or after the timestamp: Java's null offset, start at the end
					off = 0
				}
				out[topicpart.TP{Topic: t.Topic, Partition: p.Partition}] = off
			}
		}
	}
	return out, nil
}

// fetch is one ReplicaFetcher round: one Fetch to broker id for all its
// partitions, from the verified offsets; a failed fetch leaves the
// partitions empty for this round, as Kafka's does.
func (st *state) fetch(ctx context.Context, cl *kgo.Client, id int32, parts []topicpart.TP, ids map[string][16]byte, o Options) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = debuggingConsumerID
	req.ReplicaState.ID = debuggingConsumerID
	req.ReplicaState.Epoch = -1
	req.MaxWaitMillis = int32(o.MaxWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = 1<<31 - 1
	req.SessionEpoch = -1
	index := map[string]int{}
	st.mu.Lock()
	for _, tp := range parts {
		i, ok := index[tp.Topic]
		if !ok {
			t := kmsg.NewFetchRequestTopic()
			t.Topic, t.TopicID = tp.Topic, ids[tp.Topic]
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			index[tp.Topic] = i
		}
		p := kmsg.NewFetchRequestTopicPartition()
		p.Partition, p.FetchOffset, p.PartitionMaxBytes = tp.Partition, st.offsets[tp], o.FetchSize
		p.CurrentLeaderEpoch, p.LastFetchedEpoch, p.LogStartOffset = -1, -1, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	st.mu.Unlock()
	answers := map[topicpart.TP]fetched{}
	if kr, err := cl.Broker(int(id)).Request(ctx, req); err == nil {
		resp := kr.(*kmsg.FetchResponse)
		names := map[[16]byte]string{}
		for n, i := range ids {
			names[i] = n
		}
		for _, t := range resp.Topics {
			name := t.Topic
			if name == "" {
				name = names[t.TopicID]
			}
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					continue
				}
				answers[topicpart.TP{Topic: name, Partition: p.Partition}] = fetched{hw: p.HighWatermark, records: p.RecordBatches}
			}
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, tp := range parts {
		a, ok := answers[tp]
		if !ok {
			a = fetched{hw: -1}
		}
		st.round[tp][id] = a
	}
}

// batch is what the tool compares of a record batch.
type batch struct {
	lastOffset, nextOffset int64
	checksum               uint32
}

// batches reads the batch headers of a fetched record set, stopping at a
// trailing partial batch.
func batches(b []byte) []batch {
	var out []batch
	for len(b) >= 17 {
		base := int64(binary.BigEndian.Uint64(b))
		size := int(int32(binary.BigEndian.Uint32(b[8:])))
		if size < 0 || len(b) < 12+size {
			break
		}
		magic := b[16]
		switch {
		case magic >= 2 && size >= 49-12:
			last := base + int64(int32(binary.BigEndian.Uint32(b[23:])))
			out = append(out, batch{lastOffset: last, nextOffset: last + 1, checksum: binary.BigEndian.Uint32(b[17:])})
		case magic < 2 && size >= 5:
			// A legacy message (set): offset, size, crc, magic, ...
			out = append(out, batch{lastOffset: base, nextOffset: base + 1, checksum: binary.BigEndian.Uint32(b[12:])})
		default:
			return out
		}
		b = b[12+size:]
	}
	return out
}

// errDiverged is returned after the line reporting mismatched offsets.
var errDiverged = errors.New("replicas diverged")

// verify is ReplicaBuffer.verifyCheckSum: compare each partition's
// replicas batch by batch up to their high watermarks, move its verified
// offset past what all of them hold, and report the largest lag.
func (st *state) verify(out io.Writer, stamp func() string, now func() time.Time, interval time.Duration) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	maxLag, offsetWithMaxLag := int64(-1), int64(-1)
	var maxLagTP topicpart.TP
	tps := make([]topicpart.TP, 0, len(st.round))
	for tp := range st.round {
		tps = append(tps, tp)
	}
	topicpart.Sort(tps)
	for _, tp := range tps {
		replies := st.round[tp]
		replicas := make([]int32, 0, len(replies))
		maxHW := int64(-1)
		iters := map[int32][]batch{}
		for id, f := range replies {
			replicas = append(replicas, id)
			maxHW = max(maxHW, f.hw)
			iters[id] = batches(f.records)
		}
		sort.Slice(replicas, func(i, j int) bool { return replicas[i] < replicas[j] })
		for pos := 0; ; pos++ {
			all := len(replicas) > 0
			var first *batch
			var firstID int32
			for _, id := range replicas {
				bs := iters[id]
				if pos >= len(bs) || bs[pos].lastOffset >= replies[id].hw {
					all = false
					continue
				}
				b := bs[pos]
				if first == nil {
					first, firstID = &b, id
					continue
				}
				if first.lastOffset != b.lastOffset {
					fmt.Fprintf(out, "%s: partition %s: replica %d's offset %d doesn't match replica %d's offset %d\n",
						stamp(), tp, firstID, first.lastOffset, id, b.lastOffset)
					return &cliutil.CommandError{Err: errDiverged}
				}
				if first.checksum != b.checksum {
					fmt.Fprintf(out, "%s: partition %s has unmatched checksum at offset %d; replica %d's checksum %d; replica %d's checksum %d\n",
						stamp(), tp, b.lastOffset, firstID, first.checksum, id, b.checksum)
				}
			}
			if !all {
				break
			}
			st.offsets[tp] = first.nextOffset
		}
		if lag := maxHW - st.offsets[tp]; lag > maxLag {
			offsetWithMaxLag = st.offsets[tp]
			maxLag = lag
			maxLagTP = tp
		}
		st.round[tp] = map[int32]fetched{}
	}
	if t := now(); t.Sub(st.lastReport) > interval {
		part := "null" // Java's unset TopicPartition: no partition had a lag above -1
		if maxLagTP != (topicpart.TP{}) {
			part = maxLagTP.String()
		}
		fmt.Fprintf(out, "%s: max lag is %d for partition %s at offset %d among %d partitions\n", stamp(), maxLag, part, offsetWithMaxLag, len(st.round))
		st.lastReport = t
	}
	return nil
}
