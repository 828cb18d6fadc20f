package main

import (
	"bytes"
	"testing"
)

func TestVersionFlag(t *testing.T) {
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "kafgo "+version+"\n"; got != want {
		t.Fatalf("--version printed %q, want %q", got, want)
	}
}
