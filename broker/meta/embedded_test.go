package meta_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kafgo/broker/meta"
)

// quietLogger logs errors only; KAFGO_TEST_LOG=debug shows everything,
// including go-zookeeper's connection chatter, when chasing a failure.
func quietLogger() *slog.Logger {
	level := slog.LevelError
	if os.Getenv("KAFGO_TEST_LOG") == "debug" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

func openEmbedded(t *testing.T, path string) *meta.Embedded {
	t.Helper()
	s, err := meta.OpenEmbedded(path, quietLogger())
	if err != nil {
		t.Fatalf("OpenEmbedded: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*meta.Embedded)
}

// embeddedBackend gives each case a fresh file. An anchor session that no
// case sees keeps the tree open while cases close their own sessions.
func embeddedBackend(t *testing.T) backend {
	anchor := openEmbedded(t, filepath.Join(t.TempDir(), "__kafgo_meta", "meta.json"))
	return backend{open: func(t *testing.T) meta.Store {
		s, err := anchor.NewSession()
		if err != nil {
			t.Fatalf("NewSession: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}}
}

func TestEmbeddedConformance(t *testing.T) {
	runConformance(t, embeddedBackend)
}

func TestEmbeddedDurableAcrossReopen(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	_, err := s.Create(ctx, "/brokers", nil, meta.Persistent)
	must(t, err)
	_, err = s.Create(ctx, "/brokers/topics", []byte(`{"version":1,"config":{"a":"<b>"}}`), meta.Persistent)
	must(t, err)
	_, err = s.Create(ctx, "/bin", []byte{0xff, 0x00, 0xfe}, meta.Persistent)
	must(t, err)
	_, err = s.Set(ctx, "/bin", []byte{0xff, 0x01}, 0)
	must(t, err)
	_, err = s.Create(ctx, "/brokers/eph", []byte("gone"), meta.Ephemeral)
	must(t, err)
	seq, err := s.Create(ctx, "/brokers/n-", nil, meta.PersistentSequential)
	must(t, err)
	_, topicsStat := getData(t, s, "/brokers/topics")
	_, binStat := getData(t, s, "/bin")
	_, brokersStat := getData(t, s, "/brokers")
	must(t, s.Close())

	// The file is readable: Kafka's JSON is stored as text.
	raw, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Contains(raw, []byte(`"data":"{\"version\":1,\"config\":{\"a\":\"<b>\"}}"`)) || bytes.Contains(raw, []byte("gone")) {
		t.Fatalf("file content unexpected:\n%s", raw)
	}

	r := openEmbedded(t, path)
	if st := wantData(t, r, "/brokers/topics", `{"version":1,"config":{"a":"<b>"}}`); st != topicsStat {
		t.Fatalf("stat after reopen = %+v, want %+v", st, topicsStat)
	}
	if data, st := getData(t, r, "/bin"); !bytes.Equal(data, []byte{0xff, 0x01}) || st != binStat {
		t.Fatalf("binary znode after reopen = %x %+v", data, st)
	}
	wantMissing(t, r, "/brokers/eph")
	wantData(t, r, seq, "")
	_, st := getData(t, r, "/brokers")
	// The ephemeral was deleted when its session closed (one more child
	// change), and the counters it advanced persist: the next sequential
	// number and zxid continue past anything handed out before.
	if st.Cversion != brokersStat.Cversion+1 || st.NumChildren != 2 {
		t.Fatalf("/brokers after reopen = %+v, before %+v", st, brokersStat)
	}
	next, err := r.Create(ctx, "/brokers/n-", nil, meta.PersistentSequential)
	must(t, err)
	if n1, _ := meta.SequenceNumber(seq); next != "/brokers/n-"+strings.Repeat("0", 9)+"3" || n1 != 2 {
		t.Fatalf("sequential after reopen = %q (before %q)", next, seq)
	}
	_, nst := getData(t, r, next)
	if nst.Czxid <= brokersStat.Pzxid {
		t.Fatalf("zxid went backwards after reopen: %d <= %d", nst.Czxid, brokersStat.Pzxid)
	}
}

func TestEmbeddedRefusesCorruptFile(t *testing.T) {
	ctx := testCtx(t)
	good := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, good)
	_, err := s.Create(ctx, "/cluster", []byte(`{"version":"1","id":"x"}`), meta.Persistent)
	must(t, err)
	must(t, s.Close())
	valid, err := os.ReadFile(good)
	must(t, err)

	flip := bytes.Clone(valid)
	i := bytes.Index(flip, []byte(`"id\"`))
	flip[i+1] = 'I' // still valid JSON, wrong checksum

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty"},
		{"truncated", valid[:len(valid)/2], "truncated or half-written"},
		{"garbage", []byte("\x00\x01garbage"), "truncated or half-written"},
		{"bit flip", flip, "crc32c mismatch"},
		{"trailing garbage", append(bytes.Clone(valid), "{}"...), "truncated or half-written"},
		{"other format", []byte(`{"format":"nope","version":1,"crc32c":0,"state":{}}`), "format"},
		{"orphan node", withState(`{"zxid":1,"nodes":[{"path":"/","czxid":0,"mzxid":0,"pzxid":0,"ctime":0,"mtime":0,"version":0,"creates":1},{"path":"/a/b","czxid":1,"mzxid":1,"pzxid":1,"ctime":0,"mtime":0,"version":0,"creates":0}]}`), "no parent"},
		{"no root", withState(`{"zxid":0,"nodes":[]}`), "root"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "meta.json")
			must(t, os.WriteFile(path, tc.data, 0o644))
			s, err := meta.OpenEmbedded(path, quietLogger())
			if err == nil {
				s.Close()
				t.Fatal("corrupt file was loaded")
			}
			if !errors.Is(err, meta.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error = %v, want ErrCorrupt mentioning %q and the file", err, tc.want)
			}
			// The file is left as it was for the operator to inspect.
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, tc.data) {
				t.Fatal("corrupt file was modified")
			}
		})
	}

	// A leftover temp file from a crash mid-write does not matter.
	must(t, os.WriteFile(good+".tmp", valid[:10], 0o644))
	r := openEmbedded(t, good)
	wantData(t, r, "/cluster", `{"version":"1","id":"x"}`)
}

// withState wraps a state document in a valid envelope.
func withState(state string) []byte {
	return []byte(`{"format":"kafgo-meta","version":1,"crc32c":` + crcOf(state) + `,"state":` + state + "}\n")
}

func TestEmbeddedLocksFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	if _, err := meta.OpenEmbedded(path, quietLogger()); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open of a file in use: err = %v", err)
	}
	extra, err := s.NewSession()
	must(t, err)
	must(t, s.Close())
	// Another session still holds the tree open.
	if _, err := meta.OpenEmbedded(path, quietLogger()); err == nil {
		t.Fatal("opened while a session was live")
	}
	must(t, extra.Close())
	r, err := meta.OpenEmbedded(path, quietLogger())
	must(t, err)
	must(t, r.Close())
}

