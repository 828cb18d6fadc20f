package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
)

// TestConcurrentConfigAltersLoseNothing: two alterations of one topic's
// config made at the same moment, each setting its own key, both stay, 200
// times over. Each broker reads, changes and writes /config/topics/<t> as one
// version-checked update, so the one that loses the race reads the
// winner's write and applies its change on top, instead of overwriting it.
//
// First with `kafgo configs --alter` run twice at once, each process
// bootstrapped from another broker (franz-go then sends the topic's
// IncrementalAlterConfigs to a broker of its choosing, often not the same
// one); then with the requests pinned to brokers 1 and 2, so every round
// races two different brokers.
func TestConcurrentConfigAltersLoseNothing(t *testing.T) {
	const rounds = 200
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl := c.Client()
	const topic = "raced"
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	addrs := c.Addrs()
	bin := testcluster.Binary(t)
	alterCLI := func(bootstrap, key, value string) error {
		actx, acancel := context.WithTimeout(ctx, time.Minute)
		defer acancel()
		out, err := exec.CommandContext(actx, bin, "configs", "--bootstrap-server", bootstrap, "--alter",
			"--entity-type", "topics", "--entity-name", topic, "--add-config", key+"="+value).CombinedOutput()
		if err != nil {
			return fmt.Errorf("kafgo configs --alter %s=%s via %s: %v\n%s", key, value, bootstrap, err, out)
		}
		return nil
	}
	alterOn := func(id int32, key, value string) error {
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, topic
		op := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		op.Name, op.Op, op.Value = key, kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr(value)
		r.Configs = append(r.Configs, op)
		req.Resources = append(req.Resources, r)
		kresp, err := cl.Broker(int(id)).Request(ctx, req)
		if err != nil {
			return fmt.Errorf("set %s=%s through broker %d: %w", key, value, id, err)
		}
		if res := kresp.(*kmsg.IncrementalAlterConfigsResponse).Resources; len(res) != 1 || res[0].ErrorCode != 0 {
			return fmt.Errorf("set %s=%s through broker %d: %+v", key, value, id, res)
		}
		return nil
	}
	for _, mode := range []string{"kafgo configs", "pinned to brokers 1 and 2"} {
		for i := range rounds {
			retention, segment := strconv.Itoa(3_600_000+i), strconv.Itoa(7_200_000+i)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			if mode == "kafgo configs" {
				wg.Go(func() { errs[0] = alterCLI(addrs[0], "retention.ms", retention) })
				wg.Go(func() { errs[1] = alterCLI(addrs[1], "segment.ms", segment) })
			} else {
				wg.Go(func() { errs[0] = alterOn(1, "retention.ms", retention) })
				wg.Go(func() { errs[1] = alterOn(2, "segment.ms", segment) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatalf("%s, round %d: %v", mode, i, err)
				}
			}
			got, err := describeOnE(ctx, cl, 3, kmsg.ConfigResourceTypeTopic, topic)
			if err != nil {
				t.Fatal(err)
			}
			if r, s := got["retention.ms"].Value, got["segment.ms"].Value; strPtr(r) != retention || strPtr(s) != segment {
				t.Fatalf("%s, round %d: retention.ms=%s segment.ms=%s, want %s and %s: a concurrent change was lost", mode, i, strPtr(r), strPtr(s), retention, segment)
			}
		}
	}
}
