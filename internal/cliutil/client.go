package cliutil

import (
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The client ids Kafka's tools connect with unless client.id is set, as
// brokers show them (groups --members, quotas, request logs): a quota on
// one must not throttle every tool.
const (
	// AdminClientID is the Java AdminClient's first generated id, the one
	// kafka-topics, kafka-configs, kafka-consumer-groups, kafka-acls and
	// kafka-transactions connect with.
	AdminClientID           = "adminclient-1"
	ConsoleProducerClientID = "console-producer"
	ConsoleConsumerClientID = "console-consumer"
)

// NewAdminClient builds a client for admin tools from --bootstrap-server and
// --command-config, warning on w about properties it did not understand.
// clientID is its client.id unless --command-config sets one.
func NewAdminClient(clientID, bootstrap, commandConfig string, warn io.Writer, extra ...kgo.Opt) (*kgo.Client, error) {
	c, err := BootstrapConfig(bootstrap, commandConfig)
	if err != nil {
		return nil, err
	}
	c.SetDefault("client.id", clientID)
	opts, err := CommonOpts(c)
	if err != nil {
		return nil, err
	}
	c.WarnUnused(warn)
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("cliutil: creating client: %w", err)
	}
	return cl, nil
}
