package wire

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkRoundTrip measures one small request/response over loopback, raw
// (pre-encoded frame) and through the Client (kmsg encode/decode included).
func BenchmarkRoundTrip(b *testing.B) {
	body := kmsg.NewPtrMetadataResponse()
	body.SetVersion(9)
	encoded := body.AppendTo(nil)
	_, addr, _ := startServer(b, ServerConfig{}, HandlerFunc(func(*Request) Pending {
		return Ready(&Response{Body: encoded})
	}))

	b.Run("raw", func(b *testing.B) {
		nc := dial(b, addr)
		req := encodeRequest(metadataRequest(9, "t"), 1, kmsg.StringPtr("bench"))
		var sizeBuf [4]byte
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := nc.Write(req); err != nil {
				b.Fatal(err)
			}
			if _, err := readFrame(nc, &sizeBuf, 4, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		c, err := Dial(context.Background(), addr, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		req := metadataRequest(9, "t")
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := c.Request(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client-parallel", func(b *testing.B) {
		c, err := Dial(context.Background(), addr, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			req := metadataRequest(9, "t")
			for pb.Next() {
				if _, err := c.Request(context.Background(), req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkFileSend sends a 64 MiB region of a file per op: the sendfile Part
// path, the pread fallback, and a plain io.Copy of the same file
// (userspace read+write through a SectionReader) for comparison.
func BenchmarkFileSend(b *testing.B) {
	const size = 64 << 20
	f, _ := tempFile(b, size)
	part := []Part{{File: f, Offset: 0, Length: size}}

	// The receiver reads with a 1 MiB buffer so its own copying weighs as
	// little as possible in the comparison (both ends share the CPUs).
	buf := make([]byte, 1<<20)
	drain := func(b *testing.B, nc net.Conn, n int64) {
		for n > 0 {
			m, err := nc.Read(buf[:min(int64(len(buf)), n)])
			if err != nil {
				b.Fatal(err)
			}
			n -= int64(m)
		}
	}
	for _, mode := range sendModes {
		b.Run(mode.name, func(b *testing.B) {
			_, addr, _ := startServer(b, ServerConfig{DisableSendfile: mode.disable}, partsHandler(func(int32) []Part { return part }))
			nc := dial(b, addr)
			req := encodeRequest(metadataRequest(1), 1, nil)
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := nc.Write(req); err != nil {
					b.Fatal(err)
				}
				drain(b, nc, 8+size)
			}
		})
	}
	b.Run("io.Copy", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			var one [1]byte
			for {
				if _, err := io.ReadFull(c, one[:]); err != nil {
					return
				}
				if _, err := io.Copy(c, io.NewSectionReader(f, 0, size)); err != nil {
					return
				}
			}
		}()
		nc := dial(b, ln.Addr().String())
		b.SetBytes(size)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := nc.Write([]byte{1}); err != nil {
				b.Fatal(err)
			}
			drain(b, nc, size)
		}
	})
}
