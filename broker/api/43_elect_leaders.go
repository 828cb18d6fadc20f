package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ElectLeaders (key 43), v0-v2: preferred (type 0) or unclean (type 1, v1+)
// leader elections, run by the active controller; others answer
// NOT_CONTROLLER.

func (s *Server) handleElectLeaders(c *Call) Reply {
	req := c.Req.(*kmsg.ElectLeadersRequest)
	if s.notController() {
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		resp.ErrorCode = kerr.NotController.Code
		return now(resp)
	}
	if req.Version == 0 {
		req.ElectionType = 0 // v0 elects preferred leaders only
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.ElectLeaders(ctx, req) }, req)
}
