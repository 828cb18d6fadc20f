package broker

import (
	"kafgo/broker/config"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
)

// partitionConfig turns a topic's effective config into what the replica
// and storage layers obey. A topic without the delete policy keeps its
// segments forever (until compaction), whatever its retention settings say.
func partitionConfig(t config.Topic) replica.PartitionConfig {
	lc := storage.LogConfig{
		SegmentBytes:       int64(t.SegmentBytes),
		SegmentMs:          t.SegmentMs,
		SegmentIndexBytes:  int(t.SegmentIndexBytes),
		IndexIntervalBytes: int(t.IndexIntervalBytes),
		FlushMessages:      t.FlushMessages,
		FlushMs:            t.FlushMs,
		RetentionMs:        t.RetentionMs,
		RetentionBytes:     t.RetentionBytes,
		FileDeleteDelayMs:  t.FileDeleteDelayMs,

		Compact:                t.Compact(),
		DeleteRetentionMs:      t.DeleteRetentionMs,
		MinCompactionLagMs:     t.MinCompactionLagMs,
		MaxCompactionLagMs:     t.MaxCompactionLagMs,
		MinCleanableDirtyRatio: t.MinCleanableDirtyRatio,
	}
	if !t.Delete() {
		lc.RetentionMs, lc.RetentionBytes = -1, -1
	}
	return replica.PartitionConfig{
		Log:               lc,
		MinInsyncReplicas: t.MinInsyncReplicas,
		MaxMessageBytes:   t.MaxMessageBytes,
		LogAppendTime:     t.MessageTimestampType == "LogAppendTime",
		Compact:           t.Compact(),
	}
}
