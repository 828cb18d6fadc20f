package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/replica"
	"kafgo/internal/topicname"
)

// Produce (key 0).
// Batches are validated (CRC, magic, offsets, sizes) and appended as the
// producer wrote them; v0-v2 message sets are up-converted to v2 batches.
// acks=0 sends no response, acks=1 answers after the leader's append,
// acks=-1 waits in the purgatory until the HW passes the batch or the request
// times out; min.insync.replicas is checked before and after the append.
// Idempotent batches go through the producer-state sequence checks, and a
// duplicate is acknowledged with the offset of its first append. v10
// (KIP-951) answers NOT_LEADER_OR_FOLLOWER with the current leader and its
// endpoint, so a client follows a leadership hand-over without waiting for a
// metadata refresh.
// Authorization (Kafka 2.8): transactional batches (v3+) need the
// request's transactional_id and Write on it (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request; with acks=0
// the connection is closed instead), and each topic needs Write (else
// TOPIC_AUTHORIZATION_FAILED for its partitions, before anything else is
// looked at); auto-creating a missing topic needs Create. Idempotent
// producers were authorized at InitProducerId. Transactional batches
// open their producer's transaction,
// and a non-transactional batch from a producer with one open is
// INVALID_TXN_STATE. A stale producer epoch is INVALID_PRODUCER_EPOCH at
// every version (Kafka 2.7+ never answers PRODUCER_FENCED to Produce).
// Control batches come only from WriteTxnMarkers: INVALID_RECORD here.
// Produce goes down to v0 (with up-conversion of legacy message sets):
// librdkafka 2.0 compresses with gzip, snappy or lz4 only for a broker
// whose Produce range includes v0.
func init() { regKey(kmsg.NewPtrProduceRequest(), 0, 10, (*Server).handleProduce) }

// handleProduce keeps no reference to the request's record bytes once it
// returns (Server.Serve recycles the request buffer then): a change that
// reads c.Req's records in the Reply must drop that recycling.
func (s *Server) handleProduce(c *Call) Reply {
	req := c.Req.(*kmsg.ProduceRequest)
	resp := req.ResponseKind().(*kmsg.ProduceResponse)

	type slot struct{ ti, pi int }
	var parts []replica.ProducePartition
	var slots []slot
	for ti := range req.Topics {
		rt := &req.Topics[ti]
		respTopic := kmsg.NewProduceResponseTopic()
		respTopic.Topic = rt.Topic
		for pi := range rt.Partitions {
			rp := &rt.Partitions[pi]
			out := kmsg.NewProduceResponseTopicPartition()
			out.Partition = rp.Partition
			out.BaseOffset = -1
			out.LogAppendTime = -1
			out.LogStartOffset = -1
			respTopic.Partitions = append(respTopic.Partitions, out)
		}
		resp.Topics = append(resp.Topics, respTopic)
	}
	setErr := func(ti, pi int, err error) {
		s.log.Debug("produce refused", "topic", resp.Topics[ti].Topic, "partition", resp.Topics[ti].Partitions[pi].Partition, "err", err)
		out := &resp.Topics[ti].Partitions[pi]
		out.ErrorCode = errCode(err)
		out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
	}

	if req.Acks != 0 && req.Acks != 1 && req.Acks != -1 {
		for ti := range resp.Topics {
			for pi := range resp.Topics[ti].Partitions {
				setErr(ti, pi, kerr.InvalidRequiredAcks)
			}
		}
		return respond(resp)
	}
	if hasTransactionalRecords(req) && (req.TransactionID == nil || !s.authorize(c, acl.OpWrite, acl.TransactionalID, *req.TransactionID)) {
		if req.Acks == 0 {
			return func() Result { return Result{None: true, Close: true} }
		}
		for ti := range resp.Topics {
			for pi := range resp.Topics[ti].Partitions {
				setErr(ti, pi, kerr.TransactionalIDAuthorizationFailed)
			}
		}
		return respond(resp)
	}
	writable := s.authorizedNames(c, acl.OpWrite, acl.Topic, namesOf(req.Topics, func(t *kmsg.ProduceRequestTopic) string { return t.Topic }))

	appendTime := time.Now().UnixMilli()
	for ti := range req.Topics {
		rt := &req.Topics[ti]
		for pi := range rt.Partitions {
			rp := &rt.Partitions[pi]
			tp := partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition}
			if !writable[rt.Topic] {
				setErr(ti, pi, errTopicAuthorization)
				continue
			}
			if topicname.IsInternal(rt.Topic) {
				err := refuse(kerr.InvalidTopicException, "cannot append to internal topic %s", rt.Topic)
				s.produceRefused(tp, nil, err, len(rp.Records))
				setErr(ti, pi, err)
				continue
			}
			p, err := s.d.Replicas.LeaderPartition(tp)
			if err != nil {
				if _, known := s.d.Cache.View().Topic(rt.Topic); !known && s.d.Config().AutoCreateTopicsEnable && s.mayCreateTopic(c, rt.Topic) {
					// Like Metadata, a produce to a missing topic creates
					// it; the client retries once its leader is up.
					s.autoCreate(rt.Topic)
				}
				s.produceRefused(tp, nil, err, len(rp.Records))
				setErr(ti, pi, err)
				continue
			}
			records := rp.Records
			if req.Version < 3 {
				// Produce v0-v2 carry magic 0/1 message sets; the log is v2.
				if records, err = upConvert(records, p.Config()); err != nil {
					s.produceRefused(tp, p, err, len(rp.Records))
					setErr(ti, pi, err)
					continue
				}
			}
			if err := validateProduceBatch(tp, records, max(req.Version, 3), p.Config(), appendTime); err != nil {
				s.produceRefused(tp, p, err, len(records))
				setErr(ti, pi, err)
				continue
			}
			parts = append(parts, replica.ProducePartition{TP: tp, Batches: records})
			slots = append(slots, slot{ti, pi})
		}
	}

	results := s.d.Replicas.AppendToLeaders(req.Acks, parts)
	fill := func() {
		for i, r := range results {
			sl := slots[i]
			out := &resp.Topics[sl.ti].Partitions[sl.pi]
			if r.Err != nil {
				setErr(sl.ti, sl.pi, r.Err)
				continue
			}
			out.BaseOffset = r.Info.FirstOffset
			out.LogStartOffset = r.LogStartOffset
			if cfg, ok := s.partitionConfig(r.TP); ok && cfg.LogAppendTime {
				out.LogAppendTime = appendTime
			}
		}
	}

	// acks 0 and 1 answer at once, acks=-1 too when the ISR already has
	// every append (a leader alone in it): no wait, no writer goroutine.
	c.immediate = req.Acks != -1 || s.d.Replicas.AcksDone(results)
	if req.Acks == 0 {
		// No response; but a failed acks=0 produce closes the connection so
		// the client notices, as Kafka does.
		fill()
		failed := false
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				failed = failed || p.ErrorCode != 0
			}
		}
		return func() Result { return Result{None: true, Close: failed} }
	}
	if c.immediate { // acks=1, or acks=-1 already satisfied
		fill()
		s.leaderHints(resp, c.Listener(s.d.InterBrokerListener))
		return respond(resp)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
		defer cancel()
		s.d.Replicas.WaitForAcks(ctx, timeout, results)
		fill()
		s.leaderHints(resp, c.Listener(s.d.InterBrokerListener))
		return Result{Resp: resp}
	}
}

