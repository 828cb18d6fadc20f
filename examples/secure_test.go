package examples

import (
	"crypto/tls"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kafgo/broker/config"
	"kafgo/internal/jaas"
	"kafgo/internal/javaprops"
	"kafgo/internal/testing/needs"
	"kafgo/internal/tlsconf"
	"kafgo/internal/zkconnect"
)

const (
	secureCluster = "examples/secure-cluster.yaml"
	secureClient  = "examples/secure-client.properties"
)

// clientProps reads examples/secure-client.properties.
func clientProps(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", secureClient))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props, err := javaprops.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return props
}

// scramPasswords maps each user the README makes with kafgo configs
// --zookeeper to its SCRAM-SHA-512 password, and returns the connect
// string those commands use.
func scramPasswords(t *testing.T, cmds [][]string) (map[string]string, []string) {
	t.Helper()
	users := map[string]string{}
	var connects []string
	for _, w := range cmds {
		if len(w) < 2 || w[0] != "kafgo" || w[1] != "configs" || flagValue(w, "--zookeeper") == "" || !slices.Contains(w, "--alter") {
			continue
		}
		add := strings.Trim(flagValue(w, "--add-config"), `'"`)
		pw, ok := strings.CutPrefix(add, "SCRAM-SHA-512=[password=")
		if !ok || !strings.HasSuffix(pw, "]") {
			t.Fatalf("README: %v: want --add-config 'SCRAM-SHA-512=[password=...]'", w)
		}
		users[flagValue(w, "--entity-name")] = strings.TrimSuffix(pw, "]")
		connects = append(connects, flagValue(w, "--zookeeper"))
	}
	return users, connects
}

// TestREADMESecureCluster checks that the pieces of the README's secure
// cluster recipe fit: the directory scripts/dev-certs.sh writes is where
// the brokers and the client properties look for the PEM files; the users
// made with kafgo configs --zookeeper, before the brokers, live where the
// brokers keep their metadata (same ZooKeeper and chroot), and include the
// brokers' inter-broker SCRAM user with the password of their JAAS config
// and the client's user with its password; and the client commands use
// the client properties against the secure brokers.
func TestREADMESecureCluster(t *testing.T) {
	cmds := readmeCommands(t)
	var brokers []*config.Broker
	var certDir string
	for _, w := range cmds {
		switch {
		case len(w) > 3 && w[0] == "kafgo" && w[1] == "broker" && flagValue(w, "--config") == secureCluster:
			brokers = append(brokers, readmeBroker(t, w[3:]))
		case len(w) > 1 && w[0] == "scripts/dev-certs.sh":
			certDir = w[1]
		}
	}
	if len(brokers) != 3 || certDir == "" {
		t.Fatalf("README: %d brokers with %s, dev-certs.sh into %q", len(brokers), secureCluster, certDir)
	}
	props := clientProps(t)
	users, connects := scramPasswords(t, cmds)
	var bootstraps []string
	for _, b := range brokers {
		bootstraps = append(bootstraps, b.Listeners[0].Host+":"+strconv.Itoa(b.Listeners[0].Port))
		ls, err := b.Security(b.Listeners[0].Name)
		if err != nil || ls.Protocol != "SASL_SSL" {
			t.Fatalf("broker %d: %+v %v", b.BrokerID, ls, err)
		}
		for _, f := range []string{ls.SSL.KeystoreLocation, ls.SSL.TruststoreLocation, props["ssl.truststore.location"]} {
			if filepath.Dir(f) != certDir {
				t.Errorf("%s is not in %s, where the README makes the certificates", f, certDir)
			}
		}
		ib, err := b.InterBroker()
		if err != nil || ib.Protocol != "SASL_SSL" || ib.Mechanism != "SCRAM-SHA-512" {
			t.Fatalf("broker %d inter-broker: %+v %v", b.BrokerID, ib, err)
		}
		if users[ib.Username] != ib.Password {
			t.Errorf("the brokers authenticate as %s, which the README does not create with its password before they start (%v)", ib.Username, users)
		}
		for _, c := range connects {
			servers, chroot, err := zkconnect.Parse(c)
			if err != nil || !slices.Equal(servers, b.ZooKeeperServers) || chroot != b.ZooKeeperChroot {
				t.Errorf("kafgo configs --zookeeper %s writes elsewhere than broker %d keeps its metadata (%v%s)", c, b.BrokerID, b.ZooKeeperServers, b.ZooKeeperChroot)
			}
		}
	}
	mod, err := jaas.ParseOne(props["sasl.jaas.config"])
	if err != nil {
		t.Fatal(err)
	}
	user, pass, _ := mod.Credentials()
	if props["security.protocol"] != "SASL_SSL" || props["sasl.mechanism"] != "SCRAM-SHA-512" || users[user] != pass {
		t.Errorf("%s: %v: user %s is not made with that password in the README (%v)", secureClient, props, user, users)
	}
	clients := 0
	for _, w := range cmds {
		for _, flag := range []string{"--command-config", "--producer.config", "--consumer.config"} {
			if flagValue(w, flag) != secureClient {
				continue
			}
			clients++
			if bs := flagValue(w, "--bootstrap-server"); !slices.Contains(bootstraps, bs) {
				t.Errorf("README: %v connects to %s, none of the secure brokers %v", w, bs, bootstraps)
			}
		}
	}
	if clients < 3 {
		t.Errorf("README: %d client commands use %s", clients, secureClient)
	}
}

