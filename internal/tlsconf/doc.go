// Package tlsconf turns Kafka's ssl.* settings into crypto/tls
// configurations, for the broker's TLS listeners and its inter-broker
// client, and for the client tools' properties files.
//
// # Stores
//
// Only PEM stores are read (KIP-651, ssl.keystore.type=PEM): a key store is
// either the file at ssl.keystore.location holding the certificate chain
// (leaf first) and one private key, or the inline ssl.keystore.certificate.chain
// and ssl.keystore.key. The key is PKCS#8, or encrypted PKCS#8 (PBES2:
// PBKDF2 + AES-CBC or 3DES-CBC) decrypted with ssl.key.password; PKCS#1 and
// SEC1 keys are accepted too.
//
// The encrypted PKCS#8 reader (pkcs8.go) is kafgo's own code on purpose,
// and small: the cryptography is the standard library's (crypto/pbkdf2,
// crypto/aes, crypto/des, crypto/cipher, x509.ParsePKCS8PrivateKey); what
// is written here is only reading RFC 8018's parameter structure with
// encoding/asn1, bounding the iteration count a hostile file can demand,
// and checking the padding. The maintained Go libraries that read such
// keys (github.com/youmark/pkcs8, smallstep's go.step.sm/crypto) are not
// among kafgo's allowed dependencies and would bring no primitive the
// standard library lacks; the reader is tested against keys openssl
// writes (TestKeyPairOpenSSL) and fuzzed (FuzzDecryptPKCS8).
//
// A trust store is PEM certificates at
// ssl.truststore.location or inline in ssl.truststore.certificates. Java's
// JKS and PKCS12 formats are refused with advice to convert, except that a
// file whose declared type is JKS or PKCS12 (Kafka's default type is JKS)
// but whose content is PEM is read as PEM. Kafka's consistency checks apply
// (no key store password with PEM, key without chain, location and inline
// key together, ...). Unlike Kafka, a PEM key store file may hold an
// unencrypted key without ssl.key.password.
//
// # Protocols and cipher suites
//
// ssl.enabled.protocols (TLSv1.2,TLSv1.3 by default) becomes Go's version
// range and must be contiguous. ssl.cipher.suites takes Java/IANA names
// (an SSL_ prefix reads as TLS_); TLS 1.3 suites are accepted but Go always
// enables all three, and a list without any TLS 1.3 suite turns TLS 1.3
// off, as it does in Java.
//
// # Servers
//
// Server re-reads the store files when their size or modification time
// changes (checked on handshakes, at most once per ReloadCheckInterval), so
// certificates rotate without a restart; a failed reload keeps the old
// material. ssl.client.auth maps none, requested and required to Go's
// NoClientCert, VerifyClientCertIfGiven and RequireAndVerifyClientCert.
//
// # Principals
//
// DistinguishedName formats a certificate subject exactly as Java's
// X500Principal.getName() does (RFC 2253), which is what Kafka's
// ssl.principal.mapping.rules see; PrincipalMapper applies those rules.
package tlsconf
