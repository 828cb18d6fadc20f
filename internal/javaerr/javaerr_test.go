package javaerr

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestString(t *testing.T) {
	msg := "No such topic as nope"
	empty := ""
	for _, c := range []struct {
		code int16
		msg  *string
		want string
	}{
		{3, &msg, "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such topic as nope"},
		{3, nil, "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition."},
		{1, nil, "org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server."},
		{84, nil, "org.apache.kafka.common.errors.ElectionNotNeededException: Leader election not needed for topic partition."},
		{80, nil, "org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: The preferred leader was not available."},
		{7, &empty, "org.apache.kafka.common.errors.TimeoutException: "},
		{999, nil, "org.apache.kafka.common.errors.UnknownServerException: The server experienced an unexpected error when processing the request."},
	} {
		if got := String(c.code, c.msg); got != c.want {
			t.Errorf("String(%d) = %q, want %q", c.code, got, c.want)
		}
	}
}

// Every code franz-go knows is in the table, with the same constant name:
// a code added to one and not the other shows up here. The exceptions are
// franz-go's: its older name for code 6 (renamed by KIP-392) and code 99,
// which Kafka never released.
func TestTableMatchesKerr(t *testing.T) {
	for code := int16(-1); code <= 127; code++ {
		if code == 0 || code == 6 || code == 99 {
			continue
		}
		ke, ok := kerr.ErrorForCode(code).(*kerr.Error)
		if !ok || ke == kerr.UnknownServerError && code != -1 {
			continue
		}
		if !Known(code) {
			t.Errorf("code %d (%s) missing", code, ke.Message)
			continue
		}
		if Name(code) != ke.Message {
			t.Errorf("code %d: name %s, kerr %s", code, Name(code), ke.Message)
		}
	}
	if got := FromError(fmt.Errorf("x: %w", kerr.NotEnoughReplicas)); got != "org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required." {
		t.Fatal(got)
	}
}