// leaderHints fills, for Produce v10+ (KIP-951), each NOT_LEADER_OR_FOLLOWER
// partition's current_leader and the node_endpoints of those leaders on the
// request's listener. A client then moves to the new leader at once: without
// the hint it must refresh metadata, which franz-go does at most every 5 s,
// and a refresh racing the controller's UpdateMetadata still names the old
// leader. The freshest knowledge wins: the leader this broker's replica
// learned from LeaderAndIsr (the one that demoted it) or the metadata cache,
// whichever has the higher leader epoch. A leader without a known endpoint
// is not hinted.
func (s *Server) leaderHints(resp *kmsg.ProduceResponse, listener string) {
	if resp.Version < 10 {
		return
	}
	view := s.d.Cache.View()
	hinted := map[int32]bool{}
	for ti := range resp.Topics {
		t := &resp.Topics[ti]
		for pi := range t.Partitions {
			out := &t.Partitions[pi]
			if out.ErrorCode != kerr.NotLeaderForPartition.Code {
				continue
			}
			leader, epoch := int32(-1), int32(-1)
			if vp, ok := view.Partition(t.Topic, out.Partition); ok {
				leader, epoch = vp.Leader, vp.LeaderEpoch
			}
			if p, ok := s.d.Replicas.Partition(partid.TopicPartition{Topic: t.Topic, Partition: out.Partition}); ok {
				if l, e := p.Leader(); e > epoch {
					leader, epoch = l, e
				}
			}
			if leader < 0 || leader == s.d.BrokerID {
				continue
			}
			b, ok := view.Broker(leader)
			if !ok {
				continue
			}
			e, ok := b.Endpoint(listener)
			if !ok {
				continue
			}
			out.CurrentLeader.LeaderID, out.CurrentLeader.LeaderEpoch = leader, epoch
			if !hinted[leader] {
				hinted[leader] = true
				rb := kmsg.NewProduceResponseBroker()
				rb.NodeID, rb.Host, rb.Port, rb.Rack = leader, e.Host, e.Port, b.Rack
				resp.Brokers = append(resp.Brokers, rb)
			}
		}
	}
}

