package offsetsrec

import "fmt"

// Group metadata value versions.
const (
	GroupV0 int16 = 0
	GroupV1 int16 = 1 // members carry rebalance_timeout
	GroupV2 int16 = 2 // carries current_state_timestamp
	GroupV3 int16 = 3 // members carry group_instance_id; the default since Kafka 2.3
)

// GroupValue is a group's metadata: its generation and, for a group that
// completed a rebalance, every member with its subscription and assignment.
type GroupValue struct {
	Version               int16
	ProtocolType          string
	Generation            int32
	Protocol              *string
	Leader                *string
	CurrentStateTimestamp int64 // v2+; -1 = unknown
	Members               []MemberValue
}

// MemberValue is one member of a group metadata value. RebalanceTimeout
// decodes as the session timeout for v0, which lacks it (Kafka's rule).
type MemberValue struct {
	MemberID         string
	GroupInstanceID  *string // v3; nil = dynamic member
	ClientID         string
	ClientHost       string
	RebalanceTimeout int32 // ms; v1+
	SessionTimeout   int32 // ms
	Subscription     []byte
	Assignment       []byte
}

// minMemberSize is the smallest encoded member of each version, for the
// array bound check: empty strings and bytes, fixed fields.
func minMemberSize(version int16) int {
	n := 2 + 2 + 2 + 4 + 4 + 4 // ids, session timeout, subscription, assignment
	if version >= GroupV1 {
		n += 4
	}
	if version >= GroupV3 {
		n += 2
	}
	return n
}

// ParseGroupValue decodes a group metadata value (not a tombstone).
func ParseGroupValue(b []byte) (GroupValue, error) {
	r := reader{b: b, what: "group metadata value"}
	g := GroupValue{Version: r.int16("version"), CurrentStateTimestamp: -1}
	if r.err != nil {
		return g, r.err
	}
	if g.Version < GroupV0 || g.Version > GroupV3 {
		return g, fmt.Errorf("%w: group metadata value version %d", ErrUnknownVersion, g.Version)
	}
	g.ProtocolType = r.string("protocol_type")
	g.Generation = r.int32("generation")
	g.Protocol = r.nullableString("protocol")
	g.Leader = r.nullableString("leader")
	if g.Version >= GroupV2 {
		g.CurrentStateTimestamp = r.int64("current_state_timestamp")
	}
	n := r.arrayLen("members", minMemberSize(g.Version))
	if n > 0 {
		g.Members = make([]MemberValue, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		var m MemberValue
		m.MemberID = r.string("member_id")
		if g.Version >= GroupV3 {
			m.GroupInstanceID = r.nullableString("group_instance_id")
		}
		m.ClientID = r.string("client_id")
		m.ClientHost = r.string("client_host")
		if g.Version >= GroupV1 {
			m.RebalanceTimeout = r.int32("rebalance_timeout")
		}
		m.SessionTimeout = r.int32("session_timeout")
		if g.Version == GroupV0 {
			m.RebalanceTimeout = m.SessionTimeout
		}
		m.Subscription = r.bytes("subscription")
		m.Assignment = r.bytes("assignment")
		g.Members = append(g.Members, m)
	}
	return g, r.done()
}

// AppendTo appends the encoded value at g.Version; fields the version lacks
// are dropped.
func (g GroupValue) AppendTo(dst []byte) ([]byte, error) {
	if g.Version < GroupV0 || g.Version > GroupV3 {
		return dst, fmt.Errorf("%w: group metadata value version %d", ErrUnknownVersion, g.Version)
	}
	w := writer{b: appendInt16(dst, g.Version)}
	w.string("protocol_type", g.ProtocolType)
	w.b = appendInt32(w.b, g.Generation)
	w.nullableString("protocol", g.Protocol)
	w.nullableString("leader", g.Leader)
	if g.Version >= GroupV2 {
		w.b = appendInt64(w.b, g.CurrentStateTimestamp)
	}
	w.b = appendInt32(w.b, int32(len(g.Members)))
	for i := range g.Members {
		m := &g.Members[i]
		w.string("member_id", m.MemberID)
		if g.Version >= GroupV3 {
			w.nullableString("group_instance_id", m.GroupInstanceID)
		}
		w.string("client_id", m.ClientID)
		w.string("client_host", m.ClientHost)
		if g.Version >= GroupV1 {
			w.b = appendInt32(w.b, m.RebalanceTimeout)
		}
		w.b = appendInt32(w.b, m.SessionTimeout)
		w.bytes("subscription", m.Subscription)
		w.bytes("assignment", m.Assignment)
	}
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}
