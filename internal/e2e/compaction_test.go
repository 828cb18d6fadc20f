package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestCompactionKeepsLatestValuePerKey: a cleanup.policy=compact topic with
// 16 KiB segments gets 10k updates over 100 keys and tombstones for ten of
// them. The broker's cleaner rewrites the closed segments (fewer, smaller
// files in the partition directory); a consumer reading from the start
// then sees exactly one record per key, the latest, at its original
// offset; after delete.retention.ms the tombstoned keys are gone entirely.
func TestCompactionKeepsLatestValuePerKey(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"log.cleaner.backoff.ms":      "100",
		"log.segment.delete.delay.ms": "200",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic, updates, keys, deleted = "compacted", 10_000, 100, 10
	adm := c.Admin()
	cfg := map[string]*string{
		"cleanup.policy":            kgoStr("compact"),
		"segment.bytes":             kgoStr("16384"),
		"segment.ms":                kgoStr("1500"),
		"min.cleanable.dirty.ratio": kgoStr("0.01"),
		"delete.retention.ms":       kgoStr("3000"),
		// Held back until everything is written, so the directory can be
		// seen before and after; lowered to 0 below.
		"min.compaction.lag.ms": kgoStr("3600000"),
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, cfg, topic); err != nil {
		t.Fatal(err)
	}
	// Batches must fit a 16 KiB segment (Kafka refuses larger ones).
	prod := c.Client(kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(2*time.Millisecond),
		kgo.ProducerBatchMaxBytes(8<<10))
	produce := func(r *kgo.Record) {
		prod.Produce(ctx, r, func(r *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce %s: %v", r.Key, err)
			}
		})
	}
	want := map[string]string{} // key -> latest value ("" for a tombstone)
	for i := 0; i < updates; i++ {
		k, v := fmt.Sprintf("key-%03d", i%keys), fmt.Sprintf("value-%05d", i)
		produce(&kgo.Record{Key: []byte(k), Value: []byte(v)})
		want[k] = v
	}
	for i := 0; i < deleted; i++ {
		k := fmt.Sprintf("key-%03d", i*7)
		produce(&kgo.Record{Key: []byte(k)}) // nil value: tombstone
		want[k] = ""
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.Brokers()[0].DataDir(), topic+"-0")
	segsBefore, bytesBefore := segmentFiles(t, dir)
	// Records carry their create time: one produced after segment.ms
	// rolls the segment holding the tombstones, so all of it is cleanable.
	time.Sleep(1600 * time.Millisecond)
	if err := prod.ProduceSync(ctx, &kgo.Record{Key: []byte("sentinel"), Value: []byte("last")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	want["sentinel"] = "last"
	t.Logf("before cleaning: %d segments, %d bytes", segsBefore, bytesBefore)
	if segsBefore < 5 {
		t.Fatalf("only %d segments were written; the test needs many", segsBefore)
	}
	if n := len(readTopic(t, ctx, c, topic)); n != updates+deleted+1 {
		t.Fatalf("%d records before cleaning, want all %d", n, updates+deleted+1)
	}
	alterTopic(t, ctx, adm, topic, "min.compaction.lag.ms", "0")

	// Compaction: one record per key, the latest (tombstones included).
	var last []*kgo.Record
	testwait.For(t, time.Minute, "one record per key", func() (bool, string) {
		last = readTopic(t, ctx, c, topic)
		return len(last) == len(want) && latestMatches(last, want) == "", fmt.Sprintf("%d records: %s", len(last), latestMatches(last, want))
	})
	segsAfter, bytesAfter := segmentFiles(t, dir)
	t.Logf("after cleaning: %d segments, %d bytes", segsAfter, bytesAfter)
	if segsAfter >= segsBefore || bytesAfter*4 > bytesBefore {
		t.Fatalf("partition directory has %d segments, %d bytes after cleaning; %d, %d before", segsAfter, bytesAfter, segsBefore, bytesBefore)
	}
	// Offsets are the original ones: the latest update of key i%100 was
	// record i, tombstones follow the updates, the sentinel ends the log.
	for _, r := range last {
		k := string(r.Key)
		switch {
		case k == "sentinel":
			if r.Offset != updates+deleted {
				t.Fatalf("sentinel at offset %d, want %d", r.Offset, updates+deleted)
			}
		case r.Value == nil:
			var n int
			fmt.Sscanf(k, "key-%03d", &n)
			if r.Offset != int64(updates+n/7) {
				t.Fatalf("tombstone of %s at offset %d, want %d", k, r.Offset, updates+n/7)
			}
		default:
			var v int
			fmt.Sscanf(string(r.Value), "value-%05d", &v)
			if r.Offset != int64(v) {
				t.Fatalf("%s=%s at offset %d, want %d", k, r.Value, r.Offset, v)
			}
		}
	}

	// delete.retention.ms after cleaning, the tombstones go too.
	for k, v := range want {
		if v == "" {
			delete(want, k)
		}
	}
	testwait.For(t, time.Minute, "tombstones removed", func() (bool, string) {
		last = readTopic(t, ctx, c, topic)
		return len(last) == len(want) && latestMatches(last, want) == "", fmt.Sprintf("%d records: %s", len(last), latestMatches(last, want))
	})
	if _, err := os.Stat(filepath.Join(c.Brokers()[0].DataDir(), "cleaner-offset-checkpoint")); err != nil {
		t.Fatalf("cleaner-offset-checkpoint: %v", err)
	}
	checkCleanerLog(t, c)
}

// checkCleanerLog fails the test when a broker logged a failed pass.
func checkCleanerLog(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	for _, b := range c.Brokers() {
		log := b.LogTail(1 << 20)
		if !strings.Contains(log, "storage: cleaned log") {
			t.Errorf("broker %d logged no cleaning pass", b.ID)
		}
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "cleaning failed") {
				t.Errorf("broker %d: %s", b.ID, line)
			}
		}
	}
}

