package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"kafgo/internal/testing/testwait"
)

// A topic's overrides, created with it or altered later through the Kafka
// API, are what the broker applies to the topic; topics without overrides
// get the broker defaults.
func TestTopicConfigsFollowOverrides(t *testing.T) {
	b, _ := startTestBroker(t, testConfig(t, t.TempDir(), map[string]string{"log.retention.ms": "86400000"}))
	ctx := testCtx(t)
	adm := kadm.NewClient(client(t, b))
	retention := "3600000"
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": &retention}, "audit"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "plain"); err != nil {
		t.Fatal(err)
	}
	if got := b.topics.Effective("audit").RetentionMs; got != 3600000 {
		t.Fatalf("audit retention.ms %d, want its override 3600000", got)
	}
	if got := b.topics.Effective("plain").RetentionMs; got != 86400000 {
		t.Fatalf("plain retention.ms %d, want the broker default 86400000", got)
	}

	compact := "compact"
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "cleanup.policy", Value: &compact}}, "plain")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	testwait.Until(t, waitTimeout, "the altered cleanup.policy applied", func() bool {
		return b.topics.Effective("plain").Compact()
	})
	if got := b.topics.Effective("plain").RetentionMs; got != 86400000 {
		t.Fatalf("plain retention.ms %d after altering cleanup.policy, want 86400000", got)
	}
}
