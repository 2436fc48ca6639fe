package signing

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
)

// A signing key's files. The private key is PKCS#8 in PEM ("PRIVATE KEY"), mode 0600; the
// public key's printed form is "ed25519:" and the standard base64 of its 32 bytes, one
// line, which a public key file holds too (or, as other tools write them, a PEM "PUBLIC
// KEY").

// PublicPrefix begins a public key's printed form.
const PublicPrefix = "ed25519:"

// NewKey makes an Ed25519 key pair from the system's random source.
func NewKey() (ed25519.PrivateKey, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	return key, err
}

// WriteKey writes key's private half to path, mode 0600, and its public half's printed
// form to path+".pub". It never replaces a file: an existing one is an error wrapping
// fs.ErrExist, and nothing is written.
func WriteKey(path string, key ed25519.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path + ".pub"); err == nil {
		return fmt.Errorf("%s: %w", path+".pub", fs.ErrExist)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err = f.Write(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = writeNew(path+".pub", []byte(FormatPublic(key.Public().(ed25519.PublicKey))+"\n"), 0o644)
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// writeNew writes data to path, a file that must not exist yet, with mode perm.
func writeNew(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// ReadKey reads the private key WriteKey wrote at path. On Unix a file that others may
// read is refused, saying how to fix it: a signing key readable by every user of a machine
// signs for all of them.
func ReadKey(path string) (ed25519.PrivateKey, error) {
	if notAPath(path) {
		return nil, errKeyInline
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: a signing key others may read or write (mode %04o): chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, rest := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" || len(strings.TrimSpace(string(rest))) != 0 {
		return nil, fmt.Errorf("%s: %w: not one PEM \"PRIVATE KEY\" block (skilledge key --signing writes one)", path, ErrMalformed)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrMalformed, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: %w: a %T, not an Ed25519 key", path, ErrMalformed, k)
	}
	return key, nil
}

// FormatPublic is key's printed form: "ed25519:" and the standard base64 of its bytes.
func FormatPublic(key ed25519.PublicKey) string {
	return PublicPrefix + base64.StdEncoding.EncodeToString(key)
}

// ParsePublic reads a public key from s, its printed form or a PEM "PUBLIC KEY" block
// (surrounding space ignored).
func ParsePublic(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, PublicPrefix); ok {
		b, err := base64.StdEncoding.Strict().DecodeString(rest)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%w: %q is not %s and the base64 of 32 bytes", ErrMalformed, clip(s), PublicPrefix)
		}
		return ed25519.PublicKey(b), nil
	}
	// Nothing of s but its printed form is ever quoted: a private key given by mistake
	// must not reach an error message, or the log it is written to.
	block, rest := pem.Decode([]byte(s))
	switch {
	case block != nil && strings.Contains(block.Type, "PRIVATE"):
		return nil, fmt.Errorf("%w: a private key, where the public one is asked for (skilledge key --signing wrote it beside the private one, as FILE.pub)", ErrMalformed)
	case block == nil || block.Type != "PUBLIC KEY" || len(strings.TrimSpace(string(rest))) != 0:
		return nil, fmt.Errorf("%w: neither %s and base64 nor a PEM \"PUBLIC KEY\" block", ErrMalformed, PublicPrefix)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	key, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %T, not an Ed25519 key", ErrMalformed, k)
	}
	return key, nil
}

// ReadPublic reads the public key arg names: its printed form itself, or a file holding it
// (ParsePublic).
func ReadPublic(arg string) (ed25519.PublicKey, error) {
	if strings.HasPrefix(arg, PublicPrefix) {
		return ParsePublic(arg)
	}
	if notAPath(arg) {
		if block, _ := pem.Decode([]byte(arg)); block != nil && !strings.Contains(block.Type, "PRIVATE") {
			return ParsePublic(arg) // a PEM public key given inline
		}
		return nil, errKeyInline
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file, and not a key's printed form (%s…)", arg, PublicPrefix)
		}
		return nil, err
	}
	key, err := ParsePublic(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return key, nil
}

// errKeyInline is the error of a key's content given where its file's path is asked for:
// nothing of the argument is quoted, since it may be a private key, and error messages
// reach logs.
var errKeyInline = errors.New("the argument is a key's content, not the path of its file: write it to a file (mode 0600 for a private key) and give the path")

// notAPath reports whether arg cannot be a file's path but looks like a key's content: a
// line break, or a PEM header.
func notAPath(arg string) bool {
	return strings.ContainsAny(arg, "\n\r") || strings.Contains(arg, "-----BEGIN")
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
