package group

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/record"
)

// txnOffset is an offset committed in a transaction: pending until the
// transaction's marker reaches the group's __consumer_offsets partition
// (Kafka's CommitRecordMetadataAndOffset in
// pendingTransactionalOffsetCommits).
type txnOffset struct {
	entry    offsetEntry
	appended bool // its record is replicated; entry.logOffset is set
}

// txnMarker is a transaction marker seen while a shard loaded.
type txnMarker struct {
	producerID int64
	commit     bool
}

// TxnCommitRequest is a TxnOffsetCommit.
type TxnCommitRequest struct {
	Group         string
	ProducerID    int64
	ProducerEpoch int16
	// Generation, MemberID and InstanceID are TxnOffsetCommit v3's
	// (KIP-447): checked when set (generation >= 0, member id not "").
	Generation int32
	MemberID   string
	InstanceID *string
	Offsets    []CommitOffset
}

// TxnCommitOffsets handles a TxnOffsetCommit (Kafka's
// handleTxnCommitOffsets): the offsets are written to __consumer_offsets
// as the producer's transactional batch and stay pending, invisible to
// OffsetFetch, until OnTxnMarker reports the transaction's COMMIT on that
// partition. The answer (one error per offset, in request order) comes
// once the batch is replicated. A group that does not exist is created.
func (c *Coordinator) TxnCommitOffsets(req TxnCommitRequest) <-chan []*kerr.Error {
	ch := make(chan []*kerr.Error, 1)
	if req.Group == "" {
		ch <- fillErrs(len(req.Offsets), kerr.InvalidGroupID)
		return ch
	}
	g, err := c.lockGroup(req.Group, true)
	if err != nil {
		ch <- fillErrs(len(req.Offsets), err)
		return ch
	}
	defer g.mu.Unlock()
	switch {
	case g.staticFenced(req.InstanceID, req.MemberID):
		ch <- fillErrs(len(req.Offsets), kerr.FencedInstanceID)
	case req.MemberID != "" && g.members[req.MemberID] == nil:
		ch <- fillErrs(len(req.Offsets), kerr.UnknownMemberID)
	case req.Generation >= 0 && req.Generation != g.generation:
		ch <- fillErrs(len(req.Offsets), kerr.IllegalGeneration)
	default:
		c.doTxnCommit(g, req, ch)
	}
	return ch
}

func (c *Coordinator) doTxnCommit(g *group, req TxnCommitRequest, ch chan []*kerr.Error) {
	now := c.now().UnixMilli()
	recs, idx, entries, errs := c.offsetRecords(g, req.Offsets, -1, now)
	if len(recs) == 0 {
		ch <- errs
		return
	}
	fail := func(err *kerr.Error) {
		for _, i := range idx {
			errs[i] = err
		}
		ch <- errs
	}
	// Pending before the write (Kafka's prepareTxnOffsetCommit): a
	// require_stable OffsetFetch sees the partitions as unstable at once.
	pend := g.pendingTxn[req.ProducerID]
	if pend == nil {
		pend = map[TopicPartition]*txnOffset{}
		g.pendingTxn[req.ProducerID] = pend
	}
	mine := make([]*txnOffset, len(idx))
	for j, i := range idx {
		mine[j] = &txnOffset{entry: entries[j]}
		pend[req.Offsets[i].TopicPartition] = mine[j]
	}
	drop := func() {
		for j, i := range idx {
			tp := req.Offsets[i].TopicPartition
			if p := g.pendingTxn[req.ProducerID]; p != nil && p[tp] == mine[j] {
				delete(p, tp)
				if len(p) == 0 {
					delete(g.pendingTxn, req.ProducerID)
				}
			}
		}
	}
	res, err := c.appendTxnBatch(g.sh, req.ProducerID, req.ProducerEpoch, recs, now)
	if err != nil {
		c.logger.Warn("transactional offset commit write failed", "group", g.id, "producer_id", req.ProducerID, "err", err)
		drop()
		fail(commitError(err))
		return
	}
	c.goAfterWrite(g, res, func(err error) {
		if err != nil {
			c.logger.Warn("transactional offset commit write failed", "group", g.id, "producer_id", req.ProducerID, "err", err)
			drop()
			fail(commitError(err))
			return
		}
		for j := range mine {
			mine[j].entry.logOffset = res.FirstOffset + int64(j)
			mine[j].appended = true
		}
		ch <- errs
	})
}

