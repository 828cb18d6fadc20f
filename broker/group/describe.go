package group

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// DescribeGroup describes one group. An unknown group is reported Dead
// with no error, as Kafka does; protocol metadata and assignments are only
// shown for a Stable group, the only state where they are settled.
func (c *Coordinator) DescribeGroup(id string) Description {
	d := Description{Group: id}
	g, err := c.lockGroup(id, false)
	if err != nil {
		d.Err = err
		return d
	}
	if g == nil {
		d.State = Dead.String()
		return d
	}
	defer g.mu.Unlock()
	d.State = g.state.String()
	if g.protocolType != nil {
		d.ProtocolType = *g.protocolType
	}
	stable := g.state == Stable && g.protocol != nil
	if stable {
		d.Protocol = *g.protocol
	}
	for _, m := range g.sortedMembers() {
		md := MemberDescription{MemberID: m.id, InstanceID: m.instanceID, ClientID: m.clientID, ClientHost: m.clientHost,
			Metadata: []byte{}, Assignment: []byte{}}
		if stable {
			md.Metadata = m.metadata(*g.protocol)
			if m.assignment != nil {
				md.Assignment = m.assignment
			}
		}
		d.Members = append(d.Members, md)
	}
	return d
}

// ListGroups lists the groups of every loaded partition, filtered by state
// (case-insensitively) when states is not empty. While a partition is
// loading the error is COORDINATOR_LOAD_IN_PROGRESS, with the groups known
// so far.
func (c *Coordinator) ListGroups(states []string) ([]Overview, *kerr.Error) {
	c.mu.RLock()
	stopped := c.stopped
	c.mu.RUnlock()
	if stopped {
		return nil, kerr.CoordinatorNotAvailable
	}
	shards, loading := c.activeShards()
	var out []Overview
	for _, sh := range shards {
		for _, g := range c.groupsOf(sh) {
			g.mu.Lock()
			o := Overview{Group: g.id, State: g.state.String()}
			if g.protocolType != nil {
				o.ProtocolType = *g.protocolType
			}
			dead := g.state == Dead
			g.mu.Unlock()
			if dead {
				continue
			}
			if len(states) > 0 && !slices.ContainsFunc(states, func(s string) bool { return strings.EqualFold(s, o.State) }) {
				continue
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b Overview) int { return strings.Compare(a.Group, b.Group) })
	if loading {
		return out, kerr.CoordinatorLoadInProgress
	}
	return out, nil
}
