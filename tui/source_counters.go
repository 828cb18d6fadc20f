package tui

import (
	"context"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// counterReader reads a broker's cumulative byte counters from its admin
// endpoint at base (http://host:port). It is the one place that knows
// where throughput comes from, so that a broker exporting other metrics
// needs only another reader (or other names).
type counterReader interface {
	counters(ctx context.Context, base string) (*Counters, error)
}

// counterNames are the Prometheus families holding bytes in and out,
// best first: the first one a broker exposes is used. A sample with a
// "topic" label counts for that topic; one without is the broker's total
// (the topics' sum stands in when there is none).
//
// Kafka's BrokerTopicMetrics under their JMX exporter names (per topic and
// in total) come first: kafgo's /metrics serves them, as does a Kafka
// broker with the JMX exporter. The wire totals (kafgo_network_*, bytes
// on client connections) are the fallback for an endpoint without them.
var counterNames = struct{ bytesIn, bytesOut []string }{
	bytesIn:  []string{"kafka_server_brokertopicmetrics_bytesin_total", "kafgo_network_received_bytes_total"},
	bytesOut: []string{"kafka_server_brokertopicmetrics_bytesout_total", "kafgo_network_sent_bytes_total"},
}

// promCounters reads GET /metrics.
type promCounters struct{ http *http.Client }

// metricsPath is where an admin endpoint serves Prometheus text.
const metricsPath = "/metrics"

func (p promCounters) counters(ctx context.Context, base string) (*Counters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+metricsPath, nil)
	if err != nil {
		return nil, err
	}
	// Ask for the text format: it is what expfmt's text parser reads.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", metricsPath, resp.Status)
	}
	return parseCounters(io.LimitReader(resp.Body, maxAdminBody))
}

// parseCounters extracts the byte counters from Prometheus text.
func parseCounters(r io.Reader) (*Counters, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", metricsPath, err)
	}
	c := &Counters{BytesIn: -1, BytesOut: -1}
	in, inTopics := pickCounter(fams, counterNames.bytesIn)
	out, outTopics := pickCounter(fams, counterNames.bytesOut)
	c.BytesIn, c.BytesOut = in, out
	for name, v := range inTopics {
		tc := c.topic(name)
		tc.BytesIn = v
		c.Topics[name] = tc
	}
	for name, v := range outTopics {
		tc := c.topic(name)
		tc.BytesOut = v
		c.Topics[name] = tc
	}
	return c, nil
}

func (c *Counters) topic(name string) TopicCounters {
	if c.Topics == nil {
		c.Topics = map[string]TopicCounters{}
	}
	if tc, ok := c.Topics[name]; ok {
		return tc
	}
	return TopicCounters{BytesIn: -1, BytesOut: -1}
}

// pickCounter reads the first of names present: its unlabelled total (or
// the sum of its topics) and its per-topic values.
func pickCounter(fams map[string]*dto.MetricFamily, names []string) (float64, map[string]float64) {
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			continue
		}
		total, haveTotal, sum := 0.0, false, 0.0
		topics := map[string]float64{}
		for _, m := range f.GetMetric() {
			v := sampleValue(m)
			topic := ""
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "topic" {
					topic = lp.GetValue()
				}
			}
			if topic == "" {
				total, haveTotal = total+v, true
				continue
			}
			topics[topic] += v
			sum += v
		}
		if !haveTotal {
			if len(topics) == 0 {
				continue
			}
			total = sum
		}
		return total, topics
	}
	return -1, nil
}

func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}
