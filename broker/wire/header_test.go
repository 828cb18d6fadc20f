package wire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// hdr builds a header: key, version, correlation id, then rest verbatim.
func hdr(key, version int16, corr int32, rest ...byte) []byte {
	return rawRequest(key, version, corr, rest)[4:]
}

func TestParseRequestHeader(t *testing.T) {
	body := []byte{0xde, 0xad}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	clientID := []byte{0, 3, 'a', 'b', 'c'}
	tests := []struct {
		name     string
		frame    []byte
		wantID   *string
		wantFlex bool
		wantBody []byte
		wantErr  bool
	}{
		{name: "v0 ControlledShutdown has no client id", frame: cat(hdr(7, 0, 5), body), wantBody: body},
		{name: "v1 null client id", frame: cat(hdr(3, 1, 5, 0xff, 0xff), body), wantBody: body},
		{name: "v1 client id", frame: cat(hdr(3, 1, 5), clientID, body), wantID: kmsg.StringPtr("abc"), wantBody: body},
		{name: "v1 empty client id", frame: cat(hdr(3, 1, 5, 0, 0), body), wantID: kmsg.StringPtr(""), wantBody: body},
		{name: "v2 no tags", frame: cat(hdr(3, 9, 5), clientID, []byte{0}, body), wantID: kmsg.StringPtr("abc"), wantFlex: true, wantBody: body},
		{name: "v2 two tags", frame: cat(hdr(3, 9, 5), clientID, []byte{2, 0, 1, 'x', 0x81, 0x01, 2, 'y', 'z'}, body), wantID: kmsg.StringPtr("abc"), wantFlex: true, wantBody: body},
		{name: "v2 ApiVersions v3", frame: cat(hdr(18, 3, 5), clientID, []byte{0}, body), wantID: kmsg.StringPtr("abc"), wantFlex: true, wantBody: body},
		{name: "ApiVersions v2 is not flexible", frame: cat(hdr(18, 2, 5), clientID, body), wantID: kmsg.StringPtr("abc"), wantBody: body},
		{name: "version newer than kmsg knows stays flexible", frame: cat(hdr(18, 1000, 5), clientID, []byte{0}, body), wantID: kmsg.StringPtr("abc"), wantFlex: true, wantBody: body},
		{name: "unknown key is not flexible", frame: cat(hdr(999, 20, 5), clientID, []byte{0}, body), wantID: kmsg.StringPtr("abc"), wantBody: cat([]byte{0}, body)},
		{name: "negative version is not flexible", frame: cat(hdr(3, -1, 5), clientID, body), wantID: kmsg.StringPtr("abc"), wantBody: body},
		{name: "empty body", frame: cat(hdr(3, 1, 5), clientID), wantID: kmsg.StringPtr("abc"), wantBody: []byte{}},

		{name: "shorter than v0", frame: hdr(3, 1, 5)[:7], wantErr: true},
		{name: "client id length missing", frame: hdr(3, 1, 5, 0), wantErr: true},
		{name: "client id length -2", frame: hdr(3, 1, 5, 0xff, 0xfe), wantErr: true},
		{name: "client id longer than frame", frame: hdr(3, 1, 5, 0, 9, 'a'), wantErr: true},
		{name: "flexible without tag count", frame: cat(hdr(3, 9, 5), clientID), wantErr: true},
		{name: "tag count beyond input", frame: cat(hdr(3, 9, 5), clientID, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}), wantErr: true},
		{name: "tag size beyond input", frame: cat(hdr(3, 9, 5), clientID, []byte{1, 0, 9, 'x'}), wantErr: true},
		{name: "tag uvarint too long", frame: cat(hdr(3, 9, 5), clientID, []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0}), wantErr: true},
		{name: "tag uvarint truncated", frame: cat(hdr(3, 9, 5), clientID, []byte{1, 0x80}), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, rest, err := ParseRequestHeader(tt.frame)
			if tt.wantErr {
				if !errors.Is(err, ErrMalformedHeader) {
					t.Fatalf("err = %v, want ErrMalformedHeader", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if h.CorrelationID != 5 {
				t.Errorf("correlation id %d", h.CorrelationID)
			}
			if (h.ClientID == nil) != (tt.wantID == nil) || (h.ClientID != nil && *h.ClientID != *tt.wantID) {
				t.Errorf("client id %v, want %v", h.ClientID, tt.wantID)
			}
			if h.Flexible != tt.wantFlex {
				t.Errorf("flexible %v, want %v", h.Flexible, tt.wantFlex)
			}
			if !bytes.Equal(rest, tt.wantBody) {
				t.Errorf("body %x, want %x", rest, tt.wantBody)
			}
		})
	}
}

