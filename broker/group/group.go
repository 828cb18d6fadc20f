package group

import (
	"bytes"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// State is a group's state in Kafka's classic protocol (see doc.go).
type State int8

// The group states; String gives Kafka's names, as DescribeGroups and
// ListGroups report them.
const (
	Empty State = iota
	PreparingRebalance
	CompletingRebalance
	Stable
	Dead
)

func (s State) String() string {
	switch s {
	case Empty:
		return "Empty"
	case PreparingRebalance:
		return "PreparingRebalance"
	case CompletingRebalance:
		return "CompletingRebalance"
	case Stable:
		return "Stable"
	case Dead:
		return "Dead"
	}
	return "Unknown"
}

// consumerProtocolType is the protocol type of Kafka consumers, whose
// subscriptions the coordinator decodes to learn the subscribed topics.
const consumerProtocolType = "consumer"

// member is one group member. Its waiters are buffered channels the
// coordinator answers exactly once; the API layer's deferred reply reads
// them, and if the client went away nobody does, which leaks nothing.
type member struct {
	id               string
	instanceID       *string
	clientID         string
	clientHost       string
	rebalanceTimeout time.Duration
	sessionTimeout   time.Duration
	protocolType     string
	protocols        []Protocol
	assignment       []byte
	seq              uint64 // join order, for stable member listings

	joinCh chan JoinResult // awaiting a JoinGroup answer
	syncCh chan SyncResult // awaiting a SyncGroup answer
	// isNew is set until the member's first join completes: it cannot
	// heartbeat yet, so it expires after NewMemberJoinTimeout instead.
	isNew bool

	hbTimer Timer
	hbSeq   uint64
}

func (m *member) static() bool { return m.instanceID != nil }

// metadata is the member's metadata for protocol.
func (m *member) metadata(protocol string) []byte {
	for _, p := range m.protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return nil
}

// matches reports whether protocols are exactly the member's, in order: a
// rejoin with the same ones does not need a rebalance.
func (m *member) matches(protocols []Protocol) bool {
	return slices.EqualFunc(m.protocols, protocols, func(a, b Protocol) bool {
		return a.Name == b.Name && bytes.Equal(a.Metadata, b.Metadata)
	})
}

// offsetEntry is a committed offset and the log offset of its record,
// which orders concurrent commits of one partition (the later record wins,
// as it does when the log is replayed).
type offsetEntry struct {
	offset      int64
	leaderEpoch int32
	metadata    string
	commitTime  int64 // ms
	expireTime  int64 // ms; -1 unless the client set a retention (v1 record)
	logOffset   int64
}

// group is one consumer group. Every field is guarded by mu.
type group struct {
	mu sync.Mutex

	id        string
	partition int32
	sh        *shard

	state        State
	stateTime    int64 // ms when state was entered; -1 unknown (loaded from an old record)
	protocolType *string
	protocol     *string
	generation   int32
	leader       string // "" = none

	members   map[string]*member
	nextSeq   uint64
	static    map[string]string // instance id -> member id
	pending   map[string]*pendingMember
	supported map[string]int // protocol -> members supporting it
	awaiting  int            // members with a JoinGroup waiting

	newMemberAdded bool // a member joined during the initial delay
	initialDelay   bool // the first rebalance waits for the initial delay only
	joinTimer      Timer
	joinSeq        uint64
	pendingSync    map[string]bool
	syncTimer      Timer
	syncSeq        uint64

	// subscribed is the union of the consumer members' topics, nil when
	// unknown (not a consumer group, or undecodable subscriptions).
	subscribed map[string]bool

	offsets        map[TopicPartition]offsetEntry
	pendingCommits map[TopicPartition][]int64 // log offsets of commits awaiting replication
	// pendingTxn holds offsets committed in a transaction, by producer id,
	// until its COMMIT marker makes them the group's (or ABORT drops them).
	pendingTxn map[int64]map[TopicPartition]*txnOffset
}

type pendingMember struct {
	timer Timer
}

func newGroup(id string, partition int32, sh *shard, now time.Time) *group {
	return &group{
		id:             id,
		partition:      partition,
		sh:             sh,
		state:          Empty,
		stateTime:      now.UnixMilli(),
		members:        map[string]*member{},
		static:         map[string]string{},
		pending:        map[string]*pendingMember{},
		supported:      map[string]int{},
		pendingSync:    map[string]bool{},
		offsets:        map[TopicPartition]offsetEntry{},
		pendingCommits: map[TopicPartition][]int64{},
		pendingTxn:     map[int64]map[TopicPartition]*txnOffset{},
	}
}

func (g *group) transition(s State, now time.Time) {
	g.state = s
	g.stateTime = now.UnixMilli()
}

// sortedMembers lists members in join order.
func (g *group) sortedMembers() []*member {
	out := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *member) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	return out
}

