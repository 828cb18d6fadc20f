package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SaslAuthenticate (key 36).
// Carries the SASL tokens after SaslHandshake v1 (KIP-152). A failure
// answers SASL_AUTHENTICATION_FAILED with Kafka's message and closes the
// connection; success returns session_lifetime_ms (v1+) when
// connections.max.reauth.ms applies. Outside an exchange (another
// listener, or already authenticated): ILLEGAL_SASL_STATE, connection kept.
func init() { regKey(kmsg.NewPtrSASLAuthenticateRequest(), 0, 2, (*Server).handleSaslAuthenticate) }

func (s *Server) handleSaslAuthenticate(c *Call) Reply {
	req := c.Req.(*kmsg.SASLAuthenticateRequest)
	resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	if c.Conn == nil || c.Conn.SASL == nil {
		resp.ErrorCode = kerr.IllegalSaslState.Code
		resp.ErrorMessage = kmsg.StringPtr("SaslAuthenticate request received after successful authentication")
		return respond(resp)
	}
	res := c.Conn.SASL.Authenticate(req.Version, req.SASLAuthBytes)
	resp.ErrorCode, resp.ErrorMessage = res.ErrorCode, res.ErrorMessage
	resp.SASLAuthBytes, resp.SessionLifetimeMillis = res.AuthBytes, res.SessionLifetimeMs
	if res.ErrorCode == kerr.SaslAuthenticationFailed.Code {
		s.log.Info("SASL authentication failed", "mechanism", c.Conn.SASL.Mechanism(), "remote", remote(c.Conn), "message", *res.ErrorMessage, "reason", res.Reason)
	}
	return func() Result { return Result{Resp: resp, Close: res.Close} }
}
