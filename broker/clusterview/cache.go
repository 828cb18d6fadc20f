package clusterview

import (
	"sort"
	"sync"
	"sync/atomic"

	"kafgo/internal/uuid"
)

// LeaderDuringDelete is the leader id the controller sends for partitions of
// a topic being deleted.
const LeaderDuringDelete = -2

// NoLeader is the leader id of a partition without a leader.
const NoLeader = -1

// Endpoint is one listener of a broker.
type Endpoint struct {
	Listener string
	Host     string
	Port     int32
}

// Broker is a live broker.
type Broker struct {
	ID        int32
	Rack      *string
	Endpoints []Endpoint
}

// Endpoint returns the broker's endpoint for the named listener.
func (b *Broker) Endpoint(listener string) (Endpoint, bool) {
	for _, e := range b.Endpoints {
		if e.Listener == listener {
			return e, true
		}
	}
	return Endpoint{}, false
}

// Partition is one partition's state.
type Partition struct {
	Topic           string
	Partition       int32
	ControllerEpoch int32
	Leader          int32
	LeaderEpoch     int32
	ISR             []int32
	PartitionEpoch  int32 // the state znode version ("zkVersion")
	Replicas        []int32
	OfflineReplicas []int32
}

// Topic is a topic and its partitions.
type Topic struct {
	Name       string
	ID         uuid.UUID
	Partitions map[int32]*Partition

	sorted atomic.Pointer[[]*Partition] // SortedPartitions, once asked
}

// SortedPartitions returns the partitions in id order. A published topic
// never changes (an update copies it), so the order is computed once; the
// slice is shared and must not be modified.
func (t *Topic) SortedPartitions() []*Partition {
	if s := t.sorted.Load(); s != nil {
		return *s
	}
	out := make([]*Partition, 0, len(t.Partitions))
	for _, p := range t.Partitions {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	t.sorted.Store(&out)
	return out
}

// View is an immutable snapshot of the cluster.
type View struct {
	ControllerID    int32
	ControllerEpoch int32
	Brokers         map[int32]*Broker
	Topics          map[string]*Topic
	topicsByID      map[uuid.UUID]*Topic

	sortedNames atomic.Pointer[[]string] // SortedTopicNames, once asked
}

// Broker returns a live broker.
func (v *View) Broker(id int32) (*Broker, bool) {
	b, ok := v.Brokers[id]
	return b, ok
}

// Topic returns a topic by name.
func (v *View) Topic(name string) (*Topic, bool) {
	t, ok := v.Topics[name]
	return t, ok
}

// TopicByID returns a topic by id.
func (v *View) TopicByID(id uuid.UUID) (*Topic, bool) {
	t, ok := v.topicsByID[id]
	return t, ok
}

// Partition returns a partition's state.
func (v *View) Partition(topic string, partition int32) (*Partition, bool) {
	t, ok := v.Topics[topic]
	if !ok {
		return nil, false
	}
	p, ok := t.Partitions[partition]
	return p, ok
}

// SortedBrokers returns the live brokers in id order.
func (v *View) SortedBrokers() []*Broker {
	out := make([]*Broker, 0, len(v.Brokers))
	for _, b := range v.Brokers {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SortedTopicNames returns the topic names in order, computed once per
// view; the slice is shared and must not be modified.
func (v *View) SortedTopicNames() []string {
	if s := v.sortedNames.Load(); s != nil {
		return *s
	}
	out := make([]string, 0, len(v.Topics))
	for n := range v.Topics {
		out = append(out, n)
	}
	sort.Strings(out)
	v.sortedNames.Store(&out)
	return out
}

// Update is one controller update, already decoded from UpdateMetadata.
type Update struct {
	ControllerID    int32
	ControllerEpoch int32
	Brokers         []Broker
	Partitions      []Partition
	TopicIDs        map[string]uuid.UUID
}

// Cache publishes Views. The zero value is not usable; call New.
type Cache struct {
	mu      sync.Mutex // serialises writers
	current atomic.Pointer[View]
	changed chan struct{}
}

// New returns an empty cache: no controller, no brokers, no topics.
func New() *Cache {
	c := &Cache{changed: make(chan struct{})}
	c.current.Store(&View{
		ControllerID: -1,
		Brokers:      map[int32]*Broker{},
		Topics:       map[string]*Topic{},
		topicsByID:   map[uuid.UUID]*Topic{},
	})
	return c
}

// View returns the current snapshot.
func (c *Cache) View() *View { return c.current.Load() }

// Changed returns a channel closed at the next update, so waiters (topic
// creation waiting for its leaders) need not poll.
func (c *Cache) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Apply publishes a new view: brokers replaced, partitions applied over the
// previous view. It returns the partitions that were deleted.
func (c *Cache) Apply(u Update) (deleted []Partition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.current.Load()
	next := &View{
		ControllerID:    u.ControllerID,
		ControllerEpoch: u.ControllerEpoch,
		Brokers:         make(map[int32]*Broker, len(u.Brokers)),
		Topics:          make(map[string]*Topic, len(old.Topics)),
	}
	for i := range u.Brokers {
		b := u.Brokers[i]
		next.Brokers[b.ID] = &b
	}
	// Topics untouched by the update are shared with the old view; touched
	// ones are copied before modification so the old view stays immutable.
	for name, t := range old.Topics {
		next.Topics[name] = t
	}
	copied := map[string]bool{}
	touch := func(name string) *Topic {
		t, ok := next.Topics[name]
		if !ok {
			t = &Topic{Name: name, Partitions: map[int32]*Partition{}}
			next.Topics[name] = t
			copied[name] = true
			return t
		}
		if !copied[name] {
			cp := &Topic{Name: t.Name, ID: t.ID, Partitions: make(map[int32]*Partition, len(t.Partitions))}
			for k, v := range t.Partitions {
				cp.Partitions[k] = v
			}
			next.Topics[name] = cp
			copied[name] = true
			t = cp
		}
		return t
	}
	for i := range u.Partitions {
		p := u.Partitions[i]
		t := touch(p.Topic)
		if p.Leader == LeaderDuringDelete {
			if _, had := t.Partitions[p.Partition]; had {
				deleted = append(deleted, p)
			}
			delete(t.Partitions, p.Partition)
			if len(t.Partitions) == 0 {
				delete(next.Topics, p.Topic)
			}
			continue
		}
		t.Partitions[p.Partition] = &p
	}
	for name, id := range u.TopicIDs {
		if t, ok := next.Topics[name]; ok && t.ID != id {
			touch(name).ID = id
		}
	}
	next.topicsByID = make(map[uuid.UUID]*Topic, len(next.Topics))
	for _, t := range next.Topics {
		if t.ID != (uuid.Zero) {
			next.topicsByID[t.ID] = t
		}
	}
	c.current.Store(next)
	close(c.changed)
	c.changed = make(chan struct{})
	return deleted
}
