package configs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"kafgo/internal/zkconnect"
)

// zkTimeout bounds the wait for a ZooKeeper session, as kafka-configs'
// KafkaZkClient waits 30 s (zookeeper.connection.timeout.ms).
const zkTimeout = 30 * time.Second

// zkClient is the little of ZooKeeper the --zookeeper mode needs: plain
// reads, versioned writes and creates, under the connect string's chroot.
type zkClient struct {
	conn   *zk.Conn
	chroot string
}

// zkLog routes go-zookeeper's chatter ("connected to ...") to slog at debug
// level, so the tool's output stays Kafka's.
type zkLog struct{}

func (zkLog) Printf(format string, args ...any) {
	slog.Debug(fmt.Sprintf(format, args...), "component", "go-zookeeper")
}

// dialZooKeeper connects and waits for a session, at most zkTimeout.
func dialZooKeeper(ctx context.Context, connect string) (*zkClient, error) {
	servers, chroot, err := zkconnect.Parse(connect)
	if err != nil {
		return nil, fmt.Errorf("--zookeeper %s: %w", connect, err)
	}
	conn, events, err := zk.Connect(servers, zkTimeout, zk.WithLogger(zkLog{}), zk.WithLogInfo(false))
	if err != nil {
		return nil, fmt.Errorf("connecting to ZooKeeper %s: %w", connect, err)
	}
	timer := time.NewTimer(zkTimeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				// events must keep draining or go-zookeeper blocks.
				go func() {
					for range events {
					}
				}()
				return &zkClient{conn: conn, chroot: chroot}, nil
			}
			if ev.State == zk.StateAuthFailed {
				conn.Close()
				return nil, fmt.Errorf("ZooKeeper %s refused the session: %v", connect, ev.Err)
			}
		case <-timer.C:
			state := conn.State()
			conn.Close()
			return nil, fmt.Errorf("Timed out waiting for connection to ZooKeeper %s while in state: %s", connect, strings.ToUpper(strings.TrimPrefix(state.String(), "State")))
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		}
	}
}

func (z *zkClient) Close() { z.conn.Close() }

func (z *zkClient) full(p string) string { return z.chroot + p }

// call runs one request, giving up when ctx ends (closing the connection
// ends the request).
func (z *zkClient) call(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		z.conn.Close()
		<-done
		return ctx.Err()
	}
}

// get reads a znode; a missing one is ok=false.
func (z *zkClient) get(ctx context.Context, p string) (data []byte, version int32, ok bool, err error) {
	err = z.call(ctx, func() error {
		var st *zk.Stat
		data, st, err = z.conn.Get(z.full(p))
		if err == nil {
			version = st.Version
		}
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("reading %s: %w", p, err)
	}
	return data, version, true, nil
}

// children lists a znode's children; a missing znode has none.
func (z *zkClient) children(ctx context.Context, p string) ([]string, error) {
	var names []string
	err := z.call(ctx, func() error {
		var err error
		names, _, err = z.conn.Children(z.full(p))
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", p, err)
	}
	return names, nil
}

// set writes a znode at the version read (zk.ErrBadVersion when it
// changed meanwhile).
func (z *zkClient) set(ctx context.Context, p string, data []byte, version int32) error {
	return z.call(ctx, func() error {
		_, err := z.conn.Set(z.full(p), data, version)
		return err
	})
}

// create makes a persistent znode (sequential when seq is set), creating
// missing parents empty, as Kafka's createRecursive does; it returns the
// created path (with the sequence number).
func (z *zkClient) create(ctx context.Context, p string, data []byte, seq bool) (string, error) {
	var flags int32 = zk.FlagPersistent
	if seq {
		flags = zk.FlagSequence
	}
	acl := zk.WorldACL(zk.PermAll)
	var created string
	err := z.call(ctx, func() error {
		var err error
		created, err = z.conn.Create(z.full(p), data, flags, acl)
		if !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		// Parents first, from the top; one made meanwhile is fine.
		parts := strings.Split(strings.TrimPrefix(z.full(p), "/"), "/")
		for i := 1; i < len(parts); i++ {
			parent := "/" + strings.Join(parts[:i], "/")
			if _, err := z.conn.Create(parent, nil, zk.FlagPersistent, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return err
			}
		}
		created, err = z.conn.Create(z.full(p), data, flags, acl)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("creating %s: %w", p, err)
	}
	return strings.TrimPrefix(created, z.chroot), nil
}
