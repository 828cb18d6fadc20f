package main

import (
	"strings"
	"testing"
)

// TestBrokerServeBooleanKeyTakesFollowingWord: the README says any
// server.properties key works as --<key> <value>; for a boolean key the
// following word is its value, as --<key>=<value> is. The command then gets
// as far as the log level (made bad on purpose, so that no broker starts):
// the key and its value were accepted.
func TestBrokerServeBooleanKeyTakesFollowingWord(t *testing.T) {
	for _, args := range [][]string{
		{"--auto.create.topics.enable", "false"},
		{"--auto.create.topics.enable", "FALSE"},
		{"--auto.create.topics.enable=false"},
		{"--auto.create.topics.enable"},
		{"--auto.create.topics.enable", "--delete.topic.enable", "true"},
	} {
		_, _, err := execute(t, "", append([]string{"broker", "serve", "--log-level", "nonsense"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), `--log-level "nonsense"`) {
			t.Errorf("%q: got %v, want only the bad --log-level refused", args, err)
		}
	}
	// A word that is no boolean is refused as the key's value, naming it.
	_, _, err := execute(t, "", "broker", "serve", "--log-level", "nonsense", "--auto.create.topics.enable", "maybe")
	if err == nil || !strings.Contains(err.Error(), "auto.create.topics.enable") || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("--auto.create.topics.enable maybe: got %v, want the value refused", err)
	}
}

// TestUnknownFlagSuggestsClosest: a mistyped flag gets a did-you-mean, as a
// mistyped key in a config file or --override does.
func TestUnknownFlagSuggestsClosest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"broker", "serve", "--auto.create.topic.enable", "false"}, "unknown flag: --auto.create.topic.enable (did you mean --auto.create.topics.enable?)"},
		{[]string{"topics", "--bootstrap-sever", "x", "--list"}, "unknown flag: --bootstrap-sever (did you mean --bootstrap-server?)"},
		{[]string{"topics", "--completely-unlike-anything", "--list"}, "unknown flag: --completely-unlike-anything"},
	} {
		_, _, err := execute(t, "", c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
}
