package api

import (
	"net"

	"github.com/twmb/franz-go/pkg/kerr"
)

// registerGroupAPIs serves the group coordinator's APIs. The ranges start
// at v0 where librdkafka's feature checks need them (its balanced-consumer
// feature wants FindCoordinator 0, OffsetCommit 1-2, OffsetFetch 1,
// JoinGroup/SyncGroup/Heartbeat/LeaveGroup 0) and end at the last version
// code is a coordinator error's wire code (0 for none).
func code(err *kerr.Error) int16 {
	if err == nil {
		return 0
	}
	return err.Code
}

// clientHost is how Kafka shows a member's address: InetAddress.toString
// of the connection's peer, "/127.0.0.1".
func clientHost(c *Call) string {
	if c.Conn == nil || c.Conn.Remote == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(c.Conn.Remote.String())
	if err != nil {
		host = c.Conn.Remote.String()
	}
	return "/" + host
}

// waitGroupAnswer reads a coordinator answer. The coordinator answers
// every waiter, at the latest when it stops; the stop channel is only a
// guard so a connection can never outlive a stopped coordinator.
func waitGroupAnswer[T any](ch <-chan T, stopped <-chan struct{}, onStop T) T {
	select {
	case v := <-ch:
		return v
	case <-stopped:
		select {
		case v := <-ch:
			return v
		default:
			return onStop
		}
	}
}
