package admin

import (
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Kafka's per-listener socket-server-metrics (the selector's metrics),
// without the networkProcessor label: kafgo has no network processor
// threads, every connection has its own goroutines.
var (
	listenerLabel     = []string{"listener"}
	descConnCount     = prometheus.NewDesc("kafka_server_socket_server_metrics_connection_count", "Open connections on the listener.", listenerLabel, nil)
	descConnCreated   = prometheus.NewDesc("kafka_server_socket_server_metrics_connection_creation_total", "Connections accepted on the listener.", listenerLabel, nil)
	descConnRate      = prometheus.NewDesc("kafka_server_socket_server_metrics_connection_creation_rate", "Connections accepted per second on the listener, over the last minute.", listenerLabel, nil)
	descConnClosed    = prometheus.NewDesc("kafka_server_socket_server_metrics_connection_close_total", "Connections closed on the listener.", listenerLabel, nil)
	descConnCloseRate = prometheus.NewDesc("kafka_server_socket_server_metrics_connection_close_rate", "Connections closed per second on the listener, over the last minute.", listenerLabel, nil)
	descAuthFailed    = prometheus.NewDesc("kafka_server_socket_server_metrics_failed_authentication_total",
		"Connections closed for failed authentication on the listener: TLS handshakes and SASL exchanges.", listenerLabel, nil)

	// Kafka's Acceptor meter: its count is the nanoseconds the acceptor
	// spent blocked waiting for a connection slot (max.connections).
	descAcceptorBlocked = prometheus.NewDesc("kafka_network_acceptor_acceptorblockedpercent_total",
		"Nanoseconds accepting on the listener waited for a connection slot (max.connections, listener.name.<l>.max.connections); its rate over 1e9 is the blocked fraction.", listenerLabel, nil)
	descConnRejected = prometheus.NewDesc("kafgo_network_connections_rejected_total",
		"Connections closed by the connection limits: reason per_ip (max.connections.per.ip and its overrides, closed at once) or max_connections (closed to make room for the inter-broker listener, or after the limit was lowered).", []string{"listener", "reason"}, nil)

	descNetIdle = prometheus.NewDesc("kafka_network_socketserver_networkprocessoravgidle_percent",
		"Fraction (0-1) of the time connections' readers spent waiting for a next request over the last minute (kafgo's analogue of the network processors' idle ratio).", nil, nil)
	// Cumulative, but gauges: a scrape racing a reader's wake-up can see
	// them step back by that one wait, which a counter must never do.
	descReaderIdle = prometheus.NewDesc("kafgo_network_reader_idle_seconds",
		"Time connections' readers spent waiting for a next request since start, summed over connections.", nil, nil)
	descReaderLive = prometheus.NewDesc("kafgo_network_reader_seconds",
		"Time connections have been open since start, summed over connections.", nil, nil)
	descHandlerIdle = prometheus.NewDesc("kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent",
		"Fraction (0-1) of the CPUs Go may use (GOMAXPROCS) that request handlers left unused over the last minute (kafgo's analogue of the request handler threads' idle ratio).", nil, nil)
)

func (c *collector) collectSocketServer(ch chan<- prometheus.Metric) {
	for _, l := range c.src.Wire.ListenerStats() {
		ch <- gauge(descConnCount, float64(l.OpenConns), l.Listener)
		ch <- counter(descConnCreated, l.Accepted, l.Listener)
		ch <- counter(descConnClosed, l.Closed, l.Listener)
		ch <- counter(descAuthFailed, l.AuthFailures, l.Listener)
		ch <- counter(descAcceptorBlocked, uint64(l.AcceptBlocked.Nanoseconds()), l.Listener)
		ch <- counter(descConnRejected, l.RejectedPerIP, l.Listener, "per_ip")
		ch <- counter(descConnRejected, l.ClosedExcess, l.Listener, "max_connections")
	}
}

// windowed reads the cumulative figures the windowed ones derive from,
// records them, and returns them with the sample to measure from.
func (c *collector) windowed(now time.Time) (cur map[string]float64, base sample) {
	cur = map[string]float64{}
	if c.src.Wire != nil {
		for _, l := range c.src.Wire.ListenerStats() {
			cur["accepted/"+l.Listener] = float64(l.Accepted)
			cur["closed/"+l.Listener] = float64(l.Closed)
		}
		idle, live := c.src.Wire.ReaderTime()
		cur["reader_idle"], cur["reader_live"] = idle.Seconds(), live.Seconds()
	}
	if c.src.Metrics != nil {
		cur["handler_busy"] = c.src.Metrics.Requests.LocalTimeTotal().Seconds()
	}
	return cur, c.win.add(now, cur)
}

// idleRatios are the network and request handler idle ratios between
// base and cur (1 when nothing was measured).
func (c *collector) idleRatios(now time.Time, cur map[string]float64, base sample) (network, handler float64) {
	network, handler = 1, 1
	if live := cur["reader_live"] - base.v["reader_live"]; live > 0 {
		network = clamp01((cur["reader_idle"] - base.v["reader_idle"]) / live)
	}
	if capacity := now.Sub(base.at).Seconds() * float64(runtime.GOMAXPROCS(0)); capacity > 0 {
		handler = clamp01(1 - (cur["handler_busy"]-base.v["handler_busy"])/capacity)
	}
	return network, handler
}

// collectWindowed exports the windowed figures: connection rates, the
// idle ratios, and the reader times they come from.
func (c *collector) collectWindowed(ch chan<- prometheus.Metric, now time.Time) {
	cur, base := c.windowed(now)
	network, handler := c.idleRatios(now, cur, base)
	if c.src.Wire != nil {
		secs := now.Sub(base.at).Seconds()
		for _, l := range c.src.Wire.ListenerStats() {
			ch <- gauge(descConnRate, rate(cur["accepted/"+l.Listener]-base.v["accepted/"+l.Listener], secs), l.Listener)
			ch <- gauge(descConnCloseRate, rate(cur["closed/"+l.Listener]-base.v["closed/"+l.Listener], secs), l.Listener)
		}
		ch <- gauge(descReaderIdle, cur["reader_idle"])
		ch <- gauge(descReaderLive, cur["reader_live"])
		ch <- gauge(descNetIdle, network)
	}
	if c.src.Metrics != nil {
		ch <- gauge(descHandlerIdle, handler)
	}
}

func rate(delta, secs float64) float64 {
	if secs <= 0 || delta < 0 {
		return 0
	}
	return delta / secs
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }
