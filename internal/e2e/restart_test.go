package e2e

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestKillDuringProduceLosesNoAckedRecord: kill -9 the broker while an
// acks=all producer writes; after a restart every acknowledged record is
// there (each once), whatever was in flight at the kill.
func TestKillDuringProduceLosesNoAckedRecord(t *testing.T) {
	// Default flush policy: the page cache survives a process kill.
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic = "crash"
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	prod := c.Client(kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordDeliveryTimeout(90*time.Second), kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }))

	var mu sync.Mutex
	acked := map[int]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v := i
			prod.Produce(ctx, &kgo.Record{Key: []byte(strconv.Itoa(v % 50)), Value: []byte(strconv.Itoa(v))}, func(_ *kgo.Record, err error) {
				if err == nil {
					mu.Lock()
					acked[v] = true
					mu.Unlock()
				}
			})
			if i%100 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	// Let some records be acknowledged, then crash the broker mid-stream.
	testwait.For(t, time.Minute, "acknowledged records before the kill", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) > 5000, strconv.Itoa(len(acked))
	})
	b := c.Brokers()[0]
	b.Kill()
	mu.Lock()
	atKill := len(acked)
	mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	b.Start()
	c.WaitForBrokers(time.Minute)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if err := prod.Flush(ctx); err != nil {
		t.Logf("flush after restart: %v (unacknowledged records may be lost)", err)
	}
	mu.Lock()
	want := make(map[int]bool, len(acked))
	for v := range acked {
		want[v] = true
	}
	mu.Unlock()
	t.Logf("%d records acknowledged before the kill, %d in total", atKill, len(want))

	cons := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[int]int{}
	deadline := time.Now().Add(time.Minute)
	for missing := len(want); missing > 0 && time.Now().Before(deadline); {
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		fs := cons.PollFetches(pctx)
		pcancel()
		fs.EachRecord(func(r *kgo.Record) {
			v, _ := strconv.Atoi(string(r.Value))
			got[v]++
			if want[v] && got[v] == 1 {
				missing--
			}
		})
	}
	lost := 0
	for v := range want {
		if got[v] == 0 {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged records lost after kill -9 and restart", lost)
	}
	for v, n := range got {
		if n > 1 {
			t.Fatalf("record %d stored %d times (idempotent producer)", v, n)
		}
	}
}
