#!/usr/bin/env bash
# Makes TLS material for a development cluster on this machine, in PEM files
# as Kafka reads them with ssl.keystore.type=PEM (KIP-651), with openssl:
#
#   scripts/dev-certs.sh [DIR]        (default DIR: /tmp/kafgo-secure/tls)
#
#   DIR/ca.pem      a new CA's certificate: every broker's and client's
#                   ssl.truststore.location
#   DIR/ca-key.pem  the CA's private key, to sign more certificates
#   DIR/broker.pem  a broker certificate for localhost and 127.0.0.1 signed by
#                   the CA, followed by its private key as encrypted PKCS#8
#                   (password $KEY_PASSWORD, default broker-key-secret): the
#                   brokers' ssl.keystore.location, with ssl.key.password
#
# All brokers on one machine can share the one certificate; for other hosts
# set SAN (default DNS:localhost,IP:127.0.0.1), e.g.
# SAN=DNS:kafka1.example.com,DNS:kafka2.example.com. DAYS (default 365) is
# how long the certificates are valid. Existing files in DIR are replaced.
# The CA key is not encrypted: this is for development, not production.
set -euo pipefail
dir=${1:-/tmp/kafgo-secure/tls}
pass=${KEY_PASSWORD:-broker-key-secret}
san=${SAN:-DNS:localhost,IP:127.0.0.1}
days=${DAYS:-365}

command -v openssl >/dev/null || { echo "dev-certs.sh: openssl is required (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$dir"
chmod 700 "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The CA: self-signed, allowed to sign certificates only.
openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=kafgo development CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/ca-key.pem" -out "$work/ca.pem" 2>/dev/null

# The broker: a key and a request, signed by the CA for the SAN names. It is
# a server to clients and a client to the other brokers, hence both usages.
openssl req -newkey rsa:2048 -nodes -subj "/CN=kafgo-broker" \
    -keyout "$work/broker-key.pem" -out "$work/broker.csr" 2>/dev/null
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n' "$san" > "$work/ext.cnf"
openssl x509 -req -in "$work/broker.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" \
    -CAcreateserial -days "$days" -extfile "$work/ext.cnf" -out "$work/broker-cert.pem" 2>/dev/null

# The key store: the certificate, then the key encrypted with the password
# (PBES2, AES-256-CBC), which Kafka's PEM key store requires with
# ssl.key.password.
openssl pkcs8 -topk8 -v2 aes-256-cbc -in "$work/broker-key.pem" -passout "pass:$pass" -out "$work/broker-key.enc.pem"
cat "$work/broker-cert.pem" "$work/broker-key.enc.pem" > "$work/broker.pem"

install -m 600 "$work/ca-key.pem" "$work/broker.pem" "$dir/"
install -m 644 "$work/ca.pem" "$dir/"
echo "dev-certs.sh: wrote ca.pem, ca-key.pem and broker.pem in $dir"
