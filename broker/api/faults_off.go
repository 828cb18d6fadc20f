//go:build !kafgo_faults

package api

import (
	"net/http"

	"kafgo/broker/wire"
)

// A production build has no protocol fault hooks (faults.go).

type faultTable struct{}

func newFaultTable() *faultTable { return nil }

// faultHook never intervenes.
func (s *Server) faultHook(*wire.Request) wire.Pending { return nil }

// FaultsHandler is nil: there is no fault table to serve.
func (s *Server) FaultsHandler() http.Handler { return nil }
