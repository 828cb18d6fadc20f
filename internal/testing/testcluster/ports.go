package testcluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/prometheus/procfs"
)

// Ports for brokers and ZooKeeper are chosen by the harness and bound later
// by another process, so "listen on :0, close, hand out the number" is not
// enough: the kernel hands the same ephemeral port out again, to a later
// :0 listen or as the local port of any outgoing connection (a broker's
// fetcher, a client), and the process that binds it second fails. So the
// harness picks ports below the kernel's ephemeral range, where nothing is
// assigned automatically, never hands one out twice in a process, and
// checks that each is free when chosen. Other test processes pick at
// random in the same range, which makes a collision between them unlikely.

const lowestPort = 10000

var (
	portsMu sync.Mutex
	handed  = map[int]bool{}
)

// ephemeralLow is the first port of the kernel's ephemeral range (Linux
// default 32768).
func ephemeralLow() int {
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if r, err := fs.SysctlInts("net.ipv4.ip_local_port_range"); err == nil && len(r) == 2 && r[0] > lowestPort+1000 {
			return r[0]
		}
	}
	return 32768
}

func freePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	high := ephemeralLow()
	for range 1000 {
		p := lowestPort + rand.IntN(high-lowestPort)
		if handed[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // in use
		}
		l.Close()
		handed[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("testcluster: no free port in %d-%d after 1000 tries", lowestPort, high-1)
}

// FreePort returns a free 127.0.0.1 port for a process the test starts
// itself (see freePort for why not :0).
func FreePort(t testing.TB) int {
	t.Helper()
	p, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
