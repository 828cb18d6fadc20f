package e2elatency

import (
	"bytes"
	"testing"

	"kafgo/internal/testing/clitest"
)

// The letters of Kafka's records: new java.util.Random(0), nextInt(26)+65,
// ten times, as a JVM prints them ("SSXVNJHPDQ", run on this machine's
// java).
func TestJavaRandomLetters(t *testing.T) {
	r := newJavaRandom(0)
	var b []byte
	for range 10 {
		b = append(b, byte(r.nextInt(26)+65))
	}
	if string(b) != "SSXVNJHPDQ" {
		t.Fatalf("%s", b)
	}
}

// testdata/results.golden is written by hand from printResults' format
// strings: the mean of the nanosecond totals to 4 places, then the sorted
// whole milliseconds at indexes len*0.5, len*0.99, len*0.999.
func TestPrintResultsGolden(t *testing.T) {
	r := &Result{TotalNanos: 1_234_567_891, Millis: []int64{9, 1, 2, 3, 4, 5, 6, 7, 8, 100}}
	var out bytes.Buffer
	PrintResults(&out, r)
	clitest.Golden(t, "results.golden", out.Bytes())
}

func TestParseArgs(t *testing.T) {
	if _, err := ParseArgs([]string{"b", "t", "10", "1"}); err == nil || err.Error() != Usage {
		t.Fatal(err)
	}
	if _, err := ParseArgs([]string{"b", "t", "10", "0", "100"}); err == nil || err.Error() != "Latency testing requires synchronous acknowledgement. Please use 1 or all" {
		t.Fatal(err)
	}
	o, err := ParseArgs([]string{"b", "t", "10", "all", "100", "p.properties"})
	if err != nil || o.NumMessages != 10 || o.MessageSize != 100 || o.PropertiesFile != "p.properties" {
		t.Fatalf("%+v %v", o, err)
	}
}
