package tui

import (
	"context"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
)

// KIP-664's API keys.
const (
	describeTransactionsKey int16 = 65
	listTransactionsKey     int16 = 66
)

// transactions lists every transactional id at every coordinator and
// describes the open ones. It returns nil when no broker that answered
// ApiVersions serves both KIP-664 APIs (Kafka before 3.0): there is
// nothing to show, and asking would only fail. When ApiVersions itself
// fails the APIs are tried anyway, so a blip does not hide the view.
func (l *Live) transactions(ctx context.Context, versions func() (kadm.BrokersApiVersions, error)) *Transactions {
	if vs, err := versions(); err == nil && !servedBy(vs, listTransactionsKey, describeTransactionsKey) {
		return nil
	}
	t := &Transactions{}
	listed, err := l.adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		// kadm returns what the coordinators that answered listed.
		t.Err = "list transactions: " + err.Error()
	}
	var open []string
	for id, lt := range listed {
		if openTxnStates[lt.State] {
			open = append(open, id)
		} else {
			t.Idle++
		}
	}
	if len(open) == 0 {
		return t
	}
	sort.Strings(open)
	described, err := l.adm.DescribeTransactions(ctx, open...)
	if err != nil && t.Err == "" {
		t.Err = "describe transactions: " + err.Error()
	}
	for _, id := range open {
		lt := listed[id]
		x := Transaction{ID: id, Coordinator: lt.Coordinator, ProducerID: lt.ProducerID, Epoch: -1, State: lt.State, TimeoutMs: -1, StartMs: -1}
		d, ok := described[id]
		switch {
		case !ok:
			x.Err = "not described"
		case d.Err != nil:
			x.Err = d.Err.Error()
		case !openTxnStates[d.State]:
			t.Idle++ // it ended between the list and the describe
			continue
		default:
			x.Coordinator, x.ProducerID, x.Epoch, x.State = d.Coordinator, d.ProducerID, d.ProducerEpoch, d.State
			x.TimeoutMs, x.StartMs = d.TimeoutMillis, d.StartTimestamp
			for _, tp := range d.Topics.Sorted() {
				for _, p := range tp.Partitions {
					x.Partitions = append(x.Partitions, tp.Topic+"-"+strconv.Itoa(int(p)))
				}
			}
		}
		t.Open = append(t.Open, x)
	}
	return t
}