func (g *group) rebalanceTimeout() time.Duration {
	var d time.Duration
	for _, m := range g.members {
		d = max(d, m.rebalanceTimeout)
	}
	return d
}

// supportsProtocols reports whether a member of protocolType with these
// protocols may join: an empty group takes any non-empty set; otherwise the
// type must match and one protocol be supported by every current member.
func (g *group) supportsProtocols(protocolType string, protocols []Protocol) bool {
	if len(g.members) == 0 {
		return protocolType != "" && len(protocols) > 0
	}
	if g.protocolType == nil || *g.protocolType != protocolType {
		return false
	}
	for _, p := range protocols {
		if g.supported[p.Name] == len(g.members) {
			return true
		}
	}
	return false
}

func (g *group) countProtocols(m *member, delta int) {
	for _, p := range m.protocols {
		g.supported[p.Name] += delta
		if g.supported[p.Name] <= 0 {
			delete(g.supported, p.Name)
		}
	}
}

// add admits a member (Kafka's GroupMetadata.add): the first member fixes
// the protocol type and becomes leader if there is none.
func (g *group) add(m *member) {
	if m.instanceID != nil {
		g.static[*m.instanceID] = m.id
	}
	if len(g.members) == 0 {
		pt := m.protocolType
		g.protocolType = &pt
	}
	if g.leader == "" {
		g.leader = m.id
	}
	g.nextSeq++
	m.seq = g.nextSeq
	g.members[m.id] = m
	g.countProtocols(m, 1)
	if m.joinCh != nil {
		g.awaiting++
	}
	delete(g.pending, m.id)
}

// remove drops a member; a leader's place goes to any remaining member.
// The caller answers its waiters first.
func (g *group) remove(id string) {
	if m, ok := g.members[id]; ok {
		delete(g.members, id)
		g.countProtocols(m, -1)
		if m.joinCh != nil {
			g.awaiting--
		}
		if m.instanceID != nil && g.static[*m.instanceID] == id {
			delete(g.static, *m.instanceID)
		}
	}
	if g.leader == id {
		g.leader = ""
		if ms := g.sortedMembers(); len(ms) > 0 {
			g.leader = ms[0].id
		}
	}
	delete(g.pending, id)
	delete(g.pendingSync, id)
}

// updateProtocols replaces a member's protocols, keeping the counts right.
func (g *group) updateProtocols(m *member, protocols []Protocol) {
	g.countProtocols(m, -1)
	m.protocols = protocols
	g.countProtocols(m, 1)
}

// setJoinWaiter makes ch the member's pending JoinGroup. A waiter it
// replaces (a client that retried) is answered so no reply hangs.
func (g *group) setJoinWaiter(m *member, ch chan JoinResult) {
	if m.joinCh != nil {
		m.joinCh <- JoinResult{Err: kerr.RebalanceInProgress, MemberID: m.id, Generation: -1}
		g.awaiting--
	}
	m.joinCh = ch
	if ch != nil {
		g.awaiting++
	}
}

// answerJoin completes the member's pending JoinGroup, if any.
func (g *group) answerJoin(m *member, r JoinResult) bool {
	if m.joinCh == nil {
		return false
	}
	m.joinCh <- r
	m.joinCh = nil
	g.awaiting--
	return true
}

// setSyncWaiter makes ch the member's pending SyncGroup.
func (g *group) setSyncWaiter(m *member, ch chan SyncResult) {
	if m.syncCh != nil {
		m.syncCh <- SyncResult{Err: kerr.RebalanceInProgress}
	}
	m.syncCh = ch
}

