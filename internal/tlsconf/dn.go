package tlsconf

import (
	"encoding/asn1"
	"errors"
	"fmt"
	"strings"
)

// Java's X500Principal.getName() (RFC 2253 form) is what Kafka calls the
// distinguished name of a TLS peer, and what ssl.principal.mapping.rules
// match against, so DistinguishedName reproduces it exactly:
//
//   - RDNs in reverse order of the certificate's encoding (most specific
//     first), joined by "," without spaces; the values of a multi-valued RDN
//     in encoded order, joined by "+".
//   - Keywords only for CN, C, L, ST, O, OU, STREET, DC and UID; every other
//     attribute is its dotted OID with the value as "#" and the lower-case
//     hex of its DER encoding (so emailAddress is 1.2.840.113549.1.9.1=#16...).
//   - Values that are not DER strings (Printable, T61, IA5, General, BMP,
//     UTF8) are hex-encoded too.
//   - In string values the characters , = + < > # ; " \ get a backslash, NUL
//     becomes \00, and leading and trailing spaces (and CRs) get a backslash.

var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// DistinguishedName formats a DER-encoded X.509 Name (a certificate's
// RawSubject) as Java's X500Principal.getName() does.
func DistinguishedName(rawName []byte) (string, error) {
	var rdns []asn1.RawValue
	rest, err := asn1.Unmarshal(rawName, &rdns)
	if err != nil || len(rest) > 0 {
		return "", fmt.Errorf("tlsconf: certificate name is not a DER sequence: %v", err)
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		rdn := rdns[i]
		if rdn.Class != asn1.ClassUniversal || rdn.Tag != asn1.TagSet {
			return "", errors.New("tlsconf: certificate name holds an RDN that is not a SET")
		}
		var avas []string
		for b := rdn.Bytes; len(b) > 0; {
			var atv attributeTypeAndValue
			if b, err = asn1.Unmarshal(b, &atv); err != nil {
				return "", fmt.Errorf("tlsconf: certificate name attribute: %w", err)
			}
			avas = append(avas, formatAVA(atv))
		}
		if len(avas) == 0 {
			return "", errors.New("tlsconf: certificate name holds an empty RDN")
		}
		parts = append(parts, strings.Join(avas, "+"))
	}
	return strings.Join(parts, ","), nil
}

func isDERString(v asn1.RawValue) bool {
	if v.Class != asn1.ClassUniversal {
		return false
	}
	switch v.Tag {
	case asn1.TagT61String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagGeneralString, asn1.TagBMPString, asn1.TagUTF8String:
		return true
	}
	return false
}

func formatAVA(atv attributeTypeAndValue) string {
	oid := atv.Type.String()
	kw, ok := rfc2253Keywords[oid]
	if !ok || !isDERString(atv.Value) {
		if !ok {
			kw = oid
		}
		const hexDigits = "0123456789abcdef"
		var b strings.Builder
		b.WriteString(kw)
		b.WriteString("=#")
		for _, c := range atv.Value.FullBytes {
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
		return b.String()
	}
	return kw + "=" + escapeValue(string(atv.Value.Bytes))
}

func escapeValue(v string) string {
	const escapees = ",=+<>#;\"\\"
	var esc []rune
	for _, r := range v {
		switch {
		case strings.ContainsRune(escapees, r):
			esc = append(esc, '\\', r)
		case r == 0:
			esc = append(esc, '\\', '0', '0')
		default:
			esc = append(esc, r)
		}
	}
	lead := 0
	for lead < len(esc) && (esc[lead] == ' ' || esc[lead] == '\r') {
		lead++
	}
	trail := len(esc) - 1
	for trail >= 0 && (esc[trail] == ' ' || esc[trail] == '\r') {
		trail--
	}
	var b strings.Builder
	for i, r := range esc {
		if i < lead || i > trail {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