func TestParseRequestHeaderReusesClientID(t *testing.T) {
	frame := hdr(3, 1, 1, 0, 2, 'i', 'd')
	prev := kmsg.StringPtr("id")
	h, _, err := parseRequestHeader(frame, prev)
	if err != nil {
		t.Fatal(err)
	}
	if h.ClientID != prev {
		t.Error("same client id was not reused")
	}
	other := kmsg.StringPtr("other")
	if h, _, _ = parseRequestHeader(frame, other); h.ClientID == other || *h.ClientID != "id" {
		t.Errorf("different client id reused: %q", *h.ClientID)
	}
}

// TestRequestFlexibleMatchesKmsg checks the precomputed table against kmsg's
// IsFlexible for every key and version kmsg knows.
func TestRequestFlexibleMatchesKmsg(t *testing.T) {
	known := 0
	for k := int16(0); k < flexProbeKeys; k++ {
		r := kmsg.RequestForKey(k)
		if r == nil {
			if RequestFlexible(k, 0) || RequestFlexible(k, 100) {
				t.Errorf("unknown key %d reported flexible", k)
			}
			continue
		}
		known++
		for v := int16(0); v <= r.MaxVersion(); v++ {
			r.SetVersion(v)
			if got, want := RequestFlexible(k, v), r.IsFlexible(); got != want {
				t.Errorf("key %d v%d: flexible %v, kmsg says %v", k, v, got, want)
			}
		}
		r.SetVersion(r.MaxVersion())
		if got, want := RequestFlexible(k, r.MaxVersion()+1), r.IsFlexible(); got != want {
			t.Errorf("key %d v%d (beyond kmsg): flexible %v, want %v", k, r.MaxVersion()+1, got, want)
		}
	}
	if known < 50 {
		t.Fatalf("only %d keys known to kmsg?", known)
	}
	for _, tc := range []struct {
		key, version int16
		want         bool
	}{
		{18, 2, false}, {18, 3, true}, {3, 8, false}, {3, 9, true}, {0, 8, false}, {0, 9, true},
		{-1, 5, false}, {3, -1, false}, {32767, 1, false},
	} {
		if got := RequestFlexible(tc.key, tc.version); got != tc.want {
			t.Errorf("RequestFlexible(%d, %d) = %v, want %v", tc.key, tc.version, got, tc.want)
		}
	}
}

func TestReadUvarint(t *testing.T) {
	tests := []struct {
		in      []byte
		want    uint32
		rest    int
		wantErr bool
	}{
		{in: []byte{0}, want: 0},
		{in: []byte{0x7f, 9}, want: 127, rest: 1},
		{in: []byte{0x80, 0x01}, want: 128},
		{in: []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, want: 1<<32 - 1},
		{in: []byte{0xff, 0xff, 0xff, 0xff, 0x10}, wantErr: true},
		{in: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, wantErr: true},
		{in: []byte{0x80}, wantErr: true},
		{in: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run("", func(t *testing.T) {
			v, rest, err := readUvarint(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("readUvarint(%x) = %d, want error", tt.in, v)
				}
				return
			}
			if err != nil || v != tt.want || len(rest) != tt.rest {
				t.Fatalf("readUvarint(%x) = %d, %d left, %v; want %d, %d left", tt.in, v, len(rest), err, tt.want, tt.rest)
			}
		})
	}
}

func TestAppendResponseHeader(t *testing.T) {
	tests := []struct {
		name string
		flex bool
		want []byte
	}{
		{"v0", false, []byte{0, 0, 0, 7, 0, 0, 1, 2}},
		{"v1", true, []byte{0, 0, 0, 8, 0, 0, 1, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appendResponseHeader(nil, 0x102, tt.flex, 3); !bytes.Equal(got, tt.want) {
				t.Errorf("got %x, want %x", got, tt.want)
			}
		})
	}
	if ResponseFlexible(apiVersionsKey, true) {
		t.Error("ApiVersions response header must be v0")
	}
	if !ResponseFlexible(3, true) || ResponseFlexible(3, false) {
		t.Error("response flexibility must follow the request header")
	}
}
