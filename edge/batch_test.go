package edge

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestBatchBudget: a batch cannot make the host send more than batchMaxObjects store
// objects or batchMaxSpliced bytes of them; the answers beyond are errors, in place, and
// the first answer goes out whatever its size.
func TestBatchBudget(t *testing.T) {
	s := exampleServer(t, Options{})
	read := func(id int, uri string) string {
		return request(id, "resources/read", `{"uri":"`+uri+`"}`)
	}
	var elems []string
	for i := range batchMaxObjects + 10 {
		elems = append(elems, read(i+1, "skill://git-workflow/SKILL.md"))
	}
	reply, refs, _ := s.HandleMessage(V20250326, []byte("["+strings.Join(elems, ",")+"]"))
	if len(refs) != batchMaxObjects {
		t.Fatalf("%d objects for a batch of %d reads, want %d", len(refs), len(elems), batchMaxObjects)
	}
	full := resolved(t, s, reply, refs)
	answers := gjson.ParseBytes(full).Array()
	if len(answers) != len(elems) {
		t.Fatalf("%d answers to %d requests", len(answers), len(elems))
	}
	for i, a := range answers {
		if a.Get("id").Int() != int64(i+1) {
			t.Fatalf("answer %d has id %s", i, a.Get("id").Raw)
		}
		over := i >= batchMaxObjects
		if got := a.Get("error.code").Int(); over != (got == -32603) || over == a.Get("result").Exists() {
			t.Fatalf("answer %d: %s", i, a.Raw)
		}
		if over && !strings.Contains(a.Get("error.message").Str, "send this request on its own") {
			t.Fatalf("answer %d: %s", i, a.Raw)
		}
	}

	// The byte bound: a file of 12 MiB read three times is two answers (24 MiB) and an
	// error (36 MiB would be over 32).
	big := strings.Repeat("a", 12<<20)
	p := packOf(t, map[string]string{"s0/SKILL.md": skillMD("s0"), "s0/big.txt": big})
	s = New(p, Options{})
	r := read(1, "skill://s0/big.txt")
	reply, refs, _ = s.HandleMessage(V20250326, []byte("["+r+","+r+","+r+"]"))
	answers = gjson.ParseBytes(resolved(t, s, reply, refs)).Array()
	if len(answers) != 3 || answers[1].Get("result.contents.0.text").Str != big || answers[2].Get("error.code").Int() != -32603 {
		t.Fatalf("three 12 MiB reads: %d answers, %.200s", len(answers), answers[2].Raw)
	}
	if !strings.Contains(answers[2].Get("error.message").Str, strconv.Itoa(batchMaxSpliced>>20)+" MiB") {
		t.Fatalf("the error does not say the bound: %s", answers[2].Raw)
	}
}
