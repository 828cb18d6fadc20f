// Package sasl is the broker side of Kafka's SASL authentication: the
// per-connection state machine of SaslServerAuthenticator, and the PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512 mechanisms. It knows nothing of sockets:
// broker/wire asks a Session what the next frame may be, and the
// SaslHandshake/SaslAuthenticate handlers in broker/api drive it.
//
// # Exchange (KIP-43, KIP-152)
//
//	HANDSHAKE     ApiVersions (at most once) and SaslHandshake only; frames
//	              above sasl.server.max.receive.size (512 KiB) close the
//	              connection before any allocation (CVE-2022-34917).
//	  SaslHandshake v0 -> RAW_TOKEN: the next frames are bare tokens,
//	                      int32 size + token, no Kafka header, answered alike;
//	                      a failure just closes the connection.
//	  SaslHandshake v1 -> AUTHENTICATE: tokens travel in SaslAuthenticate
//	                      (v0-v2); a failure answers SASL_AUTHENTICATION_FAILED
//	                      (58) with a message, then closes.
//	  unknown mechanism -> UNSUPPORTED_SASL_MECHANISM (33) with the enabled
//	                      list, then close.
//	COMPLETE      the principal is User:<authorization id>; every API is
//	              served. A second SaslAuthenticate answers ILLEGAL_SASL_STATE
//	              (34) without closing.
//
// Any other request before COMPLETE closes the connection, as Kafka does.
//
// Messages shown to clients follow Kafka: a mechanism failure Kafka raises
// as SaslAuthenticationException is shown verbatim (PLAIN's "Authentication
// failed: Invalid username or password", an authorization id that differs
// from the user name); any other failure (unknown SCRAM user, bad proof,
// malformed message) shows only "Authentication failed during
// authentication due to invalid credentials with SASL mechanism <M>", so a
// peer cannot probe which users exist.
//
// # Re-authentication (KIP-368)
//
// With connections.max.reauth.ms > 0 for the mechanism, a successful
// SaslAuthenticate (v1+) returns that as session_lifetime_ms, and once it
// has passed the next request other than SaslHandshake closes the
// connection. A SaslHandshake v1+ on an authenticated connection starts
// re-authentication: same mechanism ("SASL mechanism 'X' requested by client
// is not supported for re-authentication of mechanism 'Y'") and same
// principal ("Cannot change principals during re-authentication from
// User.a: User.b"), else it fails and closes.
//
// # PLAIN
//
// One token, [authzid] NUL user NUL password, checked in constant time
// against the listener's JAAS user_<name>="<password>" options.
//
// # SCRAM (RFC 5802, RFC 7677)
//
//	client-first  n,[a=<authzid>],n=<user>,r=<client nonce>[,ext=v...]
//	server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
//	client-final  c=<base64 gs2 header>,r=<same nonce>,p=<base64 proof>
//	server-final  v=<base64 server signature>
//
// The server nonce is a random 130-bit number in base 36 appended to the
// client's; the final nonce must equal the combination (or, for librdkafka
// before 2.6.1, which repeats its nonce in front, the client nonce followed
// by the combination, as Kafka 3.8.1+ admits), the channel binding
// must repeat the gs2 header ("biws" for "n,,"), and the proof is checked by
// recomputing StoredKey = H(proof XOR HMAC(StoredKey, AuthMessage)) and
// comparing in constant time. Credentials below 4096 iterations are refused.
// The stored credential is
//
//	salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>
//
// with StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey =
// HMAC(SaltedPassword, "Server Key"), SaltedPassword = PBKDF2-HMAC(password,
// salt, iterations) (internal/scram, which the configs tool shares).
// Delegation tokens (tokenauth=true) are not supported.
package sasl
