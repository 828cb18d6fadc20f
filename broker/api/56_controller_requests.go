package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Requests for the controller: answered only by the active one.

func (s *Server) handleAlterPartition(c *Call) Reply {
	req := c.Req.(*kmsg.AlterPartitionRequest)
	if !s.fromBroker(c) || s.notController() {
		resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
		resp.ErrorCode = kerr.NotController.Code
		return now(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.AlterPartition(ctx, req) }, req)
}

func (s *Server) handleControlledShutdown(c *Call) Reply {
	req := c.Req.(*kmsg.ControlledShutdownRequest)
	if !s.fromBroker(c) || s.notController() {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		resp.ErrorCode = kerr.NotController.Code
		return now(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.ControlledShutdown(ctx, req) }, req)
}

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

// controllerCall runs a controller request off the connection's reader, so
// a busy controller delays only this response.
func (s *Server) controllerCall(f func(ctx context.Context) (kmsg.Response, error), req kmsg.Request) Reply {
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		resp, err := f(ctx)
		if err != nil {
			s.log.Warn("controller request failed", "key", req.Key(), "err", err)
			return Result{Close: true, None: true}
		}
		return Result{Resp: resp}
	}
}