// TestDevCerts runs scripts/dev-certs.sh and uses what it makes as the
// secure cluster does: a broker's TLS listener from
// examples/secure-cluster.yaml (encrypted key, ssl.key.password) and a
// client from examples/secure-client.properties, with the paths pointed
// at the new files, complete a TLS handshake for 127.0.0.1 and for
// localhost, and a client trusting another CA fails.
func TestDevCerts(t *testing.T) {
	needs.Tool(t, "openssl", "apt-get install openssl; scripts/dev-certs.sh runs it")
	dir := t.TempDir()
	out, err := exec.Command("../scripts/dev-certs.sh", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("dev-certs.sh: %v\n%s", err, out)
	}
	b, err := config.Load(filepath.Join("..", secureCluster), map[string]string{
		"listeners":               "SASL_SSL://127.0.0.1:9192",
		"ssl.keystore.location":   filepath.Join(dir, "broker.pem"),
		"ssl.truststore.location": filepath.Join(dir, "ca.pem"),
	})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := b.Security("SASL_SSL")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := tlsconf.NewServer(ls.SSL, nil)
	if err != nil {
		t.Fatalf("the broker cannot load what dev-certs.sh made: %v", err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.Copy(io.Discard, c) // the handshake happens on the first read
			}()
		}
	}()

	props := clientProps(t)
	props["ssl.truststore.location"] = filepath.Join(dir, "ca.pem")
	dial := func(host string, props map[string]string) error {
		s, err := tlsconf.Read(func(k string) (string, bool) { v, ok := props[k]; return v, ok })
		if err != nil {
			return err
		}
		cfg, err := s.ClientConfig()
		if err != nil {
			return err
		}
		cfg.ServerName = host
		d := &net.Dialer{Timeout: 10 * time.Second}
		c, err := tls.DialWithDialer(d, "tcp", ln.Addr().String(), cfg)
		if err != nil {
			return err
		}
		return c.Close()
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if err := dial(host, props); err != nil {
			t.Errorf("client to %s: %v", host, err)
		}
	}
	if err := dial("broker.example.com", props); err == nil {
		t.Error("a name the certificate does not hold was accepted")
	}
	other := t.TempDir()
	if out, err := exec.Command("../scripts/dev-certs.sh", other).CombinedOutput(); err != nil {
		t.Fatalf("dev-certs.sh: %v\n%s", err, out)
	}
	props["ssl.truststore.location"] = filepath.Join(other, "ca.pem")
	if err := dial("127.0.0.1", props); err == nil {
		t.Error("a client trusting another CA was accepted")
	}
}
