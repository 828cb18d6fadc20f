package tui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Source produces snapshots of a cluster. The model calls Snapshot from a
// bubbletea command goroutine, one call at a time.
type Source interface {
	// Snapshot observes the cluster. An error means there is nothing to
	// show (no Metadata answer); partial failures are Snapshot.Warnings.
	Snapshot(ctx context.Context) (*Snapshot, error)
}

// Live observes a running cluster over the Kafka protocol and, for the
// brokers listed in admin, their admin HTTP endpoints.
type Live struct {
	cl       *kgo.Client
	adm      *kadm.Client
	admin    []string
	http     *http.Client
	counters counterReader
	now      func() time.Time
	rb       rebalanceRun // the rebalance the workbench started, if any
}

// NewLive builds a live source on cl (which the caller closes). admin lists
// admin endpoints as host:port or URLs; it may be empty.
func NewLive(cl *kgo.Client, admin []string) *Live {
	h := &http.Client{}
	return &Live{cl: cl, adm: kadm.NewClient(cl), admin: admin, http: h, counters: promCounters{http: h}, now: time.Now}
}

// Snapshot asks Metadata first, because every other question (which
// leader to ask for offsets, which partitions a replica map belongs to)
// depends on it; the rest runs in parallel and only adds warnings when it
// fails.
func (l *Live) Snapshot(ctx context.Context) (*Snapshot, error) {
	s, err := l.metadata(ctx)
	if err != nil {
		return nil, err
	}
	var (
		wg         sync.WaitGroup
		hw, leo    offsetsResult
		start      offsetsResult
		groups     groupsResult
		adminViews []adminReport
		txns       *Transactions
		moves      *Reassignments
		topicCfg   map[string]map[string]string
		topicErr   error
	)
	// Which optional APIs the brokers serve, asked once for the views
	// that need to know.
	versions := sync.OnceValues(func() (kadm.BrokersApiVersions, error) { return l.adm.ApiVersions(ctx) })
	topics := make([]string, 0, len(s.Topics))
	for _, t := range s.Topics {
		topics = append(topics, t.Name)
	}
	wg.Add(8)
	go func() { defer wg.Done(); hw = l.listOffsets(ctx, s, consumerReplicaID, latestOffset) }()
	go func() { defer wg.Done(); leo = l.listOffsets(ctx, s, debugReplicaID, latestOffset) }()
	// The log start any Kafka gives (the admin endpoints give it too).
	go func() { defer wg.Done(); start = l.listOffsets(ctx, s, consumerReplicaID, earliestOffset) }()
	go func() { defer wg.Done(); groups = l.groups(ctx) }()
	go func() { defer wg.Done(); adminViews = l.adminReports(ctx) }()
	go func() { defer wg.Done(); txns = l.transactions(ctx, versions) }()
	go func() { defer wg.Done(); moves = l.reassignments(ctx, s, versions) }()
	go func() {
		defer wg.Done()
		// One DescribeConfigs round for every topic config a view needs.
		topicCfg, topicErr = l.topicConfigs(ctx, topics, minISRConfig, leaderThrottledReplicas, followerThrottledReplicas)
	}()
	wg.Wait()
	s.Transactions, s.Reassignments = txns, moves
	if txns != nil && txns.Err != "" {
		s.Warnings = append(s.Warnings, txns.Err)
	}
	if moves != nil && moves.Err != "" {
		s.Warnings = append(s.Warnings, moves.Err)
	}
	if topicErr != nil {
		s.Warnings = append(s.Warnings, "topic configs: "+topicErr.Error())
	}
	for i := range s.Topics {
		if n, err := strconv.Atoi(topicCfg[s.Topics[i].Name][minISRConfig]); err == nil {
			s.Topics[i].MinISR = n
		}
	}
	moves.throttledTopics(topicCfg)
	if w := moves.leftoverWarning(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}

	for ti := range s.Topics {
		t := &s.Topics[ti]
		for pi := range t.Partitions {
			p := &t.Partitions[pi]
			key := tp{t.Name, p.ID}
			if off, ok := hw.offsets[key]; ok {
				p.HW = off
			}
			if off, ok := leo.offsets[key]; ok {
				p.LEO = off
			}
			if off, ok := start.offsets[key]; ok {
				p.LogStart = off
			}
		}
	}
	s.Warnings = append(s.Warnings, hw.warnings("high watermark")...)
	s.Warnings = append(s.Warnings, leo.warnings("log end offset")...)
	mergeAdmin(s, adminViews)
	mergeGroups(s, groups)
	mergeHealth(s, adminViews)
	s.Normalize()
	return s, nil
}

// tp names a partition.
type tp struct {
	topic     string
	partition int32
}

func (k tp) String() string { return fmt.Sprintf("%s-%d", k.topic, k.partition) }
