// Certificates for the TLS tests, made with the openssl CLI into a
// directory: a CA, etcd's certificate (SAN IP:127.0.0.1; server and client
// use, since etcd's own gateway connects to etcd with it), a client
// certificate from the same CA; and from a second CA, another certificate
// for etcd (an impostor's) and a client certificate. P-256 keys, valid for
// a day: made in well under a second.
//
// The client certificates have no CommonName: while etcd authentication is
// on, etcd's gateway refuses a client certificate that has one (etcd would
// take it for the user name) with HTTP 400.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace stormguard::config_sources::testkit {

struct TestCertificates {
  std::string ca;        // the CA etcd trusts and the clients check etcd against
  std::string other_ca;  // a CA the clients do not trust
  std::string both_cas;  // both, for an etcd that must accept its own impostor certificate
  std::string server_cert, server_key;
  std::string impostor_cert, impostor_key;  // for 127.0.0.1, signed by `other_ca`
  std::string client_cert, client_key;      // signed by `ca`
  std::string foreign_cert, foreign_key;    // signed by `other_ca`
};

namespace detail {

inline bool Openssl(const std::string& args) {
  return std::system(("openssl " + args + " >/dev/null 2>&1").c_str()) == 0;
}

inline bool MakeCa(const std::string& dir, const std::string& name) {
  return Openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=" + name +
                 " -keyout " + dir + "/" + name + ".key -out " + dir + "/" + name + ".crt");
}

// A key and a certificate `name` signed by `ca` with the extensions `ext`,
// its subject /O=stormguard-tests/OU=`name` (no CommonName).
inline bool MakeSigned(const std::string& dir, const std::string& name, const std::string& ca, const std::string& ext) {
  const std::string p = dir + "/" + name;
  std::ofstream(p + ".ext") << ext << "\n";
  return Openssl("req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /O=stormguard-tests/OU=" + name +
                 " -keyout " + p + ".key -out " + p + ".csr") &&
         Openssl("x509 -req -days 1 -in " + p + ".csr -CA " + dir + "/" + ca + ".crt -CAkey " + dir + "/" + ca +
                 ".key -CAcreateserial -extfile " + p + ".ext -out " + p + ".crt");
}

}  // namespace detail

// False if openssl failed (scripts/install-deps.sh installs it).
inline bool MakeTestCertificates(const std::string& dir, TestCertificates& out) {
  using detail::MakeSigned;
  const bool made =
      detail::MakeCa(dir, "ca") && detail::MakeCa(dir, "other-ca") &&
      MakeSigned(dir, "etcd", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth") &&
      MakeSigned(dir, "impostor", "other-ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth") &&
      MakeSigned(dir, "client", "ca", "extendedKeyUsage=clientAuth") &&
      MakeSigned(dir, "foreign", "other-ca", "extendedKeyUsage=clientAuth");
  out = {dir + "/ca.crt",     dir + "/other-ca.crt", dir + "/both-cas.crt", dir + "/etcd.crt",
         dir + "/etcd.key",   dir + "/impostor.crt", dir + "/impostor.key", dir + "/client.crt",
         dir + "/client.key", dir + "/foreign.crt",  dir + "/foreign.key"};
  std::ofstream(out.both_cas) << std::ifstream(out.ca).rdbuf() << std::ifstream(out.other_ca).rdbuf();
  return made;
}

}  // namespace stormguard::config_sources::testkit
