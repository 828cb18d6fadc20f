package txn

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// MarkerSender is how the coordinator reaches partition leaders.
type MarkerSender interface {
	// Leader is the broker leading tp. ok is false only when tp's topic no
	// longer exists (it was deleted: its marker is skipped); leader is -1
	// when it has no live leader right now, or this broker's view of the
	// cluster does not show it yet (retried).
	Leader(tp partid.TopicPartition) (leader int32, ok bool)
	// Send delivers a WriteTxnMarkers request to a broker.
	Send(ctx context.Context, broker int32, req *kmsg.WriteTxnMarkersRequest) (*kmsg.WriteTxnMarkersResponse, error)
}

// markerJob is one transaction's marker phase (Kafka's PendingCompleteTxn
// with its TxnIdAndMarkerEntry queue entries).
type markerJob struct {
	m          *txnMeta
	sh         *shard
	producerID int64
	epoch      int16
	commit     bool
	complete   transit // the CompleteCommit/CompleteAbort to write at the end

	remaining []partid.TopicPartition // partitions whose marker is not written yet
	inFlight  map[partid.TopicPartition]bool
}

// markerManager sends WriteTxnMarkers (Kafka's
// TransactionMarkerChannelManager): markers are grouped by destination
// broker, one request in flight per broker carrying the markers of every
// transaction waiting for it; failures are retried until written, then the
// transaction's completion is logged.
//
// Lock order: txnMeta.mu before mm.mu; mm.mu is never held while taking a
// txnMeta's lock.
type markerManager struct {
	c      *Coordinator
	sender MarkerSender
	kick   chan struct{}

	mu   sync.Mutex
	jobs map[string]*markerJob // by transactional id
	busy map[int32]bool        // a request to this broker is in flight
}

func newMarkerManager(c *Coordinator, sender MarkerSender) *markerManager {
	return &markerManager{c: c, sender: sender, kick: make(chan struct{}, 1), jobs: map[string]*markerJob{}, busy: map[int32]bool{}}
}

func (mm *markerManager) wake() {
	select {
	case mm.kick <- struct{}{}:
	default:
	}
}

func (mm *markerManager) add(j *markerJob) {
	j.inFlight = map[partid.TopicPartition]bool{}
	mm.mu.Lock()
	mm.jobs[j.m.id] = j
	mm.mu.Unlock()
	mm.wake()
}