// TestCompactionOfConsumerOffsets: __consumer_offsets is compacted like any
// compacted topic: of thousands of commits of one group, the closed
// segments keep one record per key, and the group's committed offset
// survives compaction and a restart of the broker (the coordinator
// reloads it from the cleaned log).
func TestCompactionOfConsumerOffsets(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"offsets.topic.num.partitions":    "1",
		"offsets.topic.segment.bytes":     "16384",
		"log.cleaner.min.cleanable.ratio": "0.01",
		"log.cleaner.backoff.ms":          "100",
		"log.segment.delete.delay.ms":     "200",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic, group, commits, offsets = "consumed", "compaction-group", 3000, "__consumer_offsets"
	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= commits; i++ {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: int64(i), LeaderEpoch: -1})
		if err := adm.CommitAllOffsets(ctx, group, os); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	dir := filepath.Join(c.Brokers()[0].DataDir(), offsets+"-0")
	testwait.For(t, time.Minute, offsets+" compacted", func() (bool, string) {
		active := activeBase(t, dir)
		recs := readTopic(t, ctx, c, offsets)
		keys := map[string]bool{}
		below := 0
		for _, r := range recs {
			if r.Offset >= active {
				continue
			}
			if keys[string(r.Key)] {
				return false, fmt.Sprintf("key %x twice below the active segment at %d", r.Key, active)
			}
			keys[string(r.Key)] = true
			below++
		}
		// Most commits are in closed segments, and of those one record
		// per key is left.
		return active >= commits/2 && below <= 3, fmt.Sprintf("active segment at %d, %d records below it, %d in all", active, below, len(recs))
	})
	check := func(when string) {
		testwait.For(t, time.Minute, "committed offset "+when, func() (bool, string) {
			fetched, err := adm.FetchOffsets(ctx, group)
			if err != nil {
				return false, err.Error()
			}
			o, ok := fetched.Lookup(topic, 0)
			return ok && o.Err == nil && o.At == commits, fmt.Sprintf("%+v", o)
		})
	}
	check("after compaction")
	b := c.Brokers()[0]
	b.Stop()
	testwait.For(t, time.Minute, "broker stopped", func() (bool, string) { return !b.Running(), "" })
	b.Start()
	c.WaitForBrokers(time.Minute)
	check("after a restart")
	checkCleanerLog(t, c)
}

// activeBase is the base offset of a partition directory's last segment.
func activeBase(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := int64(-1)
	for _, e := range ents {
		var b int64
		if n, _ := fmt.Sscanf(e.Name(), "%020d.log", &b); n == 1 && strings.HasSuffix(e.Name(), ".log") {
			base = max(base, b)
		}
	}
	return base
}

func alterTopic(t *testing.T, ctx context.Context, adm *kadm.Client, topic, key, value string) {
	t.Helper()
	resps, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: kgoStr(value)}}, topic)
	if err == nil {
		err = resps[0].Err
	}
	if err != nil {
		t.Fatalf("alter %s=%s: %v", key, value, err)
	}
}

// segmentFiles counts the .log files of a partition directory and their
// bytes (retired .deleted files not included).
func segmentFiles(t *testing.T, dir string) (n int, size int64) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		n++
		size += info.Size()
	}
	return n, size
}

// readTopic reads partition 0 of topic from the start to its end with a
// fresh consumer.
func readTopic(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string) []*kgo.Record {
	t.Helper()
	ends, err := c.Admin().ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := ends.Lookup(topic, 0)
	cl := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
	defer cl.Close()
	var out []*kgo.Record
	for len(out) == 0 || out[len(out)-1].Offset < end.Offset-1 {
		pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
		fs := cl.PollFetches(pctx)
		timedOut := pctx.Err() != nil
		pcancel()
		if timedOut {
			t.Fatalf("reading %s: stuck at %d records, end offset %d", topic, len(out), end.Offset)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		out = append(out, fs.Records()...)
	}
	return out
}

// latestMatches describes how recs differ from one record per key of want
// ("" for a tombstone), or returns "".
func latestMatches(recs []*kgo.Record, want map[string]string) string {
	seen := map[string]bool{}
	for _, r := range recs {
		k := string(r.Key)
		if seen[k] {
			return fmt.Sprintf("key %s appears twice (offset %d)", k, r.Offset)
		}
		seen[k] = true
		w, ok := want[k]
		switch {
		case !ok:
			return fmt.Sprintf("key %s should be gone (offset %d)", k, r.Offset)
		case w == "" && r.Value != nil:
			return fmt.Sprintf("key %s: %q, want its tombstone", k, r.Value)
		case w != "" && string(r.Value) != w:
			return fmt.Sprintf("key %s: %q, want %q", k, r.Value, w)
		}
	}
	for k := range want {
		if !seen[k] {
			return fmt.Sprintf("key %s missing", k)
		}
	}
	return ""
}
