package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SaslHandshake (key 17).
// On a SASL listener the connection's sasl.Session answers: the enabled
// mechanisms, UNSUPPORTED_SASL_MECHANISM (then close) for another, and after
// authentication the start of re-authentication (KIP-368). v0 switches the
// connection to bare SASL tokens (KIP-43), v1 to SaslAuthenticate. On other
// listeners, as in Kafka: ILLEGAL_SASL_STATE. The work happens in Serve, so
// the connection's next frame is read in the new phase.
func init() { regKey(kmsg.NewPtrSASLHandshakeRequest(), 0, 1, (*Server).handleSaslHandshake) }

func (s *Server) handleSaslHandshake(c *Call) Reply {
	req := c.Req.(*kmsg.SASLHandshakeRequest)
	resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
	if c.Conn == nil || c.Conn.SASL == nil {
		resp.ErrorCode = kerr.IllegalSaslState.Code
		return respond(resp)
	}
	res := c.Conn.SASL.Handshake(req.Version, req.Mechanism)
	resp.ErrorCode, resp.SupportedMechanisms = res.ErrorCode, res.Mechanisms
	if res.ErrorCode != 0 {
		s.log.Info("SASL handshake refused", "mechanism", req.Mechanism, "error", kerr.ErrorForCode(res.ErrorCode), "remote", remote(c.Conn))
	}
	return func() Result { return Result{Resp: resp, Close: res.Close} }
}