// pending reports the transactional ids with markers to write (tests).
func (mm *markerManager) pending() []string {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	var out []string
	for id := range mm.jobs {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// run sends until the coordinator stops: at once when work arrives, and
// every retry backoff for markers that could not be sent.
func (mm *markerManager) run() {
	t := time.NewTicker(mm.c.cfg.MarkerRetryBackoff)
	defer t.Stop()
	for {
		select {
		case <-mm.c.ctx.Done():
			return
		case <-mm.kick:
		case <-t.C:
		}
		mm.drain()
	}
}

// send is one request's part for one transaction.
type send struct {
	j   *markerJob
	tps []partid.TopicPartition
}

func (mm *markerManager) drain() {
	// Leaders are looked up off the lock: a lookup may ask the metadata
	// store whether a topic the cluster view lacks still exists.
	mm.mu.Lock()
	var tps []partid.TopicPartition
	for id, j := range mm.jobs {
		if j.sh.ctx.Err() != nil {
			delete(mm.jobs, id)
			continue
		}
		for _, tp := range j.remaining {
			if !j.inFlight[tp] && !slices.Contains(tps, tp) {
				tps = append(tps, tp)
			}
		}
	}
	mm.mu.Unlock()
	type leader struct {
		id    int32
		known bool
	}
	leaders := make(map[partid.TopicPartition]leader, len(tps))
	for _, tp := range tps {
		id, known := mm.sender.Leader(tp)
		leaders[tp] = leader{id, known}
	}

	var skipped []send
	var completed []*markerJob
	perBroker := map[int32][]send{}
	mm.mu.Lock()
	for id, j := range mm.jobs {
		byBroker := map[int32][]partid.TopicPartition{}
		var gone []partid.TopicPartition
		for _, tp := range j.remaining {
			l, looked := leaders[tp]
			switch {
			case j.inFlight[tp] || !looked:
			case !l.known:
				// Gone from the cluster: the topic was deleted, and so
				// was the data the marker would close.
				gone = append(gone, tp)
			case l.id >= 0 && !mm.busy[l.id]:
				byBroker[l.id] = append(byBroker[l.id], tp)
			}
		}
		if len(gone) > 0 {
			mm.c.logger.Info("skipping transaction markers of deleted partitions", "transactional_id", id, "partitions", gone)
			j.remaining = slices.DeleteFunc(j.remaining, func(tp partid.TopicPartition) bool { return slices.Contains(gone, tp) })
			skipped = append(skipped, send{j, gone})
		}
		for b, tps := range byBroker {
			for _, tp := range tps {
				j.inFlight[tp] = true
			}
			perBroker[b] = append(perBroker[b], send{j, tps})
		}
		if len(j.remaining) == 0 {
			delete(mm.jobs, id)
			completed = append(completed, j)
		}
	}
	for b, sends := range perBroker {
		mm.busy[b] = true
		b, sends := b, sends
		if !mm.c.goBackground(func() { mm.sendTo(b, sends) }) {
			mm.busy[b] = false
		}
	}
	mm.mu.Unlock()
	for _, s := range skipped {
		mm.markersWritten(s.j, s.tps)
	}
	for _, j := range completed {
		mm.c.completeTxn(j)
	}
}

// sendTo sends one WriteTxnMarkers to broker b and files the outcome.
func (mm *markerManager) sendTo(b int32, sends []send) {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	req.Version = 0 // served by every broker that serves the API
	for _, s := range sends {
		mk := kmsg.NewWriteTxnMarkersRequestMarker()
		mk.ProducerID, mk.ProducerEpoch, mk.Committed, mk.CoordinatorEpoch = s.j.producerID, s.j.epoch, s.j.commit, s.j.sh.epoch
		for _, tp := range partid.ByTopic(s.tps) {
			t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
			t.Topic, t.Partitions = tp.Topic, tp.Partitions
			mk.Topics = append(mk.Topics, t)
		}
		req.Markers = append(req.Markers, mk)
	}
	ctx, cancel := context.WithTimeout(mm.c.ctx, mm.c.cfg.WriteTimeout)
	resp, err := mm.sender.Send(ctx, b, req)
	cancel()
	codes := map[int64]map[partid.TopicPartition]int16{}
	if err != nil {
		mm.c.logger.Debug("sending transaction markers failed; retrying", "broker", b, "err", err)
	} else {
		for _, rm := range resp.Markers {
			m := codes[rm.ProducerID]
			if m == nil {
				m = map[partid.TopicPartition]int16{}
				codes[rm.ProducerID] = m
			}
			for _, rt := range rm.Topics {
				for _, rp := range rt.Partitions {
					m[partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition}] = rp.ErrorCode
				}
			}
		}
	}
	mm.file(b, sends, codes)
}

// Marker outcomes, as Kafka's TransactionMarkerRequestCompletionHandler
// sorts the partition errors.
const (
	markerRetry = iota
	markerDone
	markerGiveUp
)

func markerOutcome(code int16, known bool) int {
	if !known {
		return markerRetry // no answer for it (the request failed)
	}
	switch kerr.ErrorForCode(code) {
	case nil:
		return markerDone
	case kerr.UnknownTopicOrPartition, kerr.NotLeaderForPartition, kerr.NotEnoughReplicas, kerr.NotEnoughReplicasAfterAppend,
		kerr.RequestTimedOut, kerr.KafkaStorageError, kerr.CoordinatorLoadInProgress:
		return markerRetry
	case kerr.UnsupportedForMessageFormat, kerr.UnsupportedVersion:
		// The partition cannot hold markers: skip it, as Kafka does.
		return markerDone
	}
	// INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED: a newer
	// producer epoch or coordinator owns the transaction now. Anything
	// else is a bug Kafka treats as fatal.
	return markerGiveUp
}

func (mm *markerManager) file(b int32, sends []send, codes map[int64]map[partid.TopicPartition]int16) {
	var written []send
	var completed []*markerJob
	mm.mu.Lock()
	mm.busy[b] = false
	for _, s := range sends {
		j := s.j
		for _, tp := range s.tps {
			delete(j.inFlight, tp)
		}
		if mm.jobs[j.m.id] != j || j.sh.ctx.Err() != nil {
			continue // dropped meanwhile, or the partition moved
		}
		var done []partid.TopicPartition
		giveUp := false
		for _, tp := range s.tps {
			code, known := codes[j.producerID][tp]
			switch markerOutcome(code, known) {
			case markerDone:
				done = append(done, tp)
			case markerGiveUp:
				giveUp = true
				mm.c.logger.Warn("giving up transaction markers", "transactional_id", j.m.id, "partition", tp.String(), "err", kerr.ErrorForCode(code))
			}
		}
		if giveUp {
			delete(mm.jobs, j.m.id)
			continue
		}
		if len(done) > 0 {
			j.remaining = slices.DeleteFunc(j.remaining, func(tp partid.TopicPartition) bool { return slices.Contains(done, tp) })
			written = append(written, send{j, done})
		}
		if len(j.remaining) == 0 {
			delete(mm.jobs, j.m.id)
			completed = append(completed, j)
		}
	}
	mm.mu.Unlock()
	for _, s := range written {
		mm.markersWritten(s.j, s.tps)
	}
	for _, j := range completed {
		mm.c.completeTxn(j)
	}
	mm.wake()
}

// markersWritten drops the partitions whose markers are written from the
// transaction's metadata, as Kafka's removePartition does.
func (mm *markerManager) markersWritten(j *markerJob, tps []partid.TopicPartition) {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	if j.m.state != PrepareCommit && j.m.state != PrepareAbort {
		return
	}
	for _, tp := range tps {
		delete(j.m.partitions, tp)
	}
}

// completeTxn logs CompleteCommit/CompleteAbort once every marker is
// written, retrying until it lands or the partition moves.
func (c *Coordinator) completeTxn(j *markerJob) {
	m := j.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if !c.owns(j.sh) || !m.hasPending || m.pending != j.complete.state || m.producerID != j.producerID {
		return
	}
	c.write(m, j.complete, true, func(err *kerr.Error) {
		switch err {
		case nil:
			c.logger.Debug("completed transaction", "transactional_id", m.id, "state", j.complete.state)
		case kerr.NotCoordinator, kerr.CoordinatorLoadInProgress:
			// The partition moved: its new leader completes it.
		default:
			c.logger.Warn("writing the transaction completion failed; retrying", "transactional_id", m.id, "err", err)
			c.goBackground(func() {
				select {
				case <-c.ctx.Done():
				case <-time.After(c.cfg.MarkerRetryBackoff):
					c.completeTxn(j)
				}
			})
		}
	})
}
