#!/bin/sh
# tls_certs.sh DIR [SAN ...] — test certificates, made at test time with the
# openssl command (no private key is committed).  EC P-256 keys, one
# openssl call each.  In DIR:
#   ca.pem ca.key                  the test CA
#   server.pem server.key          signed by it; SAN DNS:localhost, IP:127.0.0.1
#   client.pem client.key            and every SAN argument (e.g. IP:10.200.1.1)
#   expired.pem expired.key        signed by the CA, valid in 2020 only
#   other-ca.pem other-ca.key      another CA
#   other.pem other.key            signed by the other CA (same SANs)
#   wrong.key                      a key that matches no certificate
#   badname.pem badname.key        signed by the CA, SAN DNS:elsewhere.invalid only
set -eu
dir=${1:?usage: tls_certs.sh DIR [SAN ...]}
shift
mkdir -p "$dir"
cd "$dir"
san="DNS:localhost,IP:127.0.0.1"
for s in "$@"; do san="$san,$s"; done
cat > openssl.cnf <<CNF
[req]
distinguished_name = dn
[dn]
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = $san
[badname]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:elsewhere.invalid
[ca]
default_ca = testca
[testca]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
copy_extensions = none
[any]
commonName = supplied
CNF
ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
q() { openssl "$@" 2>/dev/null || { echo "tls_certs.sh: openssl $1 failed" >&2; openssl "$@"; }; }
# ca NAME: a self-signed CA
ca() { q req -config openssl.cnf -x509 $ec -keyout "$1.key" -out "$1.pem" -days 30 \
         -subj "/CN=mqlink test $1" -extensions ca_ext; }
# leaf NAME CA EXT: a certificate signed by CA
leaf() { q req -config openssl.cnf -x509 $ec -keyout "$1.key" -out "$1.pem" -days 30 \
           -subj "/CN=mqlink test $1" -CA "$2.pem" -CAkey "$2.key" -extensions "$3"; }
ca ca
ca other-ca
leaf server ca leaf
leaf client ca leaf
leaf other other-ca leaf
leaf badname ca badname
q genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out wrong.key
# expired: `req` takes no dates in the past, `ca` does (a request, then the signature)
: > index.txt
echo 01 > serial
q req -config openssl.cnf $ec -keyout expired.key -out expired.csr -subj "/CN=mqlink test expired"
q ca -config openssl.cnf -batch -notext -cert ca.pem -keyfile ca.key -in expired.csr \
  -out expired.pem -extensions leaf -startdate 20200101000000Z -enddate 20200102000000Z
rm -f expired.csr index.txt* serial* ./*[0-9A-F][0-9A-F].pem
chmod 600 ./*.key
