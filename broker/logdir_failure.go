package broker

import (
	"context"
	"os"
	"strings"
)

// haltProcess ends the process at once, as Kafka's Exit.halt; a variable so
// in-process tests can see it instead.
var haltProcess = func(code int) { os.Exit(code) }

// watchLogDirs is the broker's end of storage's log dir failure channel
// (Kafka's LogDirFailureHandler). Storage has already taken the failed dir
// offline (every log in it refuses appends and reads with
// KAFKA_STORAGE_ERROR, nothing in it is synced again); here each failure is
// logged, and when no dir is left the broker halts, as Kafka's does, so
// that its ZooKeeper session ends and the controller moves its leaderships.
//
// KIP-112's handling of one dir among several (its partitions offline on
// this broker, /log_dir_event_notification for the controller, leadership
// and ISR changes) builds on storage.Manager.DirFailures and is not done
// here yet: until then a broker with live dirs left keeps serving them and
// answers KAFKA_STORAGE_ERROR for the partitions of the failed one.
func (b *Broker) watchLogDirs(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-b.logs.DirFailures():
			live := b.logs.LiveDirs()
			b.log.Error("log dir failed: its partitions refuse produce and fetch with KAFKA_STORAGE_ERROR until the broker restarts with the dir repaired",
				"dir", f.Dir, "err", f.Err, "live_dirs", len(live))
			if len(live) == 0 {
				b.log.Error("shutting down the broker because all log dirs in " + strings.Join(b.logs.LogDirs(), ", ") + " have failed")
				haltProcess(1)
				return
			}
		}
	}
}
