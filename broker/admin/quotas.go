package admin

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/clientquota"
	"kafgo/broker/meta/dynconfig"
	"kafgo/internal/adminapi"
)

// Client quota metrics, named as the Prometheus JMX exporter names Kafka's
// kafka.server:type=Produce|Fetch|Request,user=..,client-id=.. MBeans:
// byte-rate (request-time for Request) and throttle-time, labelled with
// the sensor's tags (user sanitized as Kafka tags it; empty when the
// quota covers every user, or every client id).
var (
	quotaLabels    = []string{"user", "client_id"}
	descQuotaRates = [...]*prometheus.Desc{
		clientquota.Produce: prometheus.NewDesc("kafka_server_produce_byte_rate",
			"Produce bytes/s of the user/client-id, as its quota measures them.", quotaLabels, nil),
		clientquota.Fetch: prometheus.NewDesc("kafka_server_fetch_byte_rate",
			"Fetch response bytes/s of the user/client-id, as its quota measures them.", quotaLabels, nil),
		clientquota.Request: prometheus.NewDesc("kafka_server_request_request_time",
			"Request handler time of the user/client-id, in percent of one thread, as its quota measures it.", quotaLabels, nil),
	}
	descQuotaThrottle = [...]*prometheus.Desc{
		clientquota.Produce: prometheus.NewDesc("kafka_server_produce_throttle_time",
			"Average produce throttle time (ms) given to the user/client-id.", quotaLabels, nil),
		clientquota.Fetch: prometheus.NewDesc("kafka_server_fetch_throttle_time",
			"Average fetch throttle time (ms) given to the user/client-id.", quotaLabels, nil),
		clientquota.Request: prometheus.NewDesc("kafka_server_request_throttle_time",
			"Average request-quota throttle time (ms) given to the user/client-id.", quotaLabels, nil),
	}
	descQuotaLimit = prometheus.NewDesc("kafgo_client_quota_limit",
		"The quota in force for the user/client-id sensor (bytes/s, or percent of a thread for type=request); absent when none applies.",
		[]string{"type", "user", "client_id"}, nil)
)

func collectQuotas(ch chan<- prometheus.Metric, q *clientquota.Manager) {
	if q == nil {
		return
	}
	for _, st := range q.Stats() {
		user := dynconfig.Sanitize(st.User)
		ch <- prometheus.MustNewConstMetric(descQuotaRates[st.Type], prometheus.GaugeValue, st.Rate, user, st.ClientID)
		ch <- prometheus.MustNewConstMetric(descQuotaThrottle[st.Type], prometheus.GaugeValue, st.ThrottleTimeMs, user, st.ClientID)
		if st.Limit != clientquota.Unlimited {
			ch <- prometheus.MustNewConstMetric(descQuotaLimit, prometheus.GaugeValue, st.Limit, strings.ToLower(st.Type.String()), user, st.ClientID)
		}
	}
}

func (s *Server) clientQuotas(w http.ResponseWriter, _ *http.Request) {
	out := []adminapi.ClientQuota{}
	if q := s.src.ClientQuotas; q != nil {
		now := time.Now()
		for _, st := range q.Stats() {
			v := adminapi.ClientQuota{
				Type: strings.ToLower(st.Type.String()), User: st.User, ClientID: st.ClientID,
				Rate: st.Rate, ThrottleTimeMs: st.ThrottleTimeMs, Throttled: st.ThrottledUntil.After(now),
			}
			if st.ThrottledUntil.UnixMilli() > 0 {
				v.ThrottledUntilMs = st.ThrottledUntil.UnixMilli()
			}
			if st.Limit != clientquota.Unlimited {
				l := st.Limit
				v.Limit = &l
			}
			out = append(out, v)
		}
	}
	writeJSON(w, out)
}
