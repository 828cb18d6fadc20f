package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/metrics"
)

// Kafka's kafka.server:type=BrokerTopicMetrics beans: one series per
// topic (topic label) and the all-topics one (no label). Replication
// bytes exist only for all topics, as in Kafka.
var (
	topicLabel    = []string{"topic"}
	topicFamilies = []topicFamily{
		{"messagesin", "Records appended by this broker as leader (MessagesInPerSec).", func(c *metrics.TopicCounts) uint64 { return c.MessagesIn }, true},
		{"bytesin", "Bytes of record batches appended by this broker as leader (BytesInPerSec).", func(c *metrics.TopicCounts) uint64 { return c.BytesIn }, true},
		{"bytesout", "Record bytes read for consumers (BytesOutPerSec).", func(c *metrics.TopicCounts) uint64 { return c.BytesOut }, true},
		{"bytesrejected", "Bytes of produced batches refused as too large or corrupt (BytesRejectedPerSec).", func(c *metrics.TopicCounts) uint64 { return c.BytesRejected }, true},
		{"failedproducerequests", "Partition appends that failed other than for leadership, size or corruption (FailedProduceRequestsPerSec).", func(c *metrics.TopicCounts) uint64 { return c.FailedProduce }, true},
		{"failedfetchrequests", "Partition reads that failed other than for leadership, epochs or offsets out of range (FailedFetchRequestsPerSec).", func(c *metrics.TopicCounts) uint64 { return c.FailedFetch }, true},
		{"totalproducerequests", "Partition appends attempted (TotalProduceRequestsPerSec).", func(c *metrics.TopicCounts) uint64 { return c.TotalProduce }, true},
		{"totalfetchrequests", "Partition reads answered, for consumers and followers (TotalFetchRequestsPerSec).", func(c *metrics.TopicCounts) uint64 { return c.TotalFetch }, true},
		{"replicationbytesin", "Bytes fetched from leaders by this broker's follower replicas (ReplicationBytesInPerSec).", func(c *metrics.TopicCounts) uint64 { return c.ReplicationBytesIn }, false},
		{"replicationbytesout", "Record bytes read for followers (ReplicationBytesOutPerSec).", func(c *metrics.TopicCounts) uint64 { return c.ReplicationBytesOut }, false},
	}
)

type topicFamily struct {
	name     string
	help     string
	value    func(*metrics.TopicCounts) uint64
	perTopic bool
}

// Descs are made once; the per-topic and total ones share name and help.
var topicDescs = func() (out []struct{ topic, total *prometheus.Desc }) {
	for _, f := range topicFamilies {
		name := "kafka_server_brokertopicmetrics_" + f.name + "_total"
		out = append(out, struct{ topic, total *prometheus.Desc }{
			prometheus.NewDesc(name, f.help, topicLabel, nil), prometheus.NewDesc(name, f.help, nil, nil),
		})
	}
	return out
}()

func (c *collector) collectTopics(ch chan<- prometheus.Metric) {
	if c.src.Metrics == nil {
		return
	}
	topics, total := c.src.Metrics.Topics.Snapshot()
	for i, f := range topicFamilies {
		ch <- counter(topicDescs[i].total, f.value(&total))
		if !f.perTopic {
			continue
		}
		for j := range topics {
			ch <- counter(topicDescs[i].topic, f.value(&topics[j].TopicCounts), topics[j].Topic)
		}
	}
}
