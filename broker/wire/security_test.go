package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	fsasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"kafgo/broker/principal"
	"kafgo/broker/sasl"
	"kafgo/internal/scram"
	"kafgo/internal/testing/testcerts"
)

// principalEcho answers Metadata with the connection's principal in the
// cluster id, SaslHandshake/SaslAuthenticate through the connection's SASL
// session (as broker/api does), and everything else as echoResponse.
func principalEcho(t testing.TB) Handler {
	return HandlerFunc(func(req *Request) Pending {
		kreq := kmsg.RequestForKey(req.Header.APIKey)
		kreq.SetVersion(req.Header.APIVersion)
		if err := kreq.ReadFrom(req.Body); err != nil {
			t.Errorf("decode: %v", err)
			return Ready(&Response{Close: true})
		}
		var resp kmsg.Response
		closeAfter := false
		switch r := kreq.(type) {
		case *kmsg.SASLHandshakeRequest:
			res := req.Conn.SASL.Handshake(r.Version, r.Mechanism)
			hr := kmsg.NewPtrSASLHandshakeResponse()
			hr.ErrorCode, hr.SupportedMechanisms, closeAfter = res.ErrorCode, res.Mechanisms, res.Close
			resp = hr
		case *kmsg.SASLAuthenticateRequest:
			res := req.Conn.SASL.Authenticate(r.Version, r.SASLAuthBytes)
			ar := kmsg.NewPtrSASLAuthenticateResponse()
			ar.ErrorCode, ar.ErrorMessage, ar.SASLAuthBytes, ar.SessionLifetimeMillis = res.ErrorCode, res.ErrorMessage, res.AuthBytes, res.SessionLifetimeMs
			closeAfter = res.Close
			resp = ar
		case *kmsg.MetadataRequest:
			mr := kmsg.NewPtrMetadataResponse()
			mr.ClusterID = kmsg.StringPtr(req.Conn.Principal().String())
			resp = mr
		default:
			resp = echoResponse(req, kreq)
		}
		resp.SetVersion(req.Header.APIVersion)
		return Ready(&Response{Body: resp.AppendTo(nil), Close: closeAfter})
	})
}

type tlsFixture struct {
	ca     *testcerts.CA
	server tls.Certificate
	pool   *x509.CertPool
}

func newTLSFixture(t testing.TB) *tlsFixture {
	t.Helper()
	ca, err := testcerts.NewCA("wire-test-ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Server("localhost")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(leaf.CertPEM, leaf.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return &tlsFixture{ca: ca, server: cert, pool: pool}
}

func (f *tlsFixture) clientCert(t testing.TB, cn string) tls.Certificate {
	t.Helper()
	leaf, err := f.ca.Client(pkix.Name{CommonName: cn, OrganizationalUnit: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(leaf.CertPEM, leaf.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func clusterID(t testing.TB, c *Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := c.Request(ctx, metadataRequest(9))
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	return *resp.(*kmsg.MetadataResponse).ClusterID
}

func dialWith(t testing.TB, d *Dialer, addr string) (*Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := d.Dial(ctx, addr, "test")
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

func TestTLSListener(t *testing.T) {
	f := newTLSFixture(t)
	srvCfg := &tls.Config{Certificates: []tls.Certificate{f.server}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: f.pool}
	s, _, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{{
		Name: "SSL", Addr: "127.0.0.1:0", TLS: srvCfg,
		PeerPrincipal: func(c *x509.Certificate) (principal.Principal, error) {
			return principal.User(c.Subject.CommonName), nil
		},
	}}}, principalEcho(t))
	addr := s.Addr("SSL").String()

	c, err := dialWith(t, &Dialer{TLS: &tls.Config{RootCAs: f.pool}}, addr)
	if err != nil {
		t.Fatal(err)
	}
	if got := clusterID(t, c); got != "User:ANONYMOUS" {
		t.Fatalf("principal without a client certificate: %s", got)
	}
	mtls, err := dialWith(t, &Dialer{TLS: &tls.Config{RootCAs: f.pool, Certificates: []tls.Certificate{f.clientCert(t, "alice")}}}, addr)
	if err != nil {
		t.Fatal(err)
	}
	if got := clusterID(t, mtls); got != "User:alice" {
		t.Fatalf("principal with a client certificate: %s", got)
	}

	// A plaintext client on the TLS port is closed, and the server keeps
	// serving TLS clients.
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 1, kmsg.StringPtr("plain")))
	expectClosed(t, nc)
	if s.Stats().TLSFailures == 0 {
		t.Fatal("TLS failure not counted")
	}
	if got := clusterID(t, c); got != "User:ANONYMOUS" {
		t.Fatal(got)
	}
}

func TestTLSClientAuthRequired(t *testing.T) {
	f := newTLSFixture(t)
	srvCfg := &tls.Config{Certificates: []tls.Certificate{f.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: f.pool}
	s, _, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{{Name: "SSL", Addr: "127.0.0.1:0", TLS: srvCfg}}}, principalEcho(t))
	addr := s.Addr("SSL").String()
	// TLS 1.3 reports a missing client certificate after the client's side
	// of the handshake, on the first read: the request fails either way.
	c, err := dialWith(t, &Dialer{TLS: &tls.Config{RootCAs: f.pool}}, addr)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		_, err = c.Request(ctx, metadataRequest(9))
		cancel()
	}
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("client without a certificate: %v", err)
	}
	if _, err := dialWith(t, &Dialer{TLS: &tls.Config{RootCAs: f.pool, Certificates: []tls.Certificate{f.clientCert(t, "bob")}}}, addr); err != nil {
		t.Fatal(err)
	}
}

