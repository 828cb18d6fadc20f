package wire

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// ConnLimits are Kafka's connection limits (ConnectionQuotas, KIP-402):
// zero or negative means no limit.
type ConnLimits struct {
	// MaxConnections is max.connections, over every listener but the
	// protected one.
	MaxConnections int
	// Listener holds listener.name.<l>.max.connections by listener name.
	Listener map[string]int
	// PerIP is max.connections.per.ip; PerIPOverrides (by address) is
	// max.connections.per.ip.overrides, host names already resolved. An
	// override of 0 refuses every connection from that address.
	PerIP          int
	PerIPOverrides map[netip.Addr]int
	// Protected names the inter-broker listener, which max.connections
	// does not hold back when the broker has other listeners, so brokers
	// can always reach each other: connections on the other listeners
	// give way instead (Kafka's closeExcessConnections).
	Protected string
}

// connQuotas counts connections by listener and client address and holds
// the accept loops back at the limits, as Kafka's acceptor does:
//
//   - a listener at its own limit, or an unprotected listener when the
//     broker is at max.connections, accepts the next connection and then
//     waits, holding it unserved, until a connection closes (clients
//     queue in the kernel's backlog behind it);
//   - a client address at its limit has the accepted connection closed at
//     once ("Rejected connection from <ip>, address already has the
//     configured maximum of N connections.");
//   - when the broker is over max.connections (the protected listener
//     took the last slots, or the limit was lowered), the least recently
//     active connections of the other listeners are closed.
type connQuotas struct {
	mu       sync.Mutex
	cond     sync.Cond
	limits   ConnLimits
	total    int
	listener map[string]int
	ip       map[netip.Addr]int
	closed   bool // the server is shutting down: nobody waits
}

func newConnQuotas(l ConnLimits) *connQuotas {
	q := &connQuotas{limits: l, listener: map[string]int{}, ip: map[netip.Addr]int{}}
	q.cond.L = &q.mu
	return q
}

// set replaces the limits (a dynamic config change) and wakes the waiters.
func (q *connQuotas) set(l ConnLimits) {
	q.mu.Lock()
	q.limits = l
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *connQuotas) shutdown() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func limit(n int) int {
	if n <= 0 {
		return int(^uint(0) >> 1)
	}
	return n
}

// protectedLocked: the inter-broker listener is protected only while the
// broker has other listeners too.
func (q *connQuotas) protectedLocked(listener string) bool {
	return listener == q.limits.Protected && len(q.listener) > 1
}

func (q *connQuotas) slotLocked(listener string) bool {
	if q.listener[listener] >= limit(q.limits.Listener[listener]) {
		return false
	}
	return q.protectedLocked(listener) || q.total < limit(q.limits.MaxConnections)
}

// register makes a listener known (counted at 0), so protection applies
// from the start.
func (q *connQuotas) register(listener string) {
	q.mu.Lock()
	if _, ok := q.listener[listener]; !ok {
		q.listener[listener] = 0
	}
	q.mu.Unlock()
}

// acquire waits while listener may not take one more connection, then
// counts the accepted connection from addr. It returns how long it
// waited; over > 0 (or -1 for a limit of 0) when the address was already
// at its limit, so the connection must be closed (and released as any
// other); excess when the broker is now over max.connections, so other
// listeners' connections must give way; ok false when the server shut
// down while it waited (nothing counted).
func (q *connQuotas) acquire(listener string, addr netip.Addr) (blocked time.Duration, over int, excess, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.slotLocked(listener) && !q.closed {
		start := time.Now()
		for !q.slotLocked(listener) && !q.closed {
			q.cond.Wait()
		}
		blocked = time.Since(start)
	}
	if q.closed {
		return blocked, 0, false, false
	}
	n := q.ip[addr]
	q.ip[addr] = n + 1
	q.listener[listener]++
	q.total++
	max := limit(q.limits.PerIP)
	if o, ok := q.limits.PerIPOverrides[addr]; ok {
		max = o
	}
	if n >= max {
		over = max
		if over == 0 {
			over = -1
		}
	}
	return blocked, over, q.total > limit(q.limits.MaxConnections), true
}

func (q *connQuotas) dec(listener string, addr netip.Addr) {
	q.mu.Lock()
	if n := q.ip[addr]; n <= 1 {
		delete(q.ip, addr)
	} else {
		q.ip[addr] = n - 1
	}
	q.listener[listener]--
	q.total--
	q.cond.Broadcast()
	q.mu.Unlock()
}

// excess is how many connections of unprotected listeners must close for
// the broker to be back at max.connections.
func (q *connQuotas) excess() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(q.total-limit(q.limits.MaxConnections), 0)
}

// isProtected reports whether listener's connections are exempt from
// closing for the broker-wide limit.
func (q *connQuotas) isProtected(listener string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.protectedLocked(listener)
}

// remoteAddr is the client address of nc, unmapped (an IPv4 client of a
// dual-stack socket counts as its IPv4 address).
func remoteAddr(nc net.Conn) netip.Addr {
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}
