// Command kfakeserver serves the perf baselines for scripts/perf-figures.sh:
// franz-go's in-memory kfake cluster as a peer Kafka implementation, and a
// raw loopback TCP throughput measurement as the machine's ceiling. It is a
// measurement tool, not part of the product.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "serve a one-broker kfake cluster on 127.0.0.1:port until SIGTERM")
	loopback := flag.Int64("loopback-bytes", 0, "instead, measure raw TCP throughput over 127.0.0.1 for this many bytes and print MB/s")
	flag.Parse()
	if *loopback > 0 {
		mbps, err := measureLoopback(*loopback)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%.1f\n", mbps)
		return
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(*port), kfake.AllowAutoTopicCreation())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	fmt.Println(c.ListenAddrs()[0])
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}

// measureLoopback streams n bytes through one loopback TCP connection in
// 1 MiB writes and returns MB/s (MiB, as Kafka's tools count).
func measureLoopback(n int64) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		_, err = io.CopyN(io.Discard, c, n)
		done <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	start := time.Now()
	for sent := int64(0); sent < n; {
		w := min(int64(len(buf)), n-sent)
		if _, err := c.Write(buf[:w]); err != nil {
			return 0, err
		}
		sent += w
	}
	if err := <-done; err != nil {
		return 0, err
	}
	return float64(n) / (1 << 20) / time.Since(start).Seconds(), nil
}
