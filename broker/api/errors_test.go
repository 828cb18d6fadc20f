package api

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/meta"
	"kafgo/broker/storage"
)

// TestErrCodeIsKafkasTable: handlers answer with Kafka's code for each
// failure, not a blanket retriable KAFKA_STORAGE_ERROR: a batch larger than
// segment.bytes is RECORD_LIST_TOO_LARGE, a deadline REQUEST_TIMED_OUT,
// ZooKeeper connection loss a retriable REQUEST_TIMED_OUT, an unexpected
// error UNKNOWN_SERVER_ERROR. (kafkaerr's own test covers the whole table.)
func TestErrCodeIsKafkasTable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want *kerr.Error
	}{
		{nil, nil},
		{fmt.Errorf("replica: appending: %w", storage.ErrBatchTooLarge), kerr.RecordListTooLarge},
		{fmt.Errorf("meta: children /brokers/topics: %w", context.DeadlineExceeded), kerr.RequestTimedOut},
		{fmt.Errorf("meta: children /brokers/topics: %w", meta.ErrConnectionLoss), kerr.RequestTimedOut},
		{errors.New("controller: something unforeseen"), kerr.UnknownServerError},
	} {
		want := int16(0)
		if tc.want != nil {
			want = tc.want.Code
		}
		if got := errCode(tc.err); got != want {
			t.Errorf("errCode(%v) = %v, want %v", tc.err, kerr.ErrorForCode(got), tc.want)
		}
	}
}