func TestEmbeddedConcurrentUse(t *testing.T) {
	ctx := testCtx(t)
	s := openEmbedded(t, filepath.Join(t.TempDir(), "meta.json"))
	_, err := s.Create(ctx, "/n", []byte("0"), meta.Persistent)
	must(t, err)
	// Many writers doing read-modify-write with version checks: every
	// successful Set is one increment, so none is lost.
	const workers, perWorker = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		sess, err := s.NewSession()
		must(t, err)
		t.Cleanup(func() { sess.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done, tries := 0, 0; done < perWorker; tries++ {
				if tries > 10000 {
					errs <- errors.New("too many version conflicts")
					return
				}
				data, st, err := sess.Get(ctx, "/n")
				if err != nil {
					errs <- err
					return
				}
				_, err = sess.Set(ctx, "/n", append(data, byte('a'+w)), st.Version)
				if errors.Is(err, meta.ErrBadVersion) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				done++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, st := getData(t, s, "/n")
	if st.Version != workers*perWorker || len(data) != 1+workers*perWorker {
		t.Fatalf("after concurrent sets: version %d, %d bytes; want %d", st.Version, len(data), workers*perWorker)
	}
}

func TestEmbeddedCopiesData(t *testing.T) {
	ctx := testCtx(t)
	s := openEmbedded(t, filepath.Join(t.TempDir(), "meta.json"))
	buf := []byte("abc")
	_, err := s.Create(ctx, "/d", buf, meta.Persistent)
	must(t, err)
	buf[0] = 'X'
	data, _ := getData(t, s, "/d")
	data[1] = 'Y'
	wantData(t, s, "/d", "abc")
}

func TestEmbeddedCancelledContext(t *testing.T) {
	s := openEmbedded(t, filepath.Join(t.TempDir(), "meta.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := s.Get(ctx, "/")
	wantErr(t, err, context.Canceled)
}

func TestEmbeddedFailStopOnWriteError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write bool
	}{{"append", true}, {"fsync", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			dir := filepath.Join(t.TempDir(), "meta")
			s := openEmbedded(t, filepath.Join(dir, "meta.json"))
			_, err := s.Create(ctx, "/a", []byte("a"), meta.Persistent)
			must(t, err)
			_, _, watch, err := s.ExistsW(ctx, "/b")
			must(t, err)

			// The disk fails: the write cannot be made durable.
			meta.BreakEmbeddedLog(s, tc.write, errors.New("EIO"))
			_, err = s.Create(ctx, "/b", nil, meta.Persistent)
			if err == nil {
				t.Fatal("create succeeded without a place to persist it")
			}
			// The store refuses further use, and no watch fired for a
			// change that is not durable.
			_, _, err = s.Get(ctx, "/a")
			if err == nil || !strings.Contains(err.Error(), "failed earlier") {
				t.Fatalf("Get after a failed write = %v, want the fail-stop error", err)
			}
			select {
			case ev := <-watch:
				t.Fatalf("watch fired for a change that is not durable: %+v", ev)
			default:
			}
			_ = s.Close()
		})
	}
}
