package apiversions

import (
	"testing"

	"kafgo/internal/testing/clitest"
)

// testdata/format.golden is NodeApiVersions.toString(true) worked out by
// hand (a script over Kafka 3.9's request schemas, independent of this
// package) for the ranges below: a usable key, a single version, a key
// whose versions are all newer than the client's, an unknown key, and
// every other client API unsupported.
func TestFormatGolden(t *testing.T) {
	ranges := []Range{{Key: 1000, Min: 0, Max: 2}, {Key: 0, Min: 0, Max: 9}, {Key: 1, Min: 4, Max: 4}, {Key: 3, Min: 13, Max: 14}, {Key: 18, Min: 0, Max: 3}}
	got := Node{ID: 1, Host: "127.0.0.1", Port: 9092}.String() + " -> " + Format(ranges) + "\n"
	clitest.Golden(t, "format.golden", []byte(got))
}

func TestNodeString(t *testing.T) {
	rack := "r1"
	if got := (Node{ID: 3, Host: "h", Port: 1, Rack: &rack}).String(); got != "h:1 (id: 3 rack: r1)" {
		t.Fatal(got)
	}
	if got := entry(Range{Key: 1, Min: 0, Max: 0}); got != "Fetch(1): 0 [usable: 0]" {
		t.Fatal(got)
	}
}
