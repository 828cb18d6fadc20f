package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-zookeeper/zk"

	"kafgo/internal/zkconnect"
)

// parseConnect splits a zookeeper.connect string, "host:port[,host:port...][/chroot]",
// into the server list and the chroot ("" for none), as internal/zkconnect
// reads it (the chroot after the first '/' applies to every server), and
// checks the chroot is a valid znode path.
func parseConnect(connect string) (servers []string, chroot string, err error) {
	servers, chroot, err = zkconnect.Parse(connect)
	if errors.Is(err, zkconnect.ErrChroot) {
		return nil, "", fmt.Errorf("meta: zookeeper.connect %q: %w: %v", connect, ErrInvalidPath, err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("meta: zookeeper.connect %q: %w", connect, err)
	}
	if chroot != "" {
		if err := ValidatePath(chroot); err != nil {
			return nil, "", fmt.Errorf("meta: zookeeper.connect %q: chroot: %w", connect, err)
		}
	}
	return servers, chroot, nil
}

// full maps a caller's path to the server's path under the chroot.
func (z *zkStore) full(p string) string {
	if z.chroot == "" {
		return p
	}
	if p == "/" {
		return z.chroot
	}
	return z.chroot + p
}

// rel maps a server path back to the caller's view, as the Java client does
// for created paths and watch events.
func (z *zkStore) rel(p string) string {
	if z.chroot == "" {
		return p
	}
	if p == z.chroot {
		return "/"
	}
	return strings.TrimPrefix(p, z.chroot)
}

// ensureChroot creates the chroot path and its parents if missing, as
// Kafka does at startup ("Creating chroot"), so a fresh ensemble works with
// zookeeper.connect=host:2181/kafka without manual set-up. It runs before the
// store is handed out, on absolute server paths.
func (z *zkStore) ensureChroot(ctx context.Context) error {
	if z.chroot == "" {
		return nil
	}
	parts := strings.Split(z.chroot[1:], "/")
	for i := range parts {
		p := "/" + strings.Join(parts[:i+1], "/")
		err := z.call(ctx, func() error {
			_, err := z.conn.Create(p, nil, zk.FlagPersistent, z.acl)
			return err
		})
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("meta: create chroot %q: %w", z.chroot, z.mapErr(err))
		}
	}
	return nil
}

// zkLogger routes go-zookeeper's printf logging into slog at debug level:
// its messages are per-connection chatter ("connected to", "recv loop
// terminated"); the state changes that matter are logged by the store itself.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug(fmt.Sprintf(format, args...), "component", "go-zookeeper")
}
