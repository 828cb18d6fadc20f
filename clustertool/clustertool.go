// Package clustertool is `kafgo cluster`, Kafka's kafka-cluster.sh
// (ClusterTool, Kafka 3.9):
//
//	kafgo cluster cluster-id --bootstrap-server host:port
//	    Cluster ID: <id>     (or "No cluster ID found. The Kafka version is probably too old.")
//	kafgo cluster unregister --bootstrap-server host:port --id N
//	    Broker N is no longer registered.
//
// unregister is KRaft's UnregisterBroker (key 64); a ZooKeeper-mode
// cluster, kafgo's included, does not serve it, and the tool says so as
// Kafka's does: "The target cluster does not support the broker
// unregistration API."
package clustertool

import (
	"context"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ClusterID prints the cluster's id, from the Metadata answer.
func ClusterID(ctx context.Context, cl *kgo.Client, out io.Writer) error {
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("cluster: metadata: %w", err)
	}
	if resp.ClusterID == nil {
		fmt.Fprintln(out, "No cluster ID found. The Kafka version is probably too old.")
		return nil
	}
	fmt.Fprintln(out, "Cluster ID: "+*resp.ClusterID)
	return nil
}

// unregisterBrokerKey is UnregisterBroker's API key.
const unregisterBrokerKey = 64

// Unregister asks the cluster to forget broker id, where it serves
// UnregisterBroker.
func Unregister(ctx context.Context, cl *kgo.Client, id int32, out io.Writer) error {
	versions, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("cluster: api versions: %w", err)
	}
	served := false
	for _, k := range versions.ApiKeys {
		served = served || k.ApiKey == unregisterBrokerKey
	}
	if !served {
		fmt.Fprintln(out, "The target cluster does not support the broker unregistration API.")
		return nil
	}
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = id
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("cluster: unregister: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("cluster: unregister broker %d: %w", id, err)
	}
	fmt.Fprintf(out, "Broker %d is no longer registered.\n", id)
	return nil
}
