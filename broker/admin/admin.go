package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kafgo/broker/clientquota"
	"kafgo/broker/controller"
	"kafgo/broker/fetchsession"
	"kafgo/broker/group"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/txn"
	"kafgo/broker/wire"
	"kafgo/internal/adminapi"
	"kafgo/internal/consumerhealth"
)

// Source is what the endpoint reads; the broker provides it.
type Source struct {
	BrokerID        int32
	ClusterID       string
	Replicas        *replica.Manager
	Wire            *wire.Server
	ControllerID    func() int32
	IsController    func() bool
	ControllerEpoch func() int32
	// ClientQuotas, if set, adds the client quota sensors to /metrics and
	// /v1/quotas.
	ClientQuotas *clientquota.Manager

	// The rest feed Kafka's metric set on /metrics; each family is left
	// out when its source is nil.
	Metrics *metrics.Registry // request, topic, ISR, election and flush counters
	Logs    *storage.Manager  // per-partition Log gauges
	// Controller returns the KafkaController gauges (zero unless active).
	Controller func(ctx context.Context) controller.Stats
	// Groups snapshots the groups this broker coordinates.
	Groups func() []group.GroupSnapshot
	// EndOffsets returns the high watermarks of the partitions it can
	// learn before ctx ends (consumer group lag); missing ones are unknown.
	EndOffsets func(ctx context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64
	// Health evaluates the consumer health of the groups this broker
	// coordinates (/v1/consumer-health, the lag_seconds and status
	// series); nil leaves them out.
	Health func(ctx context.Context) []consumerhealth.GroupHealth
	// Txns returns the transaction coordinator's counts.
	Txns func() txn.Stats
	// FetchSessions reads the fetch session cache's figures (nil: none).
	FetchSessions func() fetchsession.Stats
	// Pprof serves Go's runtime profiles at /debug/pprof/
	// (admin.pprof.enable, off by default).
	Pprof bool
	// Debug are more handlers by path: the API server's fault table in an
	// e2e build (api.FaultsPath); none in a production build.
	Debug map[string]http.Handler
}

// Server is the HTTP endpoint.
type Server struct {
	src  Source
	col  *collector
	http *http.Server
	ln   net.Listener
	log  *slog.Logger
}

// Listen binds addr without serving yet: the broker binds before its
// start-up work, so a port in use fails at once, and serves (Serve) once
// the parts the endpoint reads exist.
func Listen(addr string, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin: admin.listener: %w", err)
	}
	return &Server{ln: ln, log: log, http: &http.Server{ReadHeaderTimeout: 10 * time.Second}}, nil
}

// Serve answers on the bound address from src until Shutdown.
func (s *Server) Serve(src Source) {
	reg := prometheus.NewRegistry()
	s.src, s.col = src, newCollector(src)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), s.col)
	mux := http.NewServeMux()
	endpoints := []endpoint{
		{"/metrics", "Kafka's metrics, Prometheus text format", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})},
		{adminapi.BrokerPath, "this broker: id, cluster id, the controller (JSON)", http.HandlerFunc(s.broker)},
		{adminapi.PartitionsPath, "this broker's replicas: leader, ISR, HW, LEO, followers' LEOs (JSON)", http.HandlerFunc(s.partitions)},
		{adminapi.QuotasPath, "connected clients' quota rates, limits, throttle times (JSON)", http.HandlerFunc(s.clientQuotas)},
		{adminapi.MetricsPath, "the figures of /metrics as JSON", http.HandlerFunc(s.v1Metrics)},
		{adminapi.ConsumerHealthPath, "the consumer groups this broker coordinates: lag and its health (JSON)", http.HandlerFunc(s.consumerHealth)},
	}
	for _, e := range endpoints {
		mux.Handle(e.path, e.handler)
	}
	if src.Pprof {
		handlePprof(mux)
		endpoints = append(endpoints, endpoint{path: "/debug/pprof/", doc: "Go runtime profiles (admin.pprof.enable)"})
	}
	for path, h := range src.Debug {
		mux.Handle(path, h)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { writeIndex(w, src.BrokerID, endpoints) })
	s.http.Handler = mux
	go func() {
		if err := s.http.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("admin endpoint stopped", "err", err)
		}
	}()
	s.log.Info("admin endpoint listening", "addr", s.ln.Addr().String())
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops the endpoint and releases its port, served or not.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	// http.Server closes only listeners it serves; one bound but never
	// served is closed here (a second close of a served one is harmless).
	_ = s.ln.Close()
	return err
}

func (s *Server) broker(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, adminapi.Broker{
		BrokerID: s.src.BrokerID, ClusterID: s.src.ClusterID, ControllerID: s.src.ControllerID(),
		IsController: s.src.IsController(), ControllerEpoch: s.src.ControllerEpoch(),
	})
}

func (s *Server) partitions(w http.ResponseWriter, _ *http.Request) {
	out := []adminapi.Partition{}
	for _, p := range s.src.Replicas.Partitions() {
		st := p.State()
		v := adminapi.Partition{
			Topic: st.TopicPartition.Topic, Partition: st.TopicPartition.Partition, Leader: st.Leader,
			LeaderEpoch: st.LeaderEpoch, Replicas: st.Replicas, ISR: st.ISR, IsLeader: st.IsLeader,
			HighWatermark: st.HighWatermark, LogStartOffset: st.LogStartOffset, LogEndOffset: st.LogEndOffset,
		}
		if st.IsLeader {
			v.ReplicaLEOs = map[string]int64{}
			for id, leo := range st.ReplicaLEOs {
				v.ReplicaLEOs[strconv.Itoa(int(id))] = leo
			}
		}
		out = append(out, v)
	}
	writeJSON(w, out)
}

// endpoint is one path the admin endpoint serves, with the line / shows
// for it.
type endpoint struct {
	path    string
	doc     string
	handler http.Handler
}

// writeIndex answers / with the list of endpoints, so that an operator who
// opens the admin address finds what is there.
func writeIndex(w http.ResponseWriter, brokerID int32, endpoints []endpoint) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	width := 0
	for _, e := range endpoints {
		width = max(width, len(e.path))
	}
	fmt.Fprintf(w, "kafgo admin endpoint of broker %d\n", brokerID)
	for _, e := range endpoints {
		fmt.Fprintf(w, "%-*s  %s\n", width, e.path, e.doc)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// handlePprof mounts net/http/pprof on mux (not on http.DefaultServeMux,
// which would expose it wherever the default mux is served).
// Mutex contention is sampled (1 in 100 events) from then on, so the
// mutex profile has data; block profiling stays off (it costs on every
// blocking operation).
func handlePprof(mux *http.ServeMux) {
	runtime.SetMutexProfileFraction(100)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
