// Package signing signs and verifies a catalog's root: an in-toto Statement
// (https://github.com/in-toto/attestation, spec/v1) in a DSSE envelope
// (https://github.com/secure-systems-lab/dsse, protocol.md v1.0.2), signed with Ed25519,
// and the key files that sign it.
//
// It uses the standard library only, so that the build, which signs, and the consumers,
// which check, may link it; the plugin never does (a root is bytes the build prepared,
// served as any other document).
//
// Why our own DSSE and Statement code rather than go-securesystemslib's dsse package and
// in-toto's Go attestation package? What this needs is the pre-authentication encoding,
// an envelope of three fields and a Statement of four: about seventy lines, checked against
// the DSSE specification's own test vector. go-securesystemslib's dsse links
// golang.org/x/crypto/ssh for a key-ID fingerprint we do not use (a test program grew from
// 3.3 MB to 4.7 MB), prints to stdout when two signatures share a key ID, and refuses
// unpadded base64, which the specification says a verifier must accept. in-toto's package is
// generated from protobuf (thirty packages) and marshals through protojson, whose output
// is deliberately unstable, where two builds of one commit must make the same root.
package signing