func saslListener(t testing.TB, cfg *sasl.Config) (*Server, string) {
	s, _, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{{Name: "SASL_PLAINTEXT", Addr: "127.0.0.1:0", SASL: cfg}}}, principalEcho(t))
	return s, s.Addr("SASL_PLAINTEXT").String()
}

func scramConfig(t testing.TB) *sasl.Config {
	cred, err := scram.SHA512.NewCredential("bob-pw", []byte("salt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	return &sasl.Config{
		Mechanisms: []string{sasl.Plain, sasl.ScramSHA512},
		PlainUsers: map[string]string{"alice": "alice-pw"},
		Scram: func(m, u string) (scram.Credential, bool) {
			return cred, m == sasl.ScramSHA512 && u == "bob"
		},
	}
}

func TestSASLListener(t *testing.T) {
	s, addr := saslListener(t, scramConfig(t))
	for _, tc := range []struct {
		mech fsasl.Mechanism
		want string
	}{
		{plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism(), "User:alice"},
		{fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha512Mechanism(), "User:bob"},
	} {
		c, err := dialWith(t, &Dialer{SASL: tc.mech}, addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.mech.Name(), err)
		}
		if got := clusterID(t, c); got != tc.want {
			t.Fatalf("%s: principal %s", tc.mech.Name(), got)
		}
	}
	_, err := dialWith(t, &Dialer{SASL: fscram.Auth{User: "bob", Pass: "wrong"}.AsSha512Mechanism()}, addr)
	if !errors.Is(err, ErrAuthentication) || !errors.Is(err, kerr.SaslAuthenticationFailed) ||
		!strings.Contains(err.Error(), "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512") {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = dialWith(t, &Dialer{SASL: fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha256Mechanism()}, addr)
	if !errors.Is(err, kerr.UnsupportedSaslMechanism) {
		t.Fatalf("disabled mechanism: %v", err)
	}
	// A request other than ApiVersions/SaslHandshake before authentication
	// closes the connection.
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(9), 1, kmsg.StringPtr("x")))
	expectClosed(t, nc)
	if s.Stats().AuthFailures == 0 {
		t.Fatal("auth failures not counted")
	}
}

// TestSASLPreAuthFrameCap: before authentication a frame larger than
// sasl.server.max.receive.size closes the connection on its size field
// alone, while the same size is fine once authenticated.
func TestSASLPreAuthFrameCap(t *testing.T) {
	cfg := scramConfig(t)
	cfg.MaxReceiveSize = 1024
	s, addr := saslListener(t, cfg)
	nc := dial(t, addr)
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 100<<20)
	writeAll(t, nc, hdr[:])
	expectClosed(t, nc)

	// 2 KiB is over the pre-auth cap but fine after authentication.
	big := metadataRequest(9, strings.Repeat("t", 2048))
	nc = dial(t, addr)
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 1, kmsg.StringPtr("x")))
	readFrameRaw(t, nc)
	writeAll(t, nc, encodeRequest(big, 2, kmsg.StringPtr("x")))
	expectClosed(t, nc)
	c, err := dialWith(t, &Dialer{SASL: plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism()}, addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := c.Request(ctx, big); err != nil {
		t.Fatalf("large request after authentication: %v", err)
	}
	_ = s
}

// TestReadFrameRefusesBeforeAllocating: a 100 MiB size field under a 512 KiB
// cap costs no more than the error value: nothing is allocated for the body.
func TestReadFrameRefusesBeforeAllocating(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 100<<20)
	r := bytes.NewReader(nil)
	var sizeBuf [4]byte
	const runs = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		r.Reset(hdr[:])
		if _, err := readFrame(r, &sizeBuf, MinFrameSize, sasl.DefaultMaxReceiveSize); !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("err %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > 1024 {
		t.Fatalf("%d bytes allocated per refused frame", perRun)
	}
}

