package groups

import (
	"strings"
	"testing"
	"time"

	"kafgo/internal/adminapi"
	"kafgo/internal/testing/clitest"
)

// testdata/describe-health.golden: Kafka's offsets columns (the printf of
// ConsumerGroupCommand, as in render-offsets.golden), CLIENT-ID padded, then
// kafgo's health columns and the group's line.
func TestWriteOffsetsHealthGolden(t *testing.T) {
	v := groupView{Group: "g", CoordID: 2, Rows: []offsetRow{
		{Group: "g", Topic: "t", Partition: "0", Current: "90", LogEnd: "100", Lag: "10", ConsumerID: "c-1", Host: "/127.0.0.1", ClientID: "client", topic: "t", partition: 0},
		{Group: "g", Topic: "t", Partition: "1", Current: "50", LogEnd: "50", Lag: "0", ConsumerID: "c-1", Host: "/127.0.0.1", ClientID: "client", topic: "t", partition: 1},
		{Group: "g", Topic: "t", Partition: "2", Current: "5", LogEnd: "900", Lag: "895", topic: "t", partition: 2},
	}}
	h := adminapi.GroupHealth{Group: "g", Status: "WARNING", TotalLag: 905, MaxTimeLagMs: 95_000, Partitions: []adminapi.PartitionHealth{
		{Topic: "t", Partition: 0, Status: "WARNING", TimeLagMs: ptr64(6500), EtaMs: ptr64(12000), Catchup: "falling_behind", Lags: []int64{2, 5, 10}},
		{Topic: "t", Partition: 1, Status: "OK", TimeLagMs: ptr64(0), EtaMs: ptr64(0), Catchup: "caught_up", Lags: []int64{0, 0}},
		{Topic: "t", Partition: 2, Status: "STOP", TimeLagMs: ptr64(95_000), Catchup: "unknown", Lags: []int64{895, 895}},
	}}
	var b strings.Builder
	writeOffsetsHealth(&b, v, h, true)
	clitest.Golden(t, "describe-health.golden", []byte(b.String()))
}

func TestFormatDurationAndTrend(t *testing.T) {
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 6500 * time.Millisecond: "6.5s", 2 * time.Second: "2s",
		123 * time.Second: "2m3s", 64 * time.Minute: "1h4m"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
	if Trend([]int64{3, 1}) != "shrinking" || Trend([]int64{1, 3}) != "growing" || Trend([]int64{2, 2}) != "flat" || Trend(nil) != "-" {
		t.Fatal("trend")
	}
}

func ptr64(v int64) *int64 { return &v }
