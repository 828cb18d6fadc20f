package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ApiVersions (key 18).
// Advertises exactly the registered key and version ranges. A request newer
// than v3 is answered in v0 form with UNSUPPORTED_VERSION (KIP-511), so the
// client retries lower.
func init() { regKey(kmsg.NewPtrApiVersionsRequest(), 0, 3, (*Server).handleAPIVersions) }

const apiVersionsKey = 18

func (s *Server) handleAPIVersions(c *Call) Reply {
	resp := c.Req.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = append(resp.ApiKeys, s.versions...)
	return respond(resp)
}

// unsupportedAPIVersions is the v0-format body Kafka sends for an
// ApiVersions request at a version it does not know (KIP-511): the error
// plus our ranges, so the client retries at our maximum.
func (s *Server) unsupportedAPIVersions() []byte {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	resp.ErrorCode = kerr.UnsupportedVersion.Code
	resp.ApiKeys = append(resp.ApiKeys, s.versions...)
	return resp.AppendTo(nil)
}
