package broker

import (
	"kafgo/broker/config"
	"kafgo/broker/quota"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
)

// partitionConfig turns a topic's effective config into what the replica
// and storage layers obey, on broker brokerID. A topic without the delete
// policy keeps its segments forever (until compaction), whatever its
// retention settings say.
func partitionConfig(t config.Topic, brokerID int32) replica.PartitionConfig {
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
		LeaderThrottled:   throttled(t.LeaderReplicationThrottledReplicas, brokerID),
		FollowerThrottled: throttled(t.FollowerReplicationThrottledReplicas, brokerID),
	}
}

// throttled reads a throttled-replicas list for this broker. The values
// reaching here passed the topic config validation (an invalid stored value
// makes the whole topic fall back to the defaults, see
// topicConfigs.Effective), which accepts exactly what ParseReplicas does, so
// the error cannot occur; were it to, the side would stay unthrottled.
func throttled(list string, brokerID int32) quota.Replicas {
	r, _ := quota.ParseReplicas(list, brokerID)
	return r
}
