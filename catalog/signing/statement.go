package signing

import (
	"encoding/json"
	"fmt"
)

// The in-toto Statement, version 1 (spec/v1/statement.md), and the DSSE payload type of
// one (spec/v1/envelope.md).
const (
	StatementType = "https://in-toto.io/Statement/v1"
	PayloadType   = "application/vnd.in-toto+json"
)

// Statement is an in-toto Statement: what it is about (Subject, each matched by its
// digest only) and a predicate of PredicateType. Its JSON (Marshal) is the same bytes for
// the same statement: fields in this order, a digest's algorithms sorted.
type Statement struct {
	Type          string          `json:"_type"`
	Subject       []Subject       `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     json.RawMessage `json:"predicate,omitempty"`
}

// Subject is one artifact a Statement is about: its name (unique in the statement), its
// digests, algorithm to lowercase hex, and annotations (in-toto's ResourceDescriptor
// field: more the signer says of it; a skill's index name, AnnotationName).
type Subject struct {
	Name        string            `json:"name,omitempty"`
	Digest      map[string]string `json:"digest"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// AnnotationName is the annotation of a skill's subject that gives its index name
// (catalog.IndexNames), where a name-keyed reader could take it for another skill: its
// index name is not its own, or another skill of the root has its name. A reader of the
// well-known indexes, which name skills by index name only, holds the skill it read by
// that name to the subject that carries it.
const AnnotationName = "io.github.skilledge/name"

// Marshal returns s's JSON, with Type set.
func (s Statement) Marshal() []byte {
	s.Type = StatementType
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // strings and a predicate that is JSON already
	}
	return b
}

// ParseStatement reads b, a verified payload, as a Statement of predicateType: its type the
// version 1 one, every subject with a SHA-256 digest in lowercase hex and a name no other
// subject has. Unknown fields are ignored, as the specification asks.
func ParseStatement(b []byte, predicateType string) (*Statement, error) {
	var s Statement
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: the statement: %v", ErrMalformed, err)
	}
	switch {
	case s.Type != StatementType:
		return nil, fmt.Errorf("%w: a statement of type %q, not %q", ErrMalformed, s.Type, StatementType)
	case s.PredicateType != predicateType:
		return nil, fmt.Errorf("%w: a statement of predicate %q, not %q", ErrMalformed, s.PredicateType, predicateType)
	}
	names := make(map[string]bool, len(s.Subject))
	for i, sub := range s.Subject {
		if !HexSHA256(sub.Digest["sha256"]) {
			return nil, fmt.Errorf("%w: subject %d (%q) has no SHA-256 digest in lowercase hex", ErrMalformed, i, sub.Name)
		}
		if names[sub.Name] {
			return nil, fmt.Errorf("%w: two subjects named %q", ErrMalformed, sub.Name)
		}
		names[sub.Name] = true
	}
	return &s, nil
}

// HexSHA256 reports whether s is 64 lowercase hex digits: a SHA-256 as statements,
// roots and roots.json write it.
func HexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
