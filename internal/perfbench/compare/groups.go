package compare

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// GroupStorm measures how long n consumer groups of one member each, all
// joining at once, take to become stable (every member assigned), on each
// target, repetitions interleaved. kafgo runs with
// group.initial.rebalance.delay.ms 0, so the figure is the coordinator's
// own work, not the delay Kafka adds on purpose.
func GroupStorm(t testing.TB, n, reps int, kafgoOnly bool, logf func(string, ...any)) map[string][]time.Duration {
	t.Helper()
	if _, err := RaiseFileLimit(); err != nil {
		t.Fatal(err)
	}
	targets := []target{startKafgo(t, "kafgo", "", 1, map[string]string{"group.initial.rebalance.delay.ms": "0"})}
	if !kafgoOnly {
		targets = append(targets, startKfake(t))
	}
	out := map[string][]time.Duration{}
	for rep := range reps {
		for _, tg := range order(targets, rep) {
			topic := fmt.Sprintf("storm-%d", rep)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			if err := tg.createTopic(ctx, topic, 8, 1, nil); err != nil {
				cancel()
				t.Fatal(err)
			}
			// The internal offsets topic exists before the clock starts: its
			// creation is a one-off.
			if _, err := stormOnce(ctx, tg, topic, rep, 1); err != nil {
				cancel()
				t.Fatalf("%s: warming up: %v", tg.name, err)
			}
			d, err := stormOnce(ctx, tg, topic, rep, n)
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
			out[tg.name] = append(out[tg.name], d)
			if logf != nil {
				logf("rep %d %s: %d groups stable after %v", rep+1, tg.name, n, d.Round(time.Millisecond))
			}
		}
	}
	return out
}

func stormOnce(ctx context.Context, tg target, topic string, rep, n int) (time.Duration, error) {
	var ready sync.WaitGroup
	ready.Add(n)
	clients := make([]*kgo.Client, n)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			cl, err := kgo.NewClient(kgo.SeedBrokers(tg.seeds...), kgo.ConsumeTopics(topic),
				kgo.ConsumerGroup(fmt.Sprintf("storm-%d-%d-%d", rep, n, i)),
				kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { once.Do(ready.Done) }))
			if err != nil {
				errs <- err
				ready.Done()
				return
			}
			clients[i] = cl
			go func() {
				for {
					if fs := cl.PollFetches(ctx); fs.IsClientClosed() || ctx.Err() != nil {
						return
					}
				}
			}()
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { ready.Wait(); close(done) }()
	var d time.Duration
	select {
	case <-done:
		d = time.Since(start)
	case <-ctx.Done():
	}
	for _, cl := range clients {
		if cl != nil {
			cl.Close()
		}
	}
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	if d == 0 {
		return 0, fmt.Errorf("the groups did not become stable: %w", ctx.Err())
	}
	return d, nil
}
