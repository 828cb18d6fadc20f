package dumplog

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden segment files and expected outputs under testdata/dumplog")

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := generateSegments(segmentsDir); err != nil {
			fmt.Fprintln(os.Stderr, "generating golden segments:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

const segmentsDir = "../testdata/dumplog/segments"
