package admin

import (
	"strconv"

	"kafgo/broker/metrics"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Kafka's kafka.network:type=RequestMetrics beans, per request name.
var (
	requestLabel   = []string{"request"}
	descRequestsPS = prometheus.NewDesc("kafka_network_requestmetrics_requests_total",
		"Requests answered, by request name and API version (RequestsPerSec).", []string{"request", "version"}, nil)
	descErrorsPS = prometheus.NewDesc("kafka_network_requestmetrics_errors_total",
		"Error codes in responses, one per error field (partition, topic, group...), NONE included (ErrorsPerSec).", []string{"request", "error"}, nil)
	descTotalTime = prometheus.NewDesc("kafka_network_requestmetrics_totaltimems",
		"Milliseconds from a request read to its response written (TotalTimeMs).", requestLabel, nil)
	descQueueTime = prometheus.NewDesc("kafka_network_requestmetrics_requestqueuetimems",
		"Milliseconds from a request read to its handler starting; kafgo has no request queue, so this is hand-off time (RequestQueueTimeMs).", requestLabel, nil)
	descLocalTime = prometheus.NewDesc("kafka_network_requestmetrics_localtimems",
		"Milliseconds the handler worked on the request itself: decoding, validation, log append (LocalTimeMs).", requestLabel, nil)
	descRemoteTime = prometheus.NewDesc("kafka_network_requestmetrics_remotetimems",
		"Milliseconds the request's deferred reply took: acks=all replication, fetch long-poll, group rebalance waits (RemoteTimeMs).", requestLabel, nil)
	descRespQueueTime = prometheus.NewDesc("kafka_network_requestmetrics_responsequeuetimems",
		"Milliseconds the request waited for its connection's earlier responses to be written (ResponseQueueTimeMs).", requestLabel, nil)
	descRespSendTime = prometheus.NewDesc("kafka_network_requestmetrics_responsesendtimems",
		"Milliseconds encoding and writing the response took, sendfile included (ResponseSendTimeMs).", requestLabel, nil)
	descThrottleTime = prometheus.NewDesc("kafka_network_requestmetrics_throttletimems",
		"Client quota throttle, in milliseconds, each response carried (ThrottleTimeMs).", requestLabel, nil)
)

func (c *collector) collectRequests(ch chan<- prometheus.Metric) {
	if c.src.Metrics == nil {
		return
	}
	for _, r := range metrics.WithFetchTotal(c.src.Metrics.Requests.Snapshot()) {
		for v, n := range r.Versions {
			ch <- counter(descRequestsPS, n, r.Name, strconv.Itoa(int(v)))
		}
		for code, n := range r.Errors {
			ch <- counter(descErrorsPS, n, r.Name, errorName(code))
		}
		ch <- histogramMs(descTotalTime, r.TotalTime, r.Name)
		ch <- histogramMs(descQueueTime, r.RequestQueueTime, r.Name)
		ch <- histogramMs(descLocalTime, r.LocalTime, r.Name)
		ch <- histogramMs(descRemoteTime, r.RemoteTime, r.Name)
		ch <- histogramMs(descRespQueueTime, r.ResponseQueueTime, r.Name)
		ch <- histogramMs(descRespSendTime, r.ResponseSendTime, r.Name)
		ch <- histogramMs(descThrottleTime, r.ThrottleTime, r.Name)
	}
}

// errorName is Kafka's name of an error code (Errors.name()), as the
// error tag of ErrorsPerSec carries it.
func errorName(code int16) string {
	switch code {
	case 0:
		return "NONE"
	case kerr.NotLeaderForPartition.Code:
		return "NOT_LEADER_OR_FOLLOWER" // Kafka's name since 2.6
	}
	if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return e.Message
	}
	return "UNKNOWN_SERVER_ERROR"
}
