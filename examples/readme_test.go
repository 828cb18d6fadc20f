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
// README gives, as the command would.
func readmeBroker(t *testing.T, args []string) *config.Broker {
	t.Helper()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	file := fs.String("config", "", "")
	fs.String("log-level", "info", "")
	flags := config.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	overrides, err := flags.Overrides()
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	b, err := config.Load(filepath.Join("..", *file), overrides)
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

// TestREADMECluster follows the README's cluster recipe on paper: three
// brokers on one ZooKeeper, each with its own id, Kafka port, admin port
// and data directory (they all took admin.listener 127.0.0.1:9644 from
// server.yaml once), the internal topics replicated three times, and a TUI
// command that names every broker's admin endpoint. Its scripts and config
// files exist, and nothing links out of the repository.
func TestREADMECluster(t *testing.T) {
	var brokers []*config.Broker
	var tui []string
	for _, words := range readmeCommands(t) {
		switch {
		case len(words) > 3 && words[0] == "kafgo" && words[1] == "broker" && words[2] == "serve":
			if b := readmeBroker(t, words[3:]); !b.Embedded() {
				brokers = append(brokers, b)
			}
		case len(words) > 1 && words[0] == "kafgo" && words[1] == "tui" && strings.Contains(flagValue(words, "--admin"), ","):
			tui = words
		case len(words) > 0 && strings.HasPrefix(words[0], "scripts/"):
			if st, err := os.Stat(filepath.Join("..", words[0])); err != nil || st.Mode()&0o111 == 0 {
				t.Errorf("README runs %s, which is not an executable file (%v)", words[0], err)
			}
		}
	}
	if len(brokers) != 3 {
		t.Fatalf("the README's cluster has %d ZooKeeper brokers, want 3", len(brokers))
	}
	seen := map[string]bool{}
	var admins []string
	var bootstraps []string
	for _, b := range brokers {
		id := strconv.Itoa(int(b.BrokerID))
		if len(b.Listeners) != 1 {
			t.Fatalf("broker %s: listeners %v", id, b.Listeners)
		}
		listener := b.Listeners[0].Host + ":" + strconv.Itoa(b.Listeners[0].Port)
		for _, own := range []string{"id " + id, "listener " + listener, "admin " + b.AdminListener, "log.dirs " + strings.Join(b.LogDirs, ",")} {
			if seen[own] {
				t.Errorf("two brokers share %s", own)
			}
			seen[own] = true
		}
		if b.AdminListener == "" {
			t.Errorf("broker %s has no admin.listener", id)
		}
		if b.OffsetsTopicReplicationFactor != 3 || b.TransactionStateLogReplicationFactor != 3 {
			t.Errorf("broker %s: internal topics replicated %d/%d times, want 3", id, b.OffsetsTopicReplicationFactor, b.TransactionStateLogReplicationFactor)
		}
		if !slices.Equal(b.ZooKeeperServers, brokers[0].ZooKeeperServers) {
			t.Errorf("broker %s: zookeeper %v, broker %d: %v", id, b.ZooKeeperServers, brokers[0].BrokerID, brokers[0].ZooKeeperServers)
		}
		admins = append(admins, b.AdminListener)
		bootstraps = append(bootstraps, listener)
	}
	if tui == nil {
		t.Fatal("the README shows no kafgo tui command for the cluster")
	}
	if got := strings.Split(flagValue(tui, "--admin"), ","); !slices.Equal(got, admins) {
		t.Errorf("kafgo tui --admin %v, the brokers' admin listeners are %v", got, admins)
	}
	if bs := flagValue(tui, "--bootstrap-server"); !slices.Contains(bootstraps, bs) {
		t.Errorf("kafgo tui --bootstrap-server %s is none of the brokers %v", bs, bootstraps)
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
