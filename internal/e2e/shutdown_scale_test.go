package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// partitionDirs counts the partition directories of topics named prefix*
// in a broker's log dir.
func partitionDirs(t *testing.T, b *testcluster.Broker, prefix string) int {
	t.Helper()
	ents, err := os.ReadDir(b.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			n++
		}
	}
	return n
}

// TestShutdownWhileCreatingPartitions: SIGTERM while a CreateTopics of
// 4,000 partitions is being applied (the waiting CreateTopics in flight,
// the broker creating logs for the controller's LeaderAndIsr) stops the
// broker without finishing the creation first; a restart serves what was
// created. Before, the shutdown waited for every log to be created and
// for the CreateTopics to time out (over a minute at 7,000 partitions).
func TestShutdownWhileCreatingPartitions(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 1})
	b := c.Brokers()[0]
	cl := c.Client(kgo.RequestTimeoutOverhead(10 * time.Minute))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var topics []string
	for i := range 40 {
		topics = append(topics, fmt.Sprintf("many-%02d", i))
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		adm.CreateTopics(ctx, 100, 1, nil, topics...) // answered or cut off by the shutdown
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for partitionDirs(t, b, "many-") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no partition created within 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	b.Stop()
	took := time.Since(start)
	created := partitionDirs(t, b, "many-")
	t.Logf("stopped %v after SIGTERM with %d of 4000 partitions created", took, created)
	if created >= 4000 {
		t.Fatalf("the shutdown waited for all %d partitions to be created", created)
	}
	if took > time.Minute {
		t.Fatalf("the broker took %v to stop", took)
	}
	if log := b.LogTail(400); !strings.Contains(log, "broker stopped") {
		t.Fatalf("no clean stop in the log:\n%s", log)
	}
	// The logs it did create open again: the broker restarts (and the
	// controller goes on creating the rest).
	b.Start()
	c.WaitForBrokers(time.Minute)
}
