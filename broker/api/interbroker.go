package api

// Inter-broker requests are honoured only from brokers: in process, or on
// the inter-broker listener.
func (s *Server) fromBroker(c *Call) bool {
	return c.Conn == nil || c.Conn.Listener == s.d.InterBrokerListener
}
