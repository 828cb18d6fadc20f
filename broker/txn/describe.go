package txn

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/txn/txnrec"
)

// Description answers DescribeTransactions for one transactional id.
type Description struct {
	ID         string
	Err        *kerr.Error
	State      string
	TimeoutMs  int32
	StartMs    int64
	ProducerID int64
	Epoch      int16
	Partitions []partid.TopicPartition
}

// Describe handles DescribeTransactions (KIP-664): each id's metadata, or
// its coordinator error, or TRANSACTIONAL_ID_NOT_FOUND (also while it is
// being expired).
func (c *Coordinator) Describe(ids []string) []Description {
	out := make([]Description, 0, len(ids))
	for _, id := range ids {
		d := Description{ID: id, ProducerID: -1, Epoch: -1, StartMs: -1}
		m, err := c.lockMeta(id, nil)
		switch {
		case err != nil:
			d.Err = err
		case m == nil:
			d.Err = kerr.TransactionalIDNotFound
		default:
			if m.state == Dead {
				d.Err = kerr.TransactionalIDNotFound
			} else {
				d.State, d.TimeoutMs, d.StartMs = m.state.String(), m.timeoutMs, m.startMs
				d.ProducerID, d.Epoch, d.Partitions = m.producerID, m.epoch, m.sortedPartitions()
			}
			m.mu.Unlock()
		}
		out = append(out, d)
	}
	return out
}

// Listing is one transactional id in ListTransactions.
type Listing struct {
	ID         string
	ProducerID int64
	State      string
}

// List handles ListTransactions (KIP-664): the transactional ids this
// broker coordinates, filtered by state names and producer ids (empty
// filters match all); state names Kafka does not know are returned as
// unknown and match nothing. While a partition loads the whole answer is
// COORDINATOR_LOAD_IN_PROGRESS.
func (c *Coordinator) List(states []string, producerIDs []int64) ([]Listing, []string, *kerr.Error) {
	shards, loading := c.activeShards()
	if loading {
		return nil, nil, kerr.CoordinatorLoadInProgress
	}
	var want []State
	var unknown []string
	for _, name := range states {
		if s, ok := txnrec.ParseState(name); ok {
			want = append(want, s)
		} else {
			unknown = append(unknown, name)
		}
	}
	var out []Listing
	for _, sh := range shards {
		for _, m := range c.metasOf(sh) {
			m.mu.Lock()
			keep := !m.removed && m.state != Dead &&
				(len(producerIDs) == 0 || slices.Contains(producerIDs, m.producerID)) &&
				(len(states) == 0 || slices.Contains(want, m.state))
			if keep {
				out = append(out, Listing{ID: m.id, ProducerID: m.producerID, State: m.state.String()})
			}
			m.mu.Unlock()
		}
	}
	slices.SortFunc(out, func(a, b Listing) int { return strings.Compare(a.ID, b.ID) })
	return out, unknown, nil
}
