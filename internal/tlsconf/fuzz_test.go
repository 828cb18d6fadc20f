package tlsconf

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"testing"

	"kafgo/internal/testing/testcerts"
)

// FuzzDistinguishedName: any DER input formats or errors, never panics;
// names Go marshals always format.
func FuzzDistinguishedName(f *testing.F) {
	for _, n := range []pkix.Name{
		{CommonName: "alice", OrganizationalUnit: []string{"eng"}, Country: []string{"US"}},
		{CommonName: " a,b+c ", ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}, Value: "x@y"}}},
	} {
		der, err := asn1.Marshal(n.ToRDNSequence())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(der)
	}
	f.Add([]byte{0x30, 0x03, 0x31, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, der []byte) {
		_, _ = DistinguishedName(der)
	})
}

// FuzzPrincipalMapper: any rules string parses or errors, and parsed rules
// map any DN without panicking.
func FuzzPrincipalMapper(f *testing.F) {
	f.Add("RULE:^CN=(.*?),OU=(.*?)$/$1@$2/L,DEFAULT", "CN=a,OU=b")
	f.Add("RULE:(.*)/$9$1\\$/U", "x")
	f.Add("DEFAULT", "")
	f.Fuzz(func(t *testing.T, rules, dn string) {
		pm, err := NewPrincipalMapper(rules)
		if err != nil {
			return
		}
		_, _ = pm.Name(dn)
	})
}

// FuzzDecryptPKCS8: any EncryptedPrivateKeyInfo bytes and password give a
// key or an error, never both or neither, and never panic.
func FuzzDecryptPKCS8(f *testing.F) {
	ca, err := testcerts.NewCA("ca")
	if err != nil {
		f.Fatal(err)
	}
	leaf, err := ca.Server("broker")
	if err != nil {
		f.Fatal(err)
	}
	enc, err := leaf.EncryptedKeyPEM("pw")
	if err != nil {
		f.Fatal(err)
	}
	blk, _ := pem.Decode(enc)
	f.Add(blk.Bytes, "pw")
	f.Add(blk.Bytes, "wrong")
	f.Add([]byte{0x30, 0x00}, "")
	f.Fuzz(func(t *testing.T, der []byte, password string) {
		k, err := decryptPKCS8(der, password)
		if (k == nil) == (err == nil) {
			t.Fatalf("key %v with error %v", k, err)
		}
	})
}
