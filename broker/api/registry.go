package api

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Each handler file registers the API key it serves and the versions it
// serves beside its handler, in an init (franz-go kfake's regKey style):
//
//	func init() { regKey(kmsg.NewPtrFetchRequest(), 2, 12, (*Server).handleFetch) }
//
// ApiVersions advertises exactly these registrations, so the served range
// is written once, where the handler that serves it is.

// registration is one API key's handler and served versions.
type registration struct {
	req        kmsg.Request
	minV, maxV int16
	fn         func(*Server, *Call) Reply
}

// registrations are the handler files' registrations, by key.
var registrations = map[int16]registration{}

// regKey registers fn for req's key at versions minV..maxV. A key
// registered twice, or a range kmsg cannot encode, is a programming error
// found at start-up.
func regKey(req kmsg.Request, minV, maxV int16, fn func(*Server, *Call) Reply) {
	key := req.Key()
	if _, dup := registrations[key]; dup {
		panic(fmt.Sprintf("api: key %d registered twice", key))
	}
	if minV < 0 || minV > maxV || maxV > req.MaxVersion() {
		panic(fmt.Sprintf("api: key %d registered at v%d-v%d, kmsg knows v0-v%d", key, minV, maxV, req.MaxVersion()))
	}
	registrations[key] = registration{req: req, minV: minV, maxV: maxV, fn: fn}
}

// registerAll serves every registration on s.
func (s *Server) registerAll() {
	for _, r := range registrations {
		fn := r.fn
		s.register(r.req, r.minV, r.maxV, func(c *Call) Reply { return fn(s, c) })
	}
}
