package tlsconf

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a listener's TLS configuration that follows its PEM files: every
// handshake (at most once per ReloadCheckInterval) compares the key and
// trust store files' size and modification time with the last load, and
// reloads on a change. A reload that fails (a half-written file) keeps
// serving the previous material and logs; the next check tries again.
// Inline PEM values never change.
type Server struct {
	s   Settings
	log *slog.Logger

	cur       atomic.Pointer[tls.Config]
	lastCheck atomic.Int64 // unix nanos
	mu        sync.Mutex   // serializes reloads
	stamps    map[string]fileStamp
}

// ReloadCheckInterval bounds how often handshakes stat the store files.
var ReloadCheckInterval = time.Second

type fileStamp struct {
	size int64
	mod  time.Time
}

// NewServer loads the server's key store (required) and trust store.
func NewServer(s Settings, log *slog.Logger) (*Server, error) {
	if !s.HasKeystore() {
		return nil, cfgErr("an SSL listener needs a key store: set ssl.keystore.location, or ssl.keystore.certificate.chain and ssl.keystore.key (ssl.keystore.type=PEM)")
	}
	if log == nil {
		log = slog.Default()
	}
	srv := &Server{s: s, log: log}
	cfg, stamps, err := srv.build()
	if err != nil {
		return nil, err
	}
	srv.cur.Store(cfg)
	srv.stamps = stamps
	srv.lastCheck.Store(time.Now().UnixNano())
	return srv, nil
}

func (srv *Server) paths() []string {
	var out []string
	if srv.s.KeystoreChain == "" && srv.s.KeystoreLocation != "" {
		out = append(out, srv.s.KeystoreLocation)
	}
	if srv.s.TruststoreCertificates == "" && srv.s.TruststoreLocation != "" {
		out = append(out, srv.s.TruststoreLocation)
	}
	return out
}

func stampFiles(paths []string) map[string]fileStamp {
	m := make(map[string]fileStamp, len(paths))
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			m[p] = fileStamp{size: fi.Size(), mod: fi.ModTime()}
		}
	}
	return m
}

// build loads the files, stamping them first so a change during the load
// is seen by the next check.
func (srv *Server) build() (*tls.Config, map[string]fileStamp, error) {
	stamps := stampFiles(srv.paths())
	cfg, err := srv.s.baseConfig()
	if err != nil {
		return nil, nil, err
	}
	certPEM, keyPEM, err := srv.s.loadKeyPair()
	if err != nil {
		return nil, nil, err
	}
	cert, err := KeyPair(certPEM, keyPEM, srv.s.KeyPassword, srv.s.HasKeyPassword)
	if err != nil {
		return nil, nil, err
	}
	cfg.Certificates = []tls.Certificate{cert}
	if srv.s.HasTruststore() {
		b, err := srv.s.loadTrustPEM()
		if err != nil {
			return nil, nil, err
		}
		if cfg.ClientCAs, err = CertPool(b); err != nil {
			return nil, nil, err
		}
	}
	switch srv.s.ClientAuth {
	case "required":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case "requested":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		cfg.ClientAuth = tls.NoClientCert
	}
	return cfg, stamps, nil
}

// Config is the tls.Config to give tls.Server: it hands every handshake the
// current material.
func (srv *Server) Config() *tls.Config {
	return &tls.Config{
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			srv.maybeReload()
			return srv.cur.Load(), nil
		},
	}
}

// Current returns the material in use now.
func (srv *Server) Current() *tls.Config { return srv.cur.Load() }

func (srv *Server) maybeReload() {
	now := time.Now().UnixNano()
	last := srv.lastCheck.Load()
	if now-last < int64(ReloadCheckInterval) || !srv.lastCheck.CompareAndSwap(last, now) {
		return
	}
	srv.Reload(false)
}

// Reload reloads the material if a file changed (or always, with force) and
// reports whether new material is in use.
func (srv *Server) Reload(force bool) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	cur := stampFiles(srv.paths())
	if !force && sameStamps(cur, srv.stamps) {
		return false
	}
	cfg, stamps, err := srv.build()
	if err != nil {
		// Remember the failed stamps so a half-written file is retried
		// only once it changes again, rather than on every handshake.
		srv.stamps = cur
		srv.log.Warn("tlsconf: reloading SSL key/trust store failed; still serving the previous certificate", "err", err)
		return false
	}
	srv.cur.Store(cfg)
	srv.stamps = stamps
	srv.log.Info("tlsconf: SSL key/trust store reloaded", "files", fmt.Sprint(srv.paths()))
	return true
}

func sameStamps(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.size != w.size || !v.mod.Equal(w.mod) {
			return false
		}
	}
	return true
}