// TestSASLHandshakeV0 runs the KIP-43 exchange: after SaslHandshake v0 the
// token and its answer travel as bare size-prefixed frames.
func TestSASLHandshakeV0(t *testing.T) {
	_, addr := saslListener(t, scramConfig(t))
	nc := dial(t, addr)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 0, sasl.Plain
	writeAll(t, nc, encodeRequest(hs, 1, kmsg.StringPtr("old")))
	readFrameRaw(t, nc)
	tok := []byte("\x00alice\x00alice-pw")
	writeAll(t, nc, append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...))
	if resp := readFrameRaw(t, nc); len(resp) != 0 {
		t.Fatalf("PLAIN answer %q", resp)
	}
	writeAll(t, nc, encodeRequest(metadataRequest(9), 2, kmsg.StringPtr("old")))
	body := readFrameRaw(t, nc)
	mr := kmsg.NewPtrMetadataResponse()
	mr.Version = 9
	if err := mr.ReadFrom(body[5:]); err != nil || *mr.ClusterID != "User:alice" {
		t.Fatalf("%v %v", err, mr.ClusterID)
	}
	// A wrong password after a v0 handshake just closes.
	nc = dial(t, addr)
	writeAll(t, nc, encodeRequest(hs, 1, kmsg.StringPtr("old")))
	readFrameRaw(t, nc)
	tok = []byte("\x00alice\x00nope")
	writeAll(t, nc, append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...))
	if got := expectClosed(t, nc); len(got) != 0 {
		t.Fatalf("answered a failed v0 exchange: %q", got)
	}
}

// TestSASLReauthentication: with connections.max.reauth.ms the Client
// renews its session before it expires and keeps working; a connection
// that does not re-authenticate is closed on its next request.
func TestSASLReauthentication(t *testing.T) {
	cfg := scramConfig(t)
	cfg.ReauthMs = map[string]int64{sasl.Plain: 400, sasl.ScramSHA512: 400}
	var auths atomic.Int64
	cfg.Scram = func(m, u string) (scram.Credential, bool) {
		auths.Add(1)
		c, _ := scram.SHA512.NewCredential("bob-pw", []byte("salt"), 4096)
		return c, m == sasl.ScramSHA512 && u == "bob"
	}
	_, addr := saslListener(t, cfg)
	c, err := dialWith(t, &Dialer{SASL: fscram.Auth{User: "bob", Pass: "bob-pw"}.AsSha512Mechanism()}, addr)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if got := clusterID(t, c); got != "User:bob" {
			t.Fatal(got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := auths.Load(); n < 3 {
		t.Fatalf("%d authentications in 1.5 s with a 400 ms session", n)
	}

	// A bare client authenticates once and then waits past the expiry.
	nc := dial(t, addr)
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, sasl.Plain
	writeAll(t, nc, encodeRequest(hs, 1, kmsg.StringPtr("x")))
	readFrameRaw(t, nc)
	auth := kmsg.NewPtrSASLAuthenticateRequest()
	auth.Version, auth.SASLAuthBytes = 1, []byte("\x00alice\x00alice-pw")
	writeAll(t, nc, encodeRequest(auth, 2, kmsg.StringPtr("x")))
	body := readFrameRaw(t, nc)
	ar := kmsg.NewPtrSASLAuthenticateResponse()
	ar.Version = 1
	if err := ar.ReadFrom(body[4:]); err != nil || ar.ErrorCode != 0 || ar.SessionLifetimeMillis != 400 {
		t.Fatalf("%v %+v", err, ar)
	}
	time.Sleep(500 * time.Millisecond) // past the 400 ms session
	writeAll(t, nc, encodeRequest(metadataRequest(9), 3, kmsg.StringPtr("x")))
	expectClosed(t, nc)
}

// TestTLSFileParts: file regions cannot use sendfile through TLS; they are
// copied through the TLS connection intact.
func TestTLSFileParts(t *testing.T) {
	f := newTLSFixture(t)
	file, content := tempFile(t, 3<<20+123)
	h := HandlerFunc(func(req *Request) Pending {
		return Ready(&Response{Parts: []Part{{Bytes: []byte("head")}, {File: file, Offset: 7, Length: int64(len(content) - 7)}}})
	})
	s, _, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{{Name: "SSL", Addr: "127.0.0.1:0", TLS: &tls.Config{Certificates: []tls.Certificate{f.server}}}}}, h)
	nc, err := tls.Dial("tcp", s.Addr("SSL").String(), &tls.Config{RootCAs: f.pool, ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	writeAll(t, nc, encodeRequest(metadataRequest(1), 5, kmsg.StringPtr("x")))
	body := readFrameRaw(t, nc)
	if !bytes.Equal(body[4:8], []byte("head")) || !bytes.Equal(body[8:], content[7:]) {
		t.Fatalf("file part corrupted (%d bytes)", len(body))
	}
}
