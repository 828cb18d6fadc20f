package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

var errShortFile = errors.New("wire: file region shorter than promised")

const bufWriterSize = 32 << 10

// Writers and copy buffers are pooled so an idle connection holds neither.
var (
	bufWriterPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufWriterSize) }}
	copyBufPool   = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}
)

// writeLoop resolves and writes queued responses in order, and exits when the
// queue is empty (a later request starts a new one).
func (c *conn) writeLoop() {
	bw := bufWriterPool.Get().(*bufio.Writer)
	bw.Reset(&c.cw)
	defer func() {
		bw.Reset(nil)
		bufWriterPool.Put(bw)
	}()
	for {
		c.mu.Lock()
		if c.closed {
			c.writing = false
			c.mu.Unlock()
			return
		}
		if len(c.q) == 0 {
			c.writing = false
			done := c.readDone
			c.mu.Unlock()
			if done {
				c.close(closeShutdownOrNormal(c.srv), nil)
			}
			return
		}
		it := c.q[0]
		c.mu.Unlock()

		resp, ok := c.resolve(it)
		if !ok {
			return
		}
		if err := c.writeResponse(bw, it, resp); err != nil {
			c.close(closeError, fmt.Errorf("wire: write response to key %d: %w", it.key, err))
			return
		}
		c.lastActive.Store(time.Now().UnixNano())
		if resp.Close {
			c.close(closeNormal, errors.New("wire: handler closed the connection"))
			return
		}
		c.mu.Lock()
		if !c.closed {
			last := len(c.q) - 1
			copy(c.q, c.q[1:])
			c.q[last] = item{} // drop the Pending for the GC
			c.q = c.q[:last]
			c.slotFree.Signal()
		}
		c.mu.Unlock()
	}
}

// writeInline writes the response of an answered request (Request.Answer)
// from the reader when nothing is queued before it: no writer goroutine is
// running then, and only the reader starts one, so the reader may write.
// done is false when the response must be queued instead; ok is false when
// the connection is closed.
func (c *conn) writeInline(it item, resp *Response) (done, ok bool) {
	c.mu.Lock()
	closed, busy := c.closed, c.writing || len(c.q) > 0
	c.mu.Unlock()
	if closed {
		return true, false
	}
	if busy {
		return false, true
	}
	bw := bufWriterPool.Get().(*bufio.Writer)
	bw.Reset(&c.cw)
	err := c.writeResponse(bw, it, resp)
	bw.Reset(nil)
	bufWriterPool.Put(bw)
	if err != nil {
		c.close(closeError, fmt.Errorf("wire: write response to key %d: %w", it.key, err))
		return true, false
	}
	c.lastActive.Store(time.Now().UnixNano())
	if resp.Close {
		c.close(closeNormal, errors.New("wire: handler closed the connection"))
		return true, false
	}
	return true, true
}

// resolve calls the Pending, turning a panic or a nil Response into a closed
// connection.
func (c *conn) resolve(it item) (resp *Response, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.srv.stats.panics.Add(1)
			c.srv.log.Error("wire: panic in Pending", c.logAttrs("api_key", it.key, "panic", r, "stack", string(debug.Stack()))...)
			c.close(closeError, fmt.Errorf("wire: panic in Pending for key %d: %v", it.key, r))
			resp, ok = nil, false
		}
	}()
	resp = it.pending()
	if resp == nil {
		err := fmt.Errorf("wire: Pending for key %d returned nil", it.key)
		c.srv.log.Error("wire: closing connection", c.logAttrs("err", err)...)
		c.close(closeError, err)
		return nil, false
	}
	return resp, true
}

// maxBodyLen keeps the frame size (body plus a header of up to 5 bytes)
// within an int32.
const maxBodyLen = math.MaxInt32 - 5

// bodyLength validates resp and returns the body length it promises.
func bodyLength(resp *Response) (int64, error) {
	total := int64(len(resp.Body))
	for i, p := range resp.Parts {
		var n int64
		switch {
		case p.File == nil:
			n = int64(len(p.Bytes))
		case len(p.Bytes) > 0:
			return 0, fmt.Errorf("wire: part %d has both Bytes and File", i)
		case p.Offset < 0 || p.Length < 0:
			return 0, fmt.Errorf("wire: part %d has offset %d length %d", i, p.Offset, p.Length)
		default:
			n = p.Length
		}
		// Checked per part so the sum cannot overflow an int64.
		if n > maxBodyLen-total {
			return 0, fmt.Errorf("wire: response body over %d bytes does not fit a frame", maxBodyLen)
		}
		total += n
	}
	if total > maxBodyLen {
		return 0, fmt.Errorf("wire: response body of %d bytes does not fit a frame", total)
	}
	return total, nil
}

