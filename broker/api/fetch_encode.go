package api

import (
	"encoding/binary"

	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// encodeFetchResponse writes a Fetch response (v4-v12) whose record bytes go
// from the segment files to the socket: the body is a list of wire parts in
// which each partition's records are file regions, never copied into memory.
// The layout mirrors Kafka's FetchResponse schema; fetch_encode_test.go
// checks it byte for byte against kmsg's encoder at every version.
// errorCode and sessionID are the v7+ top-level fields (KIP-227).
func encodeFetchResponse(version int16, errorCode int16, sessionID int32, results []replica.FetchResult) *wire.Response {
	flexible := version >= 12
	e := &partsEncoder{}
	e.int32(0) // throttle_time_ms (v1+)
	if version >= 7 {
		e.int16(errorCode)
		e.int32(sessionID)
	}
	// Group results by topic, keeping request order (results come in it).
	type group struct {
		topic string
		items []int
	}
	var groups []group
	idx := map[string]int{}
	for i, r := range results {
		g := partid.TopicSlot(idx, r.TP.Topic, func() {
			groups = append(groups, group{topic: r.TP.Topic})
		})
		groups[g].items = append(groups[g].items, i)
	}
	e.arrayLen(len(groups), flexible)
	for _, g := range groups {
		e.string(g.topic, flexible)
		e.arrayLen(len(g.items), flexible)
		for _, i := range g.items {
			r := &results[i]
			e.int32(r.TP.Partition)
			e.int16(errCode(r.Err))
			e.int64(r.HighWatermark)
			e.int64(r.LastStableOffset) // v4+
			if version >= 5 {
				e.int64(r.LogStartOffset)
			}
			// aborted_transactions: nullable array of {producer_id,
			// first_offset}; null unless a read_committed read returned
			// records.
			switch {
			case r.AbortedTransactions == nil || r.Err != nil:
				if flexible {
					e.uvarint(0)
				} else {
					e.int32(-1)
				}
			default:
				e.arrayLen(len(r.AbortedTransactions), flexible)
				for _, a := range r.AbortedTransactions {
					e.int64(a.ProducerID)
					e.int64(a.FirstOffset)
					if flexible {
						e.uvarint(0) // tagged fields
					}
				}
			}
			if version >= 11 {
				e.int32(-1) // preferred_read_replica
			}
			// records: nullable bytes; length then the file regions.
			n := r.Bytes
			if r.Err != nil {
				n = 0
			}
			if flexible {
				e.uvarint(uint64(n) + 1)
			} else {
				e.int32(int32(n))
			}
			if r.Err == nil {
				for _, reg := range r.Regions {
					e.file(reg)
				}
			} else {
				replica.ReleaseRegions(*r)
			}
			if flexible {
				if r.Diverging {
					// one tagged field: tag 0 diverging_epoch {epoch, end_offset, tags}
					e.uvarint(1)
					e.uvarint(0)
					e.uvarint(4 + 8 + 1)
					e.int32(r.DivergingEpoch)
					e.int64(r.DivergingEndOffset)
					e.uvarint(0)
				} else {
					e.uvarint(0)
				}
			}
		}
		if flexible {
			e.uvarint(0) // topic tagged fields
		}
	}
	if flexible {
		e.uvarint(0) // response tagged fields
	}
	return &wire.Response{Parts: e.finish()}
}

// partsEncoder accumulates Kafka primitives into byte parts, cutting a new
// part around every file region.
type partsEncoder struct {
	buf   []byte
	parts []wire.Part
}

func (e *partsEncoder) int16(v int16) { e.buf = binary.BigEndian.AppendUint16(e.buf, uint16(v)) }
func (e *partsEncoder) int32(v int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(v)) }
func (e *partsEncoder) int64(v int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v)) }
func (e *partsEncoder) uvarint(v uint64) {
	e.buf = binary.AppendUvarint(e.buf, v)
}

func (e *partsEncoder) arrayLen(n int, flexible bool) {
	if flexible {
		e.uvarint(uint64(n) + 1)
	} else {
		e.int32(int32(n))
	}
}

func (e *partsEncoder) string(s string, flexible bool) {
	if flexible {
		e.uvarint(uint64(len(s)) + 1)
	} else {
		e.int16(int16(len(s)))
	}
	e.buf = append(e.buf, s...)
}

// file adds a file region; wire releases its descriptor after the send.
func (e *partsEncoder) file(reg storage.FileRegion) {
	if reg.Size == 0 {
		return
	}
	if len(e.buf) > 0 {
		e.parts = append(e.parts, wire.Part{Bytes: e.buf})
		e.buf = nil
	}
	e.parts = append(e.parts, wire.Part{File: reg.File, Offset: reg.Position, Length: reg.Size, Hold: reg})
}

func (e *partsEncoder) finish() []wire.Part {
	if len(e.buf) > 0 {
		e.parts = append(e.parts, wire.Part{Bytes: e.buf})
	}
	return e.parts
}
