package storage

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"kafgo/broker/record"
)

// Batch attribute bits storage needs (RecordBatch v2, see doc.go).
const (
	attrCompressionMask = 0x07
	attrLogAppendTime   = 0x08
)

// batchMeta is one batch of an append buffer.
type batchMeta struct {
	h   record.BatchHeader
	pos int // where the batch starts in the buffer
}

// bytes is the batch within its append buffer b.
func (m *batchMeta) bytes(b []byte) []byte { return b[m.pos : m.pos+m.h.Size()] }

// AppendAsLeader appends batches (concatenated v2 batches, already validated
// by the caller) as the partition leader: each batch gets consecutive
// offsets from the log end offset and partitionLeaderEpoch = leaderEpoch,
// rewritten in place in batches (the CRC does not cover either field).
//
// Batches with a producer id are checked against the producer state first,
// all-or-nothing: if any batch repeats one of its producer's last five, no
// batch is appended and the result carries Duplicate and that batch's
// original offsets; an epoch or sequence violation fails the whole append
// with ErrInvalidProducerEpoch, ErrOutOfOrderSequence or ErrUnknownProducerID.
//
// A failed write (ENOSPC...) returns the error with the log unchanged.
//
// The batches come from a client (AppendAsLeaderFrom with OriginClient).
func (l *Log) AppendAsLeader(batches []byte, leaderEpoch int32) (AppendInfo, error) {
	return l.append(batches, leaderEpoch, OriginClient)
}

// AppendAsLeaderFrom is AppendAsLeader for batches written by origin: a
// coordinator's batches skip duplicate detection and sequence checks (see
// AppendOrigin). OriginReplication is not a leader origin and is refused.
//
// Transactions: a transactional batch opens its producer's transaction; a
// marker (control batch) ends it, failing with ErrInvalidProducerEpoch or
// ErrCoordinatorFenced when stale; an ABORT marker adds an entry to the
// active segment's transaction index.
func (l *Log) AppendAsLeaderFrom(batches []byte, leaderEpoch int32, origin AppendOrigin) (AppendInfo, error) {
	if origin == OriginReplication {
		return AppendInfo{FirstOffset: -1, LastOffset: -1}, fmt.Errorf("storage: %s: a leader append cannot have the replication origin", l.tp)
	}
	return l.append(batches, leaderEpoch, origin)
}

// AppendEndTxnMarker appends the COMMIT or ABORT marker of producerID's
// transaction as the leader (Kafka's appendAsLeader of an end-transaction
// marker with the coordinator origin): one control record whose value
// carries coordinatorEpoch, stamped with the log's clock, as LogAppendTime
// when the topic uses it (Kafka's validator stamps every batch so).
func (l *Log) AppendEndTxnMarker(producerID int64, producerEpoch int16, coordinatorEpoch int32, commit bool, leaderEpoch int32, logAppendTime bool) (AppendInfo, error) {
	typ := record.ControlAbort
	if commit {
		typ = record.ControlCommit
	}
	now := l.nowMs()
	b, err := record.BuildEndTxnMarker(0, producerID, producerEpoch, typ, coordinatorEpoch, now)
	if err != nil {
		return AppendInfo{FirstOffset: -1, LastOffset: -1}, fmt.Errorf("storage: %s: %w", l.tp, err)
	}
	if logAppendTime {
		record.SetMaxTimestamp(b, true, now)
	}
	return l.append(b, leaderEpoch, OriginCoordinator)
}

// AppendAsFollower appends batches fetched from the leader, keeping their
// offsets and epochs. The first batch must not start below the log end
// offset (it may start above it: compaction leaves gaps) and offsets must
// increase. Each batch whose epoch is above the latest cached one starts a
// new leader epoch entry. Producer state and transactions are recorded
// without validation, so the follower's LSO and transaction index match
// the leader's.
func (l *Log) AppendAsFollower(batches []byte) (AppendInfo, error) {
	return l.append(batches, -1, OriginReplication)
}

func (l *Log) append(batches []byte, leaderEpoch int32, origin AppendOrigin) (AppendInfo, error) {
	l.mu.Lock()
	info, err := l.appendLocked(batches, leaderEpoch, origin)
	err = l.fail(err)
	cfg := l.cfg.Load()
	flush := err == nil && info.NumBatches > 0 && !info.Duplicate &&
		l.leo.Load()-l.recoveryPoint.Load() >= cfg.FlushMessages
	l.mu.Unlock()
	if flush {
		// flush.messages: the caller waits for durability, other appends
		// need not, so this runs outside the writer lock, and one fsync
		// serves every append waiting for it (flushCovering).
		if err := l.flushCovering(info.LastOffset + 1); err != nil {
			// The append is written but not durable: not acknowledged.
			return info, l.fail(err)
		}
	}
	return info, err
}