func (s *Server) partitionConfig(tp partid.TopicPartition) (replica.PartitionConfig, bool) {
	p, ok := s.d.Replicas.Partition(tp)
	if !ok {
		return replica.PartitionConfig{}, false
	}
	return p.Config(), true
}

// hasTransactionalRecords is Kafka's ProduceRequest.hasTransactionalRecords:
// whether any partition's (first) batch is transactional. Message sets of
// magic 0/1 never are.
func hasTransactionalRecords(req *kmsg.ProduceRequest) bool {
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if len(p.Records) < record.BatchHeaderSize {
				continue
			}
			if magic, err := record.PeekMagic(p.Records); err != nil || magic != record.MagicV2 {
				continue
			}
			if h, err := record.ParseBatchHeader(p.Records); err == nil && h.IsTransactional() {
				return true
			}
		}
	}
	return false
}

// upConvert turns a Produce v0-v2 message set into a v2 batch (Kafka's
// up-conversion); a v2 batch in a v2 request is refused.
func upConvert(set []byte, cfg replica.PartitionConfig) ([]byte, error) {
	if magic, err := record.PeekMagic(set); err == nil && magic == record.MagicV2 {
		return nil, refuse(kerr.InvalidRecord, "produce request v2 carries record batches of magic 2")
	}
	if cfg.MaxMessageBytes > 0 && int64(len(set)) > int64(cfg.MaxMessageBytes) {
		return nil, refuse(kerr.MessageTooLarge, "message set of %d bytes exceeds max.message.bytes %d", len(set), cfg.MaxMessageBytes)
	}
	out, err := record.UpConvert(set, int(max(int64(cfg.MaxMessageBytes), 1<<20))*64)
	if err != nil {
		if record.KindOf(err) == record.KindInvalid {
			return nil, refuse(kerr.InvalidRecord, "%v", err)
		}
		return nil, refuse(kerr.CorruptMessage, "%v", err)
	}
	return out, nil
}

// validateProduceBatch applies Kafka's leader-side checks to one partition's
// records: Produce v3+ carries exactly one v2 batch; its size, CRC, records
// and codec must pass; compacted topics need keys. It stamps LogAppendTime
// topics' batches with the broker's time.
func validateProduceBatch(tp partid.TopicPartition, b []byte, version int16, cfg replica.PartitionConfig, appendTime int64) error {
	if len(b) == 0 {
		return refuse(kerr.InvalidRecord, "produce request carries no records")
	}
	if magic, err := record.PeekMagic(b); err == nil && magic != record.MagicV2 {
		return refuse(kerr.InvalidRecord, "produce request v%d requires magic 2 record batches, got magic %d", version, magic)
	}
	if len(b) < record.BatchHeaderSize {
		return refuse(kerr.CorruptMessage, "record batch is %d bytes, shorter than its header", len(b))
	}
	h, err := record.ParseBatchHeader(b)
	if err != nil {
		return refuse(kerr.CorruptMessage, "%v", err)
	}
	if h.Size() != len(b) {
		if h.Size() < len(b) {
			return refuse(kerr.InvalidRecord, "produce requests v3+ must contain exactly one record batch")
		}
		return refuse(kerr.CorruptMessage, "record batch claims %d bytes, request holds %d", h.Size(), len(b))
	}
	if cfg.MaxMessageBytes > 0 && int64(len(b)) > int64(cfg.MaxMessageBytes) {
		return refuse(kerr.MessageTooLarge, "record batch of %d bytes exceeds max.message.bytes %d", len(b), cfg.MaxMessageBytes)
	}
	if h.Codec() == record.CodecZstd && version < 7 {
		return kerr.UnsupportedCompressionType
	}
	if h.IsControl() {
		return refuse(kerr.InvalidRecord, "Clients are not allowed to write control records in topic partition %s.", tp)
	}
	// Decompression is bounded: a batch may not inflate past what a topic
	// could store as one message set, guarding against compression bombs.
	maxInflated := int(max(int64(cfg.MaxMessageBytes), 1<<20)) * 64
	if _, err := record.ValidateBatch(b, maxInflated); err != nil {
		if record.KindOf(err) == record.KindInvalid {
			return refuse(kerr.InvalidRecord, "%v", err)
		}
		return refuse(kerr.CorruptMessage, "%v", err)
	}
	if cfg.Compact {
		// Compaction keeps the latest record per key: a keyless record
		// could never be compacted, so Kafka refuses it.
		batch, err := record.ParseBatch(b, maxInflated)
		if err != nil {
			return refuse(kerr.CorruptMessage, "%v", err)
		}
		for i := range batch.Records {
			if batch.Records[i].Key == nil {
				return refuse(kerr.InvalidRecord, "Compacted topic cannot accept message without key in topic partition.")
			}
		}
	}
	if cfg.LogAppendTime {
		record.SetMaxTimestamp(b, true, appendTime)
	}
	return nil
}
