package broker

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/meta/znode"
	"kafgo/broker/partid"
)

// markerSender is the transaction coordinator's txn.MarkerSender: leaders
// from the cluster view, WriteTxnMarkers over the inter-broker client (in
// process for this broker's own partitions).
type markerSender struct{ b *Broker }

// Leader reads the cluster view. A partition the view lacks is skipped
// only if its topic is gone from the metadata store: a broker that just
// became coordinator may load __transaction_state before its view holds
// the other topics, and must not take them for deleted.
func (s markerSender) Leader(tp partid.TopicPartition) (int32, bool) {
	view := s.b.cache.View()
	p, ok := view.Partition(tp.Topic, tp.Partition)
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(s.b.Config().RequestTimeoutMs)*time.Millisecond)
		defer cancel()
		exists, _, err := s.b.store.Exists(ctx, znode.TopicPath(tp.Topic))
		return -1, exists || err != nil
	}
	if _, live := view.Broker(p.Leader); p.Leader < 0 || !live {
		return -1, true
	}
	return p.Leader, true
}

func (s markerSender) Send(ctx context.Context, broker int32, req *kmsg.WriteTxnMarkersRequest) (*kmsg.WriteTxnMarkersResponse, error) {
	resp, err := s.b.ib.Send(ctx, broker, req)
	if err != nil {
		return nil, err
	}
	r, ok := resp.(*kmsg.WriteTxnMarkersResponse)
	if !ok {
		return nil, fmt.Errorf("broker: WriteTxnMarkers answered with %T", resp)
	}
	return r, nil
}
