package wire

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	full := `{"endpoint":"/x","allowOrigins":["*","https://a.example"],"allowHosts":["h.example"],` +
		`"maxBody":1048576,"pageSize":7,"instructions":"Use it.","name":"n","version":"9.9.9","tools":true,"prompts":true,"listChanged":true}`
	for _, tc := range []struct {
		name string
		in   string
		want Options
	}{
		{"empty input", "", Options{}},
		{"empty object", `{}`, Options{}},
		{"whitespace around", " \n\t{ } \r\n", Options{}},
		{"every key", full, Options{Endpoint: "/x", AllowOrigins: []string{"*", "https://a.example"}, AllowHosts: []string{"h.example"},
			MaxBody: 1 << 20, PageSize: 7, Instructions: "Use it.", Name: "n", Version: "9.9.9", Tools: true, Prompts: true, ListChanged: true}},
		{"fallbacks off", `{"tools":false,"prompts":false}`, Options{}},
		{"listChanged false", `{"listChanged":false}`, Options{}},
		{"endpoint", `{"endpoint":"/mcp/v1"}`, Options{Endpoint: "/mcp/v1"}},
		{"instructions with escapes", `{"instructions":"a\nb \"q\" \u00e9"}`, Options{Instructions: "a\nb \"q\" é"}},
		{"empty strings", `{"endpoint":"","name":"","version":"","instructions":""}`, Options{}},
		{"empty arrays", `{"allowOrigins":[],"allowHosts":[]}`, Options{AllowOrigins: []string{}, AllowHosts: []string{}}},
		{"empty string element", `{"allowHosts":[""]}`, Options{AllowHosts: []string{""}}},
		{"zero counts", `{"maxBody":0,"pageSize":0}`, Options{}},
		{"negative zero", `{"pageSize":-0}`, Options{}},
		{"exponent", `{"maxBody":1e3}`, Options{MaxBody: 1000}},
		{"integral fraction", `{"pageSize":2.0}`, Options{PageSize: 2}},
		{"largest count", `{"maxBody":2147483647}`, Options{MaxBody: 2147483647}},
		{"escaped key", `{"end\u0070oint":"/e"}`, Options{Endpoint: "/e"}},
		{"auth, kept as given", `{"auth":{"resource":"https://s.example/mcp", "tokens":[]}}`, Options{Auth: []byte(`{"resource":"https://s.example/mcp", "tokens":[]}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOptions([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseOptions(%s): %v", tc.in, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseOptions(%s) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
	if o, err := ParseOptions(nil); err != nil || !reflect.DeepEqual(o, Options{}) {
		t.Errorf("ParseOptions(nil) = %#v, %v", o, err)
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr string
	}{
		// Not JSON, or not an object.
		{`{"auth":"x"}`, "option auth must be an object"},
		{" ", "not valid JSON"},
		{"{", "not valid JSON"},
		{`{"name":}`, "not valid JSON"},
		{`{"name":"x",}`, "not valid JSON"},
		{`{}{}`, "not valid JSON"},
		{`{name:"x"}`, "not valid JSON"},
		{`{'name':'x'}`, "not valid JSON"},
		{"\xff", "not valid JSON"},
		{`null`, "must be a JSON object"},
		{`[]`, "must be a JSON object"},
		{`[{"name":"x"}]`, "must be a JSON object"},
		{`"{}"`, "must be a JSON object"},
		{`1`, "must be a JSON object"},
		{`true`, "must be a JSON object"},

		// Unknown keys.
		{`{"foo":1}`, `unknown option "foo"`},
		{`{"Endpoint":"/x"}`, `unknown option "Endpoint"`},
		{`{"page_size":1}`, `unknown option "page_size"`},
		{`{"":1}`, `unknown option ""`},
		{`{"name":"x","foo":1}`, `unknown option "foo"`},

		// Strings.
		{`{"endpoint":1}`, "option endpoint must be a string"},
		{`{"endpoint":null}`, "option endpoint must be a string"},
		{`{"endpoint":["/x"]}`, "option endpoint must be a string"},
		{`{"endpoint":{}}`, "option endpoint must be a string"},
		{`{"instructions":true}`, "option instructions must be a string"},
		{`{"name":false}`, "option name must be a string"},
		{`{"version":0.1}`, "option version must be a string"},

		// Booleans.
		{`{"listChanged":"true"}`, "option listChanged must be true or false"},
		{`{"listChanged":1}`, "option listChanged must be true or false"},
		{`{"listChanged":null}`, "option listChanged must be true or false"},

		// Counts.
		{`{"maxBody":-1}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":1.5}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":0.0001}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":-0.5}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":"10"}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":null}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":true}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":[1]}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":2147483648}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":1e400}`, "option maxBody must be a non-negative integer"},
		{`{"maxBody":-1e400}`, "option maxBody must be a non-negative integer"},
		{`{"pageSize":-3}`, "option pageSize must be a non-negative integer"},
		{`{"pageSize":2.5}`, "option pageSize must be a non-negative integer"},
		{`{"pageSize":"1"}`, "option pageSize must be a non-negative integer"},
		{`{"pageSize":{}}`, "option pageSize must be a non-negative integer"},

		// String lists.
		{`{"allowOrigins":"*"}`, "option allowOrigins must be an array of strings"},
		{`{"allowOrigins":null}`, "option allowOrigins must be an array of strings"},
		{`{"allowOrigins":{}}`, "option allowOrigins must be an array of strings"},
		{`{"allowOrigins":[1]}`, "option allowOrigins must be an array of strings"},
		{`{"allowOrigins":["a",null]}`, "option allowOrigins must be an array of strings"},
		{`{"allowOrigins":[["a"]]}`, "option allowOrigins must be an array of strings"},
		{`{"allowHosts":true}`, "option allowHosts must be an array of strings"},
		{`{"allowHosts":["a",{}]}`, "option allowHosts must be an array of strings"},
		{`{"allowHosts":[false]}`, "option allowHosts must be an array of strings"},

		// Flags.
		{`{"tools":1}`, "option tools must be true or false"},
		{`{"tools":"true"}`, "option tools must be true or false"},
		{`{"prompts":null}`, "option prompts must be true or false"},
		{`{"prompts":[true]}`, "option prompts must be true or false"},
	} {
		_, err := ParseOptions([]byte(tc.in))
		if err == nil {
			t.Errorf("ParseOptions(%q) succeeded, want an error containing %q", tc.in, tc.wantErr)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseOptions(%q) = %q, want an error containing %q", tc.in, err, tc.wantErr)
		}
	}
}

// TestOptionsJSONRoundTrip checks that JSON renders what ParseOptions reads back.
func TestOptionsJSONRoundTrip(t *testing.T) {
	for _, o := range []Options{
		{},
		{Endpoint: "/x", MaxBody: 7, PageSize: 3, Instructions: "say \"hi\"\n", Name: "n", Version: "v"},
		{AllowOrigins: []string{"*"}, AllowHosts: []string{Loopback, "skills.example"}},
		{AllowOrigins: []string{}},
		{ListChanged: true},
		{Auth: []byte(`{"resource":"https://s.example/mcp"}`)},
	} {
		got, err := ParseOptions(o.JSON())
		if err != nil || !reflect.DeepEqual(got, o) {
			t.Errorf("ParseOptions(%s) = %+v, %v; want %+v", o.JSON(), got, err, o)
		}
	}
	if _, err := ParseOptions(Options{PageSize: -1}.JSON()); err == nil {
		t.Error("a negative page size renders to options that parse")
	}
}