func (g *group) answerSync(m *member, r SyncResult) bool {
	if m.syncCh == nil {
		return false
	}
	m.syncCh <- r
	m.syncCh = nil
	return true
}

func (g *group) allMembersJoined() bool {
	return len(g.members) == g.awaiting && len(g.pending) == 0
}

// staticFenced reports a known instance id presented with another member id.
func (g *group) staticFenced(instanceID *string, memberID string) bool {
	if instanceID == nil {
		return false
	}
	cur, ok := g.static[*instanceID]
	return ok && cur != memberID
}

// selectProtocol is Kafka's vote: among the protocols every member
// supports, each member votes for the first of its own list; most votes
// wins, ties going to the candidate listed first by the oldest member.
func (g *group) selectProtocol() string {
	ms := g.sortedMembers()
	if len(ms) == 0 {
		return ""
	}
	var candidates []string
	for _, p := range ms[0].protocols {
		if g.supported[p.Name] == len(ms) && !slices.Contains(candidates, p.Name) {
			candidates = append(candidates, p.Name)
		}
	}
	votes := map[string]int{}
	for _, m := range ms {
		for _, p := range m.protocols {
			if slices.Contains(candidates, p.Name) {
				votes[p.Name]++
				break
			}
		}
	}
	best := ""
	for _, c := range candidates {
		if best == "" || votes[c] > votes[best] {
			best = c
		}
	}
	return best
}

// maybeElectJoinedLeader keeps the leader if it rejoined, else hands the
// role to a member that did; false if nobody rejoined.
func (g *group) maybeElectJoinedLeader() bool {
	if g.leader == "" {
		return false
	}
	if l, ok := g.members[g.leader]; ok && l.joinCh != nil {
		return true
	}
	for _, m := range g.sortedMembers() {
		if m.joinCh != nil {
			g.leader = m.id
			return true
		}
	}
	return false
}

// initNextGeneration starts a generation: with members it picks the
// protocol and awaits the leader's assignment, without it is Empty.
func (g *group) initNextGeneration(now time.Time) {
	g.generation++
	if len(g.members) > 0 {
		p := g.selectProtocol()
		g.protocol = &p
		g.transition(CompletingRebalance, now)
	} else {
		g.protocol = nil
		g.transition(Empty, now)
	}
	g.computeSubscribed()
	clear(g.pendingSync)
}

// computeSubscribed decodes the consumer members' subscriptions for the
// chosen protocol: OffsetDelete refuses subscribed topics and expiry spares
// them. Anything undecodable leaves the set unknown (nil), as Kafka does.
func (g *group) computeSubscribed() {
	g.subscribed = nil
	if g.protocolType == nil || *g.protocolType != consumerProtocolType || g.protocol == nil || len(g.members) == 0 {
		return
	}
	topics := map[string]bool{}
	for _, m := range g.members {
		var meta kmsg.ConsumerMemberMetadata
		if err := meta.ReadFrom(m.metadata(*g.protocol)); err != nil {
			return
		}
		for _, t := range meta.Topics {
			topics[t] = true
		}
	}
	g.subscribed = topics
}

// currentMembers is the member list a leader assigns over.
func (g *group) currentMembers() []JoinMember {
	if g.protocol == nil {
		return nil
	}
	var out []JoinMember
	for _, m := range g.sortedMembers() {
		out = append(out, JoinMember{MemberID: m.id, InstanceID: m.instanceID, Metadata: m.metadata(*g.protocol)})
	}
	return out
}

// joinResult is the JoinGroup answer of the current generation for m.
func (g *group) joinResult(m *member, withMembers bool) JoinResult {
	r := JoinResult{MemberID: m.id, Generation: g.generation, ProtocolType: g.protocolType, Protocol: g.protocol, LeaderID: g.leader}
	if withMembers {
		r.Members = g.currentMembers()
	}
	return r
}

func (g *group) hasOffsets() bool {
	return len(g.offsets) > 0 || len(g.pendingCommits) > 0 || len(g.pendingTxn) > 0
}

// canRebalance: the states a rebalance may start from.
func (g *group) canRebalance() bool {
	return g.state == Stable || g.state == CompletingRebalance || g.state == Empty
}
