package group

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
)

// Protocol is one assignment protocol a member supports (an assignor name
// for consumers) with its metadata, which the coordinator never reads
// except to learn a consumer group's subscribed topics.
type Protocol struct {
	Name     string
	Metadata []byte
}

// JoinRequest is a JoinGroup.
type JoinRequest struct {
	Group            string
	MemberID         string // "" on a first join
	InstanceID       *string
	ClientID         string
	ClientHost       string
	SessionTimeout   int32 // ms
	RebalanceTimeout int32 // ms; JoinGroup v0 sends the session timeout here
	ProtocolType     string
	Protocols        []Protocol
	// RequireKnownMemberID is set from JoinGroup v4 (KIP-394): a dynamic
	// member's first join is answered MEMBER_ID_REQUIRED with its new id.
	RequireKnownMemberID bool
	// SupportsSkipAssignment is set from JoinGroup v9 (KIP-814): a static
	// leader that rejoins a stable group is told the members but asked not
	// to assign again.
	SupportsSkipAssignment bool
	Reason                 string
}

// JoinMember is a member as the leader sees it in a JoinGroup answer.
type JoinMember struct {
	MemberID   string
	InstanceID *string
	Metadata   []byte
}

// JoinResult answers a JoinGroup.
type JoinResult struct {
	Err            *kerr.Error
	MemberID       string
	Generation     int32
	ProtocolType   *string
	Protocol       *string
	LeaderID       string
	SkipAssignment bool
	Members        []JoinMember // the leader's only
}

// SyncRequest is a SyncGroup.
type SyncRequest struct {
	Group        string
	Generation   int32
	MemberID     string
	InstanceID   *string
	ProtocolType *string // SyncGroup v5+
	Protocol     *string // SyncGroup v5+
	Assignments  map[string][]byte
}

// SyncResult answers a SyncGroup.
type SyncResult struct {
	Err          *kerr.Error
	ProtocolType *string
	Protocol     *string
	Assignment   []byte
}

// HeartbeatRequest is a Heartbeat.
type HeartbeatRequest struct {
	Group      string
	Generation int32
	MemberID   string
	InstanceID *string
}

// LeavingMember is one member of a LeaveGroup: by member id, or (v3+,
// administrative removal) by instance id with an empty member id.
type LeavingMember struct {
	MemberID   string
	InstanceID *string
	Reason     string
}

// LeaveResult answers a LeaveGroup: a group-level error, else one error
// per member in request order.
type LeaveResult struct {
	Err     *kerr.Error
	Members []*kerr.Error
}

// TopicPartition names a partition of a committed offset.
type TopicPartition = partid.TopicPartition

// CommitOffset is one partition of an OffsetCommit.
type CommitOffset struct {
	TopicPartition
	Offset      int64
	LeaderEpoch int32   // -1 = none
	Metadata    *string // null = ""
	// CommitTimestamp is OffsetCommit v1's per-partition timestamp; -1 (all
	// other versions) means now.
	CommitTimestamp int64
}

// CommitRequest is an OffsetCommit. Generation -1 with an empty member id
// is a simple (groupless) commit.
type CommitRequest struct {
	Group      string
	Generation int32
	MemberID   string
	InstanceID *string
	// RetentionMs is OffsetCommit v2-v4's retention_time_ms; -1 = broker
	// default (expiry counted from when the group became empty).
	RetentionMs int64
	Offsets     []CommitOffset
}

// FetchedOffset is one partition of an OffsetFetch answer.
type FetchedOffset struct {
	TopicPartition
	Offset      int64 // -1 = none committed
	LeaderEpoch int32
	Metadata    string
	Err         *kerr.Error
}

// MemberDescription is one member in DescribeGroups.
type MemberDescription struct {
	MemberID   string
	InstanceID *string
	ClientID   string
	ClientHost string
	Metadata   []byte // only for a Stable group
	Assignment []byte // only for a Stable group
}

// Description answers DescribeGroups for one group.
type Description struct {
	Group        string
	Err          *kerr.Error
	State        string
	ProtocolType string
	Protocol     string
	Members      []MemberDescription
}

// Overview is one group in ListGroups.
type Overview struct {
	Group        string
	ProtocolType string
	State        string
}
