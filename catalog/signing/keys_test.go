package signing

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKeyFiles: a key written is read back, the private half with mode 0600 and the public
// half beside it in its printed form; no file is ever replaced; a key others may read, or
// a file that is not one key, is refused saying so; a public key is read from its printed
// form, a file of it, or a PEM file as other tools write them.
func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "root.key")
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteKey(path, key); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("the private key's mode: %v, %v", fi.Mode(), err)
	}
	got, err := ReadKey(path)
	if err != nil || !got.Equal(key) {
		t.Fatalf("ReadKey: %v", err)
	}
	pub := key.Public().(ed25519.PublicKey)
	printed, _ := os.ReadFile(path + ".pub")
	if string(printed) != FormatPublic(pub)+"\n" || !strings.HasPrefix(string(printed), "ed25519:") {
		t.Fatalf("the public key file: %q", printed)
	}
	if strings.Contains(string(printed), "PRIVATE") {
		t.Fatal("the public key file holds the private key")
	}
	// Never replaced: the key, its public file, or both.
	other, _ := NewKey()
	if err := WriteKey(path, other); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteKey over a key: %v", err)
	}
	if got, _ := ReadKey(path); !got.Equal(key) {
		t.Error("a key was replaced")
	}
	lone := filepath.Join(dir, "lone.key")
	os.WriteFile(lone+".pub", []byte("x"), 0o644)
	if err := WriteKey(lone, other); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteKey beside a public file: %v", err)
	}
	if _, err := os.Stat(lone); err == nil {
		t.Error("WriteKey wrote a private key beside a public file it could not write")
	}
	if runtime.GOOS != "windows" {
		os.Chmod(path, 0o640)
		if _, err := ReadKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("a key others may read: %v", err)
		}
		os.Chmod(path, 0o600)
	}
	notKey := filepath.Join(dir, "not.key")
	os.WriteFile(notKey, printed, 0o600)
	if _, err := ReadKey(notKey); !errors.Is(err, ErrMalformed) {
		t.Errorf("a public key read as the private one: %v", err)
	}

	der, _ := x509.MarshalPKIXPublicKey(pub)
	pemFile := filepath.Join(dir, "pub.pem")
	os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	for _, arg := range []string{FormatPublic(pub), path + ".pub", pemFile} {
		if got, err := ReadPublic(arg); err != nil || !got.Equal(pub) {
			t.Errorf("ReadPublic(%q): %v", arg, err)
		}
	}
	for _, arg := range []string{"ed25519:AAAA", "ed25519:" + strings.Repeat("A", 43) + "=x", path, filepath.Join(dir, "nosuch")} {
		if _, err := ReadPublic(arg); err == nil {
			t.Errorf("ReadPublic(%q) read a key", arg)
		}
	}
	// The private key given for the public one: refused, and nothing of it in the error.
	secret, _ := os.ReadFile(path)
	_, err = ReadPublic(path)
	for _, line := range strings.Split(string(secret), "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") && strings.Contains(err.Error(), line[:12]) {
			t.Fatalf("the error quotes the private key: %v", err)
		}
	}
	if !strings.Contains(err.Error(), "a private key, where the public one is asked for") {
		t.Errorf("a private key as the public one: %v", err)
	}
}

// TestKeyInlineNotQuoted: a key's content given where a path is asked for is refused
// without a byte of it in the error; a public key's PEM given inline is read.
func TestKeyInlineNotQuoted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	key, _ := NewKey()
	if err := WriteKey(path, key); err != nil {
		t.Fatal(err)
	}
	secret, _ := os.ReadFile(path)
	if _, err := ReadKey(string(secret)); err == nil || strings.Contains(err.Error(), "PRIVATE") || strings.Contains(err.Error(), strings.Split(string(secret), "\n")[1][:20]) {
		t.Fatalf("ReadKey of the key's content: %v", err)
	}
	if _, err := ReadPublic(string(secret)); err == nil || strings.Contains(err.Error(), strings.Split(string(secret), "\n")[1][:20]) {
		t.Fatalf("ReadPublic of the private key's content: %v", err)
	}
	der, _ := x509.MarshalPKIXPublicKey(key.Public())
	pubPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if got, err := ReadPublic(pubPEM); err != nil || !got.Equal(key.Public()) {
		t.Fatalf("ReadPublic of a PEM public key inline: %v", err)
	}
}