// appendTxnBatch writes records as the producer's transactional batch
// with base sequence 0, as Kafka's group coordinator does: the partition
// checks a coordinator's batches against the producer's epoch only.
func (c *Coordinator) appendTxnBatch(sh *shard, producerID int64, epoch int16, recs []kv, ts int64) (AppendResult, error) {
	b := record.NewBuilder(0, c.cfg.Codec)
	b.SetProducer(producerID, epoch, 0)
	b.SetTransactional(true)
	for _, r := range recs {
		b.Append(ts, r.key, r.value, nil)
	}
	batch, err := b.Build()
	if err != nil {
		return AppendResult{}, err
	}
	return c.log.Append(sh.partition, c.cfg.RequiredAcks, batch)
}

// OnTxnMarker is called once a transaction marker is written to a
// partition this broker leads (the WriteTxnMarkers handler calls it after
// the append). On a __consumer_offsets partition it ends the producer's
// pending offset commits of the partition's groups: COMMIT makes them the
// committed offsets (unless a later commit already won), ABORT drops them.
// A marker that lands while the partition loads is applied when the load
// ends.
func (c *Coordinator) OnTxnMarker(tp partid.TopicPartition, producerID int64, producerEpoch int16, commit bool) {
	if c == nil || tp.Topic != OffsetsTopic {
		return
	}
	c.mu.Lock()
	sh, ok := c.shards[tp.Partition]
	if !ok || c.stopped {
		c.mu.Unlock()
		return
	}
	if sh.loading {
		sh.markers = append(sh.markers, txnMarker{producerID: producerID, commit: commit})
		c.mu.Unlock()
		return
	}
	groups := make([]*group, 0, len(sh.groups))
	for _, g := range sh.groups {
		groups = append(groups, g)
	}
	c.mu.Unlock()
	n := 0
	for _, g := range groups {
		g.mu.Lock()
		if g.state != Dead && g.pendingTxn[producerID] != nil {
			g.completeTxn(producerID, commit)
			n++
		}
		g.mu.Unlock()
	}
	if n > 0 {
		c.logger.Debug("transaction marker applied to offsets", "partition", tp.Partition, "producer_id", producerID,
			"epoch", producerEpoch, "commit", commit, "groups", n)
	}
}

// completeTxn ends a producer's pending offsets (Kafka's
// completePendingTxnOffsetCommit): on commit each becomes the committed
// offset unless the one there was written later.
func (g *group) completeTxn(producerID int64, commit bool) {
	pend := g.pendingTxn[producerID]
	delete(g.pendingTxn, producerID)
	if !commit {
		return
	}
	for tp, p := range pend {
		if !p.appended {
			continue // its write failed or is still in flight: nothing to make visible
		}
		if cur, ok := g.offsets[tp]; !ok || cur.logOffset < p.entry.logOffset {
			g.offsets[tp] = p.entry
		}
	}
}

// hasPendingOffset reports whether tp has a commit in flight or pending on
// a transaction: a require_stable OffsetFetch gets UNSTABLE_OFFSET_COMMIT.
func (g *group) hasPendingOffset(tp TopicPartition) bool {
	if len(g.pendingCommits[tp]) > 0 {
		return true
	}
	for _, pend := range g.pendingTxn {
		if _, ok := pend[tp]; ok {
			return true
		}
	}
	return false
}

// dropPendingTxn forgets the pending transactional offsets of tps (offset
// or group deletion, as Kafka's removeOffsets does).
func (g *group) dropPendingTxn(tps []TopicPartition) {
	for pid, pend := range g.pendingTxn {
		for _, tp := range tps {
			delete(pend, tp)
		}
		if len(pend) == 0 {
			delete(g.pendingTxn, pid)
		}
	}
}
