package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The fake source's other capabilities: configs, records, actions and
// probes, all in memory and deterministic.

// fakeConfigs are what the fake describes.
func fakeConfigs() map[ConfigResource][]ConfigEntry {
	return map[ConfigResource][]ConfigEntry{
		{Name: "orders"}: {
			{Name: "cleanup.policy", Value: "delete", Source: "DEFAULT_CONFIG"},
			{Name: "min.insync.replicas", Value: "2", Source: "DYNAMIC_TOPIC_CONFIG"},
			{Name: "retention.ms", Value: "86400000", Source: "DYNAMIC_TOPIC_CONFIG"},
			{Name: "segment.bytes", Value: "1073741824", Source: "STATIC_BROKER_CONFIG"},
		},
		{Broker: true, Name: "1"}: {
			{Name: "broker.id", Value: "1", Source: "STATIC_BROKER_CONFIG", ReadOnly: true},
			{Name: "leader.replication.throttled.rate", Value: "10485760", Source: "DYNAMIC_BROKER_CONFIG"},
			{Name: "log.retention.hours", Value: "168", Source: "DEFAULT_CONFIG"},
			{Name: "ssl.keystore.password", Source: "STATIC_BROKER_CONFIG", Sensitive: true, Null: true},
		},
	}
}

func (f *fakeSource) Configs(_ context.Context, r ConfigResource) ([]ConfigEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.configs == nil {
		f.configs = fakeConfigs()
	}
	c, ok := f.configs[r]
	if !ok {
		return nil, fmt.Errorf("tui: describe configs of %s: UNKNOWN_TOPIC_OR_PARTITION", r)
	}
	return append([]ConfigEntry(nil), c...), nil
}

// fakeRecords is orders-0 up to its high watermark (1200 in healthy):
// 250 records, keyed, JSON values, one second apart, from offset 948
// (the log start after retention), then a binary value and a tombstone.
func fakeRecords() map[tp][]Record {
	var recs []Record
	for i := int64(948); i < 1198; i++ {
		key := fmt.Sprintf("customer-%d", i%7)
		val := fmt.Sprintf(`{"order":%d,"items":[{"sku":"A-%d","qty":%d}],"note":"line one\nline two"}`, i, i%13, i%3+1)
		recs = append(recs, Record{Offset: i, Timestamp: fixedTime.Add(time.Duration(i-1198) * time.Second),
			Key: []byte(key), Value: []byte(val), KeySize: len(key), ValueSize: len(val),
			Headers: []RecordHeader{{Key: "trace-id", Value: []byte(fmt.Sprintf("t-%d", i))}}})
	}
	// A binary one and a null one at the end.
	recs = append(recs,
		Record{Offset: 1198, Timestamp: fixedTime, Key: nil, KeySize: -1, Value: []byte{0, 1, 2, 0xff, 'h', 'i', '\n'}, ValueSize: 7},
		Record{Offset: 1199, Timestamp: fixedTime, Key: []byte("tombstone"), KeySize: 9, ValueSize: -1})
	return map[tp][]Record{{"orders", 0}: recs}
}

func (f *fakeSource) Read(_ context.Context, r ReadRequest) (Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.records == nil {
		f.records = fakeRecords()
	}
	recs := f.records[tp{r.Topic, r.Partition}]
	start, end := int64(0), int64(0)
	if len(recs) > 0 {
		start, end = recs[0].Offset, recs[len(recs)-1].Offset+1
	}
	at := end
	for _, rec := range recs {
		if rec.Timestamp.UnixMilli() >= r.Position.Millis {
			at = rec.Offset
			break
		}
	}
	pg := Page{Start: start, End: end, From: resolve(r.Position, start, end, at)}
	for _, rec := range recs {
		if rec.Offset >= pg.From && (r.Until < 0 || rec.Offset < r.Until) && len(pg.Records) < r.Max {
			pg.Records = append(pg.Records, rec)
		}
	}
	return pg, nil
}

// fakeTail hands out the records queued for it, one batch a poll.
type fakeTail struct {
	src    *fakeSource
	closed bool
}

func (f *fakeSource) Follow(_ context.Context, topic string, partition int32, from int64) (Tail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.follows = append(f.follows, fmt.Sprintf("%s-%d@%d", topic, partition, from))
	t := &fakeTail{src: f}
	f.tails = append(f.tails, t)
	return t, nil
}

func (t *fakeTail) Poll(ctx context.Context) ([]Record, error) {
	t.src.mu.Lock()
	defer t.src.mu.Unlock()
	if len(t.src.tailBatches) == 0 {
		return nil, nil
	}
	b := t.src.tailBatches[0]
	t.src.tailBatches = t.src.tailBatches[1:]
	return b, nil
}

func (t *fakeTail) Close() {
	t.src.mu.Lock()
	defer t.src.mu.Unlock()
	t.closed = true
}

// Actions are recorded, and fail with actErr when it is set.
func (f *fakeSource) act(format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.acts = append(f.acts, fmt.Sprintf(format, args...))
	return f.actErr
}

func (f *fakeSource) CreateTopic(_ context.Context, name string, partitions int32, rf int16) error {
	return f.act("create %s %d %d", name, partitions, rf)
}

func (f *fakeSource) DeleteTopic(_ context.Context, name string) error {
	return f.act("delete %s", name)
}

func (f *fakeSource) AddPartitions(_ context.Context, topic string, total int) error {
	return f.act("partitions %s %d", topic, total)
}

func (f *fakeSource) AlterConfig(_ context.Context, r ConfigResource, name string, value *string) error {
	if value == nil {
		return f.act("alter %s delete %s", r, name)
	}
	return f.act("alter %s set %s=%s", r, name, *value)
}

func (f *fakeSource) ResetOffsets(_ context.Context, group string, to ResetTo) (int, error) {
	return 3, f.act("reset %s %s", group, to)
}

func (f *fakeSource) ElectPreferred(_ context.Context, parts map[string][]int32) (string, error) {
	var s []string
	for t, ps := range parts {
		s = append(s, fmt.Sprintf("%s%v", t, ps))
	}
	sort.Strings(s)
	return "1 leader elected, 0 already preferred", f.act("elect %s", strings.Join(s, " "))
}

func (f *fakeSource) Probe(_ context.Context, brokers []Broker) map[int32]error {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int32]error{}
	for _, b := range brokers {
		out[b.ID] = f.probeErr[b.ID]
	}
	return out
}

func (f *fakeSource) Acts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.acts...)
}