func (l *Log) appendLocked(b []byte, leaderEpoch int32, origin AppendOrigin) (AppendInfo, error) {
	leader := origin != OriginReplication
	info := AppendInfo{FirstOffset: -1, LastOffset: -1, MaxTimestamp: noTimestamp, OffsetOfMaxTimestamp: -1, LogStartOffset: l.logStart.Load()}
	if err := l.checkUsableLocked(); err != nil {
		return info, err
	}
	if len(b) == 0 {
		return info, nil
	}
	cfg := l.cfg.Load()
	if int64(len(b)) > cfg.SegmentBytes {
		return info, fmt.Errorf("storage: %s: append of %d bytes exceeds segment.bytes %d: %w", l.tp, len(b), cfg.SegmentBytes, ErrBatchTooLarge)
	}
	metas, err := l.splitBatches(b)
	if err != nil {
		return info, err
	}
	leo := l.leo.Load()
	pa := &l.pstage
	pa.reset()
	if origin == OriginClient {
		for i := range metas {
			if dup, ok := l.producers.findDuplicate(&metas[i].h); ok {
				info.Duplicate = true
				info.FirstOffset, info.LastOffset = dup.FirstOffset, dup.LastOffset
				info.MaxTimestamp, info.OffsetOfMaxTimestamp = dup.Timestamp, dup.LastOffset
				return info, nil
			}
		}
	}
	if leader {
		next := leo
		for i := range metas {
			h := &metas[i].h
			h.BaseOffset, h.PartitionLeaderEpoch = next, leaderEpoch
			next = h.NextOffset()
			if err := l.producers.stage(pa, h, metas[i].bytes(b), origin); err != nil {
				return info, fmt.Errorf("storage: %s: append at offset %d: %w", l.tp, h.BaseOffset, err)
			}
		}
		for i := range metas {
			m := &metas[i]
			batch := b[m.pos : m.pos+m.h.Size()]
			record.SetBaseOffset(batch, m.h.BaseOffset)
			record.SetPartitionLeaderEpoch(batch, leaderEpoch)
		}
	} else {
		prev := leo
		for i := range metas {
			h := &metas[i].h
			if h.BaseOffset < prev {
				sentinel := ErrOffsetsOutOfOrder
				if i == 0 {
					sentinel = ErrUnexpectedAppendOffset
				}
				return info, fmt.Errorf("storage: %s: follower batch %d starts at %d, expected at least %d: %w", l.tp, i, h.BaseOffset, prev, sentinel)
			}
			prev = h.NextOffset()
			if err := l.producers.stage(pa, h, metas[i].bytes(b), OriginReplication); err != nil {
				return info, fmt.Errorf("storage: %s: follower append at offset %d: %w", l.tp, h.BaseOffset, err)
			}
		}
	}
	first, last := metas[0].h.BaseOffset, metas[len(metas)-1].h.LastOffset()
	if last-first > math.MaxInt32 {
		return info, fmt.Errorf("storage: %s: append spans offsets %d..%d, more than a segment can index: %w", l.tp, first, last, ErrInvalidBatch)
	}
	maxTs, maxTsOff, err := appendTimestamps(b, metas, leader)
	if err != nil {
		return info, fmt.Errorf("storage: %s: %w", l.tp, err)
	}
	seg := l.active()
	if seg.shouldRoll(cfg, int64(len(b)), maxTs, last, l.nowMs()) {
		if seg, err = l.rollLocked(first); err != nil {
			return info, err
		}
	}
	epochsAdded, err := l.assignEpochsLocked(metas)
	if err != nil {
		return info, err
	}
	undoEpochs := func() {
		if epochsAdded {
			if terr := l.epochs.TruncateFromEnd(first); terr != nil {
				l.logger.Error("storage: cannot undo leader epoch of a failed append", "err", terr)
			}
		}
	}
	// Aborted transactions are indexed before the bytes are written, so a
	// failure of either leaves both as they were.
	aborted := l.producers.abortedEntries(pa)
	if err := seg.txnIdx.append(aborted); err != nil {
		undoEpochs()
		return info, err
	}
	// The tail index learns the batches first: readers trust only what
	// lies below the size seg.append publishes.
	pos0 := seg.size.Load()
	for i := range metas {
		seg.tail.add(metas[i].h.BaseOffset, metas[i].h.LastOffset(), pos0+int64(metas[i].pos))
	}
	if err := seg.append(b, last, maxTs, maxTsOff, int64(cfg.IndexIntervalBytes)); err != nil {
		seg.tail.truncate(pos0)
		undoEpochs()
		if len(aborted) > 0 {
			if terr := seg.txnIdx.truncateTo(first); terr != nil {
				l.logger.Error("storage: cannot undo transaction index entries of a failed append", "err", terr)
			}
		}
		return info, err
	}
	l.producers.commit(pa, last+1)
	l.leo.Store(last + 1)
	seg.publishStats()

	info.FirstOffset, info.LastOffset = first, last
	info.MaxTimestamp, info.OffsetOfMaxTimestamp = maxTs, maxTsOff
	info.NumBatches, info.Bytes = len(metas), len(b)
	for i := range metas {
		info.NumRecords += int(metas[i].h.RecordCount)
	}
	return info, nil
}