// writeResponse writes one response frame, flushes it, and tells its
// Sent hook.
func (c *conn) writeResponse(bw *bufio.Writer, it item, resp *Response) error {
	err := c.writeFrame(bw, it, resp)
	for _, p := range resp.Parts {
		if p.Hold != nil {
			p.Hold.Release()
		}
	}
	if err == nil && resp.Sent != nil {
		resp.Sent.ResponseSent()
	}
	return err
}

func (c *conn) writeFrame(bw *bufio.Writer, it item, resp *Response) error {
	if resp.NoHeader {
		var size [4]byte
		binary.BigEndian.PutUint32(size[:], uint32(len(resp.Body)))
		_, _ = bw.Write(size[:])
		_, _ = bw.Write(resp.Body)
		return bw.Flush()
	}
	if resp.None || (resp.Close && len(resp.Body) == 0 && len(resp.Parts) == 0) {
		return nil
	}
	total, err := bodyLength(resp)
	if err != nil {
		return err
	}
	var hdr [9]byte
	_, _ = bw.Write(appendResponseHeader(hdr[:0], it.corr, it.flexResp, total))
	_, _ = bw.Write(resp.Body)
	for _, p := range resp.Parts {
		if p.File == nil {
			_, _ = bw.Write(p.Bytes)
			continue
		}
		if p.Length <= smallRegion {
			if err := copySmallRegion(bw, p.File, p.Offset, p.Length); err != nil {
				return err
			}
			continue
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := c.writeFileRegion(p.File, p.Offset, p.Length); err != nil {
			return err
		}
	}
	return bw.Flush() // bufio's error is sticky: this reports any earlier Write failure
}

// smallRegion is the largest file region copied into the write buffer
// rather than sent with sendfile. A fetch from many partitions that each
// have a little new data (consumers that keep up) would otherwise cost a
// flush and a sendfile per partition; a pread into the buffer is one
// system call instead of two, and the response goes out in one write. Past
// this size sendfile's saved copy is worth its calls.
const smallRegion = 16 << 10

// copySmallRegion preads [off, off+n) of f straight into bw's buffer.
func copySmallRegion(bw *bufio.Writer, f *os.File, off, n int64) error {
	if n == 0 {
		return nil
	}
	if int64(bw.Available()) < n {
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	buf := bw.AvailableBuffer()[:n]
	m, err := f.ReadAt(buf, off)
	if int64(m) < n {
		// What exists goes out first, as a sendfile would have sent it:
		// the frame's length is promised, so the connection ends anyway.
		_, _ = bw.Write(buf[:m])
		_ = bw.Flush()
		if err == nil || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %s ended %d bytes early at offset %d", errShortFile, f.Name(), n-int64(m), off+int64(m))
		}
		return fmt.Errorf("wire: pread %s: %w", f.Name(), err)
	}
	_, err = bw.Write(buf)
	return err
}

// writeFileRegion sends [off, off+n) of f: sendfile on a TCP socket, else (or
// when the kernel refuses) pread + write. Neither touches f's shared offset.
func (c *conn) writeFileRegion(f *os.File, off, n int64) error {
	if n == 0 {
		return nil
	}
	if tc, ok := c.nc.(*net.TCPConn); ok && !c.srv.cfg.DisableSendfile {
		sent, err := sendfileRegion(tc, f, off, n, c.srv.cfg.WriteTimeout)
		c.srv.stats.bytesOut.Add(uint64(sent))
		if err == nil {
			return nil
		}
		if !errors.Is(err, errSendfileUnsupported) {
			return err
		}
		off += sent
		n -= sent
	}
	return preadCopy(&c.cw, f, off, n)
}

// preadCopy copies [off, off+n) of f to w with ReadAt (pread), which uses an
// explicit offset and so is safe with concurrent senders of the same file.
func preadCopy(w io.Writer, f *os.File, off, n int64) error {
	bp := copyBufPool.Get().(*[]byte)
	defer copyBufPool.Put(bp)
	buf := *bp
	for n > 0 {
		m, err := f.ReadAt(buf[:min(int64(len(buf)), n)], off)
		if m > 0 {
			if _, werr := w.Write(buf[:m]); werr != nil {
				return werr
			}
			off += int64(m)
			n -= int64(m)
		}
		if n == 0 {
			return nil
		}
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %s ended %d bytes early at offset %d", errShortFile, f.Name(), n, off)
		}
		if err != nil {
			return fmt.Errorf("wire: pread %s: %w", f.Name(), err)
		}
	}
	return nil
}
