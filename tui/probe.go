package tui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Prober checks each broker's own connection, apart from the snapshot:
// Metadata keeps listing a killed broker until its ZooKeeper session
// expires, and a snapshot waits on every answer, while a probe per broker
// with a short timeout says at once which brokers do not answer.
type Prober interface {
	// Probe returns, for every broker it could try, nil if it answered
	// within ctx and why not otherwise.
	Probe(ctx context.Context, brokers []Broker) map[int32]error
}

// probeTimeout bounds one broker's probe: a broker that takes longer to
// answer ApiVersions is as good as unreachable to its clients.
const probeTimeout = 2 * time.Second

// Probe is what the latest probes found of one broker.
type Probe struct {
	Err   string    // "" when it answered
	Since time.Time // when it started answering or stopped
}

// probes are the latest probe results by broker id.
type probes map[int32]Probe

// unreachable reports why broker id did not answer its latest probe.
func (p probes) unreachable(id int32) (Probe, bool) {
	r, ok := p[id]
	return r, ok && r.Err != ""
}

// Probe sends ApiVersions to each broker on its own connection, without
// retries, so a refused or dead connection fails at once instead of after
// kgo's backoff; a broker kgo does not know is dialled directly.
func (l *Live) Probe(ctx context.Context, brokers []Broker) map[int32]error {
	out := make(map[int32]error, len(brokers))
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, b := range brokers {
		if b.Host == "" {
			continue // known only from replica lists: nothing to dial
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			err := l.probeOne(ctx, b)
			mu.Lock()
			out[b.ID] = err
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func (l *Live) probeOne(ctx context.Context, b Broker) error {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafgo-tui", "1"
	// Any answer means the broker is up: an error code in it is a
	// version mismatch, not an outage.
	_, err := req.RequestWith(ctx, l.cl.Broker(int(b.ID)))
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer to ApiVersions in %s", probeTimeout)
	}
	// kgo answers for brokers it knows; one it does not (yet) know is
	// dialled directly, which is as much as can be said without it.
	var d net.Dialer
	conn, derr := d.DialContext(ctx, "tcp", net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))))
	if derr != nil {
		// The address is on the broker's row; the cause is what to say.
		var op *net.OpError
		if errors.As(derr, &op) && op.Err != nil {
			return fmt.Errorf("%s: %w", op.Op, op.Err)
		}
		return derr
	}
	conn.Close()
	return err
}
