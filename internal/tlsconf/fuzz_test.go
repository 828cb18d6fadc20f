package tlsconf

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
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
