package configs

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"kafgo/internal/scram"
	"kafgo/internal/testing/testcluster"
)

// zkUser is the Options of --entity-type users [--entity-name name].
func zkUser(name string) Options {
	o := Options{EntityType: EntityUsers, Types: []string{EntityUsers}}
	if name != "" {
		o.EntityName, o.NameSet, o.Names = name, true, []string{name}
	}
	return o
}

func runZK(t *testing.T, connect string, o Options) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := RunZooKeeper(ctx, connect, o, &out)
	return out.String(), err
}

// zkConfig reads a user's znode with ZooKeeper's own shell, not with the
// code under test.
func zkConfig(t *testing.T, connect, path string) map[string]string {
	t.Helper()
	raw := testcluster.ZooKeeperShell(t, connect, "get", path)
	var v struct {
		Version int               `json:"version"`
		Config  map[string]string `json:"config"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &v); err != nil || v.Version != 1 {
		t.Fatalf("%s holds %q: %v", path, raw, err)
	}
	return v.Config
}

func wantCredential(t *testing.T, cfg map[string]string, m scram.Mechanism, password string, iterations int) {
	t.Helper()
	c, err := scram.ParseCredential(cfg[m.Name])
	if err != nil {
		t.Fatalf("%s: %q: %v", m.Name, cfg[m.Name], err)
	}
	if c.Iterations != iterations || !m.Verify(c, password) {
		t.Fatalf("%s: %q does not verify %q with %d iterations", m.Name, cfg[m.Name], password, iterations)
	}
}

// TestZooKeeperScramCredentials runs kafka-configs --zookeeper's SCRAM
// commands against a real ZooKeeper and reads the znodes back with
// zkCli.sh: Kafka's JSON and credential strings (verifying the password),
// the user's quota kept, the sanitized znode name, a /config/changes
// notification per change, parents and the chroot created on a fresh
// ensemble, deletions of keys the user lacks refused, and Kafka's output.
func TestZooKeeperScramCredentials(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	connect := zk.Connect() + "/kafka"
	const alicePath = "/kafka/config/users/alice%40EXAMPLE.COM"
	for _, p := range []string{"/kafka", "/kafka/config", "/kafka/config/users"} {
		testcluster.ZooKeeperShell(t, zk.Connect(), "create", p, "")
	}
	testcluster.ZooKeeperShell(t, zk.Connect(), "create", alicePath, `{"version":1,"config":{"producer_byte_rate":"1048576"}}`)
	testcluster.ZooKeeperShell(t, zk.Connect(), "create", "/kafka/config/users/quiet", `{"version":1,"config":{}}`)

	// Add two credentials to a user that has a quota.
	o := zkUser("alice@EXAMPLE.COM")
	o.Alter, o.AddConfig = true, "SCRAM-SHA-512=[password=alice-secret],SCRAM-SHA-256=[iterations=8192,password=alice-secret]"
	out, err := runZK(t, connect, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := zkDeprecation + "Completed updating config for entity: user-principal 'alice@EXAMPLE.COM'.\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	cfg := zkConfig(t, zk.Connect(), alicePath)
	if cfg["producer_byte_rate"] != "1048576" || len(cfg) != 3 {
		t.Fatalf("alice's config %v: want the quota kept beside two credentials", cfg)
	}
	wantCredential(t, cfg, scram.SHA512, "alice-secret", 4096)
	wantCredential(t, cfg, scram.SHA256, "alice-secret", 8192)
	if got := testcluster.ZooKeeperShell(t, zk.Connect(), "get", "/kafka/config/changes/config_change_0000000000"); strings.TrimSpace(got) != `{"version":2,"entity_path":"users/alice%40EXAMPLE.COM"}` {
		t.Fatalf("change notification %q", got)
	}

	// Describe one user: every key, sorted, credentials as stored.
	out, err = runZK(t, connect, func() Options { o := zkUser("alice@EXAMPLE.COM"); o.Describe = true; return o }())
	if err != nil {
		t.Fatal(err)
	}
	want := zkDeprecation + "Configs for user-principal 'alice@EXAMPLE.COM' are SCRAM-SHA-256=" + cfg["SCRAM-SHA-256"] + ",SCRAM-SHA-512=" + cfg["SCRAM-SHA-512"] + ",producer_byte_rate=1048576\n"
	if out != want {
		t.Fatalf("describe:\n%s\nwant\n%s", out, want)
	}

	// Delete one credential; the other and the quota stay.
	o = zkUser("alice@EXAMPLE.COM")
	o.Alter, o.DeleteConfig = true, []string{"SCRAM-SHA-256"}
	if _, err := runZK(t, connect, o); err != nil {
		t.Fatal(err)
	}
	after := zkConfig(t, zk.Connect(), alicePath)
	if _, ok := after["SCRAM-SHA-256"]; ok || after["SCRAM-SHA-512"] != cfg["SCRAM-SHA-512"] || after["producer_byte_rate"] != "1048576" {
		t.Fatalf("after deleting SCRAM-SHA-256: %v", after)
	}
	if got := testcluster.ZooKeeperShell(t, zk.Connect(), "ls", "/kafka/config/changes"); !strings.Contains(got, "config_change_0000000001") {
		t.Fatalf("no notification for the deletion: %q", got)
	}
	// Deleting it again is Kafka's "Invalid config(s)", and writes nothing.
	if _, err := runZK(t, connect, o); err == nil || err.Error() != "Invalid config(s): SCRAM-SHA-256" {
		t.Fatalf("deleting a missing credential: %v", err)
	}
	if again := zkConfig(t, zk.Connect(), alicePath); len(again) != 2 {
		t.Fatalf("a refused deletion changed the znode: %v", again)
	}

	// A fresh ensemble and chroot: every parent is created.
	o = zkUser("admin")
	o.Alter, o.AddConfig = true, "SCRAM-SHA-512=[password=admin-secret]"
	if out, err := runZK(t, zk.Connect()+"/fresh/kafka", o); err != nil || !strings.HasSuffix(out, "Completed updating config for entity: user-principal 'admin'.\n") {
		t.Fatalf("admin on a fresh chroot: %q %v", out, err)
	}
	wantCredential(t, zkConfig(t, zk.Connect(), "/fresh/kafka/config/users/admin"), scram.SHA512, "admin-secret", 4096)

	// Every user: those with a config, not the empty one.
	o = zkUser("")
	o.Describe = true
	out, err = runZK(t, connect, o)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimPrefix(out, zkDeprecation), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "Configs for user-principal 'alice@EXAMPLE.COM' are SCRAM-SHA-512=salt=") {
		t.Fatalf("describe every user: %q", out)
	}
}

// TestZooKeeperRefusals: what --zookeeper does not do is refused before
// anything is written, naming the keys but never a password.
func TestZooKeeperRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		o    Options
		want string
	}{
		"quota key": {func() Options {
			o := zkUser("bob")
			o.Alter, o.AddConfig = true, "SCRAM-SHA-512=[password=bob-secret],producer_byte_rate=1024"
			return o
		}(), "--bootstrap-server option must be specified to update users configs: {add: [producer_byte_rate], delete: []}. User configuration updates using ZooKeeper are only supported for SCRAM credential updates."},
		"topics": {Options{EntityType: EntityTopics, EntityName: "t", NameSet: true, Describe: true}, "--zookeeper only describes and alters the SCRAM credentials of users"},
		"user default": {func() Options {
			o := Options{EntityType: EntityUsers, Types: []string{EntityUsers}, Names: []string{""}, EntityDefault: true}
			o.Alter, o.AddConfig = true, "SCRAM-SHA-512=[password=x]"
			return o
		}(), "--alter with --zookeeper needs one user"},
		"user and client": {func() Options {
			o := Options{EntityType: EntityUsers, Types: []string{EntityUsers, EntityClients}, Names: []string{"bob", "c"}}
			o.Alter, o.AddConfig = true, "SCRAM-SHA-512=[password=x]"
			return o
		}(), "--zookeeper only describes and alters the SCRAM credentials of users"},
		"too few iterations": {func() Options {
			o := zkUser("bob")
			o.Alter, o.AddConfig = true, "SCRAM-SHA-256=[iterations=1000,password=bob-secret]"
			return o
		}(), "Iterations 1000 is less than the minimum 4096 required for SCRAM-SHA-256"},
	} {
		t.Run(name, func(t *testing.T) {
			// 127.0.0.1:1 is never dialled: every case fails first.
			_, err := runZK(t, "127.0.0.1:1", tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("password in %q", err)
			}
		})
	}
}

// TestZooKeeperNotRunningFailsFast: with nothing listening at --zookeeper
// the tool says so after its few seconds of trying (zkConnectTimeout), not
// after a session timeout's 30 s; the caller's own deadline, longer than
// the former and shorter than the latter, must not be what ends it.
func TestZooKeeperNotRunningFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	o := zkUser("")
	o.Describe = true
	err = RunZooKeeper(ctx, addr, o, &out)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("got %v with the caller's deadline %v, want the tool's own failure first", err, ctx.Err())
	}
	if want := "connecting to ZooKeeper " + addr + ": no answer within 5s: is ZooKeeper running there?"; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %q, want it to start %q", err, want)
	}
}
