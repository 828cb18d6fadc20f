package clustertool

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"kafgo/internal/testing/clitest"
)

// The expected lines are ClusterTool's (Kafka 3.9) println texts.
func TestClusterID(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.ClusterID("q1Sh-9_ISia_zwGINzRvyQ"))
	cl := clitest.Client(t, addrs)
	ctx := clitest.Context(t, 20*time.Second)
	var out bytes.Buffer
	if err := ClusterID(ctx, cl, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Cluster ID: q1Sh-9_ISia_zwGINzRvyQ\n" {
		t.Fatalf("%q", out.String())
	}
}
