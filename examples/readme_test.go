// Package examples holds the sample broker configs; its test checks that
// the README's recipes built on them hold together.
package examples

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"kafgo/broker/config"
)

// readmeCommands returns the shell commands of the README's sh blocks,
// continuation lines joined, each split into words and cut before any
// redirection or "&".
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out     [][]string
		inBlock bool
		cur     string
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = line == "```sh"
			continue
		case !inBlock:
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		cur += line
		var words []string
		for _, w := range strings.Fields(cur) {
			if w == "&" || w == "&&" || w == "#" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") {
				break
			}
			words = append(words, w)
		}
		cur = ""
		out = append(out, words)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readmeBroker loads the broker config a "kafgo broker serve" line of the
// README gives, as the command would. A config named by an absolute path
// (the migration section's /opt/kafka/config/server.properties) is the
// operator's own file, not one of the repository's: nil.
func readmeBroker(t *testing.T, args []string) *config.Broker {
	t.Helper()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	file := fs.String("config", "", "")
	fs.String("log-level", "info", "")
	fs.Bool("check-config", false, "")
	flags := config.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	overrides, err := flags.Overrides()
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	path := *file
	if path == "" && fs.NArg() > 0 {
		path = fs.Arg(0)
	}
	if path == "" {
		t.Fatalf("%q: no config file", args)
	}
	if filepath.IsAbs(path) {
		return nil
	}
	b, err := config.Load(filepath.Join("..", path), overrides)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return b
}

func flagValue(words []string, name string) string {
	for i, w := range words {
		if w == name && i+1 < len(words) {
			return words[i+1]
		}
		if v, ok := strings.CutPrefix(w, name+"="); ok {
			return v
		}
	}
	return ""
}

// readmeCluster is the brokers of one README recipe (those sharing a
// --config file) and the kafgo tui command that shows them.
type readmeCluster struct {
	file    string
	brokers []*config.Broker
	tui     []string
}

// TestREADMECluster follows the README's cluster recipes on paper: each
// is three brokers on one ZooKeeper, each with its own id, Kafka port,
// admin port and data directory (they all took admin.listener
// 127.0.0.1:9644 from server.yaml once), the internal topics replicated
// three times, and a TUI command that names every broker's admin
// endpoint. The recipes can run side by side: no port or directory is
// shared, and clusters on one ZooKeeper use different chroots. Their
// scripts and config files exist, and nothing links out of the
// repository.
func TestREADMECluster(t *testing.T) {
	clusters := map[string]*readmeCluster{}
	var order []string
	var tuis [][]string
	for _, words := range readmeCommands(t) {
		switch {
		case len(words) > 3 && words[0] == "kafgo" && words[1] == "broker" && words[2] == "serve":
			b := readmeBroker(t, words[3:])
			if b == nil || b.Embedded() {
				continue
			}
			file := flagValue(words, "--config")
			if clusters[file] == nil {
				clusters[file] = &readmeCluster{file: file}
				order = append(order, file)
			}
			clusters[file].brokers = append(clusters[file].brokers, b)
		case len(words) > 1 && words[0] == "kafgo" && words[1] == "tui" && strings.Contains(flagValue(words, "--admin"), ","):
			tuis = append(tuis, words)
		case len(words) > 0 && strings.HasPrefix(words[0], "scripts/"):
			if st, err := os.Stat(filepath.Join("..", words[0])); err != nil || st.Mode()&0o111 == 0 {
				t.Errorf("README runs %s, which is not an executable file (%v)", words[0], err)
			}
		}
	}
	if len(order) != 2 {
		t.Fatalf("the README's cluster recipes use %v, want the plaintext and the secure cluster", order)
	}
	seen := map[string]string{}
	zk := map[string]string{}
	for _, file := range order {
		c := clusters[file]
		if len(c.brokers) != 3 {
			t.Fatalf("the README's %s cluster has %d ZooKeeper brokers, want 3", file, len(c.brokers))
		}
		ids := map[int32]bool{}
		var admins, bootstraps []string
		for _, b := range c.brokers {
			id := strconv.Itoa(int(b.BrokerID))
			if ids[b.BrokerID] {
				t.Errorf("%s: two brokers have id %s", file, id)
			}
			ids[b.BrokerID] = true
			if len(b.Listeners) != 1 {
				t.Fatalf("%s broker %s: listeners %v", file, id, b.Listeners)
			}
			listener := b.Listeners[0].Host + ":" + strconv.Itoa(b.Listeners[0].Port)
			for _, own := range []string{"port " + strconv.Itoa(b.Listeners[0].Port), "admin " + b.AdminListener, "log.dirs " + strings.Join(b.LogDirs, ",")} {
				if other, dup := seen[own]; dup {
					t.Errorf("%s broker %s and %s share %s", file, id, other, own)
				}
				seen[own] = file + " broker " + id
			}
			if b.AdminListener == "" {
				t.Errorf("%s broker %s has no admin.listener", file, id)
			}
			if b.OffsetsTopicReplicationFactor != 3 || b.TransactionStateLogReplicationFactor != 3 {
				t.Errorf("%s broker %s: internal topics replicated %d/%d times, want 3", file, id, b.OffsetsTopicReplicationFactor, b.TransactionStateLogReplicationFactor)
			}
			first := c.brokers[0]
			if !slices.Equal(b.ZooKeeperServers, first.ZooKeeperServers) || b.ZooKeeperChroot != first.ZooKeeperChroot {
				t.Errorf("%s broker %s: zookeeper %v%s, broker %d: %v%s", file, id, b.ZooKeeperServers, b.ZooKeeperChroot, first.BrokerID, first.ZooKeeperServers, first.ZooKeeperChroot)
			}
			if _, err := b.InterBroker(); err != nil {
				t.Errorf("%s broker %s: %v", file, id, err)
			}
			admins = append(admins, b.AdminListener)
			bootstraps = append(bootstraps, listener)
		}
		where := strings.Join(c.brokers[0].ZooKeeperServers, ",") + c.brokers[0].ZooKeeperChroot
		if other, dup := zk[where]; dup {
			t.Errorf("%s and %s both keep their metadata at %s", file, other, where)
		}
		zk[where] = file
		for _, tui := range tuis {
			if slices.Equal(strings.Split(flagValue(tui, "--admin"), ","), admins) {
				c.tui = tui
			}
		}
		if c.tui == nil {
			t.Fatalf("the README shows no kafgo tui command with the %s brokers' admin listeners %v", file, admins)
		}
		if bs := flagValue(c.tui, "--bootstrap-server"); !slices.Contains(bootstraps, bs) {
			t.Errorf("kafgo tui --bootstrap-server %s is none of the %s brokers %v", bs, file, bootstraps)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"http://", "https://", "](../", "](/"} {
		if strings.Contains(string(readme), out) {
			t.Errorf("README links out of the repository (%q)", out)
		}
	}
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(makefile), "\ninstall:") {
		t.Error("README says make install; the Makefile has no install target")
	}
}
