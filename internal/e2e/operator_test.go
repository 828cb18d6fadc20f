package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testcluster"
)

// Tests of what an operator trying kafgo for the first time ran into
// (issue 16).

// TestPlannedShutdownLogsNoFetcherWarning: a clean stop (SIGTERM) moves
// leaderships away and stops the replica fetchers on the stopping broker
// and on the brokers that take over; the request a stopped fetcher had in
// flight ends with "context canceled". That is the plan working, not a
// warning, so no broker logs the fetcher's WARN for it.
func TestPlannedShutdownLogsNoFetcherWarning(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kafgo(t, "", "topics", "--bootstrap-server", c.Bootstrap(), "--create", "--topic", "calm", "--partitions", "6", "--replication-factor", "3")
	waitFullISR(t, ctx, c.Client(), "calm", 6)
	c.Broker(3).Stop()
	c.Broker(2).Stop()
	for _, b := range c.Brokers() {
		for _, line := range strings.Split(b.LogTail(1<<20), "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, "replica fetcher") {
				t.Errorf("broker %d: %s", b.ID, line)
			}
		}
	}
}