// splitBatches parses the header of every batch in b, checking each length
// against the bytes that remain.
func (l *Log) splitBatches(b []byte) ([]batchMeta, error) {
	metas := l.scratch[:0]
	for p := 0; p < len(b); {
		rem := len(b) - p
		if rem < record.BatchHeaderSize {
			return nil, fmt.Errorf("storage: %s: append byte %d: %d trailing bytes are not a batch: %w", l.tp, p, rem, ErrInvalidBatch)
		}
		h, err := record.ParseBatchHeader(b[p : p+record.BatchHeaderSize])
		if err != nil {
			return nil, fmt.Errorf("storage: %s: append byte %d: %w: %w", l.tp, p, ErrInvalidBatch, err)
		}
		if h.Size() > rem {
			return nil, fmt.Errorf("storage: %s: append byte %d: batch of %d bytes, only %d left: %w", l.tp, p, h.Size(), rem, ErrInvalidBatch)
		}
		metas = append(metas, batchMeta{h: h, pos: p})
		p += h.Size()
	}
	l.scratch = metas
	return metas, nil
}

// appendTimestamps computes the largest timestamp of an append and the
// offset the time index gets for it: Kafka's shallowOffsetOfMaxTimestamp,
// the last offset of the earliest batch carrying that timestamp. Kafka's
// recovery, followers and cleaner all index a batch by its last offset, and
// kafka-dump-log's time index check requires it, so the leader does the
// same. The timestamp of an uncompressed CreateTime batch appended as
// leader is taken from its records, as Kafka's leader-side validation
// does; otherwise the batch's maxTimestamp (under LogAppendTime the
// broker's time, stamped by the caller).
func appendTimestamps(b []byte, metas []batchMeta, leader bool) (ts, off int64, err error) {
	ts, off = noTimestamp, -1
	for i := range metas {
		h := &metas[i].h
		bts := h.MaxTimestamp
		if leader && h.Attributes&(attrLogAppendTime|attrCompressionMask) == 0 {
			bts, err = maxRecordTimestamp(b[metas[i].pos:metas[i].pos+h.Size()], h)
			if err != nil {
				return ts, off, err
			}
		}
		if bts > ts {
			ts, off = bts, h.LastOffset()
		}
	}
	return ts, off, nil
}

// assignEpochsLocked starts a leader epoch entry for each batch whose epoch
// is above the latest cached one. It runs before the bytes are written so a
// failure to persist the cache fails the append with nothing written.
func (l *Log) assignEpochsLocked(metas []batchMeta) (added bool, err error) {
	for i := range metas {
		h := &metas[i].h
		if h.PartitionLeaderEpoch < 0 || !l.epochs.latestBelow(h.PartitionLeaderEpoch) {
			continue
		}
		if err := l.epochs.Assign(h.PartitionLeaderEpoch, h.BaseOffset); err != nil {
			if added {
				if terr := l.epochs.TruncateFromEnd(metas[0].h.BaseOffset); terr != nil {
					err = errors.Join(err, terr)
				}
			}
			return false, err
		}
		added = true
	}
	return added, nil
}

// Roll closes the active segment and starts a new one at the log end offset
// (a no-op when the active segment is empty).
func (l *Log) Roll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return err
	}
	_, err := l.rollLocked(l.leo.Load())
	return l.fail(err)
}

// rollLocked starts a new active segment at newBase (at least the log end
// offset): the old one gets its final time index entry and trimmed indexes,
// a producer snapshot is written at the new base, and the old segments are
// flushed in the background, which moves the recovery point up to newBase,
// as Kafka's roll does. If creating the new files fails the old segment
// stays active, untouched.
func (l *Log) rollLocked(newBase int64) (*segment, error) {
	newBase = max(newBase, l.leo.Load())
	old := l.active()
	if old.base == newBase {
		return old, nil
	}
	ns, err := createSegment(l.fs, l.dir, newBase, l.cfg.Load(), l.nowMs(), l.logger)
	if err != nil {
		return nil, err
	}
	if err := old.seal(); err != nil {
		ns.removeFiles()
		return nil, err
	}
	old.tail.reset()
	l.publishSegments(append(slices.Clone(l.segments()), ns))
	l.dirDirty = true
	l.producers.setMapEnd(newBase)
	if err := l.producers.takeSnapshot(newBase); err != nil {
		return nil, fmt.Errorf("storage: %s: producer snapshot on roll at %d: %w", l.tp, newBase, err)
	}
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		if err := l.flushTo(newBase); err != nil && !errors.Is(err, ErrClosed) {
			l.logger.Error("storage: flush after roll", "offset", newBase, "err", err)
		}
	}()
	return ns, nil
}
