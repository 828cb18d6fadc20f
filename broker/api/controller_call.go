package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

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
