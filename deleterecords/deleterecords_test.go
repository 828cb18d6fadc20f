package deleterecords

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/clitest"
)

// testdata/delete.golden is written by hand from DeleteRecordsCommand's
// format strings (Kafka 3.9) and Errors.java, not from kafgo's output.
func TestDeleteGolden(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
	cl := clitest.Client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx := clitest.Context(t, 30*time.Second)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, "dr"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "dr", Partition: 0, Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "offsets.json")
	file := `{"partitions":[{"topic":"nope","partition":0,"offset":1},{"topic":"dr","partition":2,"offset":99},
		{"topic":"dr","partition":0,"offset":2},{"topic":"dr","partition":1,"offset":-1}],"version":1}`
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(ctx, cl, path, &out); err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "delete.golden", out.Bytes())
}

func TestParseJSON(t *testing.T) {
	got, err := ParseJSON([]byte(`{"partitions":[{"topic":"foo","partition":1,"offset":1}]}`))
	if err != nil || len(got) != 1 || got[0].Offset != 1 || got[0].TP.String() != "foo-1" {
		t.Fatalf("%v %v", got, err)
	}
	for in, want := range map[string]string{
		"":                  "The input string is not a valid JSON",
		"{":                 "The input string is not a valid JSON",
		`{"version":2}`:     "Not supported version field value 2",
		`{"version":1}`:     "Missing partitions field",
		`{"partitions":[]}`: "",
		`{"partitions":[{"topic":"a","partition":0,"offset":1},{"topic":"a","partition":0,"offset":2},{"topic":"b","partition":3,"offset":1},{"topic":"b","partition":3,"offset":1}]}`: "Offset json file contains duplicate topic partitions: a-0,b-3",
		`{"partitions":[{"topic":"a","partition":0}]}`: `lacks "topic", "partition" or "offset"`,
	} {
		_, err := ParseJSON([]byte(in))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
