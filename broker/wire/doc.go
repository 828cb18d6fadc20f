// Package wire is the broker's network layer: listeners, request framing,
// request/response headers, in-order responses, zero-copy (sendfile) writes,
// and a small pipelining client for inter-broker and tool requests. It knows
// nothing of Kafka APIs beyond their headers; a Handler decodes bodies (with
// franz-go kmsg) and produces responses.
//
// # Framing
//
// Every request and response is a frame:
//
//	size  int32   big endian, number of bytes that follow (not counting itself)
//	body  [size]byte
//
// The server rejects, on the size field alone and before allocating, a size
// below MinFrameSize (8, the smallest request header), a negative size, or a
// size above ServerConfig.MaxRequestSize (socket.request.max.bytes, 100 MiB),
// and closes the connection. Bodies up to 64 KiB are read into one
// exactly-sized buffer; larger bodies grow geometrically as bytes actually
// arrive (ending exactly sized), so a peer that announces 100 MiB and sends
// nothing costs 64 KiB, not 100 MiB. Body buffers are never recycled: kmsg's
// ReadFrom aliases byte fields (e.g. Produce records) into the buffer, and
// handlers may keep them after the response is written.
//
// # Request header
//
//	v0 (ControlledShutdown v0 only):  api_key int16, api_version int16, correlation_id int32
//	v1:  v0 + client_id nullable string (int16 length, -1 = null)
//	v2:  v1 + tagged fields: uvarint count, then count x (tag uvarint, size uvarint, size bytes)
//
// The client_id is never a compact string, even in v2 (clients send it before
// they know the broker's versions). Whether a (key, version) uses v2 is taken
// from kmsg: a key is flexible from the first version for which kmsg's
// IsFlexible is true, and every later version is flexible too, including
// versions newer than kmsg knows (this matches Kafka's generated
// requestHeaderVersion, which is also "version >= N"). Unknown keys and
// negative versions are treated as v1. The tagged fields are skipped (the
// request header defines none we use); Request.Body starts after them, which
// is exactly what kmsg's Request.ReadFrom expects.
//
// # Response header
//
//	v0:  correlation_id int32
//	v1:  v0 + tagged fields (wire always writes an empty section: one 0x00 byte)
//
// A response uses v1 exactly when its request used v2, except ApiVersions
// (key 18), whose response header is always v0 so that a client that sent a
// too-new version can still parse the UNSUPPORTED_VERSION answer.
//
// # Ordering and concurrency
//
// Per connection there is one reader goroutine, and a writer goroutine that
// exists only while responses are outstanding. An idle connection costs one
// parked goroutine, its socket, a 512-byte read buffer (so a small request
// takes one read syscall) and its bookkeeping: about 5 KiB in all. Write
// buffers are pooled and held only while a writer runs.
//
//   - The reader reads frames, parses headers and calls Handler.Serve
//     sequentially in arrival order, so Serve for request n+1 starts only after
//     Serve for request n returned. Serve must be quick: anything that waits
//     (long-poll fetch, acks=all produce) belongs in the returned Pending.
//   - The reader reads ahead at most ServerConfig.MaxQueuedPerConn requests
//     whose responses are not yet written; then it stops reading (TCP pushes
//     back on the client) until the writer retires one.
//   - The writer calls the Pendings one at a time in request order and writes
//     each response before calling the next Pending. Responses therefore leave
//     in request order, while later requests are already being served.
//   - Different connections are fully independent and run in parallel.
//   - Every response is flushed before the next Pending is called, so a
//     blocking Pending never holds back an earlier response.
//   - After a connection closes (error, panic, Response.Close, idle timeout,
//     shutdown), Pendings that were not yet started are dropped without being
//     called. A Pending must therefore not be the only owner of a resource
//     that needs releasing.
//   - A panic in Serve or in a Pending is recovered, logged with the API key,
//     and closes only that connection.
//
// # Quota mute
//
// A handler throttling a client (client quotas, KIP-219) calls
// ConnInfo.MuteUntil: the response goes out as usual, and the reader, once
// it has read the connection's next request, holds it unserved until the
// mute passes (Kafka stops reading the socket; holding the one request
// read is the same to the client). Requests already read keep their turn.
// Closing the connection or Shutdown ends the wait.
//
// # Writes
//
// Byte parts go through a pooled bufio.Writer, taken when a writer goroutine
// starts and returned when it exits. A file Part flushes the buffer, then sends
// the file region with sendfile(2) on the raw TCP socket at an explicit offset
// (never the file's shared offset, so any number of connections may send the
// same *os.File concurrently). Where sendfile is unavailable (not a
// *net.TCPConn, EINVAL/ENOSYS/EOPNOTSUPP, non-Linux) the region is copied with
// pread (ReadAt) + write. A region shorter than promised (file truncated
// underneath) closes the connection, since its length was already sent.
// Every write is bounded by ServerConfig.WriteTimeout, refreshed per chunk
// (1 MiB for bytes, 4 MiB for sendfile), so it limits lack of progress, not
// the size of a response.
//
// # Security
//
// A listener may be TLS (ListenerConfig.TLS: SSL, SASL_SSL) and/or SASL
// (ListenerConfig.SASL: SASL_PLAINTEXT, SASL_SSL).
//
//   - TLS: the connection's reader completes the handshake (bounded by
//     HandshakeTimeout, aborted by Shutdown) before reading a request; a
//     failure (a plaintext client, no or an untrusted client certificate)
//     closes only that connection and counts in Stats.TLSFailures. A
//     verified client certificate becomes the principal through
//     PeerPrincipal; otherwise the principal stays User:ANONYMOUS.
//   - SASL: ConnInfo.SASL holds the connection's broker/sasl Session. Until
//     it completes, frames are capped at sasl.server.max.receive.size (512
//     KiB) on the size field, before any allocation (CVE-2022-34917), and
//     only ApiVersions (once), SaslHandshake and SaslAuthenticate are
//     admitted: anything else closes the connection. After SaslHandshake v0
//     the next frames are bare tokens answered by bare frames
//     (Response.NoHeader). Once the session lifetime
//     (connections.max.reauth.ms) has passed, a request other than
//     SaslHandshake closes the connection (KIP-368). The SASL requests
//     themselves are served by the Handler (broker/api), synchronously in
//     Serve, so the phase the reader sees before the next frame is current.
//   - Zero copy: sendfile writes the socket directly, so it is used only on
//     plaintext connections. Through TLS, file regions are read with pread
//     into pooled 64 KiB buffers and written through the TLS connection:
//     no allocation per request, one copy per byte, plus encryption.
//
// Dialer gives the Client the same security: TLS, then SASL with a
// franz-go mechanism over SaslHandshake v1 and SaslAuthenticate v1. With a
// session lifetime the Client re-authenticates at 85% of it, before the
// next request, holding new requests back during the exchange.
//
// # Statistics
//
// Stats are server-wide counters; ListenerStats counts connections per
// listener (open, accepted, closed, failed TLS handshakes and SASL
// exchanges). ReaderTime sums, over connections, the time their reader
// waited for a next request (the first socket read of a frame when nothing
// of it is buffered) and the time they were open: broker/admin's network
// idle ratio. A Response's Sent hook is called after it is written, for
// request metrics. All of it is atomic adds on the connection's own path;
// ReaderTime walks the open connections only when asked.
//
// # Idle connections and shutdown
//
// A connection with no reads or writes for IdleTimeout and no outstanding
// response is closed. Shutdown stops accepting, makes every reader stop at the
// next frame boundary (a partially read request is dropped), lets the writers
// finish the responses already queued, and closes each connection once
// drained; when ctx ends first it closes the rest at once.
package wire
