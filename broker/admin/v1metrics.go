package admin

import (
	"context"
	"net/http"
	"time"

	"kafgo/broker/metrics"
	"kafgo/internal/adminapi"
)

// v1Metrics answers GET /v1/metrics from the sources /metrics reads, for
// clients that want JSON (kafgo tui).
func (s *Server) v1Metrics(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), scrapeTimeout)
	defer cancel()
	src := s.src
	now := time.Now()
	out := adminapi.Metrics{TimeMs: now.UnixMilli(), Topics: []adminapi.TopicMetrics{}, Requests: []adminapi.RequestMetrics{}}
	if src.Metrics != nil {
		topics, total := src.Metrics.Topics.Snapshot()
		for i := range topics {
			out.Topics = append(out.Topics, topicJSON(topics[i].Topic, &topics[i].TopicCounts))
		}
		out.AllTopics = topicJSON("", &total)
		for _, r := range src.Metrics.Requests.Snapshot() {
			out.Requests = append(out.Requests, requestJSON(&r))
		}
		out.Controller.LeaderElections = src.Metrics.LeaderElection.Count()
		out.Controller.UncleanLeaderElections = src.Metrics.Counters().UncleanElections
	}
	out.ReplicaManager = replicaManager(src, nil)
	if src.Controller != nil {
		st := src.Controller(ctx)
		out.Controller.Active, out.Controller.OfflinePartitions = st.Active, st.OfflinePartitions
		out.Controller.GlobalPartitions, out.Controller.GlobalTopics = st.GlobalPartitions, st.GlobalTopics
		out.Controller.PreferredReplicaImbalance = st.PreferredReplicaImbalance
	}
	out.Groups = groupsView(ctx, src)
	if out.Groups == nil {
		out.Groups = []adminapi.GroupMetrics{}
	}
	cur, base := s.col.windowed(now)
	out.NetworkIdle, out.RequestHandlerIdle = s.col.idleRatios(now, cur, base)
	writeJSON(w, out)
}

func topicJSON(name string, c *metrics.TopicCounts) adminapi.TopicMetrics {
	return adminapi.TopicMetrics{
		Topic: name, MessagesIn: c.MessagesIn, BytesIn: c.BytesIn, BytesOut: c.BytesOut, BytesRejected: c.BytesRejected,
		FailedProduce: c.FailedProduce, FailedFetch: c.FailedFetch, TotalProduce: c.TotalProduce, TotalFetch: c.TotalFetch,
		ReplicationBytesIn: c.ReplicationBytesIn, ReplicationBytesOut: c.ReplicationBytesOut,
	}
}

func requestJSON(r *metrics.RequestSnapshot) adminapi.RequestMetrics {
	out := adminapi.RequestMetrics{Request: r.Name, Errors: map[string]uint64{},
		TotalTimeMs: latency(r.TotalTime), LocalTimeMs: latency(r.LocalTime), RemoteTimeMs: latency(r.RemoteTime),
		ResponseSendTimeMs: latency(r.ResponseSendTime), ThrottleTimeMs: latency(r.ThrottleTime)}
	for _, n := range r.Versions {
		out.Requests += n
	}
	for code, n := range r.Errors {
		out.Errors[errorName(code)] += n
	}
	return out
}

func latency(h metrics.HistogramSnapshot) adminapi.Latency {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	var l adminapi.Latency
	if h.Count > 0 {
		l.Mean = ms(h.Sum) / float64(h.Count)
	}
	l.P50, l.P99, l.P999 = ms(h.Quantile(0.5)), ms(h.Quantile(0.99)), ms(h.Quantile(0.999))
	return l
}
