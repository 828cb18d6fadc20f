package offsetsrec

import (
	"bytes"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

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

// ParseGroupValue decodes a group metadata value (not a tombstone).
func ParseGroupValue(b []byte) (GroupValue, error) {
	ver, err := version("group metadata value", b)
	if err != nil {
		return GroupValue{CurrentStateTimestamp: -1}, err
	}
	g := GroupValue{Version: ver, CurrentStateTimestamp: -1}
	if ver < GroupV0 || ver > GroupV3 {
		return g, fmt.Errorf("%w: group metadata value version %d", ErrUnknownVersion, ver)
	}
	k := kmsg.NewGroupMetadataValue()
	if err := decodeExact("group metadata value", b, &k); err != nil {
		return g, err
	}
	g.ProtocolType, g.Generation, g.Protocol, g.Leader = k.ProtocolType, k.Generation, k.Protocol, k.Leader
	if ver >= GroupV2 {
		g.CurrentStateTimestamp = k.CurrentStateTimestamp
	}
	if len(k.Members) > 0 {
		g.Members = make([]MemberValue, 0, len(k.Members))
	}
	for _, km := range k.Members {
		m := MemberValue{MemberID: km.MemberID, GroupInstanceID: km.InstanceID, ClientID: km.ClientID, ClientHost: km.ClientHost,
			RebalanceTimeout: km.RebalanceTimeoutMillis, SessionTimeout: km.SessionTimeoutMillis,
			// Copied: kmsg's bytes alias the log buffer.
			Subscription: bytes.Clone(km.Subscription), Assignment: bytes.Clone(km.Assignment)}
		if ver == GroupV0 {
			m.RebalanceTimeout = m.SessionTimeout // v0 has none: Kafka's rule
		}
		g.Members = append(g.Members, m)
	}
	return g, nil
}

// AppendTo appends the encoded value at g.Version; fields the version lacks
// are dropped.
func (g GroupValue) AppendTo(dst []byte) ([]byte, error) {
	if g.Version < GroupV0 || g.Version > GroupV3 {
		return dst, fmt.Errorf("%w: group metadata value version %d", ErrUnknownVersion, g.Version)
	}
	if err := stringsFit(field("protocol_type", &g.ProtocolType), field("protocol", g.Protocol), field("leader", g.Leader)); err != nil {
		return dst, err
	}
	k := kmsg.NewGroupMetadataValue()
	k.Version, k.ProtocolType, k.Generation, k.Protocol, k.Leader = g.Version, g.ProtocolType, g.Generation, g.Protocol, g.Leader
	k.CurrentStateTimestamp = g.CurrentStateTimestamp
	for i := range g.Members {
		m := &g.Members[i]
		if err := stringsFit(field("member_id", &m.MemberID), field("group_instance_id", m.GroupInstanceID),
			field("client_id", &m.ClientID), field("client_host", &m.ClientHost)); err != nil {
			return dst, err
		}
		if err := bytesFit("subscription", m.Subscription); err != nil {
			return dst, err
		}
		if err := bytesFit("assignment", m.Assignment); err != nil {
			return dst, err
		}
		km := kmsg.NewGroupMetadataValueMember()
		km.MemberID, km.InstanceID, km.ClientID, km.ClientHost = m.MemberID, m.GroupInstanceID, m.ClientID, m.ClientHost
		km.RebalanceTimeoutMillis, km.SessionTimeoutMillis = m.RebalanceTimeout, m.SessionTimeout
		km.Subscription, km.Assignment = m.Subscription, m.Assignment
		k.Members = append(k.Members, km)
	}
	return k.AppendTo(dst), nil
}
