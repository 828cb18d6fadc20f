package metrics

import (
	"testing"
	"time"
)

// Kafka records every Fetch under "Fetch" besides FetchConsumer or
// FetchFollower: the snapshot carries that sum.
func TestFetchSeriesSumsBothFetchers(t *testing.T) {
	r := NewRequests()
	tm := RequestTimes{Received: time.Unix(1000, 0), Started: time.Microsecond, Served: 50 * time.Microsecond,
		Resolving: 60 * time.Microsecond, Resolved: 3 * time.Millisecond}
	r.For(1, false).Done(11, &tm, 2*time.Millisecond)
	r.For(1, true).Done(12, &tm, 4*time.Millisecond)
	r.For(1, true).Done(12, &tm, 4*time.Millisecond)
	tally := r.For(1, true).NewErrorTally()
	tally.Add(6)
	tally.Flush()
	byName := map[string]RequestSnapshot{}
	for _, s := range WithFetchTotal(r.Snapshot()) {
		byName[s.Name] = s
	}
	all, ok := byName["Fetch"]
	if !ok {
		t.Fatalf("no Fetch series in %v", byName)
	}
	if all.TotalTime.Count != 3 || all.TotalTime.Sum != 10*time.Millisecond || all.Versions[11] != 1 || all.Versions[12] != 2 || all.Errors[6] != 1 {
		t.Fatalf("Fetch %+v", all)
	}
	last := len(all.TotalTime.Buckets) - 1
	if all.TotalTime.Buckets[last] != byName["FetchConsumer"].TotalTime.Buckets[last]+byName["FetchFollower"].TotalTime.Buckets[last] {
		t.Fatalf("buckets not summed: %v", all.TotalTime.Buckets)
	}
	if _, ok := snapshotsByName(r.Snapshot())["Fetch"]; ok {
		t.Fatal("Snapshot itself carries the sum (summaries would count fetches twice)")
	}
	if byName["FetchConsumer"].TotalTime.Count != 1 || byName["FetchFollower"].TotalTime.Count != 2 {
		t.Fatal("the split series changed")
	}
}

func snapshotsByName(snaps []RequestSnapshot) map[string]RequestSnapshot {
	out := map[string]RequestSnapshot{}
	for _, s := range snaps {
		out[s.Name] = s
	}
	return out
}
