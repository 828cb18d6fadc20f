//go:build kafgo_faults

package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"kafgo/broker/wire"
)

// The protocol fault hooks of an e2e build: see faults.go.

// Fault is one rule of the table.
type Fault struct {
	APIKey         int16  `json:"api_key"`
	ClientIDPrefix string `json:"client_id_prefix,omitempty"`
	Action         string `json:"action"`             // delay, drop, fail
	DelayMs        int64  `json:"delay_ms,omitempty"` // for delay; the bound of drop
}

// faultTable holds the rules.
type faultTable struct {
	mu      sync.RWMutex
	rules   []Fault
	changed chan struct{} // closed and replaced on every change of rules
}

// setRulesLocked replaces the rules and wakes dropped requests. Caller holds mu.
func (ft *faultTable) setRulesLocked(rules []Fault) {
	ft.rules = rules
	if ft.changed != nil {
		close(ft.changed)
	}
	ft.changed = make(chan struct{})
}

// holds reports whether rule f is still in the table, and a channel
// closed at its next change.
func (ft *faultTable) holds(f Fault) (bool, <-chan struct{}) {
	ft.mu.RLock()
	defer ft.mu.RUnlock()
	for _, g := range ft.rules {
		if g == f {
			return true, ft.changed
		}
	}
	return false, nil
}

func (ft *faultTable) match(req *wire.Request) (Fault, bool) {
	ft.mu.RLock()
	defer ft.mu.RUnlock()
	client := ""
	if req.Header.ClientID != nil {
		client = *req.Header.ClientID
	}
	for _, f := range ft.rules {
		if f.APIKey == req.Header.APIKey && strings.HasPrefix(client, f.ClientIDPrefix) {
			return f, true
		}
	}
	return Fault{}, false
}

// inject applies fault f to req: the Pending wire gets instead of the
// handler's (nil for delay, which the handler then serves late).
func (s *Server) inject(f Fault, req *wire.Request) wire.Pending {
	s.log.Info("fault hook: injecting", "api_key", f.APIKey, "action", f.Action, "client", req.Header.ClientID)
	switch f.Action {
	case "fail":
		return wire.Ready(&wire.Response{None: true, Close: true})
	case "drop":
		bound := time.Minute
		if f.DelayMs > 0 {
			bound = time.Duration(f.DelayMs) * time.Millisecond
		}
		return func() *wire.Response {
			timer := time.NewTimer(bound)
			defer timer.Stop()
			for {
				held, changed := s.faults.holds(f)
				if !held {
					break
				}
				select {
				case <-changed:
					continue
				case <-timer.C:
				}
				break
			}
			return &wire.Response{None: true, Close: true}
		}
	}
	time.Sleep(time.Duration(f.DelayMs) * time.Millisecond)
	return nil
}

// newFaultTable is an e2e build's table, empty.
func newFaultTable() *faultTable { return &faultTable{} }

// faultHook applies the first rule matching req: the Pending wire gets
// instead of the handler's, or nil to serve req (after a delay).
func (s *Server) faultHook(req *wire.Request) wire.Pending {
	if f, ok := s.faults.match(req); ok {
		return s.inject(f, req)
	}
	return nil
}

// FaultsHandler serves the fault table on the admin endpoint.
func (s *Server) FaultsHandler() http.Handler {
	ft := s.faults
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodDelete:
			ft.mu.Lock()
			ft.setRulesLocked(nil)
			ft.mu.Unlock()
		case http.MethodPost:
			var f Fault
			if err := json.NewDecoder(r.Body).Decode(&f); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if f.Action != "delay" && f.Action != "drop" && f.Action != "fail" {
				http.Error(w, fmt.Sprintf("action %q: want delay, drop or fail", f.Action), http.StatusBadRequest)
				return
			}
			ft.mu.Lock()
			var kept []Fault
			for _, g := range ft.rules {
				if g.APIKey != f.APIKey || g.ClientIDPrefix != f.ClientIDPrefix {
					kept = append(kept, g)
				}
			}
			ft.setRulesLocked(append(kept, f))
			ft.mu.Unlock()
		default:
			http.Error(w, "GET, POST or DELETE", http.StatusMethodNotAllowed)
			return
		}
		ft.mu.RLock()
		defer ft.mu.RUnlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(append([]Fault{}, ft.rules...))
	})
}
